#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# fleet_hardening_pg.sh BIOBENCHD BIOBENCH - a fleet on one PostgreSQL
# database (ctest it_fleet_hardening_pg, under tests/pg/pgtmp.sh), issue
# 31, lease_seconds 3:
#   - a job for any host whose target fleet-a's allow-list refuses is left
#     for fleet-b (the refusal and its reason stored, an event), which
#     runs it when it is free; one both refuse fails, naming each host's
#     reason; one refused by fleet-a while fleet-b then goes away fails at
#     fleet-a's sweep once no live host is left;
#   - fleet-b, stopped, is removed from the registry after
#     host_gone_seconds (fleet-a's --host-gone-seconds 4), the job queued
#     for it failed naming why;
#   - leases on the database's clock: a daemon whose clock runs an hour
#     ahead (faketime) neither interrupts fleet-a's running job nor takes
#     over its claims; the job ends done;
#   - the host-name lock is the name's, not a 32-bit hash: two names with
#     the same hashtext() (found in the database) run side by side, and
#     the same name twice is still refused.
source "$(dirname "$0")/daemon_lib.sh"

[ -n "${BB_TEST_STORE:-}" ] || skip "BB_TEST_STORE is not set (run under tests/pg/pgtmp.sh)"
command -v psql >/dev/null || skip "psql is not installed"
DSTORE=$BB_TEST_STORE
LEASE=3
sql() { psql "$BB_TEST_STORE" -XAtq -c "$1"; }

# conf NAME DIR: a configuration allowing nop and DIR/*.dat
conf() {
  write_config
  sed -i "s|^allow = .*/ro/\*\.dat$|allow = $2/*.dat|" "$DCONF"
  mv "$DCONF" "$TMP/$1.conf"
}
mkdir -p "$TMP/a" "$TMP/b"
conf a "$TMP/a"
conf b "$TMP/b"
dd if=/dev/urandom of="$TMP/b/x.dat" bs=1M count=4 status=none
cp "$TMP/b/x.dat" "$TMP/b/y.dat"
cp "$TMP/b/x.dat" "$TMP/b/z.dat"

start() { # N NAME CONF [args...]
  local n=$1 name=$2 c=$3; shift 3
  DCONF=$TMP/$c.conf fleet_daemon "$n" "$name" --lease-seconds "$LEASE" "$@"
}
start 1 fleet-a a --host-gone-seconds 4 || { fail "fleet-a did not start"; finish; exit 1; }
start 2 fleet-b b || { fail "fleet-b did not start"; finish; exit 1; }
busy() { # HOST SECONDS: a nop job for HOST of about SECONDS
  printf '{"name":"busy","target":"nop","host":"%s","workload":{"runtime":"1s"},"variants":{"A":{},"B":{"iodepth":8}},"repeat":%d,"warmup":0,"quiescence":{"mode":"off"}}' \
    "$1" $(($2 > 4 ? $2 / 2 : 2))
}
readjob() { # NAME TARGET
  printf '{"name":"%s","target":"%s","workload":{"runtime":"200ms","direct":false},"variants":{"A":{},"B":{"iodepth":8}},"repeat":2,"warmup":0,"quiescence":{"mode":"off"}}' \
    "$1" "$2"
}
refusals() { sql "SELECT host || '=' || reason FROM job_refusals WHERE job_id = $1 ORDER BY host"; }

# --- refused by fleet-a: left for fleet-b --------------------------------------
fleet_use 2
bid=$(submit_job "$(busy fleet-b 8)") || fail "submit the busy job"
wait_cond "$bid" 'd["state"] == "running"' 30 || fail "the busy job did not start"
xid=$(submit_job "$(readjob x "$TMP/b/x.dat")") || fail "submit job x"
for _ in $(seq 100); do [ -n "$(refusals "$xid")" ] && break; sleep 0.1; done
api GET "/api/v1/jobs/$xid"
r=$(refusals "$xid")
[ "$(api_get 'd["state"]')" = queued ] && grep -q "^fleet-a=.*$TMP/b/x.dat.*allow-list" <<<"$r" &&
  pass "fleet-a refused job x (its allow-list) and left it queued: $(head -c 200 <<<"$r")" ||
  fail "job x after fleet-a's refusal: $(api_get 'd["state"]') refusals '$r'"
[ "$(api_get 'd["refused_by"][0]["host"]')" = fleet-a ] && grep -q "allow-list" <<<"$(api_get 'd["refused_by"][0]["reason"]')" &&
  pass "the job document's refused_by names fleet-a and why" || fail "refused_by: $(head -c 400 "$API_BODY")"
check_openapi "$API_BODY" GET "/api/v1/jobs/$xid" 200 && pass "the job with refused_by matches openapi" ||
  fail "job x vs openapi"
sql "SELECT message FROM events WHERE job_id = $xid" | grep -q "host fleet-a cannot run it: .*left for another host" &&
  pass "an event says fleet-a left it for another host" || fail "no refusal event: $(sql "SELECT message FROM events WHERE job_id = $xid")"
grep -q "job $xid: left for another host" "${LOGS[1]}" && pass "fleet-a's log says so" || fail "fleet-a's log"
st=$(wait_job "$xid" 60)
api GET "/api/v1/jobs/$xid"
[ "$st" = done ] && [ "$(api_get 'd["claimed_by"]')" = fleet-b ] &&
  pass "fleet-b ran job x when it was free: done" || fail "job x: $st $(head -c 300 "$API_BODY")"
wait_job "$bid" 60 >/dev/null

# --- refused by both: failed with both reasons -----------------------------------
# reload N: SIGHUP to daemon N, until its log says it reloaded
reload() {
  local before
  before=$(grep -c "SIGHUP: configuration reloaded" "${LOGS[$1]}" || true)
  kill -HUP "${PIDS[$1]}"
  for _ in $(seq 50); do
    [ "$(grep -c "SIGHUP: configuration reloaded" "${LOGS[$1]}" || true)" -gt "$before" ] && return 0
    sleep 0.1
  done
  fail "daemon $1 did not reload"
}
bid=$(submit_job "$(busy fleet-b 10)") || fail "submit the busy job"
wait_cond "$bid" 'd["state"] == "running"' 30 || fail "the busy job did not start"
# fleet-b's allow-list loses the file before it is free (SIGHUP)
sed -i "s|^allow = $TMP/b/\*\.dat$|allow = $TMP/b/none-*.dat|" "$TMP/b.conf"
yid=$(submit_job "$(readjob y "$TMP/b/y.dat")") || fail "submit job y"
reload 2
st=$(wait_job "$yid" 60)
api GET "/api/v1/jobs/$yid"
err=$(api_get 'd["error"]')
[ "$st" = failed ] && grep -q "no live host can run it" <<<"$err" && grep -q "fleet-a: " <<<"$err" &&
  grep -q "fleet-b: " <<<"$err" &&
  pass "refused by fleet-a and fleet-b: failed naming both: $(head -c 300 <<<"$err")" ||
  fail "job y: $st: $err"
wait_job "$bid" 60 >/dev/null

# --- refused by fleet-a, then fleet-b gone: failed by the sweep; fleet-b
# removed from the registry, its queued job failed --------------------------------
bid=$(submit_job "$(busy fleet-b 20)") || fail "submit the busy job"
wait_cond "$bid" 'd["state"] == "running"' 30
sed -i "s|^allow = $TMP/b/none-\*\.dat$|allow = $TMP/b/*.dat|" "$TMP/b.conf"
reload 2
zid=$(submit_job "$(readjob z "$TMP/b/z.dat")") || fail "submit job z"
wid=$(submit_job "$(busy fleet-b 4)") || fail "submit job w for fleet-b"
for _ in $(seq 100); do [ -n "$(refusals "$zid")" ] && break; sleep 0.1; done
[ "$(api_json GET "/api/v1/jobs/$zid" 'd["state"]')" = queued ] && pass "job z refused by fleet-a, queued for fleet-b" ||
  fail "job z before fleet-b stops"
daemon_kill "${PIDS[2]}"
fleet_use 1
st=$(wait_job "$zid" 30)
err=$(api_json GET "/api/v1/jobs/$zid" 'd["error"]')
[ "$st" = failed ] && grep -q "no live host can run it" <<<"$err" && grep -q "fleet-a: " <<<"$err" &&
  pass "fleet-b gone: job z failed at fleet-a's sweep: $(head -c 200 <<<"$err")" || fail "job z: $st: $err"
for _ in $(seq 150); do
  [ "$(api_json GET /api/v1/hosts '",".join(h["name"] for h in d["hosts"])')" = fleet-a ] && break
  sleep 0.1
done
api GET /api/v1/hosts
[ "$(api_get '",".join(h["name"] for h in d["hosts"])')" = fleet-a ] &&
  pass "fleet-b removed from the registry after host_gone_seconds" ||
  fail "registry: $(head -c 300 "$API_BODY")"
st=$(wait_job "$wid" 10)
err=$(api_json GET "/api/v1/jobs/$wid" 'd["error"]')
[ "$st" = failed ] && grep -q "host fleet-b was removed from the registry" <<<"$err" &&
  pass "the job queued for fleet-b failed: $err" || fail "job w: $st: $err"
grep -q "registry sweep: 1 host(s)" "${LOGS[1]}" && pass "fleet-a's log tells of the registry sweep" ||
  fail "no registry sweep in fleet-a's log"

# --- a daemon whose clock runs an hour ahead --------------------------------------
FT=/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1
if [ -r "$FT" ]; then
  jid=$(submit_job "$(busy fleet-a 10)") || fail "submit fleet-a's job"
  wait_cond "$jid" 'd["state"] == "running"' 30
  qid=$(submit_job "$(busy fleet-a 4)") || fail "submit fleet-a's second job"
  LD_PRELOAD=$FT FAKETIME="+1h" FAKETIME_DONT_FAKE_MONOTONIC=1 \
    start 3 fleet-c a || fail "fleet-c (an hour ahead) did not start"
  fleet_use 1
  # its registry row's start is its own clock's: an hour ahead
  ahead=$(sql "SELECT (started_ms - bb_now_ms()) / 1000 FROM daemons WHERE name = 'fleet-c'")
  [ "${ahead:-0}" -ge 3000 ] && pass "fleet-c's clock runs ${ahead} s ahead of the database's" ||
    fail "fleet-c is not ahead (faketime): ${ahead:-none} s"
  st=$(wait_job "$jid" 60)
  err=$(api_json GET "/api/v1/jobs/$jid" 'd["error"]')
  [ "$st" = done ] && pass "fleet-a's job ran to done beside a clock an hour ahead" ||
    fail "fleet-a's job beside fleet-c: $st: $err"
  ! grep -q "lease sweep" "${LOGS[3]}" && pass "fleet-c swept no lease of fleet-a's" ||
    fail "fleet-c took a lease for expired: $(grep "lease sweep" "${LOGS[3]}")"
  st=$(wait_job "$qid" 60)
  [ "$st" = done ] && [ "$(api_json GET "/api/v1/jobs/$qid" 'd["claimed_by"]')" = fleet-a ] &&
    pass "fleet-a's queued job stayed fleet-a's" || fail "fleet-a's queued job: $st"
  fleet_use 3
  daemon_stop || fail "fleet-c did not stop cleanly"
else
  echo "note: no libfaketime ($FT): the clock case is not run"
fi

# --- two names with the same 32-bit hash --------------------------------------------
pair=$(sql "SELECT string_agg(n, ' ') FROM (SELECT 'bb' || i AS n FROM generate_series(1, 400000) i) s
  GROUP BY hashtext(n) HAVING count(*) > 1 LIMIT 1")
read -r h1 h2 _ <<<"$pair"
if [ -n "$h1" ] && [ -n "$h2" ]; then
  start 4 "$h1" a && start 5 "$h2" a &&
    pass "hosts $h1 and $h2 (the same hashtext $(sql "SELECT hashtext('$h1')")) run side by side" ||
    fail "two names of one hash: $(tail -3 "$TMP/$h2/biobenchd.log")"
  if DCONF=$TMP/a.conf DLOG=$TMP/dup.log DKNOBS=$TMP/dup-knobs.db \
       daemon_start --host-name "$h1" --lease-seconds "$LEASE" 2>/dev/null; then
    fail "a second $h1 started"
    daemon_kill "$DPID"
  else
    grep -q "host name $h1 is in use by another biobenchd" "$TMP/dup.log" &&
      pass "a second $h1 is refused naming the holder: $(grep -o "in use.*" "$TMP/dup.log" | head -c 200)" ||
      fail "second $h1: $(tail -2 "$TMP/dup.log")"
  fi
  for n in 4 5; do fleet_use "$n"; daemon_stop || fail "daemon $n stop"; done
else
  fail "no two names of one hashtext among 400000"
fi
fleet_use 1
daemon_stop && pass "fleet-a: SIGTERM, exit 0" || fail "fleet-a stop"
finish
