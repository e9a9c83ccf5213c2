#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# job_outcomes.sh BIOBENCHD BIOBENCH - what the client says about jobs that
# did not simply finish, against a real biobenchd:
#   - a job that fails at its 3rd run (its file shrinks under it): jobs,
#     show and compare give the same "N of M" (N the runs that finished),
#     compare says the job failed and exits 1, the API counts no failed run;
#   - a cancelled job: its run is "cancelled", never "failed"; compare
#     says so and exits 1;
#   - a job whose runs a busy loop disturbs: compare names each run and
#     the culprit;
#   - a file job: the device is flat in the API (disk, disk_path; the
#     nested object kept as device.device for this release) and show
#     prints it in words, not JSON;
#   - the job list gives each finished job's change, the one compare shows.
source "$(dirname "$0")/daemon_lib.sh"
[ -n "$CLI" ] && [ -x "$CLI" ] || skip "no biobench binary given"
show_out() { echo "  stdout:" >&2; sed 's/^/    /' "$TMP/out" >&2; echo "  stderr:" >&2; sed 's/^/    /' "$TMP/err" >&2; }

daemon_start || { fail "biobenchd did not start"; finish; exit 1; }
export BIOBENCH_SERVER="http://127.0.0.1:$DPORT"

submit() { # submit JSON: the new job's id
  api POST /api/v1/jobs "$1"
  [ "$API_STATUS" = 201 ] || { echo "  submit: $API_STATUS $(cat "$API_BODY")" >&2; return 1; }
  api_get 'd["id"]'
}
# wait_cond ID PYEXPR SECONDS: poll the job document until PYEXPR holds
wait_cond() {
  for _ in $(seq 1 $(($3 * 10))); do
    api GET "/api/v1/jobs/$1"
    [ "$(api_get "$2")" = true ] && return 0
    sleep 0.1
  done
  return 1
}
runs_finished() { # runs_finished ID: how many of its stored runs are done
  api GET "/api/v1/jobs/$1/runs"
  api_get 'sum(1 for r in d["runs"] if r["state"] == "done")'
}

# --- a job that fails at its 3rd run ------------------------------------------
f=$TMP/ro/shrinks.dat
dd if=/dev/zero of="$f" bs=1M count=64 status=none
id=$(submit '{"name":"fails","target":"'"$f"'","workload":{"runtime":"300ms","direct":false,
  "size":"64m"},"repeat":10,"warmup":0,"variants":{"A":{},"B":{"bio_cache":"off"}}}')
wait_cond "$id" 'd["runs_done"] >= 2' 60 || fail "the job never finished 2 runs"
truncate -s 1M "$f"
st=$(WAIT_S=60 wait_state "$id" failed done cancelled interrupted) || true
[ "$st" = failed ] && pass "job $id failed once its file shrank" || fail "job $id: $st"
n=$(runs_finished "$id")
api GET "/api/v1/jobs/$id"
[ "$(api_get 'd["runs_done"]')" = "$n" ] && pass "API runs_done = $n, the runs that finished (not the failed one)" \
  || fail "API runs_done $(api_get 'd["runs_done"]') != $n finished runs"
planned=$(api_get 'd["runs_planned"]')
expect_rc 0 jobs && grep -qE "^ +$id  fails .* failed +$n/$planned " "$TMP/out" \
  && pass "jobs: $n/$planned" || { fail "jobs does not say $n/$planned"; show_out; }
expect_rc 0 show "$id" && grep -qE "^  runs +$n of $planned done$" "$TMP/out" \
  && pass "show: $n of $planned done" || { fail "show does not say $n of $planned"; show_out; }
if expect_rc 1 compare "$id"; then
  pass "compare of a failed job: exit 1"
  grep -q "^the job failed after $n of $planned runs: run $((n + 1)) (variant " "$TMP/out" \
    && pass "compare says first that the job failed, after $n of $planned runs" \
    || { fail "compare does not say the job failed"; show_out; }
  ! grep -q "runs done" "$TMP/out" || grep -q "$n of $planned runs done" "$TMP/out" \
    && pass "compare's header agrees ($n of $planned)" || { fail "compare's header disagrees"; show_out; }
  grep -q "^verdict: none (the job failed)$\|^verdict: [a-z]" "$TMP/out" && ! grep -q "none yet" "$TMP/out" \
    && pass "compare's verdict line does not wait for a verdict" || { fail "compare verdict line"; show_out; }
else fail "compare of a failed job: not exit 1"; show_out; fi

# --- a cancelled job ---------------------------------------------------------
id=$(submit '{"name":"cancelled","target":"nop","workload":{"runtime":"1s"},"repeat":5,"warmup":0,
  "variants":{"A":{},"B":{"bio_cache":"off"}}}')
wait_cond "$id" 'd["state"] == "running" and d["runs_done"] >= 1' 60 || fail "the job never finished a run"
expect_rc 0 cancel "$id" || fail "cancel"
st=$(WAIT_S=30 wait_state "$id" cancelled done failed interrupted) || true
[ "$st" = cancelled ] && pass "job $id cancelled" || fail "job $id: $st"
api GET "/api/v1/jobs/$id/runs"
[ "$(api_get '[r["state"] for r in d["runs"]][-1]')" = cancelled ] \
  && pass "its last run is stored as cancelled" || fail "last run: $(api_get '[r["state"] for r in d["runs"]]')"
n=$(runs_finished "$id")
if expect_rc 1 compare "$id"; then
  grep -q "^the job was cancelled after $n of " "$TMP/out" && pass "compare: the job was cancelled after $n runs, exit 1" \
    || { fail "compare of a cancelled job"; show_out; }
  grep -q "was cancelled: not in the comparison" "$TMP/out" && ! grep -qi "failed" "$TMP/out" \
    && pass "compare calls the cancelled run cancelled, never failed" || { fail "cancelled run called failed"; show_out; }
elif grep -q "was cancelled after 0 of" "$TMP/err"; then
  pass "compare: cancelled before any comparison, and says so"
else fail "compare of a cancelled job"; show_out; fi

# --- a job its CPU's busy loop disturbs ----------------------------------------
bench_cpu=$(( $(nproc) - 1 ))
taskset -c "$bench_cpu" sh -c 'while :; do :; done' &
spin=$!
cleanup_hooks+=("kill $spin 2>/dev/null")
id=$(submit '{"name":"disturbed","target":"nop","workload":{"runtime":"150ms"},"repeat":2,"warmup":0,
  "quiescence":{"max_wait":"50ms"},"variants":{"A":{},"B":{"bio_cache":"off"}}}')
st=$(WAIT_S=60 wait_state "$id" done failed cancelled interrupted) || true
kill "$spin" 2>/dev/null; wait "$spin" 2>/dev/null || true
# (the culprit named is the CPU's biggest consumer at the time: the busy
# loop, or on a loaded host something else)
expect_rc 0 compare "$id" && grep -qE "^warning: [0-9]+ measured run\(s\) disturbed .*:$" "$TMP/out" \
  && grep -qE "^  run [0-9]+ \([AB], round [12]\): CPU $bench_cpu [0-9]+ % busy" "$TMP/out" \
  && pass "compare names the disturbed runs and what disturbed them ($(grep -cE '^  run [0-9]+ .*\(sh \(pid '"$spin"'\)\)' "$TMP/out") naming the busy loop, sh pid $spin)" \
  || { fail "compare does not name the disturbed runs"; show_out; }

# --- a file job: the device, flat and in words ---------------------------------
g=$TMP/ro/plain.dat
dd if=/dev/zero of="$g" bs=1M count=16 status=none
id=$(submit '{"name":"file","target":"'"$g"'","workload":{"runtime":"100ms","direct":false},
  "repeat":2,"warmup":0,"variants":{"A":{},"B":{"bio_cache":"off"}}}')
st=$(WAIT_S=60 wait_state "$id" done failed cancelled interrupted) || true
api GET "/api/v1/jobs/$id"
check_openapi "$API_BODY" GET "/api/v1/jobs/$id" 200 && pass "the job document matches openapi.yaml" \
  || fail "the job document does not match openapi.yaml"
r=$(api_get '"%s %s %s %s" % (d["device"]["kind"], d["device"]["path"] == "'"$g"'", bool(d["device"]["disk"]), d["device"]["disk_path"] == d["device"]["device"]["path"])')
[ "$r" = "file True True True" ] && pass "device is flat: kind, path, disk, disk_path (and the deprecated device.device)" \
  || fail "device: $r: $(api_get 'd["device"]')"
disk=$(api_get 'd["device"]["disk"]')
expect_rc 0 show "$id" && grep -qE "^  device +file $g, on disk $disk \(/dev/$disk: " "$TMP/out" \
  && ! sed -n '/^  device/,/^  limits/p' "$TMP/out" | grep -qE '[{}]|\\/' \
  && grep -qE "^  limits +logical block [0-9]+ B" "$TMP/out" \
  && pass "show prints the device in words (file, disk $disk, limits), no JSON" || { fail "show device"; show_out; }

# --- the job list: each finished job's change ------------------------------------
expect_rc 0 compare "$id" || fail "compare $id"
chg=$(sed -n 's/^  change  *(baseline)  *\([-+][0-9.]*%\)$/\1/p' "$TMP/out")
expect_rc 0 jobs && head -1 "$TMP/out" | grep -q "CHANGE  VERDICT" \
  && grep -qE "^ +$id  file .* done +[0-9]+/[0-9]+ +[0-9]+% +\\$chg +[a-z]" "$TMP/out" \
  && pass "jobs shows job $id's change ($chg, as compare) beside its verdict" || { fail "jobs change column ($chg)"; show_out; }

daemon_alive && health_ok && pass "daemon still answers" || fail "daemon died"
daemon_stop || fail "daemon stop"
finish
