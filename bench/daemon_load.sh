#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/daemon_load.sh - does a busy biobenchd disturb the benchmark?
#
# The same `biobench run nop` (pinned to BENCH_CPU) runs with biobenchd
# idle and with biobenchd answering a steady HTTP load from wrk (wrk and
# the daemon's HTTP threads on HTTP_CPU), interleaved idle/loaded pairs.
# Prints the IOPS of each run, the median ratio loaded/idle, and the
# requests per second wrk got.  Target: ratio >= 0.99.
#
# Exit 0 when everything ran (even on a MISS); 1 when something failed to
# run; 2 on a usage error.
#
# Environment (all optional):
#   BUILD_DIR     build tree (default: <repo>/build-bench); built first
#   BENCH_NO_BUILD 1: do not build
#   BENCH_CPU     CPU of the benchmark (default: the last online CPU)
#   HTTP_CPU      CPU of the daemon's HTTP threads and of wrk (default 0)
#   BENCH_RUNTIME seconds per run (default 3)
#   BENCH_REPS    idle/loaded pairs (default 5)
#   WRK_CONNS     wrk connections (default 16)
#   BENCH_JOBS    jobs put in the store first, so that listing them is
#                 real work (default 200)
set -uo pipefail

case "${1:-}" in
-h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac

HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(dirname "$HERE")
BUILD_DIR=${BUILD_DIR:-$SRC/build-bench}
NCPU=$(nproc)
BENCH_CPU=${BENCH_CPU:-$((NCPU - 1))}
HTTP_CPU=${HTTP_CPU:-0}
RUNTIME=${BENCH_RUNTIME:-3}
REPS=${BENCH_REPS:-5}
CONNS=${WRK_CONNS:-16}
NJOBS=${BENCH_JOBS:-200}

die() { echo "daemon_load: $*" >&2; exit 1; }
command -v wrk >/dev/null || die "wrk is missing (apt-get install wrk)"
command -v curl >/dev/null || die "curl is missing (apt-get install curl)"
if [ "${BENCH_NO_BUILD:-0}" != 1 ]; then
	cmake -S "$SRC" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DBB_BUILD_TESTS=OFF >/dev/null || die "cmake failed"
	cmake --build "$BUILD_DIR" -j"$NCPU" --target biobench biobenchd \
		>/dev/null || die "build failed"
fi
BB=$BUILD_DIR/biobench
BBD=$BUILD_DIR/daemon/biobenchd
[ -x "$BB" ] && [ -x "$BBD" ] || die "no biobench/biobenchd in $BUILD_DIR"

TMP=$(mktemp -d /tmp/bb-daemon-load.XXXXXX)
DPID=
cleanup() {
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

PORT=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$TMP/d.conf" <<EOF
[server]
listen = 127.0.0.1:$PORT
db = $TMP/bb.db
web_root = $SRC/web
http_cpus = $HTTP_CPU
bench_cpus = $BENCH_CPU
[targets]
allow = nop
EOF
taskset -c "$HTTP_CPU" "$BBD" --config "$TMP/d.conf" --foreground \
	2>"$TMP/daemon.log" &
DPID=$!
URL=http://127.0.0.1:$PORT
for _ in $(seq 50); do
	curl -sf "$URL/api/v1/health" >/dev/null && break
	sleep 0.1
done
curl -sf "$URL/api/v1/health" >/dev/null || { cat "$TMP/daemon.log" >&2; die "daemon did not start"; }

# Jobs in the store that stay queued: a cancelled job is real data to list.
job='{"name":"load","target":"nop","workload":{"runtime":"1s"},"variants":{"A":{},"B":{"bio_cache":"off"}}}'
for i in $(seq "$NJOBS"); do
	id=$(curl -sf -XPOST -H 'Content-Type: application/json' -d "$job" "$URL/api/v1/jobs" |
		/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])') || die "submit failed"
	curl -sf -XPOST -H 'Content-Type: application/json' "$URL/api/v1/jobs/$id/cancel" >/dev/null || true
done

run_nop() {
	taskset -c "$BENCH_CPU" "$BB" run --cpus "$BENCH_CPU" \
		--runtime "${RUNTIME}s" --json nop |
		/usr/bin/python3 -c 'import json,sys; print("%.0f" % json.load(sys.stdin)["iops"])'
}

idle=() loaded=() rps=()
echo "daemon_load: nop on CPU $BENCH_CPU, ${RUNTIME}s runs, $REPS pairs;" \
	"wrk -c$CONNS on CPU $HTTP_CPU against /api/v1/jobs?limit=50 and /metrics"
cat >"$TMP/mix.lua" <<'EOF'
local paths = { "/api/v1/jobs?limit=50", "/metrics" }
local i = 0
request = function()
	i = i + 1
	return wrk.format("GET", paths[(i % 2) + 1])
end
EOF
for r in $(seq "$REPS"); do
	a=$(run_nop) || die "biobench run failed"
	taskset -c "$HTTP_CPU" wrk -t1 -c"$CONNS" -d"$((RUNTIME + 2))s" \
		-s "$TMP/mix.lua" "$URL" >"$TMP/wrk.$r" 2>&1 &
	wpid=$!
	sleep 1
	b=$(run_nop) || die "biobench run failed"
	wait "$wpid"
	q=$(awk '/Requests\/sec/ {print $2}' "$TMP/wrk.$r")
	printf '  pair %d: idle %s IOPS, loaded %s IOPS (wrk %s req/s)\n' \
		"$r" "$a" "$b" "$q"
	idle+=("$a") loaded+=("$b") rps+=("$q")
done
kill -0 "$DPID" 2>/dev/null || die "the daemon died under load"
/usr/bin/python3 - "${idle[*]}" "${loaded[*]}" "${rps[*]}" <<'EOF'
import statistics, sys
idle = [float(x) for x in sys.argv[1].split()]
loaded = [float(x) for x in sys.argv[2].split()]
rps = [float(x) for x in sys.argv[3].split() if x]
ratios = [b / a for a, b in zip(idle, loaded)]
r = statistics.median(ratios)
print("daemon_load: median idle %.0f IOPS, loaded %.0f IOPS; wrk %.0f req/s"
      % (statistics.median(idle), statistics.median(loaded),
         statistics.median(rps) if rps else 0))
print("daemon_load: loaded/idle IOPS ratio %.3f (pairs: %s)  target >= 0.99: %s"
      % (r, " ".join("%.3f" % x for x in ratios), "PASS" if r >= 0.99 else "MISS"))
EOF
