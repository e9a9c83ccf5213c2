#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# http_hardening.sh BIOBENCHD [BIOBENCH] - what a hostile web page or
# client can make biobenchd do over HTTP (issue 12), each with curl or raw
# sockets against a real daemon:
#  1. CSRF (#5): a cross-site text/plain or form POST, a POST with a
#     foreign Origin or Sec-Fetch-Site: cross-site, is refused (415/403)
#     and queues or cancels nothing; the daemon's own origin and plain
#     JSON clients (curl, the CLI) still work;
#  2. DNS rebinding (#5): a foreign Host gets 421 on the API, health and
#     the dashboard; localhost, 127.0.0.1 and allowed_hosts names are
#     answered;
#  3. HTTP framing (#10): two different Content-Length headers, an unknown
#     Transfer-Encoding, Transfer-Encoding with Content-Length: 400 within
#     2 s (not a hang until the timeout);
#  4. log injection (#7): a job named "x\n<0>forged\e]0;t\a" gives escaped
#     records, none of which starts with a priority of its own;
#  5. NUL (#11): "\u0000" in a name, a target or a key: 400 naming it;
#  6. costs (#23): a queue of max_queued_jobs answers 429 with the numbers
#     and Retry-After; a 292-year job 400 with the numbers; /metrics passes
#     `promtool check metrics` (when installed), has biobench_build_info
#     and no label per target.
source "$(dirname "$0")/../integration/daemon_lib.sh"

write_config
# server keys go under [server]: insert them after its header
sed -i 's/^\[server\]$/[server]\nallowed_hosts = bench.test, proxy.test:8443\nmax_queued_jobs = 3/' "$DCONF"
daemon_start || { finish; exit 1; }
U=http://127.0.0.1:$DPORT

# code CURL_ARGS...: the status; body in $TMP/b, headers in $TMP/h
code() { curl -s -o "$TMP/b" -D "$TMP/h" -w '%{http_code}' --max-time 10 "$@" || true; }
njobs() { api GET "/api/v1/jobs?limit=500"; api_get 'len(d["jobs"])'; }
LONG='{"name":"long","target":"nop","workload":{"runtime":"1s"},"variants":{"A":{},"B":{}},"repeat":100,"warmup":0}'
SHORT='{"name":"short","target":"nop","workload":{"number_ios":1000},"variants":{"A":{},"B":{}},"repeat":2,"warmup":0}'

# --- 1. CSRF ----------------------------------------------------------------
before=$(njobs)
c=$(code -X POST -H 'Content-Type: text/plain' -H 'Origin: http://evil.example' --data-binary "$SHORT" "$U/api/v1/jobs")
[[ $c =~ ^(403|415)$ ]] && pass "cross-site text/plain POST: $c" || fail "cross-site text/plain POST: $c $(cat "$TMP/b")"
c=$(code -X POST -H 'Content-Type: text/plain' --data-binary "$SHORT" "$U/api/v1/jobs")
[ "$c" = 415 ] && grep -q application/json "$TMP/b" && pass "text/plain POST: 415 naming application/json" || fail "text/plain POST: $c $(cat "$TMP/b")"
c=$(code -X POST --data-urlencode "x=$SHORT" "$U/api/v1/jobs")
[ "$c" = 415 ] && pass "form POST (application/x-www-form-urlencoded): 415" || fail "form POST: $c"
c=$(code -X POST -F "x=$SHORT" "$U/api/v1/jobs")
[ "$c" = 415 ] && pass "multipart form POST: 415" || fail "multipart POST: $c"
c=$(code -X POST -H 'Content-Type: application/json' -H 'Origin: http://evil.example' --data-binary "$SHORT" "$U/api/v1/jobs")
[ "$c" = 403 ] && pass "JSON POST from a foreign Origin: 403" || fail "foreign Origin: $c"
c=$(code -X POST -H 'Content-Type: application/json' -H 'Origin: null' --data-binary "$SHORT" "$U/api/v1/jobs")
[ "$c" = 403 ] && pass "JSON POST from Origin null: 403" || fail "Origin null: $c"
c=$(code -X POST -H 'Content-Type: application/json' -H 'Sec-Fetch-Site: cross-site' --data-binary "$SHORT" "$U/api/v1/jobs")
[ "$c" = 403 ] && pass "Sec-Fetch-Site: cross-site: 403" || fail "Sec-Fetch-Site: $c"
after=$(njobs)
[ "$before" = "$after" ] && pass "no job queued by the refused POSTs ($after)" || fail "jobs $before -> $after"
# the daemon's own page (Origin = its origin) and plain clients
c=$(code -X POST -H 'Content-Type: application/json' -H "Origin: http://127.0.0.1:$DPORT" -H 'Sec-Fetch-Site: same-origin' --data-binary "$LONG" "$U/api/v1/jobs")
[ "$c" = 201 ] && pass "same-origin JSON POST: 201" || fail "same-origin POST: $c $(cat "$TMP/b")"
lid=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$TMP/b" 2>/dev/null || echo 0)
WAIT_S=30 wait_state "$lid" running >/dev/null || fail "job $lid does not run"
# a cross-site page cancelling the running job
for h in "-H Origin:http://evil.example" "-H Sec-Fetch-Site:cross-site" "-H Content-Type:text/plain" ""; do
  # shellcheck disable=SC2086
  c=$(code -X POST $h "$U/api/v1/jobs/$lid/cancel")
  [[ $c =~ ^(403|415)$ ]] && pass "cancel with '${h:-no Content-Type}': $c" || fail "cancel with '$h': $c"
done
api GET "/api/v1/jobs/$lid"
[ "$(api_get 'd["state"]')" = running ] && pass "job $lid still running after the cross-site cancels" || fail "job $lid: $(api_get 'd["state"]')"
if [ -x "$CLI" ]; then
  "$CLI" --server "$U" cancel "$lid" >"$TMP/cli.out" 2>&1 && pass "biobench cancel (JSON POST) works: $(head -c 80 "$TMP/cli.out")" ||
    fail "biobench cancel: $(cat "$TMP/cli.out")"
else
  api POST "/api/v1/jobs/$lid/cancel"
  [ "$API_STATUS" = 200 ] && pass "JSON cancel: 200" || fail "cancel: $API_STATUS"
fi
WAIT_S=20 wait_state "$lid" cancelled >/dev/null && pass "job $lid cancelled" || fail "job $lid not cancelled"

# --- 2. DNS rebinding -----------------------------------------------------------
for p in /api/v1/jobs /api/v1/health / /metrics; do
  c=$(code -H "Host: evil.example:$DPORT" "$U$p")
  [ "$c" = 421 ] && grep -q host_not_allowed "$TMP/b" && pass "Host evil.example:$DPORT on $p: 421 (JSON)" ||
    fail "foreign Host on $p: $c $(head -c 200 "$TMP/b")"
done
c=$(code -X POST -H "Host: evil.example:$DPORT" -H 'Content-Type: application/json' --data-binary "$SHORT" "$U/api/v1/jobs")
[ "$c" = 421 ] && pass "POST with a foreign Host: 421" || fail "POST foreign Host: $c"
c=$(code -H "Host: 127.0.0.1:1" "$U/api/v1/health")
[ "$c" = 421 ] && pass "Host 127.0.0.1 with another port: 421" || fail "other port: $c"
for h in "localhost:$DPORT" "127.0.0.1:$DPORT" "localhost" "bench.test:$DPORT" "bench.test" "proxy.test:8443"; do
  c=$(code -H "Host: $h" "$U/api/v1/health")
  [ "$c" = 200 ] && pass "Host $h: 200" || fail "Host $h: $c"
done
c=$(code -H "Host: proxy.test" "$U/api/v1/health")
[ "$c" = 421 ] && pass "Host proxy.test without its configured port: 421" || fail "proxy.test: $c"

# --- 3. framing -----------------------------------------------------------------
/usr/bin/python3 - "$DPORT" >"$TMP/framing.out" 2>&1 <<'PY' || true
import socket, sys, time
port = int(sys.argv[1])
H = b"Host: 127.0.0.1:%d\r\nContent-Type: application/json\r\n" % port
# a valid job: a server that picks one of the framings queues it (201)
J = (b'{"name":"framing","target":"nop","workload":{"number_ios":1000},'
     b'"variants":{"A":{},"B":{}},"repeat":2,"warmup":0}')
C = b"%x\r\n%s\r\n0\r\n\r\n" % (len(J), J)
cases = [
    ("two different Content-Length",
     b"Content-Length: %d\r\nContent-Length: %d\r\n\r\n%s" % (len(J), len(J) + 40, J)),
    ("Transfer-Encoding: gzip", b"Transfer-Encoding: gzip\r\n\r\n" + J),
    ("Transfer-Encoding: gzip, chunked", b"Transfer-Encoding: gzip, chunked\r\n\r\n" + C),
    ("Transfer-Encoding with Content-Length",
     b"Transfer-Encoding: chunked\r\nContent-Length: %d\r\n\r\n%s" % (len(J), C)),
]
for name, rest in cases:
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(8)
    t0 = time.time()
    s.sendall(b"POST /api/v1/jobs HTTP/1.1\r\n" + H + rest)
    r = b""
    try:
        while b"}" not in r:
            d = s.recv(4096)
            if not d:
                break
            r += d
    except socket.timeout:
        pass
    dt = time.time() - t0
    status = r.split(b" ")[1].decode() if r.startswith(b"HTTP/1.1 ") else "none"
    code = "bad_request" if b'"code":"bad_request"' in r else "other"
    print("%s|%s|%s|%.2f" % (name, status, code, dt))
    s.close()
PY
while IFS='|' read -r name st what dt; do
  if [ "$st" = 400 ] && [ "$what" = bad_request ] && awk -v d="$dt" 'BEGIN { exit !(d < 2) }'; then
    pass "$name: 400 bad_request in $dt s"
  else fail "$name: status $st ($what) after $dt s"; fi
done <"$TMP/framing.out"
[ "$(wc -l <"$TMP/framing.out")" = 4 ] || fail "framing probe: $(cat "$TMP/framing.out")"
health_ok && pass "daemon answers after the framing probes" || fail "daemon stuck after framing probes"

# --- 4. log injection -------------------------------------------------------------
api POST /api/v1/jobs '{"name":"x\n<0>forged\u001b]0;owned\u0007","target":"nop","workload":{"number_ios":1000},"variants":{"A":{},"B":{}},"repeat":2,"warmup":0}'
if [ "$API_STATUS" = 201 ]; then
  fid=$(api_get 'd["id"]')
  WAIT_S=30 wait_state "$fid" done failed >/dev/null || true
  sleep 0.3
  forged=$(grep -c "forged" "$DLOG" || true)
  bad=$(grep -c -E '^<[0-7]>forged|^forged|^<0>' "$DLOG" || true)
  esc=$(grep -c $'\e' "$DLOG" || true)
  if [ "$forged" -ge 1 ] && [ "$bad" = 0 ] && [ "$esc" = 0 ] && grep -q 'x\\n<0>forged\\e\]0;owned\\x07' "$DLOG"; then
    pass "job name with newline + <0> + OSC: $forged escaped record(s), none forged: $(grep -m1 forged "$DLOG")"
  else
    fail "log injection: $forged records with 'forged', $bad forged lines, $esc raw ESC: $(grep -B1 -A1 forged "$DLOG" | cat -v | head -5)"
  fi
else
  fail "submitting the forging name: $API_STATUS $(cat "$API_BODY")"
fi

# --- 5. NUL -----------------------------------------------------------------------
for case in 'name|{"name":"a\u0000b","target":"nop","variants":{"A":{},"B":{}}}' \
            'target|{"name":"a","target":"nop\u0000x","variants":{"A":{},"B":{}}}' \
            '|{"name\u0000x":"a","target":"nop","variants":{"A":{},"B":{}}}'; do
  field=${case%%|*}; body=${case#*|}
  api POST /api/v1/jobs "$body"
  got=$(api_get 'd["error"]["field"]')
  msg=$(api_get 'd["error"]["message"]')
  if [ "$API_STATUS" = 400 ] && [ "$got" = "${field:-null}" ] && grep -q NUL <<<"$msg"; then
    pass "\\u0000 in ${field:-a key}: 400: $msg"
  else
    fail "\\u0000 in ${field:-a key}: $API_STATUS field $got: $msg"
  fi
done

# --- 6. costs ---------------------------------------------------------------------
api POST /api/v1/jobs '{"name":"292 years","target":"nop","workload":{"runtime":"4600000s"},"variants":{"A":{},"B":{}},"repeat":1000,"warmup":1}'
msg=$(api_get 'd["error"]["message"]')
if [ "$API_STATUS" = 400 ] && grep -q "2002 runs" <<<"$msg" && grep -q "max_job_seconds = 604800" <<<"$msg"; then
  pass "a 292-year job: 400: $msg"
else fail "292-year job: $API_STATUS $msg"; fi
# fill the queue (one job runs, three wait: max_queued_jobs = 3)
for i in 1 2 3 4 5; do
  api POST /api/v1/jobs "$LONG"
  [ "$API_STATUS" = 201 ] || break
done
msg=$(api_get 'd["error"]["message"]')
if [ "$API_STATUS" = 429 ] && grep -q "3 jobs are queued, the limit is 3" <<<"$msg" && [ "$(api_header Retry-After)" = 60 ]; then
  pass "queue full: 429 with Retry-After 60: $msg"
else fail "queue full: $API_STATUS $msg (Retry-After '$(api_header Retry-After)')"; fi
api GET /metrics
cp "$API_BODY" "$TMP/metrics.txt"
if grep -q '^biobench_build_info{host="[^"]*",version="[^"]*"} 1$' "$TMP/metrics.txt" && ! grep -q 'target=' "$TMP/metrics.txt" &&
   grep -q '^biobench_jobs{host="[^"]*",state="queued"} 3$' "$TMP/metrics.txt" && grep -q '^biobench_store_up{host="[^"]*"} 1$' "$TMP/metrics.txt"; then
  pass "metrics: build info, 3 queued, store up, no label per target ($(grep -vc '^#' "$TMP/metrics.txt") series)"
else fail "metrics: $(cat "$TMP/metrics.txt")"; fi
if command -v promtool >/dev/null; then
  if promtool check metrics <"$TMP/metrics.txt" >"$TMP/promtool.out" 2>&1; then pass "promtool check metrics: clean"
  else fail "promtool check metrics: $(cat "$TMP/promtool.out")"; fi
else
  echo "  (promtool not installed: apt install prometheus; the lint is skipped)"
fi
daemon_alive && pass "daemon alive at the end" || fail "daemon died"
daemon_stop || fail "daemon stop: exit $?"
echo "http_hardening tally: $PASSES passed, $FAILS failed"
finish
