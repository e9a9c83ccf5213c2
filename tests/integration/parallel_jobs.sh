#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# parallel_jobs.sh BIOBENCHD BIOBENCH - max_parallel_jobs 2 on a real
# daemon (issue 18, "per device in parallel"):
#   1. two nop jobs on CPU 0 and CPU 1 run at the same time: both in
#      /api/v1/health's and /api/v1/hosts' running_jobs meanwhile (the
#      answers as schema/openapi.yaml says), and their stored start and
#      finish times overlap;
#   2. two nop jobs on CPU 0 run one after the other (the second starts
#      after the first finished);
#   3. `biobench hosts` names both running jobs.
# On the PostgreSQL store BB_TEST_STORE names when set (ctest
# it_parallel_jobs_pg, under tests/pg/pgtmp.sh: the claims by id with
# FOR UPDATE SKIP LOCKED), else on sqlite.
source "$(dirname "$0")/daemon_lib.sh"
DSTORE=${BB_TEST_STORE:-}

[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
# the HTTP threads unpinned: both CPUs free for jobs
cat >"$DCONF" <<EOF
[server]
http_cpus = none
bench_cpus = 0
http_threads = 2
max_parallel_jobs = 2
[targets]
allow = nop
EOF
daemon_start || { fail "biobenchd did not start"; finish; exit 1; }

job() { # job NAME CPUS RUNTIME: a nop A/B job's spec
  echo "{\"name\":\"$1\",\"target\":\"nop\",\"workload\":{\"runtime\":\"$3\",\"iodepth\":4,\"cpus\":$2},\"variants\":{\"A\":{},\"B\":{}},\"repeat\":2,\"warmup\":0}"
}
# overlap A B: 0 when the stored [started, finished] of jobs A and B overlap
spans() {
  api GET "/api/v1/jobs/$1"; cp "$API_BODY" "$TMP/a.json"
  api GET "/api/v1/jobs/$2"; cp "$API_BODY" "$TMP/b.json"
  /usr/bin/python3 - "$TMP/a.json" "$TMP/b.json" <<'PY'
import json, sys
from datetime import datetime
def span(p):
    d = json.load(open(p))
    t = lambda s: datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()
    return t(d["started"]), t(d["finished"])
a, b = span(sys.argv[1]), span(sys.argv[2])
print("overlap" if a[0] < b[1] and b[0] < a[1] else
      "after" if b[0] >= a[1] else "before", "%.3f..%.3f %.3f..%.3f" % (a + b))
PY
}

# 1. disjoint CPUs
A=$(submit_job "$(job cpu0 '[0]' 1s)") || fail "submit cpu0"
B=$(submit_job "$(job cpu1 '[1]' 1s)") || fail "submit cpu1"
both=
for _ in $(seq 1 150); do
  api GET /api/v1/health
  [ "$(api_get 'd["running_jobs"]')" = "[$A, $B]" ] && { both=1; break; }
  sleep 0.1
done
if [ -n "$both" ]; then
  pass "health: running_jobs [$A, $B] at once, running_job $(api_get 'd["running_job"]')"
  check_openapi "$API_BODY" GET /api/v1/health 200 && pass "health answer as openapi.yaml says" \
    || fail "health answer differs from openapi.yaml"
  # the gauge counts both (each has seconds of runs left)
  api GET /metrics
  if grep -Eq '^biobench_running_jobs\{host="[^"]*"\} 2$' "$API_BODY"; then
    pass "/metrics: biobench_running_jobs 2"
  else
    fail "/metrics: $(grep '^biobench_running_jobs' "$API_BODY")"
  fi
  api GET /api/v1/hosts
  if [ "$(api_get '[h["running_jobs"] for h in d["hosts"]]')" = "[[$A, $B]]" ]; then
    pass "hosts: running_jobs [$A, $B]"
  else
    fail "hosts: $(cat "$API_BODY")"
  fi
  check_openapi "$API_BODY" GET /api/v1/hosts 200 && pass "hosts answer as openapi.yaml says" \
    || fail "hosts answer differs from openapi.yaml"
  if [ -n "$CLI" ] && BIOBENCH_SERVER="http://127.0.0.1:$DPORT" "$CLI" hosts >"$TMP/hosts.out" 2>&1 &&
     grep -q "jobs $A,$B" "$TMP/hosts.out"; then
    pass "biobench hosts: jobs $A,$B"
  elif [ -n "$CLI" ]; then
    fail "biobench hosts: $(cat "$TMP/hosts.out")"
  fi
else
  fail "jobs $A and $B never ran at once: $(cat "$API_BODY")"
fi
WAIT_S=120
# both_done A B WANT WHAT: jobs A and B end done, their spans WANT
both_done() {
  local r
  [ "$(wait_state "$1" done failed cancelled interrupted)" = done ] || fail "job $1: not done"
  [ "$(wait_state "$2" done failed cancelled interrupted)" = done ] || fail "job $2: not done"
  r=$(spans "$1" "$2")
  case $r in
    "$3 "*) pass "$4: $r" ;;
    *) fail "$4: not $3: $r" ;;
  esac
}
both_done "$A" "$B" overlap "CPU 0 and CPU 1 jobs overlap"

# 2. one CPU: one after the other
C=$(submit_job "$(job c '[0]' 300ms)") || fail "submit c"
D=$(submit_job "$(job d '[0]' 300ms)") || fail "submit d"
both_done "$C" "$D" after "two CPU 0 jobs one after the other"
grep -q "job $D waits for job $C: both use CPU 0" "$DLOG" && pass "the log says why job $D waited" \
  || fail "no wait logged for job $D: $(grep "job $D" "$DLOG" | head -3)"

daemon_stop || fail "daemon stop: $?"
finish
