#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# stall.sh BIOBENCHD BIOBENCH - a run the process was stopped in is
# marked disturbed (issue 12, finding 19): `biobench ab` is stopped with
# SIGSTOP for 3 s during its first run and continued; that run's
# progress line says "disturbed: stalled 3.0 s", the comparison counts
# one disturbed run, and the runs not stopped are not marked.  The same
# for `biobench run --json`: its "stall" object holds the 3 s and a
# warning names them.  Real processes, real signals, the nop target.
source "$(dirname "$0")/../integration/daemon_lib.sh"

[ -x "$CLI" ] || skip "usage: $0 BIOBENCHD BIOBENCH"

# stop_for PID AFTER SECONDS: SIGSTOP PID after AFTER s, SIGCONT SECONDS later
stop_for() {
  sleep "$2"
  kill -STOP "$1"
  sleep "$3"
  kill -CONT "$1"
}

# --- biobench ab: the first of four 4 s runs is stopped 3 s ---------------
cat >"$TMP/job.json" <<'EOF'
{"name": "stall", "target": "nop",
 "workload": {"runtime": "4s", "iodepth": 8, "threads": 1},
 "variants": {"A": {}, "B": {"iodepth": 16}},
 "repeat": 2, "warmup": 0,
 "quiescence": {"mode": "off"}}
EOF
"$CLI" ab "$TMP/job.json" >"$TMP/ab.out" 2>"$TMP/ab.err" &
AB=$!
cleanup_hooks+=("kill -CONT $AB 2>/dev/null; kill $AB 2>/dev/null")
stop_for "$AB" 1.5 3
rc=0; wait "$AB" || rc=$?
[ "$rc" = 0 ] || fail "biobench ab: exit $rc: $(cat "$TMP/ab.err")"
sed 's/^/    /' "$TMP/ab.out" | grep -E "run |disturbed" || true
line1=$(grep -E '^  run 1/' "$TMP/ab.out" || true)
if grep -qE 'disturbed: stalled 3\.[01] s' <<<"$line1"; then
  pass "ab: run 1 marked \"$(grep -oE 'disturbed: stalled [0-9.]+ s' <<<"$line1")\""
else
  fail "ab: run 1 not marked stalled 3.0 s: $line1"
fi
others=$(grep -E '^  run [2-4]/' "$TMP/ab.out" | grep -c disturbed || true)
[ "$others" = 0 ] && pass "ab: the 3 runs not stopped are not marked" \
  || fail "ab: $others other run(s) marked disturbed"
grep -qE '1 measured run\(s\) disturbed' "$TMP/ab.out" \
  && pass "ab: the comparison warns of 1 disturbed run" \
  || fail "ab: no warning of the disturbed run: $(grep -i warn "$TMP/ab.out")"
# ... and names it, with why (the comparison's "disturbed" list)
# (the job's order is random: run 1 is A's or B's first run)
grep -qE '^  run 1 \([AB], round 1\): stalled 3\.[01] s$' "$TMP/ab.out" \
  && pass "ab: the comparison names run 1 (its variant, round 1) and its stall" \
  || fail "ab: the comparison does not name the disturbed run: $(grep -A2 -i 'disturbed' "$TMP/ab.out" | tail -2)"

# --- biobench run --json ---------------------------------------------------
"$CLI" run --json --runtime 3s --iodepth 8 nop >"$TMP/run.json" 2>"$TMP/run.err" &
RUN=$!
cleanup_hooks+=("kill -CONT $RUN 2>/dev/null; kill $RUN 2>/dev/null")
stop_for "$RUN" 1 2
rc=0; wait "$RUN" || rc=$?
[ "$rc" = 0 ] || fail "biobench run: exit $rc: $(cat "$TMP/run.err")"
st=$(jget "$TMP/run.json" 'round(d["stall"]["stalled_s"], 1)' 2>/dev/null || echo "?")
if [ "$st" = 2.0 ] || [ "$st" = 2.1 ]; then
  pass "run --json: stall.stalled_s = $st"
else
  fail "run --json: stall.stalled_s = $st (wanted 2.0)"
fi
grep -qE 'disturbed: stalled 2\.[01] s' "$TMP/run.err" \
  && pass "run: warns \"$(grep -oE 'stalled [0-9.]+ s' "$TMP/run.err")\"" \
  || fail "run: no warning: $(cat "$TMP/run.err")"
validate_schema "$TMP/run.json" && pass "run --json: valid result document" \
  || fail "run --json: not a valid result document"

# control: an undisturbed run reports (almost) no stall and no warning
"$CLI" run --json --runtime 1s --iodepth 8 nop >"$TMP/ok.json" 2>"$TMP/ok.err" || true
st=$(jget "$TMP/ok.json" 'd["stall"]["stalled_s"] < 0.25' 2>/dev/null || echo "?")
[ "$st" = True ] && ! grep -q disturbed "$TMP/ok.err" \
  && pass "control: a run not stopped is not marked" \
  || fail "control: stalled_s $(jget "$TMP/ok.json" 'd["stall"]' 2>/dev/null): $(cat "$TMP/ok.err")"

finish
