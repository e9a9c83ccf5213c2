#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# biobenchd's HTTP API over loopback: every route against
# schema/openapi.yaml, a real nop job from submission to comparison,
# cancellation, the malformed-request corpus (tests/integration/malformed/),
# body limits, auth with a token, static files, and a clean SIGTERM stop.
#
# usage: daemon_http.sh path/to/biobenchd [path/to/biobench]
source "$(dirname "$0")/daemon_lib.sh"

# expect STATUS DESCRIPTION: the last api call had STATUS and its body
# matches the OpenAPI document (a failure is counted, never fatal).
expect() {
  local want=$1 what=$2 why
  if [ "$API_STATUS" != "$want" ]; then
    fail "$what: status $API_STATUS, wanted $want: $(head -c 300 "$API_BODY")"
    return 0
  fi
  if ! why=$(check_openapi "$API_BODY" "$LAST_METHOD" "$LAST_PATH" "$API_STATUS" 2>&1); then
    fail "$what: $why"
    return 0
  fi
  pass "$what ($want)"
}
call() { LAST_METHOD=$1; LAST_PATH=$2; api "$@"; }

daemon_start || { fail "biobenchd did not start"; finish; exit 1; }

# --- every read route against the schema ------------------------------------
call GET /api/v1/health && expect 200 "health"
[ "$(api_get 'd["status"]')" = ok ] && pass "health: status ok" || fail "health: $(cat "$API_BODY")"
call HEAD /api/v1/health && [ "$API_STATUS" = 200 ] && pass "HEAD health" || fail "HEAD health: $API_STATUS"
call GET /api/v1/host && expect 200 "host"
[ "$(api_get 'd["daemon"]["pid"]')" = "$DPID" ] && pass "host: daemon pid" || fail "host: pid $(api_get 'd["daemon"]["pid"]') != $DPID"
# the registry of a sqlite store: this daemon, under the system host name
call GET /api/v1/hosts && expect 200 "hosts"
hn=$(hostname)
[[ $hn =~ ^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$ ]] || hn=localhost
[ "$(api_get '",".join(h["name"] for h in d["hosts"])')" = "$hn" ] &&
  [ "$(api_get 'd["hosts"][0]["pid"]')" = "$DPID" ] &&
  pass "hosts: this daemon as $hn, pid $DPID" || fail "hosts: $(head -c 300 "$API_BODY")"
call GET /api/v1/devices && expect 200 "devices"
call GET /api/v1/jobs && expect 200 "empty job list"
[ "$(api_get 'len(d["jobs"])')" = 0 ] && pass "no jobs yet" || fail "jobs: $(cat "$API_BODY")"
call GET /metrics
if [ "$API_STATUS" = 200 ] && grep -q "^biobench_build_info{host=\"$hn\",version=\"[^\"]*\"} 1$" "$API_BODY" \
   && grep -q '^# TYPE biobench_jobs gauge$' "$API_BODY" \
   && [ "$(grep -c '^biobench_jobs{host="[^"]*",state="[a-z]*"} [0-9]*$' "$API_BODY")" = 7 ] \
   && grep -q '^# TYPE biobench_runs_total counter$' "$API_BODY" \
   && grep -q '^biobench_uptime_seconds{host="[^"]*"} [0-9.]*$' "$API_BODY" \
   && api_header Content-Type | grep -q '^text/plain; version=0.0.4'; then
  pass "metrics: Prometheus text with every family"
else
  fail "metrics: $API_STATUS $(head -c 600 "$API_BODY")"
fi

# --- a real job on nop, from submission to comparison -----------------------
JOB='{"name":"it nop","target":"nop","workload":{"number_ios":20000,"iodepth":16},
 "variants":{"A":{"bio_cache":"off"},"B":{"bio_cache":"all"}},"repeat":3,"warmup":1}'
call POST /api/v1/jobs "$JOB" && expect 201 "submit a nop job"
ID=$(api_get 'd["id"]')
[ "$(api_get 'd["url"]')" = "/api/v1/jobs/$ID" ] && pass "submit: url of the job" || fail "submit: $(cat "$API_BODY")"
call GET "/api/v1/jobs/$ID" && expect 200 "get the job"
call GET "/api/v1/jobs?state=queued" && expect 200 "list queued"
st=$(WAIT_S=120 wait_state "$ID" done failed cancelled interrupted) || true
if [ "$st" = done ]; then
  pass "job $ID ran to done"
  call GET "/api/v1/jobs/$ID" && expect 200 "get the finished job"
  [ "$(api_get 'd["claimed_by"]')" = "$hn" ] && [ "$(api_get 'd["for_host"]')" = null ] &&
    pass "the job was claimed by this daemon ($hn), addressed to any host" ||
    fail "claimed_by $(api_get 'd["claimed_by"]'), for_host $(api_get 'd["for_host"]')"
  [ "$(api_get 'd["runs_done"]')" = 8 ] && pass "8 runs done (2 variants x (3 + 1 warm-up))" \
    || fail "runs_done $(api_get 'd["runs_done"]') != 8"
  call GET "/api/v1/jobs/$ID/runs" && expect 200 "runs"
  [ "$(api_get 'len(d["runs"])')" = 8 ] && pass "8 runs listed" || fail "runs: $(head -c 300 "$API_BODY")"
  call GET "/api/v1/jobs/$ID/runs?samples=1" && expect 200 "runs with samples"
  call GET "/api/v1/jobs/$ID/compare" && expect 200 "compare"
  [ "$(api_get 'd["final"]')" = true ] && pass "compare: final" || fail "compare: $(head -c 300 "$API_BODY")"
  call POST "/api/v1/jobs/$ID/cancel" && expect 409 "cancel a finished job"
  grep -q "already finished (done)" "$API_BODY" && pass "409 names the state" || fail "409 body: $(cat "$API_BODY")"
  call GET /metrics
  grep -q '^biobench_jobs{host="[^"]*",state="done"} 1$' "$API_BODY" && grep -q '^biobench_runs_total{host="[^"]*"} 8$' "$API_BODY" \
    && ! grep -q 'target=' "$API_BODY" \
    && pass "metrics count the job and its runs (no series per target)" \
    || fail "metrics after the job: $(cat "$API_BODY")"
else
  fail "job $ID ended as '$st': $(head -c 400 "$API_BODY")"
fi
call GET "/api/v1/jobs?state=done&limit=1" && expect 200 "list done, limit 1"
call POST /api/v1/jobs '{"name":"elsewhere","target":"nop","host":"no-such-host","variants":{"A":{},"B":{}}}'
expect 400 "a job for a host no daemon registered"
[ "$(api_get 'd["error"]["field"]')" = host ] && grep -q "registered: $hn" "$API_BODY" &&
  pass "400 on host naming the registered one" || fail "unknown host: $(cat "$API_BODY")"

# --- cancellation: a long job, cancelled while queued or running ------------
LONG='{"name":"it long","target":"nop","workload":{"runtime":"20s"},
 "variants":{"A":{},"B":{"bio_cache":"off"}},"repeat":3,"warmup":0}'
call POST /api/v1/jobs "$LONG" && expect 201 "submit a long job"
LID=$(api_get 'd["id"]')
call POST /api/v1/jobs "$LONG" && expect 201 "submit a second long job (stays queued)"
QID=$(api_get 'd["id"]')
call POST "/api/v1/jobs/$QID/cancel" && expect 200 "cancel a queued job"
[ "$(api_get 'd["state"]')" = cancelled ] && pass "queued job cancelled at once" || fail "cancel queued: $(cat "$API_BODY")"
WAIT_S=10 wait_state "$LID" running >/dev/null || true
call GET "/api/v1/jobs/$LID" && expect 200 "get the running job"
call GET /api/v1/health && expect 200 "health while a job runs"
call POST "/api/v1/jobs/$LID/cancel" && expect 200 "cancel the running job"
st=$(WAIT_S=10 wait_state "$LID" cancelled done failed) || true
[ "$st" = cancelled ] && pass "running job cancelled within seconds" || fail "running job state '$st'"
call POST "/api/v1/jobs/$LID/cancel" && expect 409 "second cancel"

# --- the malformed corpus ------------------------------------------------------
CORPUS=$HERE/malformed
n=0
while read -r status method path body field _; do
  case "$status" in ''|\#*) continue ;; esac
  n=$((n + 1))
  what="corpus: $method $path${body:+ }$([ "$body" = - ] || echo "$body")"
  if [ "$body" != - ]; then
    sed "s|@TMP@|$TMP|g" "$CORPUS/$body" >"$TMP/corpus.body"
    call "$method" "$path" "@$TMP/corpus.body"
  else
    call "$method" "$path"
  fi
  if [ "$API_STATUS" != "$status" ]; then
    fail "$what: status $API_STATUS, wanted $status: $(head -c 300 "$API_BODY")"
  elif [ "$field" != - ] && [ "$(api_get 'd["error"]["field"]')" != "$field" ]; then
    fail "$what: field '$(api_get 'd["error"]["field"]')', wanted '$field': $(head -c 300 "$API_BODY")"
  elif [ "$status" = 405 ] && [ -z "$(api_header Allow)" ]; then
    fail "$what: 405 without Allow"
  elif ! why=$(check_openapi "$API_BODY" "$method" "$path" "$API_STATUS" 2>&1); then
    fail "$what: $why"
  else
    pass "$what -> $status${field:+ }$([ "$field" = - ] || echo "field $field")"
  fi
  health_ok || { fail "daemon stopped answering after: $what"; break; }
done <"$CORPUS/cases"
[ "$n" -ge 40 ] && pass "corpus has $n cases" || fail "corpus has only $n cases"

# --- body limits -----------------------------------------------------------------
head -c $((1024 * 1024 + 1)) /dev/zero | tr '\0' ' ' >"$TMP/big.json"
call POST /api/v1/jobs "@$TMP/big.json" && expect 413 "body of 1 MiB + 1 byte"
call POST /api/v1/jobs "@$TMP/big.json" -H 'Transfer-Encoding: chunked'
expect 413 "chunked body over 1 MiB"
call POST "/api/v1/jobs/1/cancel" "@$TMP/big.json" && expect 413 "big body on cancel"
head -c $((1024 * 1024)) /dev/zero | tr '\0' ' ' >"$TMP/limit.json"
call POST /api/v1/jobs "@$TMP/limit.json" && expect 400 "body of exactly 1 MiB is read (and is not a job)"
health_ok && pass "alive after the big bodies" || fail "daemon died after big bodies"

# --- static files -----------------------------------------------------------------
call GET /
[ "$API_STATUS" = 200 ] && grep -q '<title>biobench</title>' "$API_BODY" \
  && api_header Content-Type | grep -q '^text/html' \
  && [ "$(api_header Cache-Control)" = no-cache ] \
  && pass "GET / serves index.html, no-cache" || fail "GET /: $API_STATUS $(api_header Content-Type)"
call GET /app.js
[ "$API_STATUS" = 200 ] && api_header Content-Type | grep -q javascript \
  && pass "app.js as JavaScript" || fail "app.js: $API_STATUS $(api_header Content-Type)"
call GET /app.css
[ "$API_STATUS" = 200 ] && api_header Content-Type | grep -q '^text/css' \
  && pass "app.css as CSS" || fail "app.css: $API_STATUS"
if [ -f /usr/share/javascript/jquery/jquery.min.js ]; then
  call GET /javascript/jquery/jquery.min.js
  [ "$API_STATUS" = 200 ] && pass "/javascript/ maps to /usr/share/javascript" || fail "/javascript/: $API_STATUS"
fi

# --- stop and restart with a token ----------------------------------------------
daemon_stop && pass "SIGTERM: clean exit" || fail "SIGTERM: exit $?"
printf 's3cret-%s\n' "$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')" >"$TMP/token"
chmod 600 "$TMP/token"
if daemon_start --token-file "$TMP/token"; then
  TOKEN=
  call GET /api/v1/jobs
  [ "$API_STATUS" = 401 ] && api_header WWW-Authenticate | grep -q '^Bearer' \
    && pass "no token: 401 with WWW-Authenticate: Bearer" || fail "no token: $API_STATUS"
  check_openapi "$API_BODY" GET /api/v1/jobs 401 && pass "401 body matches the schema" || fail "401 body"
  TOKEN=wrong
  call GET /api/v1/jobs && [ "$API_STATUS" = 401 ] && pass "wrong token: 401" || fail "wrong token: $API_STATUS"
  call GET / && [ "$API_STATUS" = 200 ] && pass "static files need no token (a page load sends none)" || fail "static without token: $API_STATUS"
  TOKEN=$(head -n1 "$TMP/token")
  call GET /api/v1/jobs && expect 200 "right token"
  n=$(api_get 'len(d["jobs"])')
  [ "${n:-0}" -ge 3 ] && pass "the store survived the restart" || fail "jobs after restart: $(head -c 200 "$API_BODY")"
  TOKEN=
  call GET /api/v1/health && expect 200 "health from loopback needs no token"
  # the same port twice: a clear error
  rc=0
  "$DAEMON" --foreground --config "$DCONF" --listen "127.0.0.1:$DPORT" \
    --db "$TMP/other.db" --web-root "$DWEB" >"$TMP/dup.out" 2>"$TMP/dup.err" &
  dup=$!
  for _ in $(seq 1 50); do kill -0 $dup 2>/dev/null || break; sleep 0.1; done
  if kill -0 $dup 2>/dev/null; then
    daemon_kill $dup; fail "a second daemon on a used port kept running"
  else
    wait $dup || rc=$?
    [ "$rc" != 0 ] && grep -q "cannot listen on 127.0.0.1:$DPORT" "$TMP/dup.err" \
      && pass "port in use: exit $rc, 'cannot listen on 127.0.0.1:$DPORT'" \
      || fail "port in use: exit $rc: $(cat "$TMP/dup.err")"
  fi
  daemon_stop && pass "SIGTERM with a token: clean exit" || fail "SIGTERM: exit $?"
else
  fail "biobenchd with a token file did not start"
fi

finish
