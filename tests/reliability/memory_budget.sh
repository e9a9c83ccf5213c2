#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# memory_budget.sh BIOBENCHD BIOBENCH - a run's memory (I/O buffers, slots,
# vec tables, rings, bio slabs, verify state) is checked against a budget
# before anything is allocated (issue 12, finding 12):
#   - `biobench run` of a nop job asking for 64 threads x 65536 deep x 1 MiB
#     is refused at once, the message naming the fields and the sum; with
#     --max-memory the limit is exact (a run just above is refused, one
#     below runs);
#   - without CAP_IPC_LOCK, registered buffers above RLIMIT_MEMLOCK are
#     refused before the ring is set up, naming the limit;
#   - the daemon refuses such a job at submission (400 naming the fields,
#     the sum and max_run_memory) instead of being OOM-killed; a
#     configured max_run_memory is honoured; the daemon keeps serving.
source "$(dirname "$0")/../integration/daemon_lib.sh"

[ -x "$CLI" ] || skip "usage: $0 BIOBENCHD BIOBENCH"
cleanup_hooks+=('[ -z "$DPID" ] || daemon_kill $DPID')

# cli RC_WANT NAME RE ARGS...: biobench run exits RC_WANT within 5 s with
# stderr matching RE (every word of RE, separated by |, must appear)
cli() {
  local want=$1 name=$2 re=$3 rc=0 t0 ms ok=1; shift 3
  t0=$(date +%s%N)
  timeout 60 "$CLI" run "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  for w in ${re//|/ }; do grep -qi -- "$w" "$TMP/err" || ok=0; done
  if [ "$rc" = "$want" ] && [ "$ok" = 1 ] && { [ "$want" = 0 ] || [ "$ms" -lt 5000 ]; }; then
    pass "biobench run: $name (exit $rc, $ms ms)${want:+: $(head -1 "$TMP/err" | head -c 260)}"
  else
    fail "biobench run: $name: exit $rc after $ms ms: $(head -c 400 "$TMP/err")"
  fi
}
cli 1 "64 threads x 65536 x 1m on nop refused" "threads|iodepth|bs|memory|TiB" \
  --threads 64 --iodepth 65536 --bs 1m --runtime 1s nop
# --max-memory 64m: 1 x 1024 x 128k = 128 MiB of buffers is above it
cli 1 "--max-memory 64m: 1024 x 128k refused" "iodepth|1024|max-memory" \
  --max-memory 64m --iodepth 1024 --bs 128k --runtime 200ms nop
cli 0 "--max-memory 64m: 256 x 128k runs" "" \
  --max-memory 64m --iodepth 256 --bs 128k --runtime 200ms nop
# RLIMIT_MEMLOCK without CAP_IPC_LOCK (fixed buffers on a file)
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && command -v prlimit >/dev/null; then
  head -c 8M /dev/zero >"$TMP/f.dat"
  rc=0
  setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock \
    prlimit --memlock=1048576:1048576 "$CLI" run --fixedbufs --iodepth 64 --bs 64k --direct=0 \
    --runtime 200ms "$TMP/f.dat" >"$TMP/out" 2>"$TMP/err" || rc=$?
  [ "$rc" = 1 ] && grep -q RLIMIT_MEMLOCK "$TMP/err" && grep -qi "4.0 MiB\|4 MiB" "$TMP/err" &&
    pass "RLIMIT_MEMLOCK 1 MiB without CAP_IPC_LOCK: 4 MiB of fixed buffers refused: $(head -1 "$TMP/err" | head -c 260)" ||
    fail "RLIMIT_MEMLOCK: exit $rc: $(head -c 300 "$TMP/err")"
else
  echo "note: not root or no setpriv/prlimit: the RLIMIT_MEMLOCK case is skipped"
fi

# --- the daemon ---------------------------------------------------------------------
write_config
sed -i "s/^timeout = 10$/timeout = 10\nmax_run_memory = 64m/" "$DCONF"
daemon_start || { finish; exit 1; }
job() { # job THREADS IODEPTH BS
  echo "{\"name\":\"mem\",\"target\":\"nop\",\"workload\":{\"runtime\":\"200ms\",\"threads\":$1,\"iodepth\":$2,\"bs\":\"$3\",
    \"cpus\":[$(( $(nproc) - 1 ))]},\"variants\":{\"A\":{},\"B\":{\"iodepth\":$2}},\"repeat\":2,\"warmup\":0,
    \"quiescence\":{\"mode\":\"off\"}}"
}
api POST /api/v1/jobs "$(job 64 65536 1m)"
msg=$(api_get 'd["error"]["message"]')
if [ "$API_STATUS" = 400 ] && grep -q threads <<<"$msg" && grep -q iodepth <<<"$msg" && grep -q bs <<<"$msg" &&
   grep -q max_run_memory <<<"$msg"; then
  pass "daemon: 64 x 65536 x 1m refused at submission (400): $msg"
else
  fail "daemon: 64 x 65536 x 1m: $API_STATUS $msg"
  id=$(api_get 'd["id"]'); [ -z "$id" ] || api POST "/api/v1/jobs/$id/cancel"
fi
[ "$(api_get 'd["error"]["field"]')" != null ] && pass "daemon: the 400 names a field: $(api_get 'd["error"]["field"]')" ||
  fail "daemon: the 400 names no field"
api POST /api/v1/jobs "$(job 1 1024 128k)"
[ "$API_STATUS" = 400 ] && pass "daemon: max_run_memory 64m: 1 x 1024 x 128k refused" ||
  fail "daemon: 1 x 1024 x 128k under max_run_memory 64m: $API_STATUS"
api POST /api/v1/jobs "$(job 1 256 128k)"
id=$(api_get 'd["id"]')
st=$(WAIT_S=60 wait_state "$id" done failed) || true
[ "$st" = done ] && pass "daemon: 1 x 256 x 128k (32 MiB) runs under max_run_memory 64m" || fail "daemon: 1 x 256 x 128k: $API_STATUS $st"
daemon_alive && health_ok && pass "daemon still answers" || fail "daemon died"
daemon_stop || true

# the default budget (a fraction of RAM) refuses the same job
write_config
daemon_start || { finish; exit 1; }
api POST /api/v1/jobs "$(job 64 65536 1m)"
[ "$API_STATUS" = 400 ] && pass "daemon (default max_run_memory): 64 x 65536 x 1m refused: $(api_get 'd["error"]["message"]' | head -c 200)" ||
  { fail "daemon (default): 64 x 65536 x 1m: $API_STATUS"; id=$(api_get 'd["id"]'); [ -z "$id" ] || api POST "/api/v1/jobs/$id/cancel"; }
daemon_alive && health_ok && pass "daemon still answers" || fail "daemon died"
daemon_stop || true
finish
