#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# daemon_pg.sh BIOBENCHD BIOBENCH - biobenchd on a PostgreSQL store, end to
# end: run by ctest it_daemon_pg under tests/pg/pgtmp.sh (a throwaway
# server; BB_TEST_STORE its URI, BB_TEST_PG_STOP/START).  A store with a
# password is refused naming the field, without the password; the real
# daemon with --store runs an A/B job on nop to done, its answers as
# openapi.yaml says, /metrics counts it; the server stopped: /health 503
# naming the database (no password), the daemon alive; started again:
# /health 200 at once (the idle connections found closed and reset), a new
# job runs to done and nothing stored before is lost.
source "$(dirname "$0")/daemon_lib.sh"

[ -n "${BB_TEST_STORE:-}" ] || skip "BB_TEST_STORE is not set (run under tests/pg/pgtmp.sh)"
DSTORE=$BB_TEST_STORE
JOB='{"name":"pg","target":"nop","workload":{"runtime":"100ms","iodepth":8},
      "variants":{"A":{},"B":{"inject_ns":2000}},"repeat":2,"warmup":0}'

# --- a password in the store is refused -------------------------------------
write_config
pw=${DSTORE/postgres@/postgres:s3cret@}
if "$DAEMON" --foreground --config "$DCONF" --store "$pw" --listen 127.0.0.1:1 \
    >"$TMP/pw.out" 2>&1; then
  fail "a store with a password was accepted"
else
  grep -q "store" "$TMP/pw.out" && grep -q "pgpass" "$TMP/pw.out" &&
    ! grep -q s3cret "$TMP/pw.out" &&
    pass "a password in --store refused naming the field, not repeated: $(head -c 200 "$TMP/pw.out")" ||
    fail "password refusal message: $(cat "$TMP/pw.out")"
fi

wait_done() { # ID: the job's final state
  local st
  for _ in $(seq 1 600); do
    api GET "/api/v1/jobs/$1"
    st=$(api_get 'd["state"]')
    case $st in done|failed|cancelled|interrupted) echo "$st"; return ;; esac
    sleep 0.1
  done
  echo "$st"
}

# --- a job through the daemon -----------------------------------------------
daemon_start || { fail "biobenchd --store did not start"; finish; }
grep -q "store postgresql://postgres@" "$DLOG" &&
  pass "the log names the store: $(grep -o 'store postgresql://[^;]*' "$DLOG")" ||
  fail "the log does not name the store"
# --- one daemon per host name (other names share the database: fleet_pg) ---
hn=$(hostname)
bb_host_name_ok() { [[ $1 =~ ^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$ ]]; }
bb_host_name_ok "$hn" || hn=localhost
if timeout 30 "$DAEMON" --foreground --config "$DCONF" --store "$DSTORE" \
    --listen 127.0.0.1:1 >"$TMP/second.out" 2>&1; then
  fail "a second daemon with the same host name started on the same database"
else
  grep -q "host name $hn is in use by another biobenchd on database .* (biobenchd pid $DPID, host $hn)" "$TMP/second.out" &&
    pass "a second daemon with the same host name refused, naming host and pid: $(head -c 300 "$TMP/second.out")" ||
    fail "second daemon: $(cat "$TMP/second.out")"
fi
api GET /api/v1/health
[ "$API_STATUS" = 200 ] && [ "$(api_get 'd["schema_version"]')" = 7 ] &&
  pass "health 200, schema version 6" || fail "health $API_STATUS: $(cat "$API_BODY")"
api GET /api/v1/hosts
[ "$API_STATUS" = 200 ] && [ "$(api_get '",".join(h["name"] for h in d["hosts"])')" = "$hn" ] &&
  pass "GET /api/v1/hosts: the daemon registered as $hn" || fail "hosts $API_STATUS: $(head -c 300 "$API_BODY")"
id=$(submit_job "$JOB") || fail "submit"
st=$(wait_done "$id")
[ "$st" = done ] && pass "job $id done on the PostgreSQL store" ||
  fail "job $id: $st: $(cat "$API_BODY")"
check_openapi "$API_BODY" GET "/api/v1/jobs/$id" 200 &&
  pass "the job document is as openapi.yaml says" || fail "job document vs openapi"
api GET "/api/v1/jobs/$id/runs"
[ "$(api_get 'len(d["runs"])')" = 4 ] && pass "4 runs stored" ||
  fail "runs: $(head -c 300 "$API_BODY")"
api GET "/api/v1/jobs/$id/compare"
nc=$(api_get 'd["compare"]["comparisons"][0]["n"]')
[ "$API_STATUS" = 200 ] && [ "$nc" = 2 ] &&
  pass "comparison over $nc pairs: $(api_get 'd["compare"]["comparisons"][0]["verdict"]')" ||
  fail "compare $API_STATUS: n=$nc"
api GET /metrics
grep -q '^biobench_jobs{state="done"} 1$' "$API_BODY" && grep -q '^biobench_store_up 1$' "$API_BODY" &&
  pass "/metrics: 1 job done, store up" || fail "/metrics: $(grep -E 'jobs|store_up' "$API_BODY")"

# --- the server stopped, then started ---------------------------------------
$BB_TEST_PG_STOP >/dev/null 2>&1 || fail "pg_ctl stop"
api GET /api/v1/health
if [ "$API_STATUS" = 503 ] && grep -q "bbtest" "$API_BODY"; then
  pass "server down: health 503: $(api_get 'd["error"]["message"]' | head -c 160)"
else
  fail "server down: health $API_STATUS: $(cat "$API_BODY")"
fi
api POST /api/v1/jobs "$JOB"
[ "$API_STATUS" = 503 ] && pass "server down: a submission is 503" ||
  fail "server down: submission $API_STATUS"
daemon_alive && pass "the daemon keeps serving" || fail "the daemon died"
# down for longer than the scheduler's poll (1 s on PostgreSQL): its own
# connection is found lost too, and must come back without a statement
# of its own (it sends none while the store is unavailable)
sleep 2.5
$BB_TEST_PG_START >/dev/null 2>&1 || fail "pg_ctl start"
t0=$(date +%s%N)
for _ in $(seq 30); do
  api GET /api/v1/health
  [ "$API_STATUS" = 200 ] && break
  sleep 0.1
done
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$API_STATUS" = 200 ] && pass "server back: health 200 after $ms ms" ||
  fail "server back: health $API_STATUS after $ms ms: $(cat "$API_BODY")"
id2=$(submit_job "$JOB") || fail "submit after the restart"
st=$(wait_done "$id2")
[ "$st" = done ] && pass "job $id2 done after the restart" ||
  fail "job $id2 after the restart: $st: $(cat "$API_BODY")"
api GET "/api/v1/jobs?limit=10"
[ "$(api_get '[j["id"] for j in d["jobs"]]')" = "[$id2, $id]" ] &&
  pass "both jobs listed, none lost or duplicated" ||
  fail "list: $(head -c 300 "$API_BODY")"
api GET /api/v1/health
[ "$API_STATUS" = 200 ] && pass "healthy after the restart" || fail "health $API_STATUS"
grep -q s3cret "$DLOG" && fail "a password in the log" || pass "no password in the log"
daemon_stop && pass "SIGTERM: exit 0" || fail "daemon stop"
finish
