#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# compare_jobs.sh BIOBENCHD BIOBENCH - comparing jobs against a real daemon
# (issue 17, part 1): GET /api/v1/compare and `biobench compare BASE
# OTHER...`.
#   - the job is the unit: one job a side is never a verdict, whatever
#     its runs say ("inconclusive: one job per side", with the jobs each
#     side still needed), also for a known difference (inject_ns);
#   - three jobs a side (plain and inject_ns 2000, alternating): "slower"
#     on the between-job spread (n=3+3 jobs), "faster" the other way;
#   - two A/A jobs against two more of the same workload: neither faster
#     nor slower.  On the shared 2-CPU development host other tenants'
#     load drifts between consecutive nop jobs by more than the runs' own
#     spread (9-24 % run-to-run, up to 20 % between A/A jobs in IOPS), so
#     these measure cpu_per_io with the base's min_effect at 50 %;
#   - level=run (asked for): the run-level comparison of the single jobs,
#     "slower" with the right sign, and every answer says what it assumes;
#   - a workload that differs (bs) refused with the field named (400, CLI
#     exit 2), and compared with allow_different_workload;
#   - on a loop device (root): read_ahead_kb changed by hand between two
#     jobs is recorded with every run and is the highlighted diff row.
# Every answer is checked against schema/openapi.yaml.
source "$(dirname "$0")/daemon_lib.sh"

[ -x "$CLI" ] || skip "usage: $0 BIOBENCHD BIOBENCH"

LOOP=
if [ "$(id -u)" = 0 ]; then
  dd if=/dev/zero of="$TMP/loop.img" bs=1M count=32 status=none
  LOOP=$(losetup -f --show "$TMP/loop.img" 2>/dev/null) || LOOP=
  [ -n "$LOOP" ] && cleanup_hooks+=('losetup -d $LOOP 2>/dev/null')
fi
write_config
[ -n "$LOOP" ] && echo "allow = $LOOP" >>"$DCONF"
daemon_start || { finish; exit 1; }

cli() { "$CLI" --server "http://127.0.0.1:$DPORT" "$@"; }

submit() { submit_job "$1"; }

done_or_fail() {
  local st
  for id in "$@"; do
    st=$(WAIT_S=180 wait_state "$id" done failed cancelled interrupted || true)
    if [ "$st" != done ]; then
      fail "job $id done (state '$st': $(api_get 'd["error"]'))"
      sed 's/^/    /' "$DLOG" | tail -20 >&2
      finish
      exit 1
    fi
  done
}

# compare QUERY: GET /api/v1/compare?QUERY into $TMP/cmp.json, checked
# against openapi.yaml; its status in $API_STATUS.
compare() {
  api GET "/api/v1/compare?$1"
  cp "$API_BODY" "$TMP/cmp.json"
  check_openapi "$TMP/cmp.json" GET /api/v1/compare "$API_STATUS" \
    || fail "GET /api/v1/compare?$1 ($API_STATUS) is what openapi.yaml says"
}
cget() { jget "$TMP/cmp.json" "$1" 2>/dev/null || true; }

# --- nop: a known difference, and none ---------------------------------------
AA='"target":"nop","workload":{"runtime":"200ms"},"repeat":6,"warmup":1,"aa":true'
plain=$(submit '{"name":"cmp plain",'"$AA"'}')
slow=$(submit '{"name":"cmp slow",'"$AA"',"variants":{"A":{"inject_ns":2000}}}')
# the sides' other jobs: 3 pairs each (repeat is no workload field); a job
# is one level however many runs it has
AA3='"target":"nop","workload":{"runtime":"200ms"},"repeat":3,"warmup":0,"aa":true'
plain2=$(submit '{"name":"cmp plain",'"$AA3"'}')
slow2=$(submit '{"name":"cmp slow",'"$AA3"',"variants":{"A":{"inject_ns":2000}}}')
plain3=$(submit '{"name":"cmp plain",'"$AA3"'}')
slow3=$(submit '{"name":"cmp slow",'"$AA3"',"variants":{"A":{"inject_ns":2000}}}')
aa1=$(submit '{"name":"cmp cpu",'"$AA"',"metric":"cpu_per_io","min_effect":50}')
aa2=$(submit '{"name":"cmp cpu",'"$AA"',"metric":"cpu_per_io"}')
aa3=$(submit '{"name":"cmp cpu",'"$AA3"',"metric":"cpu_per_io"}')
aa4=$(submit '{"name":"cmp cpu",'"$AA3"',"metric":"cpu_per_io"}')
big=$(submit '{"name":"cmp bs",'"$AA"',"workload":{"runtime":"200ms","bs":"8k"}}')
done_or_fail "$plain" "$slow" "$plain2" "$slow2" "$plain3" "$slow3" "$aa1" "$aa2" "$aa3" "$aa4" "$big"
pass "11 A/A jobs on nop done: $plain $slow $plain2 $slow2 $plain3 $slow3 $aa1 $aa2 $aa3 $aa4 $big"

api GET "/api/v1/jobs/$slow/runs"
boot=$(cat /proc/sys/kernel/random/boot_id)
[ "$(api_get '" ".join(sorted({r["result"]["boot_id"] for r in d["runs"]}))')" = "$boot" ] \
  && [ "$(api_get 'str({r["result"]["queue_settings"] for r in d["runs"]})')" = "{None}" ] \
  && [ "$(api_get 'str({r["result"]["biobench_version"] for r in d["runs"]})')" = "{'$("$CLI" --version | cut -d' ' -f2)'}" ] \
  && pass "every stored run has this boot's id ($boot), nop no queue settings" \
  || fail "runs' boot ids: $(api_get '[r["result"].get("boot_id") for r in d["runs"]]')"

# one job a side: no verdict, even for a 95 % slowdown
compare "base=$plain&with=$slow"
if [ "$API_STATUS" = 200 ] && [ "$(cget 'd["comparisons"][0]["verdict"]')" = inconclusive ] \
   && [ "$(cget 'd["verdict"]')" = inconclusive ] \
   && [ "$(cget 'd["level"]')" = unit ] && [ "$(cget 'd["comparisons"][0]["compared_by"]')" = job ] \
   && [ "$(cget 'd["comparisons"][0]["units"]["base"]')" = 1 ] \
   && [ "$(cget 'd["comparisons"][0]["more_needed"] >= 1')" = True ] \
   && cget 'd["comparisons"][0]["text"]' | grep -q "^inconclusive: one job per side" \
   && cget 'd["comparisons"][0]["text"]' | grep -q "more jobs each side needed" \
   && [ "$(cget 'd["jobs"][0]["variants"]["A"]["n"]')" = 12 ]; then
  pass "one job a side (inject_ns 2000 in job $slow): $(cget 'd["comparisons"][0]["text"]' | cut -c1-110)..."
else
  fail "one job a side: $(head -c 600 "$TMP/cmp.json")"
fi
[ "$(cget 'd["boots"]["single_boot"]')" = True ] \
  && cget 'd["boots"]["statement"]' | grep -q "one boot: the job is the unit" \
  && pass "one boot behind both sides: $(cget 'd["boots"]["statement"]' | cut -c1-80)..." \
  || fail "boots: $(cget 'd["boots"]')"
[ "$(cget '[r["values"] for r in d["diff"] if r["key"] == "config.inject_ns"][0]')" = "['0', '2000']" ] \
  && [ "$(cget '[r["differs"] for r in d["diff"] if r["key"] == "config.inject_ns"][0]')" = True ] \
  && pass "the diff names inject_ns (0 vs 2000)" || fail "diff: inject_ns row"

# three jobs a side: the between-job spread backs the verdict
compare "base=$plain,$plain2,$plain3&with=$slow,$slow2,$slow3"
if [ "$API_STATUS" = 200 ] && [ "$(cget 'd["comparisons"][0]["verdict"]')" = slower ] \
   && [ "$(cget 'd["comparisons"][0]["change"] < -0.3 and d["comparisons"][0]["ci_hi"] < 0')" = True ] \
   && [ "$(cget 'd["comparisons"][0]["units"]["base"]')" = 3 ] \
   && [ "$(cget 'd["comparisons"][0]["units"]["df"]')" = 4.0 ] \
   && [ "$(cget 'd["sides"]')" = "[[$plain, $plain2, $plain3], [$slow, $slow2, $slow3]]" ] \
   && cget 'd["comparisons"][0]["text"]' | grep -q "n=3+3 jobs"; then
  pass "3 jobs a side: slower, $(cget 'd["comparisons"][0]["text"]')"
else
  fail "3 jobs a side: $(head -c 800 "$TMP/cmp.json")"
fi
compare "base=$slow,$slow2,$slow3&with=$plain,$plain2,$plain3"
[ "$(cget 'd["comparisons"][0]["verdict"]')" = faster ] \
  && [ "$(cget 'd["comparisons"][0]["ci_lo"] > 0')" = True ] \
  && pass "the other way round: faster" || fail "faster: $(cget 'd["comparisons"][0].get("text")')"

# A/A: a pair of jobs, and two a side
for q in "base=$aa1&with=$aa2" "base=$aa1,$aa3&with=$aa2,$aa4"; do
  compare "$q"
  v=$(cget 'd["comparisons"][0].get("verdict") or d["comparisons"][0]["error"]')
  case $v in
    no_change|inconclusive)
      pass "A/A jobs of one workload ($q): $v ($(cget 'd["comparisons"][0]["text"]' | cut -c1-100))" ;;
    *) fail "A/A jobs ($q) called $v: $(cget 'd["comparisons"][0].get("text")')" ;;
  esac
done

# run level, asked for: the old comparison, saying what it assumes
compare "base=$plain&with=$slow&level=run"
if [ "$API_STATUS" = 200 ] && [ "$(cget 'd["comparisons"][0]["verdict"]')" = slower ] \
   && [ "$(cget 'd["level"]')" = run ] && [ "$(cget 'd["comparisons"][0]["compared_by"]')" = run ] \
   && cget 'd["comparisons"][0]["assumes"]' | grep -q "no job-to-job or boot-to-boot variance" \
   && cget 'd["warnings"]' | grep -q "run-level comparison (asked for)" \
   && [ "$(cget 'd["comparisons"][0]["b"]["n"]')" = 12 ]; then
  pass "level=run: slower on the runs, and it says what that assumes"
else
  fail "level=run: $(head -c 600 "$TMP/cmp.json")"
fi
compare "base=$plain&with=$slow&level=runs"
[ "$API_STATUS" = 400 ] && [ "$(cget 'd["error"]["field"]')" = level ] \
  && pass "level=runs: 400 naming level" || fail "level=runs: $API_STATUS"
compare "base=$plain&with=$slow,$plain"
[ "$API_STATUS" = 400 ] && cget 'd["error"]["message"]' | grep -q "is given twice" \
  && pass "a job on both sides: 400" || fail "job twice: $API_STATUS $(cat "$TMP/cmp.json")"

# --- a workload that differs ---------------------------------------------------
compare "base=$plain&with=$big"
[ "$API_STATUS" = 400 ] && [ "$(cget 'd["error"]["code"]')" = different_workload ] \
  && [ "$(cget 'd["error"]["field"]')" = workload.bs ] && [ "$(cget 'd["fields"]')" = "['bs']" ] \
  && cget 'd["error"]["message"]' | grep -q "bs: 4096 in job $plain, 8192 in job $big" \
  && pass "bs differs: 400, $(cget 'd["error"]["message"]' | cut -c1-90)..." \
  || fail "workload refusal: $API_STATUS $(cat "$TMP/cmp.json")"
compare "base=$plain&with=$big&allow_different_workload=1"
[ "$API_STATUS" = 200 ] && [ "$(cget 'd["workload"]["differs"][0]["field"]')" = bs ] \
  && cget 'd["warnings"]' | grep -q "workloads differ (bs)" \
  && pass "allow_different_workload=1: compared, bs listed" || fail "allowed: $API_STATUS"
compare "base=$plain&with=$slow&variant=B"
[ "$API_STATUS" = 400 ] && [ "$(cget 'd["error"]["field"]')" = variant ] \
  && pass "a variant the jobs lack: 400 on variant" || fail "variant=B: $API_STATUS"

# --- the CLI --------------------------------------------------------------------
rc=0; cli compare "$plain,$plain2,$plain3" "$slow,$slow2,$slow3" >"$TMP/out" 2>"$TMP/err" || rc=$?
if [ $rc = 0 ] && grep -q "^jobs $slow, $slow2, $slow3 A vs jobs $plain, $plain2, $plain3 A: jobs $slow, $slow2, $slow3 A is .* slower than jobs $plain, $plain2, $plain3 A" "$TMP/out" \
   && grep -q "CI (real coverage) .*% CI" "$TMP/out" && grep -q "run-to-run spread" "$TMP/out" \
   && grep -q "compared by  *job (3+3 jobs, df 4)" "$TMP/out" \
   && grep -q "^\* config.inject_ns" "$TMP/out" && grep -q "^boots: " "$TMP/out" \
   && grep -q "^verdict: slower" "$TMP/out"; then
  pass "biobench compare A,B,C D,E,F: sides, table, verdict line, boots, the diff row marked"
else
  fail "biobench compare sides (exit $rc)"; sed 's/^/    /' "$TMP/out" "$TMP/err" >&2
fi
rc=0; cli compare "$plain" "$slow" >"$TMP/out" 2>"$TMP/err" || rc=$?
[ $rc = 0 ] && grep -q "inconclusive: one job per side" "$TMP/out" \
  && grep -q "^verdict: inconclusive" "$TMP/out" \
  && pass "biobench compare of one job a side: inconclusive, and why" \
  || { fail "compare one a side (exit $rc)"; sed 's/^/    /' "$TMP/out" "$TMP/err" >&2; }
rc=0; cli compare --run-level "$plain" "$slow" >"$TMP/out" 2>"$TMP/err" || rc=$?
[ $rc = 0 ] && grep -q "run level (asked for" "$TMP/out" && grep -q "^verdict: slower" "$TMP/out" \
  && grep -q "run-level comparison (asked for)" "$TMP/out" \
  && pass "biobench compare --run-level: slower, with what it assumes" \
  || { fail "compare --run-level (exit $rc)"; sed 's/^/    /' "$TMP/out" "$TMP/err" >&2; }
rc=0; cli compare "$plain,x" "$slow" >"$TMP/out" 2>"$TMP/err" || rc=$?
[ $rc = 2 ] && grep -q "'x' is not a job id" "$TMP/err" \
  && pass "a side with a bad id: usage error" || { fail "bad side id (exit $rc)"; cat "$TMP/err" >&2; }
rc=0; cli compare "$plain" "$big" >"$TMP/out" 2>"$TMP/err" || rc=$?
[ $rc = 2 ] && grep -q "workloads differ: bs: 4096 in job $plain, 8192 in job $big" "$TMP/err" \
  && pass "biobench compare with another bs: exit 2, $(head -c 100 "$TMP/err")..." \
  || { fail "CLI refusal (exit $rc)"; cat "$TMP/err" >&2; }
rc=0; cli compare --allow-different-workload "$plain" "$big" >"$TMP/out" 2>"$TMP/err" || rc=$?
[ $rc = 0 ] && grep -q "^\* config.bs (workload)" "$TMP/out" \
  && pass "--allow-different-workload: exit 0, bs marked as workload" || { fail "CLI allowed (exit $rc)"; cat "$TMP/out" "$TMP/err" >&2; }
rc=0; cli compare --json "$plain" "$slow" "$big" --allow-different-workload >"$TMP/cmp.json" 2>"$TMP/err" || rc=$?
[ $rc = 0 ] && check_openapi "$TMP/cmp.json" GET /api/v1/compare 200 \
  && [ "$(cget 'd["family"]')" = 2 ] && [ "$(cget 'len(d["jobs"])')" = 3 ] \
  && pass "compare --json with two others: Holm over 2 (openapi)" || fail "compare --json 3 jobs (exit $rc)"
rc=0; cli compare "$plain" >"$TMP/out" 2>"$TMP/err" || rc=$?
[ $rc = 0 ] && grep -q "^verdict: " "$TMP/out" && pass "compare ID: the job's own comparison, as before" \
  || fail "compare ID (exit $rc)"
rc=0; cli compare --variant A "$plain" >"$TMP/out" 2>"$TMP/err" || rc=$?
[ $rc = 2 ] && grep -q -- "--variant needs two or more sides" "$TMP/err" \
  && pass "--variant with one id: usage error" || fail "--variant one id (exit $rc)"

# --- a loop device: a queue setting changed by hand between two jobs ----------
if [ -z "$LOOP" ]; then
  echo "skip: the loop-device part needs root and a loop device"
else
  RA=/sys/block/$(basename "$LOOP")/queue/read_ahead_kb
  ORIG=$(cat "$RA")
  cleanup_hooks+=("echo $ORIG > $RA")
  NEW=$(( ORIG == 512 ? 1024 : 512 ))
  LJ='"target":"'$LOOP'","workload":{"runtime":"200ms","rw":"randread","direct":true,"iodepth":4},"repeat":4,"warmup":0,"aa":true'
  l1=$(submit '{"name":"cmp loop",'"$LJ"'}')
  done_or_fail "$l1"
  echo "$NEW" >"$RA"
  l2=$(submit '{"name":"cmp loop",'"$LJ"'}')
  done_or_fail "$l2"
  echo "$ORIG" >"$RA"
  api GET "/api/v1/jobs/$l2/runs"
  sched=$(sed 's/.*\[\(.*\)\].*/\1/' "/sys/block/$(basename "$LOOP")/queue/scheduler")
  [ "$(api_get 'str({r["result"]["queue_settings"]["read_ahead_kb"] for r in d["runs"]})')" = "{'$NEW'}" ] \
    && [ "$(api_get 'str({r["result"]["queue_settings"]["scheduler"] for r in d["runs"]})')" = "{'$sched'}" ] \
    && pass "job $l2's runs recorded read_ahead_kb $NEW at their start" \
    || fail "queue settings of job $l2's runs: $(api_get '[r["result"].get("queue_settings") for r in d["runs"]]')"
  compare "base=$l1&with=$l2"
  row='[r for r in d["diff"] if r["key"] == "queue.read_ahead_kb"][0]'
  [ "$API_STATUS" = 200 ] && [ "$(cget "$row"'["values"]')" = "['$ORIG', '$NEW']" ] \
    && [ "$(cget "$row"'["differs"]')" = True ] \
    && [ "$(cget '[r["key"] for r in d["diff"] if r["differs"] and r["section"] == "queue"]')" = "['queue.read_ahead_kb']" ] \
    && pass "the diff names read_ahead_kb, $ORIG vs $NEW, and no other queue setting" \
    || fail "loop diff: $API_STATUS $(cget '[r for r in d.get("diff", []) if r["section"] == "queue"]')"
  [ "$(cget '[r["values"] for r in d["diff"] if r["key"] == "device.limits.max_sectors_kb"][0][0] is not None')" = True ] \
    && pass "the device's limits are diff rows too" || fail "device rows"
  rc=0; cli compare "$l1" "$l2" >"$TMP/out" 2>"$TMP/err" || rc=$?
  [ $rc = 0 ] && grep -q "^\* queue.read_ahead_kb  *$ORIG  *$NEW" "$TMP/out" \
    && pass "biobench compare marks queue.read_ahead_kb" \
    || { fail "CLI loop diff (exit $rc)"; grep queue "$TMP/out" >&2; }
fi

daemon_stop || fail "biobenchd stops cleanly"
finish
