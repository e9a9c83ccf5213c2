#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# resource_faults.sh BIOBENCHD BIOBENCH - biobenchd when resources fail:
#  1. the database on a tiny filesystem (a 4 MiB tmpfs) that fills up while
#     a job runs: the job ends failed with a clear error ("full"), the jobs
#     and runs stored before stay readable and unchanged, the daemon keeps
#     answering (health with 503 naming the full disk, lists, metrics, new
#     submissions refused or queued cleanly), and once space is freed a new
#     job runs to the end without a restart;
#  2. the target disappears mid-job (losetup -d on its loop device while
#     it runs, with a sysfs knob in play): the job fails with the reason,
#     the daemon keeps answering and does not hang;
#  3. the benchmark file cannot be created by a write job (its directory
#     is on a read-only filesystem): a clear error from both `biobench run`
#     and the daemon.
# Needs root (mounts, loop devices).
source "$(dirname "$0")/../integration/daemon_lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root (tmpfs mounts, loop devices)"
command -v sqlite3 >/dev/null || skip "sqlite3 is not installed"

DBFS=$TMP/dbfs
RO=$TMP/rofs
LOOP=
cleanup_hooks+=('[ -z "$DPID" ] || daemon_kill $DPID' 'umount $DBFS 2>/dev/null'
  'umount $RO 2>/dev/null' '[ -z "$LOOP" ] || losetup -d $LOOP 2>/dev/null')
mkdir -p "$DBFS" "$RO"
mount -t tmpfs -o size=4m tmpfs "$DBFS" || skip "cannot mount a tmpfs"
mount -t tmpfs -o ro,size=1m tmpfs "$RO" || skip "cannot mount a read-only tmpfs"
truncate -s 64M "$TMP/loop.img"
LOOP=$(losetup -f --show "$TMP/loop.img" 2>/dev/null) || skip "losetup failed: no loop devices"
RA=/sys/block/$(basename "$LOOP")/queue/read_ahead_kb
orig_ra=$(cat "$RA")
new_ra=$(( orig_ra == 64 ? 32 : 64 ))

write_config
cat >>"$DCONF" <<EOF
allow = $LOOP
allow_knobs = $LOOP read_ahead_kb
allow = $RO/*.dat
allow_write = $RO/*.dat
EOF
DDB=$DBFS/biobench.db
daemon_start || { finish; exit 1; }

submit() { api POST /api/v1/jobs "$1"; api_get 'd["id"]'; }
wait_end() { WAIT_S=${2:-90} wait_state "$1" done failed cancelled interrupted; }
NOPJOB='{"name":"small","target":"nop","workload":{"runtime":"100ms"},
  "variants":{"A":{},"B":{}},"repeat":2,"warmup":0}'

# --- 1. the database's filesystem fills up ------------------------------------
id1=$(submit "$NOPJOB")
st=$(wait_end "$id1") || true
[ "$st" = done ] && pass "job $id1 done before the disk fills" || fail "job $id1: $st"
api GET "/api/v1/jobs/$id1/runs"; cp "$API_BODY" "$TMP/runs1.before"
api GET "/api/v1/jobs/$id1"; job1_verdict=$(api_get 'd["verdict"]')

# a job of many runs, then fill the filesystem while it runs
id2=$(submit '{"name":"fills the disk","target":"nop","workload":{"runtime":"100ms","lat":"io"},
  "variants":{"A":{},"B":{},"C":{},"D":{}},"repeat":200,"warmup":0}')
WAIT_S=30 wait_state "$id2" running >/dev/null || fail "job $id2 never ran"
dd if=/dev/zero of="$DBFS/filler" bs=64k status=none 2>/dev/null || true
df_avail=$(df --output=avail -k "$DBFS" | tail -1 | tr -d ' ')
echo "  filesystem of the database full ($df_avail KiB free); job $id2 running"
st=$(wait_end "$id2" 120) || true
api GET "/api/v1/jobs/$id2"
err2=$(api_get 'd["error"]')
if [ "$st" = failed ] && grep -qiE "full|no space|ENOSPC" <<<"$err2"; then
  pass "job $id2 failed with a clear error: $err2"
else
  fail "job $id2 with the disk full: state '$st', error '$err2' (log: $(grep -iE 'full|space' "$DLOG" | tail -2))"
fi
# health answers, and says the store cannot keep data (503 naming it)
api GET /api/v1/health
if [ "$API_STATUS" = 503 ] && grep -qi "full" <<<"$(api_get 'd["error"]["message"]')"; then
  pass "health with the disk full: 503 $(api_get 'd["error"]["message"]')"
else fail "health with the disk full: $API_STATUS $(cat "$API_BODY")"; fi
api GET "/api/v1/jobs/$id1/runs"
if [ "$API_STATUS" = 200 ] && cmp -s "$API_BODY" "$TMP/runs1.before"; then
  pass "runs of job $id1 still readable and unchanged"
else fail "runs of job $id1: status $API_STATUS, $(cmp "$API_BODY" "$TMP/runs1.before" 2>&1)"; fi
api GET "/api/v1/jobs/$id1"
[ "$API_STATUS" = 200 ] && [ "$(api_get 'd["verdict"]')" = "$job1_verdict" ] &&
  pass "job $id1 readable (verdict $job1_verdict)" || fail "job $id1: $API_STATUS"
api GET "/api/v1/jobs?limit=50"; s_list=$API_STATUS
api GET /metrics; s_metrics=$API_STATUS
[ "$s_list" = 200 ] && [ "$s_metrics" = 200 ] && pass "list and /metrics answer 200 with the disk full" ||
  fail "with the disk full: list $s_list, metrics $s_metrics"
# a submission now: accepted, or refused with a clear error, never a hang
api POST /api/v1/jobs "$NOPJOB"
case $API_STATUS in
  201) pass "submission with the disk full: accepted (201)"; id3=$(api_get 'd["id"]') ;;
  5*) msg=$(api_get 'd["error"]["message"]')
      if grep -qiE "full|space" <<<"$msg"; then pass "submission with the disk full: $API_STATUS $msg"
      else fail "submission with the disk full: $API_STATUS without a clear reason: $msg"; fi ;;
  *) fail "submission with the disk full: status '$API_STATUS' $(cat "$API_BODY")" ;;
esac
daemon_alive || fail "daemon died with the disk full"
# space back: the daemon goes on without a restart
rm -f "$DBFS/filler"
[ -n "${id3:-}" ] || id3=$(submit "$NOPJOB")
st=$(wait_end "$id3" 60) || true
[ "$st" = done ] && pass "space freed: job $id3 done without a restart" || fail "after freeing space: job $id3 $st $(api_get 'd["error"]')"
daemon_stop || fail "daemon stop: exit $?"
ic=$(sqlite3 "$DDB" "PRAGMA integrity_check")
[ "$ic" = ok ] && pass "integrity_check after the disk filled: ok" || fail "integrity_check: $ic"
left=$(sqlite3 "$DDB" "SELECT count(*) FROM jobs WHERE state IN ('running','queued')")
[ "$left" = 0 ] && pass "no job left running" || fail "$left job(s) left running/queued"

# --- 2. the target disappears mid-job ---------------------------------------
DDB=$TMP/biobench.db
daemon_start || { finish; exit 1; }
id=$(submit "{\"name\":\"vanishing\",\"target\":\"$LOOP\",
  \"workload\":{\"runtime\":\"700ms\",\"direct\":true,\"iodepth\":4},
  \"variants\":{\"A\":{},\"B\":{\"sysfs.read_ahead_kb\":$new_ra}},\"repeat\":6,\"warmup\":0}")
wait_cond_runs() { for _ in $(seq 300); do
  api GET "/api/v1/jobs/$id"; [ "$(api_get 'd["runs_done"] >= 1 and d["state"] == "running"')" = true ] && return 0
  [ "$(api_get 'd["state"]')" = running ] || [ "$(api_get 'd["state"]')" = queued ] || return 1
  sleep 0.1; done; return 1; }
wait_cond_runs || fail "job $id did not get going"
losetup -d "$LOOP" && gone=$LOOP && LOOP=
t0=$(date +%s)
st=$(wait_end "$id" 60) || true
dt=$(( $(date +%s) - t0 ))
api GET "/api/v1/jobs/$id"
err=$(api_get 'd["error"]')
if [ "$st" = failed ] && grep -qiE "$gone|no such|ENXIO|device|I/O error|not found" <<<"$err"; then
  pass "target $gone removed mid-job: failed in $dt s: $err"
else
  fail "target $gone removed mid-job: state '$st' after $dt s, error '$err'"
fi
ndone=$(api_get 'd["runs_done"]')
api GET "/api/v1/jobs/$id/runs"
kept=$(api_get 'sum(1 for r in d["runs"] if r["state"] == "done")')
[ "${kept:-0}" -ge 1 ] && pass "the $kept run(s) finished before stay stored" || fail "finished runs lost ($kept)"
health_ok && pass "daemon answers after the target vanished" || fail "daemon does not answer"
unres=$(sqlite3 "$DDB" "SELECT count(*) FROM knob_journal WHERE state != 'restored'")
echo "  knob journal rows left unrestored (the device is gone): $unres"
id=$(submit "$NOPJOB")
st=$(wait_end "$id" 60) || true
[ "$st" = done ] && pass "next job runs normally" || fail "next job after the vanished target: $st"

# --- 3. the benchmark file cannot be created ----------------------------------
api POST /api/v1/jobs "{\"name\":\"ro\",\"target\":\"$RO/bench.dat\",
  \"workload\":{\"size\":\"64k\",\"runtime\":\"100ms\",\"rw\":\"randwrite\",\"allow_write\":true},
  \"variants\":{\"A\":{},\"B\":{}},\"repeat\":2,\"warmup\":0}"
if [[ $API_STATUS == 4* ]]; then
  msg=$(api_get 'd["error"]["message"]')
  grep -qiE "read-only|EROFS|permission" <<<"$msg" && pass "daemon: read-only directory refused at submission: $msg" ||
    fail "daemon: read-only directory: $API_STATUS $msg"
else
  id=$(api_get 'd["id"]')
  st=$(wait_end "$id" 60) || true
  api GET "/api/v1/jobs/$id"; err=$(api_get 'd["error"]')
  if [ "$st" = failed ] && grep -qiE "read-only|EROFS" <<<"$err"; then pass "daemon: file in a read-only directory: job failed: $err"
  else fail "daemon: file in a read-only directory: state $st error '$err'"; fi
fi
daemon_stop || fail "daemon stop: exit $?"
if [ -x "$CLI" ]; then
  rc=0
  "$CLI" run --rw randwrite --allow-write --size 64k --runtime 100ms "$RO/bench.dat" >"$TMP/out" 2>"$TMP/err" || rc=$?
  if [ "$rc" = 1 ] && grep -qiE "read-only" "$TMP/err"; then pass "biobench run: read-only directory: exit 1: $(head -1 "$TMP/err")"
  else fail "biobench run: read-only directory: exit $rc: $(head -c 300 "$TMP/err")"; fi
fi
echo "resource_faults tally: $PASSES passed, $FAILS failed"
finish
