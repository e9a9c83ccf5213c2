#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# knob_lock.sh BIOBENCHD BIOBENCH - one user of a device's knobs at a time
# (issue 12, finding 3).  A daemon job and a local `biobench ab` on the
# same loop device, both setting read_ahead_kb, started one right after
# the other (which one first alternates): the second refuses, naming the
# holder (pid, program, job), and read_ahead_kb ends at its original
# value, in 10 of 10 trials.  `biobench run` is refused the same way while
# the daemon holds the device, and the lock file names the holder.  Needs
# root (loop devices, sysfs, /run/biobench).
source "$(dirname "$0")/../integration/daemon_lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root (loop devices, sysfs knobs)"
[ -x "$CLI" ] || skip "usage: $0 BIOBENCHD BIOBENCH"
TRIALS=${TRIALS:-10}

dd if=/dev/zero of="$TMP/disk.img" bs=1M count=32 status=none
LOOP=$(losetup -f --show "$TMP/disk.img" 2>/dev/null) || skip "losetup failed: no loop devices"
cleanup_hooks+=("losetup -d $LOOP")
RA=/sys/block/$(basename "$LOOP")/queue/read_ahead_kb
ORIG=$(cat "$RA")
LOCK=$BIOBENCH_LOCK_DIR/dev-$(cat /sys/block/$(basename "$LOOP")/dev).lock
NEW_D=$(( ORIG == 256 ? 512 : 256 ))   # the daemon's value
NEW_L=$(( ORIG == 1024 ? 2048 : 1024 )) # the local ab's value

write_config
cat >>"$DCONF" <<EOF
allow = $LOOP
allow_knobs = $LOOP read_ahead_kb
EOF
daemon_start || { finish; exit 1; }

job_json() { # job_json NAME VALUE
  echo "{\"name\":\"$1\",\"target\":\"$LOOP\",
    \"workload\":{\"runtime\":\"300ms\",\"direct\":true,\"iodepth\":4,\"rw\":\"randread\"},
    \"variants\":{\"A\":{},\"B\":{\"sysfs.read_ahead_kb\":$2}},\"repeat\":2,\"warmup\":0,
    \"quiescence\":{\"mode\":\"off\"}}"
}
job_json "local ab" "$NEW_L" >"$TMP/local.json"

ok_trials=0
for t in $(seq 1 "$TRIALS"); do
  good=1
  if (( t % 2 )); then
    # the daemon first; ab as soon as the job runs
    api POST /api/v1/jobs "$(job_json "daemon $t" "$NEW_D")"
    id=$(api_get 'd["id"]')
    WAIT_S=30 wait_state "$id" running done failed >/dev/null || true
    rc=0; "$CLI" ab --quiet "$TMP/local.json" >"$TMP/ab.out" 2>"$TMP/ab.err" || rc=$?
    cp "$TMP/ab.err" "$TMP/ab.refused"
    st=$(WAIT_S=60 wait_state "$id" done failed) || true
    if [ "$rc" != 1 ] || ! grep -qE "in use by pid $DPID \(biobenchd, job $id \"daemon $t\"\)" "$TMP/ab.err"; then
      fail "trial $t: ab while daemon job $id ran: exit $rc: $(cat "$TMP/ab.err")"; good=0
    fi
    [ "$st" = done ] || { fail "trial $t: daemon job $id ended $st: $(api_get 'd["error"]')"; good=0; }
    if [ "$t" = 1 ]; then
      # biobench run is refused too, and the lock file names the holder
      api POST /api/v1/jobs "$(job_json "daemon 1b" "$NEW_D")"
      id=$(api_get 'd["id"]')
      WAIT_S=30 wait_state "$id" running >/dev/null || true
      holder=$(cat "$LOCK" 2>/dev/null | tr '\n' ' ')
      rc=0; "$CLI" run --runtime 200ms --direct "$LOOP" >/dev/null 2>"$TMP/run.err" || rc=$?
      WAIT_S=60 wait_state "$id" done failed >/dev/null || true
      [ "$rc" = 1 ] && grep -q "in use by pid $DPID (biobenchd" "$TMP/run.err" \
        && pass "biobench run refused while the daemon runs: $(cat "$TMP/run.err")" \
        || fail "biobench run while the daemon ran: exit $rc: $(cat "$TMP/run.err")"
      grep -q "pid $DPID program biobenchd what job $id" <<<"$holder" \
        && pass "the lock file $LOCK names the holder: $holder" \
        || fail "lock file $LOCK: '$holder'"
    fi
  else
    # ab first; the daemon job as soon as ab holds the device
    "$CLI" ab --quiet "$TMP/local.json" >"$TMP/ab.out" 2>"$TMP/ab.err" &
    ab=$!
    for _ in $(seq 200); do grep -q "pid $ab" "$LOCK" 2>/dev/null && break; sleep 0.02; done
    api POST /api/v1/jobs "$(job_json "daemon $t" "$NEW_D")"
    id=$(api_get 'd["id"]')
    st=$(WAIT_S=60 wait_state "$id" done failed) || true
    rc=0; wait "$ab" || rc=$?
    err=$(api_get 'd["error"]')
    if [ "$st" != failed ] || ! grep -qE "in use by pid $ab \(biobench ab, job \"local ab\"\)" <<<"$err"; then
      fail "trial $t: daemon job $id while ab (pid $ab) ran: $st: $err"; good=0
    fi
    [ "$rc" = 0 ] || { fail "trial $t: ab exit $rc: $(cat "$TMP/ab.err")"; good=0; }
  fi
  now=$(cat "$RA")
  [ "$now" = "$ORIG" ] || { fail "trial $t: read_ahead_kb is $now, was $ORIG"; good=0; }
  ok_trials=$((ok_trials + good))
done
[ "$ok_trials" = "$TRIALS" ] \
  && pass "$ok_trials of $TRIALS trials: the second user refused with the holder named, read_ahead_kb back at $ORIG" \
  || fail "$ok_trials of $TRIALS trials good"
echo "  e.g. ab: $(head -1 "$TMP/ab.refused" 2>/dev/null)"
echo "  e.g. daemon: $err"

finish
