#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# fleet_pg.sh BIOBENCHD BIOBENCH - three biobenchd on one PostgreSQL
# database (ctest it_fleet_pg, under tests/pg/pgtmp.sh): different ports,
# state directories and host names (fleet-1..3), lease_seconds 3.  All
# three register (GET /api/v1/hosts on any of them, `biobench hosts`); a
# job addressed to each, submitted to daemon 1, runs on its host (its
# claimed_by, its daemon's log); a job for an unknown host is a 400
# naming the registered ones; a fourth daemon with a taken host name is
# refused naming host and pid; a job running on fleet-2 cancelled through
# fleet-1's API (202 cancelling, fleet-2's heartbeat stops it: cancelled
# within a few beats, its finished runs kept); a front end (--no-runner)
# on the same database: not registered, runs nothing, its submissions
# run on their host and its cancel is forwarded too.  A group job by a
# selector (host name glob fleet-[12] and the kernel) runs on fleet-1
# and fleet-2; its comparison has a row per host and a combined block;
# no match, an unknown selector key, host and hosts together are 400s;
# cancelling a group cancels its hosts' jobs (one running on another
# host by a request to its daemon).  `kill -9` of fleet-3 in the middle
# of a job: after its lease another daemon marks the job interrupted,
# with its finished runs kept and the error naming fleet-3.
source "$(dirname "$0")/daemon_lib.sh"

[ -n "${BB_TEST_STORE:-}" ] || skip "BB_TEST_STORE is not set (run under tests/pg/pgtmp.sh)"
DSTORE=$BB_TEST_STORE
LEASE=3

job() { # NAME HOST RUNTIME REPEAT
  printf '{"name":"%s","target":"nop","host":"%s","workload":{"runtime":"%s","iodepth":8},"variants":{"A":{},"B":{"inject_ns":2000}},"repeat":%s,"warmup":0}' \
    "$1" "$2" "$3" "$4"
}

write_config
# start_fleet N: daemon fleet-N with its own state directory and log
start_fleet() {
  fleet_daemon "$1" "fleet-$1" --lease-seconds "$LEASE" \
    --pidfile "$TMP/fleet-$1/biobenchd.pid"
}
use() { fleet_use "$1"; }

for n in 1 2 3; do
  start_fleet "$n" || { fail "daemon fleet-$n did not start"; finish; }
done
pass "three daemons on one database: ports ${PORTS[1]} ${PORTS[2]} ${PORTS[3]}"

# --- the registry ---------------------------------------------------------
use 2
api GET /api/v1/hosts
[ "$API_STATUS" = 200 ] &&
  [ "$(api_get '",".join(h["name"] for h in d["hosts"])')" = "fleet-1,fleet-2,fleet-3" ] &&
  [ "$(api_get 'all(h["kernel"] and h["last_seen"] for h in d["hosts"])')" = true ] &&
  pass "GET /api/v1/hosts on fleet-2 lists the three, with kernel and last_seen" ||
  fail "hosts $API_STATUS: $(head -c 400 "$API_BODY")"
check_openapi "$API_BODY" GET /api/v1/hosts 200 &&
  pass "the hosts document is as openapi.yaml says" || fail "hosts document vs openapi"
if [ -x "$CLI" ]; then
  out=$("$CLI" --server "http://127.0.0.1:${PORTS[3]}" hosts 2>&1)
  grep -q fleet-1 <<<"$out" && grep -q fleet-2 <<<"$out" && grep -q fleet-3 <<<"$out" &&
    pass "biobench hosts lists the three: $(tr '\n' '|' <<<"$out" | head -c 300)" ||
    fail "biobench hosts: $out"
fi

# --- a fourth daemon with a taken name --------------------------------------
if timeout 30 "$DAEMON" --foreground --config "$DCONF" --store "$DSTORE" \
    --knob-journal "$TMP/dup-knobs.db" --host-name fleet-2 --listen 127.0.0.1:1 >"$TMP/dup.out" 2>&1; then
  fail "a second fleet-2 started"
else
  grep -q "host name fleet-2 is in use by another biobenchd .*(biobenchd pid ${PIDS[2]}, host fleet-2)" "$TMP/dup.out" &&
    pass "a second daemon named fleet-2 refused, naming host and pid" ||
    fail "second fleet-2: $(cat "$TMP/dup.out")"
fi

# --- addressed jobs run on their host ----------------------------------------
use 1
declare -a IDS
for n in 3 2 1; do
  IDS[$n]=$(submit_job "$(job "for-$n" "fleet-$n" 100ms 2)") || fail "submit for fleet-$n"
done
for n in 1 2 3; do
  st=$(wait_state "${IDS[$n]}" done failed cancelled interrupted)
  by=$(api_get 'd["claimed_by"]')
  fh=$(api_get 'd["for_host"]')
  if [ "$st" = done ] && [ "$by" = "fleet-$n" ] && [ "$fh" = "fleet-$n" ] &&
     grep -q "job ${IDS[$n]} (for-$n) started" "${LOGS[$n]}"; then
    pass "job ${IDS[$n]} for fleet-$n done, claimed and run by fleet-$n"
  else
    fail "job ${IDS[$n]} for fleet-$n: $st, claimed by '$by', for '$fh'"
  fi
  for m in 1 2 3; do
    [ "$m" = "$n" ] && continue
    grep -q "job ${IDS[$n]} (" "${LOGS[$m]}" && fail "job ${IDS[$n]} also in fleet-$m's log"
  done
done
check_openapi "$API_BODY" GET "/api/v1/jobs/${IDS[3]}" 200 &&
  pass "the job document (for_host, claimed_by) is as openapi.yaml says" ||
  fail "job document vs openapi"
api GET "/api/v1/jobs?limit=10"
[ "$(api_get 'sorted(j["claimed_by"] for j in d["jobs"])')" = '["fleet-1", "fleet-2", "fleet-3"]' ] &&
  pass "the list carries claimed_by" || fail "list: $(head -c 300 "$API_BODY")"

api POST /api/v1/jobs "$(job nowhere fleet-9 100ms 2)"
[ "$API_STATUS" = 400 ] && [ "$(api_get 'd["error"]["field"]')" = host ] &&
  grep -q 'registered: fleet-1, fleet-2, fleet-3' "$API_BODY" &&
  pass "a job for an unknown host: 400 naming the registered hosts" ||
  fail "unknown host: $API_STATUS $(cat "$API_BODY")"
api POST /api/v1/jobs "$(job bad 'fleet_1' 100ms 2)"
[ "$API_STATUS" = 400 ] && [ "$(api_get 'd["error"]["field"]')" = host ] &&
  pass "a host that is no host name: 400 on host" ||
  fail "bad host name: $API_STATUS $(cat "$API_BODY")"

# --- cancel across daemons -----------------------------------------------------
# cancel_via N ID OWNER: POST cancel on daemon N for a job that runs on
# OWNER: 202 cancelling naming OWNER; then it ends cancelled within a few
# heartbeats (every second with a lease of 3 s), its finished runs kept
declare -a NAMES=([1]=fleet-1 [2]=fleet-2 [3]=fleet-3)
cancel_via() {
  local n=$1 id=$2 owner=$3 before after st t0 t1 waited
  use "$n"
  api GET "/api/v1/jobs/$id/runs"
  before=$(api_get 'len([r for r in d["runs"] if r["state"] == "done"])')
  t0=$(date +%s.%N)
  api POST "/api/v1/jobs/$id/cancel"
  [ "$API_STATUS" = 202 ] && [ "$(api_get 'd["state"]')" = cancelling ] &&
    [ "$(api_get 'd["host"]')" = "$owner" ] &&
    pass "cancel of job $id via ${NAMES[$n]}: 202 cancelling, host $owner" ||
    fail "cancel via ${NAMES[$n]}: $API_STATUS $(cat "$API_BODY")"
  check_openapi "$API_BODY" POST "/api/v1/jobs/$id/cancel" 202 &&
    pass "the 202 is as openapi.yaml says" || fail "202 vs openapi"
  st=$(WAIT_S=15 wait_state "$id" cancelled done failed interrupted)
  t1=$(date +%s.%N)
  waited=$(/usr/bin/python3 -c "print(round($t1 - $t0, 1))")
  [ "$st" = cancelled ] && [ "$(api_get 'd["error"]')" = "cancelled by request" ] &&
    [ "$(api_get 'd["claimed_by"]')" = "$owner" ] &&
    [ "$(api_get 'd["cancel_requested_by"]')" = "${NAMES[$n]}" ] &&
    /usr/bin/python3 -c "import sys; sys.exit(0 if $waited < 5 else 1)" &&
    pass "job $id cancelled by $owner ${waited} s after the request via ${NAMES[$n]}" ||
    fail "job $id after the request: $st after ${waited} s: $(head -c 400 "$API_BODY")"
  check_openapi "$API_BODY" GET "/api/v1/jobs/$id" 200 ||
    fail "the job document (cancel_requested) vs openapi"
  api GET "/api/v1/jobs/$id/runs"
  after=$(api_get 'len([r for r in d["runs"] if r["state"] == "done"])')
  [ "${after:-0}" -ge "${before:-0}" ] && [ "${after:-0}" -ge 2 ] &&
    pass "its finished runs kept: $after done (had $before at the request)" ||
    fail "runs after the cancel: $after done (had $before)"
}
use 1
id=$(submit_job "$(job far fleet-2 500ms 10)") || fail "submit a long job for fleet-2"
wait_cond "$id" 'd["runs_done"] >= 2' 30
api GET "/api/v1/jobs/$id"
[ "$(api_get 'd["state"]')" = running ] && [ "$(api_get 'd["claimed_by"]')" = fleet-2 ] ||
  fail "the long job is not running on fleet-2: $(head -c 300 "$API_BODY")"
cancel_via 1 "$id" fleet-2
grep -q "job $id: cancel requested via fleet-1: cancelling it" "${LOGS[2]}" &&
  pass "fleet-2's log: cancel requested via fleet-1" ||
  fail "fleet-2's log: $(grep "job $id" "${LOGS[2]}")"
api POST "/api/v1/jobs/$id/cancel"
[ "$API_STATUS" = 409 ] && pass "cancelled: a cancel again is 409" || fail "cancel again: $API_STATUS"

# a front end on the database: no registry row, no claims
mkdir -p "$TMP/front"
DLOG=$TMP/front/biobenchd.log
daemon_start --host-name front-1 --no-runner --pidfile "$TMP/front/biobenchd.pid" ||
  fail "the front end starts"
PIDS[4]=$DPID PORTS[4]=$DPORT LOGS[4]=$DLOG NAMES[4]=front-1
api GET /api/v1/hosts
[ "$(api_get '",".join(h["name"] for h in d["hosts"])')" = "fleet-1,fleet-2,fleet-3" ] &&
  pass "the front end is not in the registry" || fail "hosts: $(head -c 300 "$API_BODY")"
id=$(submit_job "$(job via-front fleet-1 500ms 10)") || fail "submit through the front end"
wait_cond "$id" 'd["runs_done"] >= 2' 30
api GET "/api/v1/jobs/$id"
[ "$(api_get 'd["state"]')" = running ] && [ "$(api_get 'd["claimed_by"]')" = fleet-1 ] &&
  pass "a job submitted through the front end runs on fleet-1" ||
  fail "front end's job: $(head -c 300 "$API_BODY")"
cancel_via 4 "$id" fleet-1
if [ -x "$CLI" ]; then
  use 1
  id=$(submit_job "$(job via-cli fleet-3 500ms 10)") || fail "submit a job for fleet-3"
  wait_cond "$id" 'd["runs_done"] >= 1' 30
  out=$("$CLI" --server "http://127.0.0.1:${PORTS[1]}" cancel "$id" 2>&1)
  grep -q "job $id: cancelling: it runs on fleet-3, which stops it at its next heartbeat" <<<"$out" &&
    [ "$(WAIT_S=15 wait_state "$id" cancelled done failed interrupted)" = cancelled ] &&
    pass "biobench cancel via fleet-1 of fleet-3's job: $out" || fail "biobench cancel: $out"
fi
grep -q "job $id (" "${LOGS[4]}" && fail "the front end's log names job $id: it ran there"
use 4
daemon_stop && pass "the front end stops: exit 0" || fail "front end stop"

# --- one job on several hosts: a selector, the hosts side by side ------------
KPFX=$(uname -r | cut -c1-3)
group() { # SELECTOR-JSON-MEMBER REPEAT RUNTIME
  printf '{"name":"grp","target":"nop",%s,"workload":{"runtime":"%s","iodepth":8},"variants":{"A":{},"B":{"inject_ns":2000}},"repeat":%s,"warmup":0}' \
    "$1" "$3" "$2"
}
use 1
gid=$(submit_job "$(group "\"hosts\":{\"name\":\"fleet-[12]\",\"kernel\":\"$KPFX*\"}" 6 100ms)") ||
  fail "submit the selector job"
[ "$(api_get '",".join(sorted(k["host"] for k in d["children"]))')" = "fleet-1,fleet-2" ] &&
  [ "$(api_get 'd["group"]')" = true ] &&
  pass "a selector (name fleet-[12], kernel $KPFX*) made group $gid: one job on fleet-1 and one on fleet-2" ||
  fail "selector job: $(head -c 400 "$API_BODY")"
st=$(WAIT_S=60 wait_state "$gid" done failed cancelled interrupted)
api GET "/api/v1/jobs/$gid"
[ "$st" = done ] && [ "$(api_get 'len(d["children"])')" = 2 ] &&
  [ "$(api_get 'all(k["state"] == "done" for k in d["children"])')" = true ] &&
  [ "$(api_get 'sorted(k["claimed_by"] for k in d["children"])')" = '["fleet-1", "fleet-2"]' ] &&
  [ "$(api_get 'd["claimed_by"]')" = null ] &&
  pass "group $gid done: its children done, each claimed by its own host, the parent by none" ||
  fail "group $gid: $st $(head -c 600 "$API_BODY")"
check_openapi "$API_BODY" GET "/api/v1/jobs/$gid" 200 &&
  pass "the group's document is as openapi.yaml says" || fail "group document vs openapi"
api GET "/api/v1/jobs/$gid/compare"
if [ "$API_STATUS" = 200 ] &&
   [ "$(api_get 'sorted(r["host"] for r in d["rows"])')" = '["fleet-1", "fleet-2"]' ] &&
   [ "$(api_get 'all(r["n"] == 6 and r["ci_lo"] is not None for r in d["rows"])')" = true ] &&
   [ "$(api_get 'd["combined"][0]["hosts"]')" = 2 ] &&
   [ "$(api_get 'd["combined"][0]["pooled"]["change"] is not None')" = true ] &&
   [ "$(api_get 'd["combined"][0]["disagree"]')" = false ]; then
  pass "compare of group $gid: a row per host ($(api_get '"; ".join("%s %+.2f%% %s" % (r["host"], 100 * r["change"], r["verdict"]) for r in d["rows"])')), combined: $(api_get 'd["combined"][0]["text"]')"
else
  fail "group compare $API_STATUS: $(head -c 800 "$API_BODY")"
fi
check_openapi "$API_BODY" GET "/api/v1/jobs/$gid/compare" 200 &&
  pass "the group's comparison is as openapi.yaml says" || fail "group compare vs openapi"
if [ -x "$CLI" ]; then
  out=$("$CLI" --server "http://127.0.0.1:${PORTS[1]}" compare "$gid" 2>&1)
  grep -q '^  fleet-1 ' <<<"$out" && grep -q '^  fleet-2 ' <<<"$out" &&
    grep -q '^combined: B vs A on 2 hosts' <<<"$out" &&
    pass "biobench compare $gid: the hosts side by side and the combined line" ||
    fail "biobench compare $gid: $out"
  sed 's/^/    /' <<<"$out"
  out=$("$CLI" --server "http://127.0.0.1:${PORTS[2]}" jobs --limit 5 2>&1)
  grep -q "^ *$gid  grp \[group\]" <<<"$out" && grep -q "grp @fleet-2 (group $gid)" <<<"$out" &&
    pass "biobench jobs tells the group from its hosts' jobs" ||
    fail "biobench jobs: $out"
  group '"host":["fleet-3","fleet-1"]' 2 100ms >"$TMP/group.json"
  out=$(timeout 60 "$CLI" --server "http://127.0.0.1:${PORTS[2]}" submit --wait "$TMP/group.json" 2>&1)
  rc=$?
  [ "$rc" = 0 ] && grep -q '^  fleet-3 ' <<<"$out" && grep -q '^  fleet-1 ' <<<"$out" &&
    grep -q '^combined: B vs A on 2 hosts' <<<"$out" && grep -q 'done$' <<<"$out" &&
    pass "biobench submit --wait of a list group: exit 0, the hosts side by side at the end" ||
    fail "submit --wait group: rc $rc: $out"
fi
api GET "/api/v1/jobs?limit=20&children=0"
[ "$(api_get 'any(j["id"] == '"$gid"' for j in d["jobs"]) and all(j["group_id"] is None for j in d["jobs"])')" = true ] &&
  pass "the list with children=0 shows the group, not its jobs" ||
  fail "list children=0: $(head -c 300 "$API_BODY")"

api POST /api/v1/jobs "$(group '"hosts":{"name":"lab-*"}' 6 100ms)"
[ "$API_STATUS" = 400 ] && [ "$(api_get 'd["error"]["field"]')" = hosts ] &&
  grep -q 'registered: fleet-1 (seen' "$API_BODY" &&
  pass "a selector that matches no host: 400 on hosts naming the registered ones" ||
  fail "no match: $API_STATUS $(cat "$API_BODY")"
api POST /api/v1/jobs "$(group '"hosts":{"kernal":"6*"}' 6 100ms)"
[ "$API_STATUS" = 400 ] && [ "$(api_get 'd["error"]["field"]')" = hosts.kernal ] &&
  grep -q 'device.model' "$API_BODY" &&
  pass "an unknown selector key: 400 naming it and the keys" ||
  fail "unknown key: $API_STATUS $(cat "$API_BODY")"
api POST /api/v1/jobs "$(group '"host":"fleet-1","hosts":{"name":"fleet-*"}' 6 100ms)"
[ "$API_STATUS" = 400 ] && grep -q '\\"host\\" and \\"hosts\\" are both given' "$API_BODY" &&
  pass "host and hosts together: 400 naming both" ||
  fail "both fields: $API_STATUS $(cat "$API_BODY")"

# cancel of a parent: its children that have not ended (one running on
# another host by a request to its daemon)
cid=$(submit_job "$(group '"host":["fleet-1","fleet-2","fleet-3"]' 4 300ms)") ||
  fail "submit the group to cancel"
api POST "/api/v1/jobs/$cid/cancel"
if [ "$API_STATUS" = 200 ] &&
   [ "$(api_get 'len(d["children"])')" = 3 ] &&
   [ "$(api_get 'all(k["cancelled"] for k in d["children"])')" = true ]; then
  pass "cancel of group $cid: $(api_get '"; ".join("%s %s" % (k["host"], k["state"]) for k in d["children"])')"
else
  fail "cancel group: $API_STATUS $(cat "$API_BODY")"
fi
st=$(WAIT_S=30 wait_state "$cid" cancelled done failed interrupted)
[ "$st" = cancelled ] && pass "group $cid ends cancelled" || fail "cancelled group is $st"
if [ -x "$CLI" ]; then
  cid=$(submit_job "$(group '"host":["fleet-2","fleet-3"]' 4 300ms)") ||
    fail "submit the group to cancel from the CLI"
  out=$("$CLI" --server "http://127.0.0.1:${PORTS[1]}" cancel "$cid" 2>&1)
  ok=1
  for h in fleet-2 fleet-3; do
    grep -Eq "^  $h: job [0-9]+ (cancelled|running: running on host $h)" <<<"$out" || ok=0
  done
  [ "$ok" = 1 ] && pass "biobench cancel $cid: $(tr '\n' '|' <<<"$out")" ||
    fail "biobench cancel $cid: $out"
  WAIT_S=30 wait_state "$cid" cancelled done failed interrupted >/dev/null
fi
# a group's job running on another host: the cancel is asked of its
# daemon, whose heartbeat stops it
cid=$(submit_job "$(group '"host":["fleet-2"]' 10 500ms)") || fail "submit a group for fleet-2"
kid=$(api_get 'd["children"][0]["id"]')
wait_cond "$kid" 'd["state"] == "running"' 30
api POST "/api/v1/jobs/$cid/cancel"
[ "$API_STATUS" = 200 ] && [ "$(api_get 'd["children"][0]["cancelled"]')" = true ] &&
  [ "$(api_get 'd["children"][0]["state"]')" = cancelling ] &&
  pass "cancel of a group whose job runs on fleet-2, from fleet-1: cancelling" ||
  fail "cross-host group cancel: $API_STATUS $(cat "$API_BODY")"
st=$(WAIT_S=20 wait_state "$cid" cancelled done failed interrupted)
[ "$st" = cancelled ] && pass "fleet-2 stops its job at a heartbeat; group $cid ends cancelled" ||
  fail "group $cid after the request: $st"
use 1

# --- kill -9 of fleet-3 mid-job: interrupted after its lease ------------------
id=$(submit_job "$(job long fleet-3 500ms 10)") || fail "submit the long job"
wait_cond "$id" 'd["runs_done"] >= 2' 30
api GET "/api/v1/jobs/$id"
runs=$(api_get 'd["runs_done"]')
[ "$(api_get 'd["state"]')" = running ] && [ "${runs:-0}" -ge 2 ] ||
  fail "the long job is not running with 2 runs: $(head -c 300 "$API_BODY")"
kill -KILL "${PIDS[3]}"
wait "${PIDS[3]}" 2>/dev/null || true
t0=$(date +%s.%N)
api GET "/api/v1/jobs/$id/runs"
before=$(api_get 'len(d["runs"])')
st=$(wait_state "$id" interrupted done failed cancelled)
t1=$(date +%s.%N)
waited=$(/usr/bin/python3 -c "print(round($t1 - $t0, 1))")
api GET "/api/v1/jobs/$id"
err=$(api_get 'd["error"]')
if [ "$st" = interrupted ] && grep -q "lease expired: host fleet-3" <<<"$err"; then
  pass "killed fleet-3: job $id interrupted ${waited} s later: $err"
else
  fail "after kill -9: $st: $err"
fi
/usr/bin/python3 -c "import sys; sys.exit(0 if $waited >= $LEASE - 1.5 else 1)" &&
  pass "not before its lease ($LEASE s)" || fail "interrupted after ${waited} s, before the lease"
api GET "/api/v1/jobs/$id/runs"
after=$(api_get 'len(d["runs"])')
[ "$after" -ge "$before" ] && [ "$after" -ge 2 ] &&
  pass "its finished runs kept: $after (had $before at the kill)" ||
  fail "runs after the sweep: $after (had $before)"
grep -q "lease sweep: 1 job(s) of other hosts" "${LOGS[1]}" "${LOGS[2]}" &&
  pass "a surviving daemon's log tells of the sweep" || fail "no sweep in the logs"

for n in 1 2; do
  use "$n"
  daemon_stop && pass "fleet-$n: SIGTERM, exit 0" || fail "fleet-$n stop"
done
finish
