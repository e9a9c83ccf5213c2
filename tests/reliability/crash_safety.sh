#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# crash_safety.sh BIOBENCHD [BIOBENCH] - kill -9 biobenchd at random moments
# while it works through 20 jobs on a loop device and on a file (on ext4 on
# a second loop device), each with sysfs knobs (nomerges, read_ahead_kb)
# changed in variant B; restart it after every kill.  Before each kill a
# record is taken from the database (every run in state done with a hash
# of its result JSON, every job done with its verdict); after each restart
# and at the end every recorded run and job must still be there, unchanged.
# At the end: PRAGMA integrity_check ok, no job left running or queued,
# every knob journal row restored, every knob back at its original value.
# Prints the tally.  Needs root (loop devices, sysfs), sqlite3.
#
# env: CRASH_JOBS (20), CRASH_KILLS (max kills, 10), CRASH_SEED (random)
source "$(dirname "$0")/../integration/daemon_lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root (loop devices, sysfs knobs)"
command -v sqlite3 >/dev/null || skip "sqlite3 is not installed"
command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 is not installed"

NJOBS=${CRASH_JOBS:-20}
MAXKILLS=${CRASH_KILLS:-10}
SEED=${CRASH_SEED:-$(( $(date +%s) % 100000 ))}
RANDOM=$SEED
echo "crash_safety: $NJOBS jobs, up to $MAXKILLS kills, seed $SEED (CRASH_SEED=$SEED to replay)"

# --- two loop devices: one raw target, one with ext4 holding a file target --
truncate -s 64M "$TMP/raw.img" "$TMP/fs.img"
LOOP=$(losetup -f --show "$TMP/raw.img" 2>/dev/null) || skip "losetup failed: no loop devices"
cleanup_hooks+=("losetup -d $LOOP")
LOOP2=$(losetup -f --show "$TMP/fs.img" 2>/dev/null) || skip "losetup failed (second device)"
cleanup_hooks+=("losetup -d $LOOP2")
mkfs.ext4 -q -F "$LOOP2" >/dev/null 2>&1 || skip "mkfs.ext4 failed"
mkdir -p "$TMP/mnt"
mount "$LOOP2" "$TMP/mnt" || skip "cannot mount ext4 on $LOOP2"
# cleanup hooks run in order: the daemon first, then knobs, then unmount
# before the loop devices go
cleanup_hooks=('[ -z "$DPID" ] || daemon_kill $DPID' "umount -l $TMP/mnt"
               "losetup -d $LOOP2" "losetup -d $LOOP")
FILE=$TMP/mnt/bench.dat
head -c 8M /dev/zero >"$FILE"   # read jobs read it; they do not lay it out

declare -A ORIG KNOBS
for dev in "$LOOP" "$LOOP2"; do
  for k in nomerges read_ahead_kb; do
    f=/sys/block/$(basename "$dev")/queue/$k
    KNOBS[$dev.$k]=$f
    ORIG[$dev.$k]=$(cat "$f")
  done
done
nm_new() { [ "${ORIG[$1.nomerges]}" = 2 ] && echo 1 || echo 2; }
ra_new() { [ "${ORIG[$1.read_ahead_kb]}" = 64 ] && echo 32 || echo 64; }
# knobs back where they were (also when the test fails half-way)
restore_all() {
  for key in "${!KNOBS[@]}"; do echo "${ORIG[$key]}" >"${KNOBS[$key]}" 2>/dev/null || true; done
}
cleanup_hooks=("${cleanup_hooks[0]}" restore_all "${cleanup_hooks[@]:1}")

write_config
cat >>"$DCONF" <<EOF
allow = $LOOP
allow = $TMP/mnt/*.dat
allow_knobs = $LOOP nomerges read_ahead_kb
allow_knobs = $TMP/mnt/*.dat nomerges read_ahead_kb
EOF
daemon_start || { finish; exit 1; }

# --- the jobs: all queued at once ------------------------------------------
ids=()
for i in $(seq 1 "$NJOBS"); do
  if (( i % 2 )); then
    tgt=$LOOP dev=$LOOP wl='"direct":true,"iodepth":4'
  else
    tgt=$FILE dev=$LOOP2 wl='"size":"8m","direct":false,"iodepth":8'
  fi
  api POST /api/v1/jobs "{\"name\":\"crash $i\",\"target\":\"$tgt\",
    \"workload\":{\"runtime\":\"200ms\",$wl},
    \"variants\":{\"A\":{},\"B\":{\"sysfs.nomerges\":$(nm_new "$dev"),
                  \"sysfs\":{\"read_ahead_kb\":$(ra_new "$dev")}}},
    \"repeat\":2,\"warmup\":0}"
  if [ "$API_STATUS" != 201 ]; then
    fail "job $i not accepted: $API_STATUS $(cat "$API_BODY")"; finish; exit 1
  fi
  ids+=("$(api_get 'd["id"]')")
done
pass "$NJOBS jobs queued (ids ${ids[0]}..${ids[-1]})"

# --- the record: done runs with their result hashes, done jobs --------------
# snapshot DB OUT: merge what is done now into the record OUT (a JSON file)
snapshot() {
  /usr/bin/python3 - "$@" <<'PY'
import hashlib, json, os, sqlite3, sys
db, out = sys.argv[1:3]
rec = json.load(open(out)) if os.path.exists(out) else {"runs": {}, "jobs": {}}
c = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
for rid, job, seq, result in c.execute(
        "SELECT id, job_id, seq, result FROM runs WHERE state = 'done'"):
    rec["runs"][str(rid)] = [job, seq, hashlib.sha256((result or "").encode()).hexdigest()]
for jid, verdict, cmp in c.execute(
        "SELECT id, verdict, compare FROM jobs WHERE state = 'done'"):
    rec["jobs"][str(jid)] = [verdict, hashlib.sha256((cmp or "").encode()).hexdigest()]
json.dump(rec, open(out, "w"))
print(len(rec["runs"]), len(rec["jobs"]))
PY
}
# verify DB REC: every recorded run and job present and unchanged
verify() {
  /usr/bin/python3 - "$@" <<'PY'
import hashlib, json, sqlite3, sys
db, recf = sys.argv[1:3]
rec = json.load(open(recf))
c = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
bad = []
for rid, (job, seq, h) in rec["runs"].items():
    row = c.execute("SELECT job_id, seq, state, result FROM runs WHERE id = ?", (int(rid),)).fetchone()
    if not row:
        bad.append(f"run {rid} (job {job} seq {seq}) is gone"); continue
    if row[0] != job or row[1] != seq or row[2] != "done":
        bad.append(f"run {rid}: now job {row[0]} seq {row[1]} state {row[2]}")
    elif hashlib.sha256((row[3] or "").encode()).hexdigest() != h:
        bad.append(f"run {rid}: result JSON changed")
    else:
        try:
            json.loads(row[3])
        except Exception as e:
            bad.append(f"run {rid}: result is not JSON: {e}")
for jid, (verdict, h) in rec["jobs"].items():
    row = c.execute("SELECT state, verdict, compare FROM jobs WHERE id = ?", (int(jid),)).fetchone()
    if not row or row[0] != "done" or row[1] != verdict or \
       hashlib.sha256((row[2] or "").encode()).hexdigest() != h:
        bad.append(f"job {jid}: was done ({verdict}), now {row[:2] if row else 'gone'}")
for b in bad[:20]:
    print("   ", b)
sys.exit(1 if bad else 0)
PY
}

REC=$TMP/record.json
kills=0 killed_running=0 verify_fail=0 recovered_rows=0
pending() { sqlite3 "$DDB" "SELECT count(*) FROM jobs WHERE state IN ('queued','running')" 2>/dev/null || echo 1; }
t_start=$(date +%s)
while [ "$(pending)" != 0 ] && (( kills < MAXKILLS )); do
  # a random moment: 0.2 .. 4.0 s from now (a job takes 1-2 s)
  ms=$(( 200 + RANDOM % 3800 ))
  sleep "$(( ms / 1000 )).$(printf %03d $(( ms % 1000 )))"
  [ "$(pending)" != 0 ] || break
  snapshot "$DDB" "$REC" >/dev/null || fail "snapshot before kill $((kills + 1)) failed"
  running=$(sqlite3 "$DDB" "SELECT count(*) FROM jobs WHERE state = 'running'" 2>/dev/null || echo 0)
  maxk=$(sqlite3 "$DDB" "SELECT coalesce(max(id), 0) FROM knob_journal" 2>/dev/null || echo 0)
  kill -9 "$DPID"; wait "$DPID" 2>/dev/null || true; DPID=
  kills=$((kills + 1))
  (( running > 0 )) && killed_running=$((killed_running + 1))
  ic=$(sqlite3 "$DDB" "PRAGMA integrity_check" 2>&1)
  [ "$ic" = ok ] || fail "kill $kills: integrity_check: $ic"
  if ! daemon_start; then fail "restart after kill $kills"; break; fi
  # recovery happens before the listener answers: nothing journaled
  # before the kill may be left unrestored
  left=$(sqlite3 "$DDB" "SELECT count(*) FROM knob_journal WHERE id <= $maxk AND state != 'restored'")
  [ "$left" = 0 ] || fail "kill $kills: $left journaled knob(s) not restored by recovery"
  recovered_rows=$(sqlite3 "$DDB" "SELECT count(*) FROM events WHERE message LIKE 'recovery: restored%'" 2>/dev/null || echo "?")
  if ! verify "$DDB" "$REC"; then
    verify_fail=$((verify_fail + 1))
    fail "kill $kills: records lost or changed"
  fi
done
# the rest runs to the end without kills
for _ in $(seq 1 600); do [ "$(pending)" = 0 ] && break; sleep 0.2; done
elapsed=$(( $(date +%s) - t_start ))
snapshot "$DDB" "$REC" >/dev/null
daemon_stop || fail "daemon_stop: exit $?"

# --- final checks ------------------------------------------------------------
ic=$(sqlite3 "$DDB" "PRAGMA integrity_check")
[ "$ic" = ok ] && pass "PRAGMA integrity_check: ok" || fail "integrity_check: $ic"
verify "$DDB" "$REC" && pass "every run and job recorded before a kill is present and unchanged" ||
  fail "records lost or changed at the end"
left=$(sqlite3 "$DDB" "SELECT count(*) FROM jobs WHERE state IN ('running','queued')")
[ "$left" = 0 ] && pass "no job left running or queued" || fail "$left job(s) still running/queued"
unres=$(sqlite3 "$DDB" "SELECT count(*) FROM knob_journal WHERE state != 'restored'")
nj=$(sqlite3 "$DDB" "SELECT count(*) FROM knob_journal")
[ "$unres" = 0 ] && pass "knob journal: all $nj rows restored" || fail "knob journal: $unres of $nj rows not restored"
kbad=0
for key in "${!KNOBS[@]}"; do
  now=$(cat "${KNOBS[$key]}")
  [ "$now" = "${ORIG[$key]}" ] || { fail "$key is $now, was ${ORIG[$key]}"; kbad=$((kbad + 1)); }
done
[ "$kbad" = 0 ] && pass "every knob back at its original value (${#KNOBS[@]} knobs on 2 devices)"
# every job that ran to its end without a kill is done; the others interrupted
bad=$(sqlite3 "$DDB" "SELECT count(*) FROM jobs WHERE state NOT IN ('done','interrupted')")
[ "$bad" = 0 ] && pass "every job done or interrupted" ||
  fail "$bad job(s) ended otherwise: $(sqlite3 "$DDB" "SELECT id, state, error FROM jobs WHERE state NOT IN ('done','interrupted')")"
# an interrupted job keeps its finished runs
orphans=$(sqlite3 "$DDB" "SELECT count(*) FROM runs r JOIN jobs j ON j.id = r.job_id WHERE r.state = 'done' AND (r.result IS NULL OR r.result = '')")
[ "$orphans" = 0 ] && pass "every done run has its result document" || fail "$orphans done run(s) without a result"

read -r ndone nint <<<"$(sqlite3 -separator ' ' "$DDB" "SELECT sum(state='done'), sum(state='interrupted') FROM jobs")"
read -r nruns nrec <<<"$(sqlite3 -separator ' ' "$DDB" "SELECT count(*), sum(state='done') FROM runs")"
echo "crash_safety tally: $NJOBS jobs, $kills kill -9 ($killed_running while a job ran), $elapsed s;" \
  "jobs done $ndone, interrupted $nint; runs stored $nruns ($nrec done)," \
  "$(python3 -c "import json;r=json.load(open('$REC'));print(len(r['runs']))") recorded before kills, all intact" \
  "; knob journal rows $nj, restored by recovery $recovered_rows; seed $SEED"
(( kills > 0 )) || fail "no kill happened (jobs finished too fast?)"
finish
