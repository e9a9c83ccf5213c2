#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# completion_cpu.sh BIOBENCHD BIOBENCH - completion threads obey the same
# CPU rules as submitters (issue 12, finding 18): with --completion thread
#   - `biobench run --cpus 1`: every thread the run starts is pinned to CPU
#     1 (the completion thread used to go to "the CPU after the
#     submitter's", CPU 0, outside --cpus);
#   - `biobench run --cpus 0,1 --threads 2`: each thread inside {0,1};
#   - the daemon with http_cpus = 0 and bench_cpus = 1: the threads of a
#     job run on CPU 1 only, never on the HTTP CPU.
# The threads' affinity is read from /proc/PID/task/*/status while the run
# goes on.  Needs two online CPUs.
source "$(dirname "$0")/../integration/daemon_lib.sh"

[ -x "$CLI" ] || skip "usage: $0 BIOBENCHD BIOBENCH"
[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"
cleanup_hooks+=('[ -z "$DPID" ] || daemon_kill $DPID' '[ -z "$RPID" ] || kill $RPID 2>/dev/null')
RPID=

# threads PID: "TID CPUS COMM" of every task (kernel io_uring helpers and
# the CLI's signal thread left out)
threads() {
  local t
  for t in /proc/"$1"/task/*; do
    local c n
    c=$(awk '/^Cpus_allowed_list/ {print $2}' "$t/status" 2>/dev/null) || continue
    n=$(cat "$t/comm" 2>/dev/null) || continue
    # io_uring's kernel helpers, and the CLI's signal thread (idle in
    # sigwait, like the main thread in join) are not the run's threads
    case $n in iou-* | bb-signals) continue ;; esac
    echo "${t##*/} $c $n"
  done
}
# new_threads PID BEFORE_FILE OUT_FILE: the tasks not in BEFORE, sampled
# for 2 s (the union, as "TID CPUS")
new_threads() {
  : >"$3"
  for _ in $(seq 20); do
    threads "$1" | while read -r tid cpus _; do
      grep -q "^$tid " "$2" || echo "$tid $cpus"
    done >>"$3"
    sleep 0.1
  done
  sort -u -o "$3" "$3"
}
# check NAME FILE ALLOWED_RE MIN: at least MIN new threads, each one's CPUs
# matching ALLOWED_RE
check() {
  local n bad
  n=$(cut -d' ' -f1 "$2" | sort -u | wc -l)
  bad=$(awk -v re="^($3)\$" '$2 !~ re' "$2" | tr '\n' ';')
  if [ "$n" -ge "$4" ] && [ -z "$bad" ]; then
    pass "$1: $n threads, all on CPUs matching $3: $(tr '\n' ';' <"$2")"
  else
    fail "$1: $n threads (want >= $4), outside $3: ${bad:-none} (all: $(tr '\n' ';' <"$2"))"
  fi
}

# --- biobench run --cpus 1 ----------------------------------------------------------
"$CLI" run --cpus 1 --completion thread --runtime 4s nop >"$TMP/out" 2>"$TMP/err" &
RPID=$!
sleep 0.3
threads "$RPID" >"$TMP/all"; head -1 "$TMP/all" >"$TMP/before"   # the main thread only
new_threads "$RPID" "$TMP/before" "$TMP/new"
wait "$RPID" || fail "biobench run --cpus 1: $(head -c 300 "$TMP/err")"; RPID=
check "biobench run --cpus 1 --completion thread" "$TMP/new" "1" 2

"$CLI" run --cpus 0,1 --threads 2 --completion thread --runtime 4s nop >"$TMP/out" 2>"$TMP/err" &
RPID=$!
sleep 0.3
threads "$RPID" >"$TMP/all"; head -1 "$TMP/all" >"$TMP/before"
new_threads "$RPID" "$TMP/before" "$TMP/new"
wait "$RPID" || fail "biobench run --cpus 0,1: $(head -c 300 "$TMP/err")"; RPID=
check "biobench run --cpus 0,1 --threads 2 --completion thread" "$TMP/new" "0|1" 4

# --- the daemon: bench_cpus = 1, http_cpus = 0 --------------------------------------
write_config
sed -i "s/^bench_cpus = .*/bench_cpus = 1/" "$DCONF"
daemon_start || { finish; exit 1; }
sleep 0.5
threads "$DPID" >"$TMP/before"
api POST /api/v1/jobs '{"name":"cpu","target":"nop","workload":{"runtime":"1500ms","completion":"thread"},
  "variants":{"A":{},"B":{}},"repeat":2,"warmup":0,"quiescence":{"mode":"off"}}'
id=$(api_get 'd["id"]')
WAIT_S=20 wait_state "$id" running >/dev/null || fail "job $id did not start"
sleep 0.5
new_threads "$DPID" "$TMP/before" "$TMP/new"
check "daemon (http_cpus 0, bench_cpus 1) job with completion thread" "$TMP/new" "1" 2
st=$(WAIT_S=30 wait_state "$id" done failed) || true
[ "$st" = done ] || fail "job $id: $st"
daemon_stop || true
finish
