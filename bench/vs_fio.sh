#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/vs_fio.sh - biobench against Debian's fio on the same workloads, in
# the same invocation, interleaved (biobench, fio, biobench, fio, ...), on
# the same CPU: IOPS and latency percentiles side by side, as ratios.
#
#   device:  4 KiB O_DIRECT random reads of a loop device (direct-io=on,
#            backed by a file under BENCH_DATA_DIR), qd BENCH_QD: both tools
#            wait on the same device, so IOPS must agree (target +-3 %).
#   cache:   4 KiB buffered random reads of a page-cached file, qd
#            BENCH_QD: CPU-bound, measures the tools' own overhead.
#
# Both tools: fixed buffers, registered files, batches of min(32, qd)
# submitted and reaped (biobench's defaults; fio's iodepth_batch_*).
#
# Latency: biobench --lat io stamps each I/O when it is prepared and when
# its completion is reaped (submit + device + reap); fio's "lat" (with
# --lat_percentiles=1) is slat + clat, the same span.  Both use log-linear
# histograms (fio: 64 buckets per power of two, biobench: 64 as well), so
# percentiles are bucket values, not exact samples.
#
# Exit 0 when everything ran (even on a MISS); 1 when something failed to
# run; 2 on a usage error.
#
# Environment (all optional):
#   BUILD_DIR      build tree with biobench (default <repo>/build-bench;
#                  built first unless BENCH_NO_BUILD=1)
#   BENCH_CPU      CPU to pin to (default: the last online CPU)
#   BENCH_RUNTIME  seconds per run (default 3)
#   BENCH_REPS     interleaved pairs per workload (default 5)
#   BENCH_QD       iodepth (default 32)
#   BENCH_DATA_DIR where the loop image and the file go (default /var/tmp)
#   BENCH_ONLY     "device", "cache" or both (default both)
set -uo pipefail

case "${1:-}" in
-h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac

HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(dirname "$HERE")
BUILD_DIR=${BUILD_DIR:-$SRC/build-bench}
CPU=${BENCH_CPU:-$(($(nproc) - 1))}
RT=${BENCH_RUNTIME:-3}
REPS=${BENCH_REPS:-5}
QD=${BENCH_QD:-32}
DATA=${BENCH_DATA_DIR:-/var/tmp}
ONLY=${BENCH_ONLY:-device cache}
# biobench's default submit and complete batches (32, clamped to the
# iodepth), given to fio as well
BATCH=$((QD < 32 ? QD : 32))

die() { echo "vs_fio: $*" >&2; exit 1; }
command -v fio >/dev/null || die "fio is missing (apt-get install fio)"
[ "$(id -u)" = 0 ] || die "needs root (loop device)"
if [ "${BENCH_NO_BUILD:-0}" != 1 ]; then
	cmake -S "$SRC" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DBB_BUILD_TESTS=OFF >/dev/null || die "cmake failed"
	cmake --build "$BUILD_DIR" -j"$(nproc)" --target biobench >/dev/null ||
		die "build failed"
fi
BB=$BUILD_DIR/biobench
[ -x "$BB" ] || die "no biobench in $BUILD_DIR"

TMP=$(mktemp -d "$DATA/bb-vs-fio.XXXXXX")
LOOP=
cleanup() {
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

# bb_run OUT ARGS...: "iops p50_ns p99_ns p99.9_ns"
bb_run() {
	taskset -c "$CPU" "$BB" run --cpus "$CPU" --runtime "${RT}s" \
		--iodepth "$QD" --bs 4k --rw randread --lat io --json --quiet \
		"$@" >"$TMP/bb.json" || die "biobench run failed: $*"
	/usr/bin/python3 - "$TMP/bb.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
l = d["latency_ns"]
print(d["iops"], l["p50"], l["p99"], l["p99_9"])
PY
}

# fio_run ARGS...: the same four figures from fio's JSON
fio_run() {
	taskset -c "$CPU" fio --name=bb --ioengine=io_uring --rw=randread \
		--bs=4k --iodepth="$QD" --runtime="$RT" --time_based \
		--cpus_allowed="$CPU" --fixedbufs=1 --registerfiles=1 \
		--iodepth_batch_submit="$BATCH" --iodepth_batch_complete_min="$BATCH" \
		--iodepth_batch_complete_max="$QD" --norandommap \
		--lat_percentiles=1 --percentile_list=50:99:99.9 \
		--output-format=json "$@" >"$TMP/fio.json" 2>"$TMP/fio.err" ||
		die "fio failed: $(cat "$TMP/fio.err")"
	/usr/bin/python3 - "$TMP/fio.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["jobs"][0]["read"]
p = r["lat_ns"]["percentile"]
print(r["iops"], p["50.000000"], p["99.000000"], p["99.900000"])
PY
}

# compare NAME BBARGS -- FIOARGS: REPS interleaved pairs, medians, ratios
compare() {
	local name=$1; shift
	local bbargs=() fioargs=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do bbargs+=("$1"); shift; done
	shift
	fioargs=("$@")
	: >"$TMP/$name.bb"; : >"$TMP/$name.fio"
	for r in $(seq "$REPS"); do
		b=$(bb_run "${bbargs[@]}") || exit 1
		f=$(fio_run "${fioargs[@]}") || exit 1
		echo "$b" >>"$TMP/$name.bb"
		echo "$f" >>"$TMP/$name.fio"
		printf '  %-7s pair %d: biobench %s | fio %s\n' "$name" "$r" \
			"$(echo "$b" | awk '{printf "%.0f IOPS p50 %.1fus p99 %.1fus", $1, $2/1e3, $3/1e3}')" \
			"$(echo "$f" | awk '{printf "%.0f IOPS p50 %.1fus p99 %.1fus", $1, $2/1e3, $3/1e3}')"
	done
	/usr/bin/python3 - "$name" "$TMP/$name.bb" "$TMP/$name.fio" <<'PY'
import statistics, sys
name = sys.argv[1]
bb = [[float(x) for x in l.split()] for l in open(sys.argv[2])]
fio = [[float(x) for x in l.split()] for l in open(sys.argv[3])]
med = lambda rows, i: statistics.median(r[i] for r in rows)
ratios = [b[0] / f[0] for b, f in zip(bb, fio)]
print("vs_fio: %-6s median IOPS biobench %.0f, fio %.0f: ratio %.3f (pairs %s)"
      % (name, med(bb, 0), med(fio, 0), statistics.median(ratios),
         " ".join("%.3f" % r for r in ratios)))
for i, p in ((1, "p50"), (2, "p99"), (3, "p99.9")):
    print("vs_fio: %-6s latency %-5s biobench %.2f us, fio %.2f us: ratio %.3f"
          % (name, p, med(bb, i) / 1e3, med(fio, i) / 1e3, med(bb, i) / med(fio, i)))
if name == "device":
    r = statistics.median(ratios)
    print("vs_fio: device IOPS within +-3%% of fio: %s (%.1f%%)"
          % ("PASS" if abs(r - 1) <= 0.03 else "MISS", (r - 1) * 100))
PY
}

echo "vs_fio: CPU $CPU, ${RT}s runs, $REPS interleaved pairs, qd $QD, 4k randread; fio $(fio --version)"
for w in $ONLY; do
	case $w in
	device)
		truncate -s 1G "$TMP/loop.img"
		# written once, so that reads hit allocated blocks
		dd if=/dev/zero of="$TMP/loop.img" bs=1M count=1024 conv=notrunc status=none
		LOOP=$(losetup -f --show --direct-io=on "$TMP/loop.img") || die "losetup failed"
		compare device --direct "$LOOP" -- --direct=1 --filename="$LOOP"
		losetup -d "$LOOP"; LOOP=
		;;
	cache)
		f=$TMP/cache.dat
		dd if=/dev/zero of="$f" bs=1M count=512 status=none
		cat "$f" >/dev/null
		# fio drops the file's page cache before a run unless told not to
		compare cache --no-direct "$f" -- --direct=0 --invalidate=0 --filename="$f" --size=512m
		;;
	*) die "BENCH_ONLY: unknown workload $w (device, cache)" ;;
	esac
done
