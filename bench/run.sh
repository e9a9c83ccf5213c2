#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/run.sh - biobench against its references, every one measured in
# the same run, on the same CPU, interleaved (the order rotates each round),
# and ratios: the median of the per-round ratios, with its interval (see
# bench/README.md).  Every model run is --no-kernel-cost: these parts
# measure the tool's own path, not the calibrated busy work that stands
# for the kernel's (docs/measurement.md §7):
#
#   a) NOPs: biobench --model none, --model bio (cache all) and --model bio
#      --lat off against the raw liburing loop (bench/raw_nop) and fio's
#      t/io_uring -N1 with the same NOP kind (plain NOPs for fio 3.33, the
#      file kind for a t/io_uring that has it)
#   b) page-cached 4 KiB random reads of a file on ext4, buffered, qd128,
#      s32/c32, fixed buffers, registered files: biobench (both models)
#      against t/io_uring and against fio (io_uring engine)
#   c) the kernel threads' line t/io_uring -p0 -d128 -b4096 -s1 -c1 -F1 -B1
#      -R1 -X1 -n1 -P1 (with -O0: buffered) on the same file
#   d) 4 KiB O_DIRECT random reads of a loop device (direct-io=on), qd32:
#      device-bound, biobench and t/io_uring must agree within +-3 %
#   g) biobench tiou against t/io_uring, the kernel threads' own lines as
#      they are (-p0 -d128 -b4096 -s1 -c1 -F1 -B1 -R1 -X1 -n1 -P1, the same
#      with -s32 -c32, and -N1), on the page-cached file (-O0) and on a
#      tmpfs-backed loop device (O_DIRECT): each must be >= 1.0
#   e) callgrind: user-space instructions per op, marginal (N2 - N1 ops, so
#      that setup cancels), per function: biobench in both models, raw_nop
#   h) callgrind against t/io_uring: user-space instructions per I/O,
#      marginal (a 4 s run minus a 2 s run), of biobench tiou and of
#      t/io_uring (the same source built with --disable-native, which
#      valgrind can run) on the -s1 -c1 line (page-cached file) and on
#      -N1; noise-free where the timed ratios of g) are not: each <= 1.0
#   f) micro-benchmarks (alloc+put per cache variant, may_need_split per
#      form) in both struct bio layouts, with their callgrind counts
#
# t/io_uring is fio's own, built from Debian's fio source package by
# bench/tiou/get-fio.sh (into BUILD_DIR/fio; TIOU_BIN to use another).
#
# Ends with one summary block: each figure, its target, PASS/MISS.  Exit 0
# even on MISS (a benchmark, not a test); exit 1 when something fails to
# run, 2 on a usage error.
#
# Environment (all optional):
#   BUILD_DIR       build tree (default: <repo>/build-bench); built first
#   BENCH_NO_BUILD  1: do not run cmake --build
#   BENCH_CPU       CPU to pin the measured thread to (default 1)
#   BENCH_RUNTIME   measured seconds per run (default 3; each run has one
#                   more second of warm-up before it)
#   BENCH_REPS      interleaved rounds per workload (default 5)
#   BENCH_FILE_MB   size of the page-cached file (default 512)
#   BENCH_DATA_DIR  where that file goes (default: BUILD_DIR/bench-data);
#                   if it is not on ext4 a loop-mounted ext4 image is used
#   BENCH_FORCE_LOOP 1: use the loop-mounted ext4 image anyway
#   BENCH_LOOP_DIR  where the loop device's backing file goes (default
#                   /var/tmp)
#   BENCH_ONLY      any of "nop cache s1c1 device tiou callgrind cgtiou micro"
#                   (default: all)
#   BENCH_CG_N1, BENCH_CG_N2  ops of the two callgrind runs (200000, 400000)
#   BENCH_MICRO_ARGS extra arguments for bench_micro_* (timed runs)
#   BENCH_CG_OPS    operations per micro callgrind measurement (100000)
#   TIOU_BIN        a t/io_uring to use instead of building Debian's
#   BENCH_TIOU_NOP  plain|file: t/io_uring -N1's NOP kind when its source
#                   is not next to the binary (default: read from io_uring.c)
set -uo pipefail

usage() {
	sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
}
case "${1:-}" in
-h | --help) usage; exit 0 ;;
"") ;;
*) usage >&2; exit 2 ;;
esac

HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(dirname "$HERE")
BUILD=$(realpath -m "${BUILD_DIR:-$SRC/build-bench}") # absolute: parts run from $TMP
CPU=${BENCH_CPU:-1}
RUNTIME=${BENCH_RUNTIME:-3}
REPS=${BENCH_REPS:-5}
FILE_MB=${BENCH_FILE_MB:-512}
DATA_DIR=${BENCH_DATA_DIR:-$BUILD/bench-data}
LOOP_DIR=${BENCH_LOOP_DIR:-/var/tmp}
ONLY=${BENCH_ONLY:-nop cache s1c1 device tiou callgrind cgtiou micro}
CG_N1=${BENCH_CG_N1:-200000}
CG_N2=${BENCH_CG_N2:-400000}
CG_OPS=${BENCH_CG_OPS:-100000}
MICRO_ARGS=${BENCH_MICRO_ARGS:---iters 5000000 --split-iters 20000000 --cold-iters 5000000 --reps 7}

BB=$BUILD/biobench
RAW=$BUILD/bench/raw_nop
MICRO=$BUILD/bench/bench_micro_

TMP=$(mktemp -d /tmp/biobench-bench.XXXXXX) || exit 1
MNT=""
IMG=""
DATA_FILE=""
LOOPDEV=""
LOOPIMG=""
SUMMARY=()

cleanup() {
	if [ -n "$LOOPDEV" ]; then losetup -d "$LOOPDEV" 2>/dev/null; fi
	if [ -n "${TLOOP:-}" ]; then losetup -d "$TLOOP" 2>/dev/null; fi
	rm -f "${TLOOPIMG:-}"
	if [ -n "$LOOPIMG" ]; then rm -f "$LOOPIMG"; fi
	if [ -n "$DATA_FILE" ]; then rm -f "$DATA_FILE"; fi
	if [ -n "$MNT" ]; then
		umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null
		rmdir "$MNT" 2>/dev/null
	fi
	if [ -n "$IMG" ]; then rm -f "$IMG"; fi
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

die() {
	echo "run.sh: $*" >&2
	exit 1
}

want() { case " $ONLY " in *" $1 "*) return 0 ;; esac; return 1; }

need() {
	command -v "$1" >/dev/null 2>&1 || die "$1 not found ($2)"
}

# Median of the numbers on stdin (one per line).
median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) exit 1
		if (NR % 2) printf "%.6g\n", v[(NR + 1) / 2]
		else printf "%.6g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# fmt_rate 11967276 -> 11.97M
fmt_rate() { awk -v x="$1" 'BEGIN { if (x >= 1e6) printf "%.3fM", x / 1e6;
	else printf "%.1fk", x / 1e3 }'; }

# verdict MEASURED OP TARGET -> PASS|MISS (op >=, <=, or "within" a +-t band)
verdict() {
	awk -v m="$1" -v op="$2" -v t="$3" 'BEGIN {
		if (op == ">=") ok = m >= t
		else if (op == "<=") ok = m <= t
		else ok = m >= 1 - t && m <= 1 + t
		print ok ? "PASS" : "MISS" }'
}

# add_summary FIGURE MEASURED TARGET RESULT DETAIL
add_summary() {
	SUMMARY+=("$(printf '%-46s %-10s %-10s %-5s %s' "$1" "$2" "$3" "$4" "$5")")
}

# A number from a JSON document, or die.
json_num() {
	local v
	v=$(jq -er "$2" "$1" 2>/dev/null) || die "no $2 in $1: $(head -c 300 "$1")"
	awk -v x="$v" 'BEGIN { exit !(x + 0 > 0) }' || die "$2 = $v in $1"
	echo "$v"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }

# --- the tools: each prints the ops/s of one run ---------------------------

# raw_nop
tool_raw() {
	"$RAW" --cpu "$CPU" --runtime "$RUNTIME" --depth 128 --submit-batch 32 \
		--complete-batch 32 --json >"$TMP/raw.json" 2>"$TMP/raw.err" ||
		die "raw_nop failed: $(cat "$TMP/raw.err")"
	json_num "$TMP/raw.json" .ops_per_s
}

# biobench ARGS...: one second of ramp, RUNTIME measured
tool_bb() {
	"$BB" run --cpus "$CPU" --ramp-time 1 --runtime "$RUNTIME" --quiet \
		--json "$@" >"$TMP/bb.json" 2>"$TMP/bb.err" ||
		die "biobench run $* failed: $(cat "$TMP/bb.err")"
	json_num "$TMP/bb.json" .iops
}

# lines_iops PROGRAM... ARGS...: a program that prints t/io_uring's lines
# (t/io_uring, biobench tiou), pinned, -r RUNTIME+2: its per-second IOPS
# lines after the first (N-1 lines for -rN: the first covers the
# startup), averaged; "IOPS=1.23M" has three significant digits.
lines_iops() {
	taskset -c "$CPU" "$@" -r $((RUNTIME + 2)) >"$TMP/tiou.out" \
		2>"$TMP/tiou.err" ||
		die "$* failed: $(tail -3 "$TMP/tiou.out") $(cat "$TMP/tiou.err")"
	awk '/^IOPS=/ { v = $1; sub(/^IOPS=/, "", v); sub(/,$/, "", v)
		m = 1; if (v ~ /M$/) m = 1e6; else if (v ~ /K$/) m = 1e3
		sub(/[MK]$/, "", v); n++; if (n > 1) { s += v * m; k++ } }
		END { if (!k) exit 1; printf "%.0f\n", s / k }' "$TMP/tiou.out" ||
		die "$*: no IOPS lines: $(cat "$TMP/tiou.out")"
}

# t/io_uring ARGS...
tool_tiou() { lines_iops "$TIOU" "$@"; }

# biobench tiou ARGS...: the same line on biobench's engine
tool_bbtiou() { lines_iops "$BB" tiou "$@"; }

# fio (io_uring engine) FILE: the page-cached read of b)
tool_fio() {
	fio --name=randread --ioengine=io_uring --rw=randread --bs=4k \
		--iodepth=128 --iodepth_batch_submit=32 \
		--iodepth_batch_complete_min=32 \
		--iodepth_batch_complete_max=128 --fixedbufs=1 \
		--registerfiles=1 --direct=0 --invalidate=0 --norandommap \
		--filename="$1" --size="${FILE_MB}m" --time_based \
		--ramp_time=1 --runtime="$RUNTIME" --cpus_allowed="$CPU" \
		--output-format=json >"$TMP/fio.json" 2>"$TMP/fio.err" ||
		die "fio failed: $(cat "$TMP/fio.err")"
	json_num "$TMP/fio.json" '.jobs[0].read.iops'
}

# compare PART NAME=CMD... : REPS rounds, the tools in an order that
# rotates each round; the values go to $TMP/PART.NAME; prints each round.
compare() {
	local part=$1 n i k r
	shift
	local names=() cmds=()
	for a in "$@"; do
		names+=("${a%%=*}")
		cmds+=("${a#*=}")
		: >"$TMP/$part.${a%%=*}"
	done
	n=${#names[@]}
	for r in $(seq 1 "$REPS"); do
		local line="   round $r:"
		for i in $(seq 0 $((n - 1))); do
			k=$(((i + r - 1) % n))
			local v
			v=$(eval "${cmds[$k]}") || exit 1
			echo "$v" >>"$TMP/$part.${names[$k]}"
		done
		for i in $(seq 0 $((n - 1))); do
			line+=" ${names[$i]} $(fmt_rate "$(tail -1 "$TMP/$part.${names[$i]}")")"
		done
		echo "$line"
	done
}

med() { median <"$TMP/$1.$2"; }

# paired PART A B: "MEDIAN LO HI LEVEL" of the per-round ratios A/B.  A
# and B ran in the same round, next to each other, so a round's ratio
# cancels what drifts between rounds (CPU frequency, the other vCPU's
# load), which the ratio of the two medians does not.  LO..HI is the
# distribution-free interval of the median from the order statistics
# (the binomial(n, 1/2) tails), the narrowest at >= 95 %, else min..max
# with its own level (93.8 % at 5 rounds).
paired() {
	paste -d' ' "$TMP/$1.$2" "$TMP/$1.$3" | awk '$2 > 0 { print $1 / $2 }' |
		sort -g | awk '{ v[NR] = $1 } END {
		n = NR
		if (n == 0) exit 1
		med = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		# [v_k, v_(n+1-k)] covers the median with 1 - 2 P(X <= k-1),
		# X ~ Bin(n, 1/2): the largest k still >= 95 %, else k = 1
		k = 1; lvl = 1 - 2 * 0.5 ^ n; c = 1; cdf = 0.5 ^ n
		for (j = 2; 2 * j <= n + 1; j++) {
			c = c * (n - j + 2) / (j - 1)	# C(n, j-1)
			cdf += c * 0.5 ^ n		# P(X <= j-1)
			if (1 - 2 * cdf < 0.95) break
			k = j; lvl = 1 - 2 * cdf
		}
		best = k
		printf "%.3f %.3f %.3f %.1f\n", med, v[best], v[n + 1 - best], 100 * lvl }'
}

# summary_ratio PART A B LABEL OP TARGET: the median of the per-round
# ratios A/B (see paired), judged against the target; the interval and
# both medians in the detail
summary_ratio() {
	local a b r p lo hi lvl
	a=$(med "$1" "$2") || exit 1
	b=$(med "$1" "$3") || exit 1
	p=$(paired "$1" "$2" "$3") || exit 1
	read -r r lo hi lvl <<<"$p"
	local t="$5 $6"
	[ "$5" = within ] && t="1+-$6"
	[ "$5" = info ] && t="(info)"
	add_summary "$4" "$r" "$t" \
		"$([ "$5" = info ] && echo - || verdict "$r" "$5" "$6")" \
		"${lvl}% CI $lo..$hi; $2 $(fmt_rate "$a") $3 $(fmt_rate "$b")"
	printf '   %s: %s (%s%% CI %s..%s; medians %s %s / %s %s = %s)\n' \
		"$4" "$r" "$lvl" "$lo" "$hi" "$2" "$(fmt_rate "$a")" \
		"$3" "$(fmt_rate "$b")" "$(ratio "$a" "$b")"
}

# ---------------------------------------------------------------- setup
need jq "apt-get install jq"
need taskset "apt-get install util-linux"
want cache && need fio "apt-get install fio"
{ want callgrind || want cgtiou || want micro; } && need valgrind "apt-get install valgrind"
{ want callgrind || want cgtiou || want micro; } && need callgrind_annotate "apt-get install valgrind"
[ -r "/sys/devices/system/cpu/cpu$CPU/online" ] || [ "$CPU" = 0 ] ||
	die "BENCH_CPU=$CPU: no such CPU"

if [ "${BENCH_NO_BUILD:-0}" != 1 ]; then
	echo "== building in $BUILD"
	if [ ! -f "$BUILD/CMakeCache.txt" ]; then
		cmake -S "$SRC" -B "$BUILD" >"$TMP/cmake.log" 2>&1 ||
			{ cat "$TMP/cmake.log" >&2; die "cmake configure failed"; }
	fi
	cmake --build "$BUILD" -j2 --target biobench raw_nop \
		bench_micro_late bench_micro_early >"$TMP/build.log" 2>&1 ||
		{ tail -30 "$TMP/build.log" >&2; die "build failed"; }
fi
for b in "$BB" "$RAW" "${MICRO}late" "${MICRO}early"; do
	[ -x "$b" ] || die "$b missing (build first)"
done

TIOU=""
TIOU_KIND=plain
TIOU_NUMA="?"
if want nop || want cache || want s1c1 || want device || want tiou; then
	echo "== t/io_uring (bench/tiou/get-fio.sh $BUILD/fio)"
	TIOU=$("$HERE/tiou/get-fio.sh" "$BUILD/fio") ||
		die "no t/io_uring: bench/tiou/get-fio.sh failed (TIOU_BIN=PATH to use one)"
	tsrc=$(dirname "$TIOU")/io_uring.c
	if [ -n "${BENCH_TIOU_NOP:-}" ]; then
		TIOU_KIND=$BENCH_TIOU_NOP
	elif [ -r "$tsrc" ] && grep -q IORING_NOP_INJECT_RESULT "$tsrc"; then
		TIOU_KIND=file
	fi
	if [ -r "$BUILD/fio/configure.log" ]; then
		TIOU_NUMA=$(awk '/^libnuma/ { print $2 }' "$BUILD/fio/configure.log")
	fi
	echo "   $TIOU ($(cat "$BUILD/fio/fio-version" 2>/dev/null || echo "version ?")):" \
		"-N1 issues $TIOU_KIND NOPs; built with libnuma: ${TIOU_NUMA:-?}"
fi

START=$(date +%s)
REV=$(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo "?")
DIRTY=$(git -C "$SRC" status --porcelain --untracked-files=no 2>/dev/null |
	wc -l)
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
echo "== biobench benchmarks: CPU $CPU, ${RUNTIME}s measured (+1 s warm-up)" \
	"x $REPS rounds, git $REV (+$DIRTY modified files), kernel $(uname -r)," \
	"load average $LOAD"

# The page-cached file of b) and c), on ext4.
setup_file() {
	[ -n "$DATA_FILE" ] && return 0
	mkdir -p "$DATA_DIR" || die "cannot create $DATA_DIR"
	local fstype dir
	fstype=$(findmnt -n -o FSTYPE --target "$DATA_DIR" 2>/dev/null)
	dir=$DATA_DIR
	if [ "$fstype" != ext4 ] || [ "${BENCH_FORCE_LOOP:-0}" = 1 ]; then
		[ "$(id -u)" = 0 ] ||
			die "$DATA_DIR is on ${fstype:-?}, not ext4, and a loop-mounted ext4 image needs root"
		need mkfs.ext4 "apt-get install e2fsprogs"
		IMG=$TMP/ext4.img
		MNT=$(mktemp -d /tmp/biobench-ext4.XXXXXX) || die "mktemp"
		truncate -s "$((FILE_MB + 128))M" "$IMG" || die "truncate $IMG"
		mkfs.ext4 -q -F "$IMG" >"$TMP/mkfs.log" 2>&1 ||
			die "mkfs.ext4 failed: $(cat "$TMP/mkfs.log")"
		mount -o loop "$IMG" "$MNT" 2>"$TMP/mount.log" ||
			die "mount -o loop failed: $(cat "$TMP/mount.log")"
		dir=$MNT
		fstype=$(findmnt -n -o FSTYPE --target "$dir")
		echo "   ($DATA_DIR is not used: ext4 image $IMG loop-mounted on $MNT)"
	fi
	[ "$fstype" = ext4 ] || die "$dir is on $fstype, not ext4"
	DATA_FILE=$dir/biobench-randread.dat
	dd if=/dev/zero of="$DATA_FILE" bs=1M count="$FILE_MB" conv=fsync \
		status=none || die "cannot write $DATA_FILE"
	cat "$DATA_FILE" >/dev/null || die "cannot read $DATA_FILE"
	if command -v fincore >/dev/null 2>&1; then
		echo "   page cache: $(fincore -n -o RES,SIZE "$DATA_FILE" 2>/dev/null |
			awk '{ print $1 " of " $2 " cached" }')"
	fi
}

# ------------------------------------------------------------------ a) NOPs
if want nop; then
	echo
	echo "== a) NOPs, qd128, s32/c32: biobench against raw_nop and" \
		"t/io_uring -N1 ($TIOU_KIND NOPs; biobench --nop-kind $TIOU_KIND)"
	tnop=(-N1)
	[ "$TIOU_KIND" = file ] && { setup_file; tnop=(-N1 -O0 "$DATA_FILE"); }
	bbnop=(--iodepth 128 --submit-batch 32 --complete-batch 32
		--nop-kind "$TIOU_KIND" nop)
	compare nop "raw=tool_raw" "tiou=tool_tiou ${tnop[*]}" \
		"none=tool_bb --model none ${bbnop[*]}" \
		"bio=tool_bb --model bio --no-kernel-cost --bio-cache all ${bbnop[*]}" \
		"bio_latoff=tool_bb --model bio --no-kernel-cost --bio-cache all --lat off ${bbnop[*]}"
	summary_ratio nop none raw "a) nop: model none / raw loop" ">=" 0.97
	summary_ratio nop bio raw "a) nop: model bio / raw loop" ">=" 0.85
	summary_ratio nop none tiou "a) nop: model none / t/io_uring -N1" info 0
	summary_ratio nop bio tiou "a) nop: model bio / t/io_uring -N1" info 0
	summary_ratio nop bio bio_latoff "a) nop: --lat batch / --lat off (bio)" ">=" 0.98
fi

# ------------------------------------------------ b) page-cached, s32/c32
if want cache; then
	setup_file
	echo
	echo "== b) 4 KiB buffered randread of a page-cached ${FILE_MB} MiB file on" \
		"ext4, qd128 s32/c32, fixed buffers, registered files"
	bbf=(--rw randread --bs 4k --iodepth 128 --submit-batch 32
		--complete-batch 32 --direct=0 --fixedbufs --registerfiles "$DATA_FILE")
	compare cache \
		"tiou=tool_tiou -p0 -O0 -d128 -s32 -c32 -b4096 -B1 -F1 -R1 -X1 -n1 $DATA_FILE" \
		"none=tool_bb --model none ${bbf[*]}" \
		"bio=tool_bb --model bio --no-kernel-cost ${bbf[*]}" \
		"fio=tool_fio $DATA_FILE"
	summary_ratio cache none tiou "b) page cache s32: model none / t/io_uring" ">=" 1.03
	summary_ratio cache bio tiou "b) page cache s32: model bio / t/io_uring" ">=" 0.98
	summary_ratio cache bio fio "b) page cache s32: model bio / fio" ">=" 1.5
	summary_ratio cache none fio "b) page cache s32: model none / fio" info 0
fi

# ----------------------------------------- c) the kernel threads' -s1 -c1
if want s1c1; then
	setup_file
	echo
	echo "== c) t/io_uring -p0 -d128 -b4096 -s1 -c1 -F1 -B1 -R1 -X1 -n1 -P1" \
		"-O0 on the same file (-P1: libnuma ${TIOU_NUMA:-?} in this build)"
	bbs=(--rw randread --bs 4k --iodepth 128 --submit-batch 1
		--complete-batch 1 --direct=0 --fixedbufs --registerfiles "$DATA_FILE")
	compare s1c1 \
		"tiou=tool_tiou -p0 -d128 -b4096 -s1 -c1 -F1 -B1 -R1 -X1 -n1 -P1 -O0 $DATA_FILE" \
		"none=tool_bb --model none ${bbs[*]}" \
		"bio=tool_bb --model bio --no-kernel-cost ${bbs[*]}"
	node=$(sed -n 's/.*node=\(-\{0,1\}[0-9]*\).*/\1/p' "$TMP/tiou.out" | head -1)
	echo "   t/io_uring -P1 placed the thread on node ${node:-?}" \
		"($([ "${node:-}" = -1 ] && echo "that is: no placement; it keeps the taskset CPU" || echo "it may have left the taskset CPU"))"
	summary_ratio s1c1 none tiou "c) -s1 -c1: model none / t/io_uring" ">=" 1.03
	summary_ratio s1c1 bio tiou "c) -s1 -c1: model bio / t/io_uring" ">=" 0.98
fi

# ----------------------------------------------- d) loop device, O_DIRECT
if want device; then
	[ "$(id -u)" = 0 ] || die "d) needs root (losetup)"
	echo
	echo "== d) 4 KiB O_DIRECT randread of a loop device (direct-io=on, backed" \
		"by a 1 GiB file in $LOOP_DIR), qd32"
	LOOPIMG=$(mktemp "$LOOP_DIR/biobench-bench-loop.XXXXXX") || die "mktemp in $LOOP_DIR"
	dd if=/dev/zero of="$LOOPIMG" bs=1M count=1024 status=none ||
		die "cannot write $LOOPIMG"
	LOOPDEV=$(losetup -f --show --direct-io=on "$LOOPIMG") || die "losetup failed"
	bbd=(--rw randread --bs 4k --iodepth 32 --direct "$LOOPDEV")
	compare device \
		"tiou=tool_tiou -p0 -O1 -d32 -s32 -c32 -b4096 -B1 -F1 -R1 -X1 -n1 $LOOPDEV" \
		"none=tool_bb --model none ${bbd[*]}" \
		"bio=tool_bb --model bio --no-kernel-cost ${bbd[*]}"
	summary_ratio device none tiou "d) loop O_DIRECT qd32: none / t/io_uring" within 0.03
	summary_ratio device bio tiou "d) loop O_DIRECT qd32: bio / t/io_uring" within 0.03
	losetup -d "$LOOPDEV"
	LOOPDEV=""
	rm -f "$LOOPIMG"
	LOOPIMG=""
fi

# ------------------------------ g) biobench tiou: the same lines as t/io_uring
if want tiou; then
	setup_file
	[ "$(id -u)" = 0 ] || die "g) needs root (losetup)"
	TLOOPIMG=/dev/shm/biobench-bench-tiou.$$
	truncate -s 1G "$TLOOPIMG" || die "truncate $TLOOPIMG"
	TLOOP=$(losetup -f --show "$TLOOPIMG") || die "losetup failed"
	dd if=/dev/zero of="$TLOOP" bs=1M count=1024 oflag=direct status=none ||
		die "cannot fill $TLOOP"
	k=(-p0 -d128 -b4096 -s1 -c1 -F1 -B1 -R1 -X1 -n1 -P1)
	k32=(-p0 -d128 -b4096 -s32 -c32 -F1 -B1 -R1 -X1 -n1 -P1)
	echo
	echo "== g) biobench tiou against t/io_uring, the kernel threads' lines," \
		"each pinned to CPU $CPU by taskset (-P1 places nothing on one node)"
	for c in "s1c1_file|${k[*]} -O0 $DATA_FILE" "s32_file|${k32[*]} -O0 $DATA_FILE" \
		"s1c1_loop|${k[*]} $TLOOP" "s32_loop|${k32[*]} $TLOOP" \
		"nop|-N1 -d128 -b4096 -s32 -c32 -F1 -B1 -R1 -X1 -n1 -P1 $DATA_FILE"; do
		name=${c%%|*}
		line=${c#*|}
		echo "   $name: $line"
		compare "tiou_$name" "tiou=tool_tiou $line" "bb=tool_bbtiou $line"
		summary_ratio "tiou_$name" bb tiou \
			"g) tiou ${name/_/ }: biobench / t/io_uring" ">=" 1.0
	done
	losetup -d "$TLOOP"
	TLOOP=""
	rm -f "$TLOOPIMG"
fi

# ------------------------------------------- e) callgrind, marginal Ir/op
# cg_profile OUT CMD... (NOPS in CMD replaced by the op count): per
# function (inlined code counted in its caller), Ir of N2 ops minus Ir of
# N1 ops, divided by N2 - N1; "TOTAL" first.
cg_profile() {
	local out=$1 n
	shift
	for n in "$CG_N1" "$CG_N2"; do
		local args=() a
		for a in "$@"; do args+=("${a//NOPS/$n}"); done
		(cd "$TMP" && valgrind --tool=callgrind \
			--callgrind-out-file="$TMP/cg.$n" "${args[@]}" \
			>/dev/null 2>"$TMP/cg.$n.err") ||
			die "valgrind ${args[*]} failed: $(tail -5 "$TMP/cg.$n.err")"
		callgrind_annotate --auto=no --inclusive=no --threshold=100 \
			"$TMP/cg.$n" 2>/dev/null | awk '
			/PROGRAM TOTALS/ { gsub(",", "", $1); print $1, "TOTAL"; next }
			/file:function/ { on = 1; next }
			on && /^ *[0-9,]+ / { v = $1; gsub(",", "", v); f = $0
				sub(/^ *[0-9,]+ +(\([^)]*\) +)?/, "", f)
				sub(/ \[.*\]$/, "", f); sub(/^.*:/, "", f); s[f] += v }
			END { for (f in s) print s[f], f }' >"$TMP/cg.$n.txt"
	done
	awk -v d=$((CG_N2 - CG_N1)) 'NR == FNR { a[$2] = $1; next }
		{ m = ($1 - a[$2]) / d; if ($2 == "TOTAL") printf "%.1f TOTAL\n", m
		  else if (m >= 0.5) printf "%.1f %s\n", m, $2 }' \
		"$TMP/cg.$CG_N1.txt" "$TMP/cg.$CG_N2.txt" |
		sort -k2,2 | awk '$2 == "TOTAL"' >"$out"
	awk -v d=$((CG_N2 - CG_N1)) 'NR == FNR { a[$2] = $1; next }
		{ m = ($1 - a[$2]) / d; if ($2 != "TOTAL" && m >= 0.5)
		  printf "%.1f %s\n", m, $2 }' \
		"$TMP/cg.$CG_N1.txt" "$TMP/cg.$CG_N2.txt" | sort -rn >>"$out"
}

if want callgrind; then
	echo
	echo "== e) callgrind: user-space instructions per NOP, marginal" \
		"($CG_N2 - $CG_N1 ops), per function (self, inlined code in its caller)"
	cg_profile "$TMP/cgp.raw" "$RAW" --number-ops NOPS
	cg_profile "$TMP/cgp.none" "$BB" run --number-ios NOPS --model none --quiet nop
	cg_profile "$TMP/cgp.bio" "$BB" run --number-ios NOPS --model bio --no-kernel-cost --bio-cache all --quiet nop
	for w in raw none bio; do
		printf '   %-8s %6s Ir/op:' "$w" "$(awk '$2 == "TOTAL" { print $1 }' "$TMP/cgp.$w")"
		awk '$2 != "TOTAL" { printf " %s %s;", $2, $1 }' "$TMP/cgp.$w" | head -c 400
		echo
	done
	irr=$(awk '$2 == "TOTAL" { print $1 }' "$TMP/cgp.raw")
	irn=$(awk '$2 == "TOTAL" { print $1 }' "$TMP/cgp.none")
	irb=$(awk '$2 == "TOTAL" { print $1 }' "$TMP/cgp.bio")
	add_summary "e) Ir/NOP, model none (callgrind, marginal)" "$irn" "<= 60" \
		"$(verdict "$irn" "<=" 60)" "raw loop $irr"
	add_summary "e) Ir/NOP, model bio, cache all" "$irb" "<= 110" \
		"$(verdict "$irb" "<=" 110)" "raw loop $irr"
fi

# ------------------- h) callgrind: Ir per I/O, biobench tiou and t/io_uring
# cg_tiou OUT N_SECONDS CMD...: total Ir and I/Os of one run under
# callgrind, pinned.  I/Os: biobench's summary line; t/io_uring prints
# rates only, so its count is how often the reap's once-per-CQE line
# (REAP_LINE of its io_uring.c) ran.
cg_tiou() {
	local out=$1 secs=$2 ir n
	shift 2
	taskset -c "$CPU" valgrind --tool=callgrind \
		--callgrind-out-file="$TMP/cgt.out" "$@" -r"$secs" \
		>"$TMP/cgt.stdout" 2>"$TMP/cgt.err" ||
		die "valgrind $* failed: $(tail -5 "$TMP/cgt.err")"
	ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$TMP/cgt.err" | tail -1)
	if [ "$1" = "$BB" ]; then
		n=$(sed -n 's/.*(\([0-9]*\) I\/Os in .*/\1/p' "$TMP/cgt.stdout" | head -1)
	else
		n=$(callgrind_annotate --auto=yes "$TMP/cgt.out" 2>/dev/null |
			awk -v pat="$REAP_LINE" 'index($0, pat) && $1 ~ /^[0-9,]+$/ {
				gsub(",", "", $1); print $1; exit }')
	fi
	[ -n "$ir" ] && [ -n "$n" ] || die "callgrind run of $*: no Ir or I/O count"
	echo "$ir $n" >"$out"
}

if want cgtiou; then
	echo
	echo "== h) callgrind: user-space instructions per I/O, marginal (-r4" \
		"minus -r2), biobench tiou and t/io_uring (--disable-native build)"
	TIOU_CG=$(TIOU_CONFIGURE=--disable-native "$HERE/tiou/get-fio.sh" \
		"$BUILD/fio-portable") ||
		die "no portable t/io_uring: bench/tiou/get-fio.sh failed"
	REAP_LINE="reaped++;"
	grep -q "$REAP_LINE" "$(dirname "$TIOU_CG")/io_uring.c" ||
		die "$(dirname "$TIOU_CG")/io_uring.c has no \"$REAP_LINE\" line to count I/Os by"
	setup_file
	for c in "s1c1_file|-p0 -d128 -b4096 -s1 -c1 -F1 -B1 -R1 -X1 -n1 -P1 -O0 $DATA_FILE" \
		"nop|-N1 -d128 -b4096 -s32 -c32 -F1 -B1 -R1 -X1 -n1 -P1 $DATA_FILE"; do
		name=${c%%|*}
		read -ra line <<<"${c#*|}"
		for tool in tiou bb; do
			if [ "$tool" = tiou ]; then cmd=("$TIOU_CG"); else cmd=("$BB" tiou); fi
			cg_tiou "$TMP/cgt.$tool.2" 2 "${cmd[@]}" "${line[@]}"
			cg_tiou "$TMP/cgt.$tool.4" 4 "${cmd[@]}" "${line[@]}"
			read -r i2 n2 <"$TMP/cgt.$tool.2"
			read -r i4 n4 <"$TMP/cgt.$tool.4"
			[ "$n4" -gt "$n2" ] || die "h) $name $tool: $n4 I/Os in 4 s, $n2 in 2 s"
			awk -v a="$i2" -v b="$i4" -v x="$n2" -v y="$n4" \
				'BEGIN { printf "%.1f\n", (b - a) / (y - x) }' >"$TMP/cgt.$tool.ir"
		done
		irt=$(cat "$TMP/cgt.tiou.ir")
		irb=$(cat "$TMP/cgt.bb.ir")
		echo "   $name: t/io_uring $irt Ir/IO, biobench tiou $irb Ir/IO"
		r=$(ratio "$irb" "$irt")
		add_summary "h) Ir/IO ${name/_/ }: biobench / t/io_uring" "$r" "<= 1.0" \
			"$(verdict "$r" "<=" 1.0)" "bb $irb, tiou $irt Ir/IO (callgrind)"
	done
fi

# ---------------------------------------------------------- f) micro
if want micro; then
	for layout in late early; do
		echo
		echo "== f) micro, layout vec_$layout (pinned to CPU $CPU)"
		# shellcheck disable=SC2086
		"${MICRO}$layout" --cpu "$CPU" --kv $MICRO_ARGS \
			>"$TMP/micro.$layout" 2>"$TMP/micro.$layout.err" ||
			die "bench_micro_$layout failed: $(cat "$TMP/micro.$layout.err")"
		grep -v '^kv ' "$TMP/micro.$layout" | sed 's/^/   /'
	done

	# callgrind: one dump per measurement, totals / ops = Ir per op
	for layout in late early; do
		(cd "$TMP" && valgrind --tool=callgrind \
			--callgrind-out-file="$TMP/cg.$layout" \
			"${MICRO}$layout" --callgrind --cg-ops "$CG_OPS" \
			>"$TMP/cgops.$layout" 2>"$TMP/cg.$layout.err") ||
			die "valgrind bench_micro_$layout failed: $(tail -5 "$TMP/cg.$layout.err")"
		: >"$TMP/cgir.$layout"
		for f in "$TMP/cg.$layout".*; do
			[ -f "$f" ] || continue
			name=$(sed -n 's/^desc: Trigger: Client Request: //p' "$f")
			[ -n "$name" ] || continue
			tot=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$f")
			[ -n "$tot" ] || tot=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$f")
			ops=$(sed -n "s/^cg name=$name ops=\([0-9]*\).*/\1/p" \
				"$TMP/cgops.$layout")
			[ -n "$tot" ] && [ -n "$ops" ] ||
				die "callgrind dump $f: no totals or ops for $name"
			awk -v n="$name" -v t="$tot" -v o="$ops" \
				'BEGIN { printf "%s %.1f\n", n, t / o }' \
				>>"$TMP/cgir.$layout"
		done
		[ -s "$TMP/cgir.$layout" ] || die "no callgrind dumps for $layout"
	done
	cgget() { awk -v n="$2" '$1 == n { print $2 }' "$TMP/cgir.$1"; }
	echo
	echo "== f) callgrind: instructions per op (user space, loop overhead" \
		"included; $CG_OPS ops each)"
	printf '   %-22s' "alloc+put Ir/op"
	for layout in late early; do
		for col in task_1 task_b32 hardirq_1 hardirq_b32; do
			printf ' %9s' "${layout:0:1}:${col}"
		done
	done
	echo
	for v in off task irq irq_fast all; do
		printf '   %-22s' "$v"
		for layout in late early; do
			for col in task_1 task_b32 hardirq_1 hardirq_b32; do
				printf ' %9s' "$(cgget "$layout" "ap_${v}_${col}")"
			done
		done
		echo
	done
	printf '   %-22s' "may_need_split Ir/call"
	for layout in late early; do
		for col in 1vec_hot 4vec_hot 1vec_cold; do
			printf ' %12s' "${layout:0:1}:$col"
		done
	done
	echo
	for form in vcnt iter; do
		printf '   %-22s' "$form"
		for layout in late early; do
			for col in 1vec_hot 4vec_hot 1vec_cold; do
				printf ' %12s' "$(cgget "$layout" "split_${form}_${col}")"
			done
		done
		echo
	done

	kvget() { # layout key=value... -> ns
		local layout=$1
		shift
		grep '^kv ' "$TMP/micro.$layout" | grep -- " layout=vec_$layout " |
			awk -v want="$*" 'BEGIN { n = split(want, w, " ") }
			{ ok = 1; for (i = 1; i <= n; i++) if (index($0, " " w[i] " ") == 0) ok = 0
			  if (ok) { sub(/.* ns=/, ""); print; exit } }'
	}
	for layout in early late; do
		ns=$(kvget "$layout" "bench=alloc_put" "variant=all" "ctx=task" "batch=1")
		b32=$(kvget "$layout" "bench=alloc_put" "variant=all" "ctx=task" "batch=32")
		hi=$(kvget "$layout" "bench=alloc_put" "variant=all" "ctx=hardirq" "batch=32")
		off=$(kvget "$layout" "bench=alloc_put" "variant=off" "ctx=task" "batch=1")
		[ -n "$ns" ] && [ -n "$b32" ] && [ -n "$off" ] ||
			die "micro output incomplete for $layout"
		add_summary "f) cached alloc+put, all, task (vec_$layout)" \
			"$(printf '%.2f ns' "$ns")" "<= 5 ns" \
			"$(verdict "$ns" "<=" 5)" \
			"$(printf 'b32 %.2f, hardirq b32 %.2f, off %.2f ns; %s/%s Ir' \
				"$b32" "$hi" "$off" \
				"$(cgget "$layout" ap_all_task_1)" \
				"$(cgget "$layout" ap_off_task_1)")"
	done
	for layout in early late; do
		line=""
		for form in vcnt iter; do
			h=$(kvget "$layout" "bench=may_need_split" "form=$form" "bio=1vec_hot")
			c=$(kvget "$layout" "bench=may_need_split" "form=$form" "bio=1vec_cold")
			line+="$(printf '%s %.2f/%.2f ns %s Ir; ' "$form" "$h" "$c" \
				"$(cgget "$layout" "split_${form}_1vec_hot")")"
		done
		add_summary "f) may_need_split hot/cold (vec_$layout)" "-" "(info)" \
			"-" "${line%; }"
	done
	for v in task irq irq_fast all; do
		add_summary "f) Ir/op alloc+put $v (late/early)" \
			"$(cgget late "ap_${v}_task_1")/$(cgget early "ap_${v}_task_1")" \
			"(info)" "-" \
			"hardirq b32: $(cgget late "ap_${v}_hardirq_b32")/$(cgget early "ap_${v}_hardirq_b32") Ir/op"
	done
fi

# ---------------------------------------------------------- summary
echo
echo "==== summary (CPU $CPU, git $REV +$DIRTY modified, $(date -u '+%Y-%m-%d %H:%M UTC'), $(($(date +%s) - START)) s, load average at start $LOAD) ===="
printf '%-46s %-10s %-10s %-5s %s\n' "figure" "measured" "target" "result" "detail"
for l in "${SUMMARY[@]}"; do echo "$l"; done
exit 0
