#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# target_types.sh BIOBENCHD BIOBENCH - only regular files and block devices
# (and /dev/ngXnY with --engine uring_cmd) are targets; everything else is
# refused at once, naming its type, before anything could block (issue 12,
# finding 13):
#   - `biobench run` on a FIFO (read, and write with --size), a socket, a
#     directory and a char device returns an error within 3 s;
#   - the daemon: a FIFO under a read glob is refused at submission; a
#     regular file swapped for a FIFO while its job waits in the queue
#     fails that job at once, and the scheduler goes on: the next job
#     runs, a running job can be cancelled, SIGTERM stops the daemon
#     within 5 s.
source "$(dirname "$0")/../integration/daemon_lib.sh"

[ -x "$CLI" ] || skip "usage: $0 BIOBENCHD BIOBENCH"
cleanup_hooks+=('[ -z "$DPID" ] || daemon_kill $DPID')

# cli_refused NAME TYPE_RE ARGS...: refused within 3 s naming the type
cli_refused() {
  local name=$1 re=$2 rc=0 t0 ms; shift 2
  t0=$(date +%s%N)
  timeout 10 "$CLI" run --runtime 200ms "$@" >"$TMP/out" 2>"$TMP/err" </dev/null || rc=$?
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  if [ "$rc" = 1 ] && [ "$ms" -lt 3000 ] && grep -Eqi "$re" "$TMP/err"; then
    pass "biobench run: $name refused in $ms ms: $(head -1 "$TMP/err" | head -c 200)"
  else
    fail "biobench run: $name: exit $rc after $ms ms$( [ "$rc" = 124 ] && echo ' (hung)'): $(head -c 300 "$TMP/err")"
  fi
}
mkfifo "$TMP/fifo"
/usr/bin/python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$TMP/sock"
mkdir "$TMP/dir"
cli_refused "a FIFO" "FIFO" "$TMP/fifo"
cli_refused "a FIFO, write with --size" "FIFO" --rw randwrite --allow-write --direct=0 --size 1m "$TMP/fifo"
cli_refused "a FIFO, --engine uring_cmd" "FIFO|char device" --engine uring_cmd "$TMP/fifo"
cli_refused "a socket" "socket" "$TMP/sock"
cli_refused "a directory" "directory" --direct=0 "$TMP/dir"
cli_refused "a char device (/dev/null)" "char device" /dev/null
cli_refused "/dev/null with --engine uring_cmd" "NVMe generic" --engine uring_cmd /dev/null

# --- the daemon -------------------------------------------------------------------
write_config
mkfifo "$TMP/ro/fifo.dat"
head -c 1M /dev/urandom >"$TMP/ro/swap.dat"
daemon_start || { finish; exit 1; }
read_job() {
  echo "{\"name\":\"types\",\"target\":\"$1\",\"workload\":{\"rw\":\"randread\",\"direct\":false,
    \"runtime\":\"200ms\",\"iodepth\":4},\"variants\":{\"A\":{},\"B\":{}},\"repeat\":2,\"warmup\":0,
    \"quiescence\":{\"mode\":\"off\"}}"
}
nop_job() {
  echo "{\"name\":\"nop\",\"target\":\"nop\",\"workload\":{\"runtime\":\"$1\"},\"variants\":{\"A\":{},\"B\":{}},
    \"repeat\":2,\"warmup\":0,\"quiescence\":{\"mode\":\"off\"}}"
}
api POST /api/v1/jobs "$(read_job "$TMP/ro/fifo.dat")"
msg=$(api_get 'd["error"]["message"]')
[ "$API_STATUS" = 400 ] && grep -qi "FIFO" <<<"$msg" && pass "daemon: a FIFO target refused at submission: $msg" ||
  fail "daemon: FIFO at submission: $API_STATUS $msg"

# swapped for a FIFO while queued behind a 2 s nop job
api POST /api/v1/jobs "$(nop_job 500ms)"; blocker=$(api_get 'd["id"]')
api POST /api/v1/jobs "$(read_job "$TMP/ro/swap.dat")"; swapped=$(api_get 'd["id"]')
api POST /api/v1/jobs "$(nop_job 100ms)"; after=$(api_get 'd["id"]')
[ -n "$blocker" ] && [ -n "$swapped" ] && [ -n "$after" ] || fail "jobs not accepted: $(cat "$API_BODY")"
rm "$TMP/ro/swap.dat"; mkfifo "$TMP/ro/swap.dat"
st=$(WAIT_S=30 wait_state "$swapped" done failed cancelled interrupted) || true
api GET "/api/v1/jobs/$swapped"; msg=$(api_get 'd["error"]')
[ "$st" = failed ] && grep -qi "FIFO" <<<"$msg" && pass "daemon: the job whose file became a FIFO failed: $msg" ||
  fail "daemon: job on the swapped FIFO: $st $msg"
st=$(WAIT_S=30 wait_state "$after" done failed) || true
[ "$st" = done ] && pass "daemon: the next job ran (the scheduler did not block)" || fail "daemon: the job after the FIFO: $st"
# cancel works
api POST /api/v1/jobs "$(nop_job 5s)"; long=$(api_get 'd["id"]')
if WAIT_S=20 wait_state "$long" running >/dev/null; then
  api POST "/api/v1/jobs/$long/cancel"
  st=$(WAIT_S=10 wait_state "$long" cancelled done failed) || true
  [ "$st" = cancelled ] && pass "daemon: a running job is cancelled" || fail "daemon: cancel: $st"
else
  fail "daemon: job $long never started (the scheduler is stuck)"
fi
# and SIGTERM stops it, with a job on a FIFO queued last
api POST /api/v1/jobs "$(nop_job 3s)"
rm "$TMP/ro/fifo.dat"; head -c 1M /dev/urandom >"$TMP/ro/fifo.dat"
api POST /api/v1/jobs "$(read_job "$TMP/ro/fifo.dat")"
rm "$TMP/ro/fifo.dat"; mkfifo "$TMP/ro/fifo.dat"
t0=$(date +%s%N)
rc=0; daemon_stop || rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$rc" = 0 ] && [ "$ms" -lt 5000 ] && pass "daemon: SIGTERM stopped it in $ms ms" || fail "daemon: SIGTERM: exit $rc after $ms ms"
finish
