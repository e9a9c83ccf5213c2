#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/run.sh - run every biobench benchmark in one go and print ratios
# against references measured in the same run (see bench/README.md).
#
#   a) `biobench run nop` (cache all) vs bench/raw_nop, interleaved
#   b) 4 KiB buffered random reads of a page-cached file on ext4:
#      `biobench run FILE` vs fio (io_uring engine), interleaved
#   c) micro-benchmarks (alloc+put per cache variant, may_need_split per
#      form) in both struct bio layouts, and callgrind instructions per op
#
# Ends with one summary block: each figure, its target, PASS/MISS.  Exit 0
# even on MISS (a benchmark, not a test); exit 1 when something fails to
# run, 2 on a usage error.
#
# Environment (all optional):
#   BUILD_DIR       build tree (default: <repo>/build-bench); built first
#   BENCH_NO_BUILD  1: do not run cmake --build
#   BENCH_CPU       CPU to pin the measured thread to (default 1)
#   BENCH_RUNTIME   seconds per run in a) and b) (default 3)
#   BENCH_REPS      interleaved repetitions in a) and b) (default 3)
#   BENCH_FILE_MB   size of the file read in b) (default 512)
#   BENCH_DATA_DIR  where that file goes (default: BUILD_DIR/bench-data);
#                   if it is not on ext4 a loop-mounted ext4 image is used
#   BENCH_FORCE_LOOP 1: use the loop-mounted ext4 image anyway
#   BENCH_ONLY      any of "nop file micro" (default: all three)
#   BENCH_MICRO_ARGS extra arguments for bench_micro_* (timed runs)
#   BENCH_CG_OPS    operations per callgrind measurement (default 100000)
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
BUILD=${BUILD_DIR:-$SRC/build-bench}
CPU=${BENCH_CPU:-1}
RUNTIME=${BENCH_RUNTIME:-3}
REPS=${BENCH_REPS:-3}
FILE_MB=${BENCH_FILE_MB:-512}
DATA_DIR=${BENCH_DATA_DIR:-$BUILD/bench-data}
ONLY=${BENCH_ONLY:-nop file micro}
CG_OPS=${BENCH_CG_OPS:-100000}
MICRO_ARGS=${BENCH_MICRO_ARGS:---iters 5000000 --split-iters 20000000 --cold-iters 5000000 --reps 7}

BB=$BUILD/biobench
RAW=$BUILD/bench/raw_nop
MICRO=$BUILD/bench/bench_micro_

TMP=$(mktemp -d /tmp/biobench-bench.XXXXXX) || exit 1
MNT=""
IMG=""
DATA_FILE=""
SUMMARY=()

cleanup() {
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

# verdict MEASURED OP TARGET -> PASS|MISS
verdict() {
	awk -v m="$1" -v op="$2" -v t="$3" 'BEGIN {
		ok = (op == ">=") ? (m >= t) : (m <= t)
		print ok ? "PASS" : "MISS" }'
}

# add_summary FIGURE MEASURED TARGET RESULT DETAIL
add_summary() {
	SUMMARY+=("$(printf '%-44s %-10s %-9s %-5s %s' "$1" "$2" "$3" "$4" "$5")")
}

# A number from a JSON document, or die.
json_num() {
	local v
	v=$(jq -er "$2" "$1" 2>/dev/null) || die "no $2 in $1: $(head -c 300 "$1")"
	awk -v x="$v" 'BEGIN { exit !(x + 0 > 0) }' || die "$2 = $v in $1"
	echo "$v"
}

# ---------------------------------------------------------------- setup
need jq "apt-get install jq"
want file && need fio "apt-get install fio"
want micro && need valgrind "apt-get install valgrind"
want micro && need callgrind_annotate "apt-get install valgrind"
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

START=$(date +%s)
REV=$(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo "?")
DIRTY=$(git -C "$SRC" status --porcelain --untracked-files=no 2>/dev/null |
	wc -l)
echo "== biobench benchmarks: CPU $CPU, ${RUNTIME}s runs x $REPS," \
	"git $REV (+$DIRTY modified files), kernel $(uname -r)"

# ------------------------------------------------------ a) nop vs raw_nop
if want nop; then
	echo
	echo "== a) biobench run nop (cache all) vs raw_nop, ${RUNTIME}s each," \
		"interleaved x $REPS"
	: >"$TMP/nop.raw"
	: >"$TMP/nop.bb"
	for i in $(seq 1 "$REPS"); do
		"$RAW" --cpu "$CPU" --runtime "$RUNTIME" --depth 128 \
			--submit-batch 32 --complete-batch 32 --json \
			>"$TMP/raw.$i.json" 2>"$TMP/raw.$i.err" ||
			die "raw_nop failed: $(cat "$TMP/raw.$i.err")"
		r=$(json_num "$TMP/raw.$i.json" .ops_per_s) || exit 1
		echo "$r" >>"$TMP/nop.raw"
		"$BB" run --cpus "$CPU" --runtime "$RUNTIME" --bio-cache all \
			--iodepth 128 --submit-batch 32 --complete-batch 32 \
			--quiet --json nop >"$TMP/bbnop.$i.json" \
			2>"$TMP/bbnop.$i.err" ||
			die "biobench run nop failed: $(cat "$TMP/bbnop.$i.err")"
		b=$(json_num "$TMP/bbnop.$i.json" .iops) || exit 1
		echo "$b" >>"$TMP/nop.bb"
		printf '   rep %d: raw_nop %s ops/s   biobench %s IOPS   (%.3f)\n' \
			"$i" "$(fmt_rate "$r")" "$(fmt_rate "$b")" \
			"$(awk -v a="$b" -v b="$r" 'BEGIN { print a / b }')"
	done
	mr=$(median <"$TMP/nop.raw") || exit 1
	mb=$(median <"$TMP/nop.bb") || exit 1
	ratio=$(awk -v a="$mb" -v b="$mr" 'BEGIN { printf "%.3f", a / b }')
	extra=$(awk -v a="$mb" -v b="$mr" 'BEGIN { printf "%+.1f", 1e9 / a - 1e9 / b }')
	echo "   median: raw_nop $(fmt_rate "$mr") ops/s, biobench $(fmt_rate "$mb")" \
		"IOPS, ratio $ratio ($extra ns per op)"
	add_summary "a) nop: biobench / raw_nop (median IOPS)" "$ratio" ">= 0.95" \
		"$(verdict "$ratio" ">=" 0.95)" \
		"bb $(fmt_rate "$mb") raw $(fmt_rate "$mr"); $extra ns/op"

	# Where the user-space instructions go (the kernel is not counted).
	if command -v valgrind >/dev/null 2>&1; then
		n=200000
		echo "   callgrind, $n NOPs each (user space only; setup included):"
		(cd "$TMP" && valgrind --tool=callgrind \
			--callgrind-out-file="$TMP/cgnop.bb" "$BB" run \
			--number-ios "$n" --bio-cache all --quiet nop \
			>/dev/null 2>"$TMP/cgnop.bb.err") ||
			die "valgrind biobench run nop failed: $(tail -5 "$TMP/cgnop.bb.err")"
		(cd "$TMP" && valgrind --tool=callgrind \
			--callgrind-out-file="$TMP/cgnop.raw" "$RAW" \
			--number-ops "$n" >/dev/null 2>"$TMP/cgnop.raw.err") ||
			die "valgrind raw_nop failed: $(tail -5 "$TMP/cgnop.raw.err")"
		for w in raw bb; do
			callgrind_annotate --inclusive=no "$TMP/cgnop.$w" \
				>"$TMP/cgnop.$w.txt" 2>/dev/null ||
				die "callgrind_annotate $TMP/cgnop.$w failed"
		done
		irb=$(awk -v n=$n '/PROGRAM TOTALS/ { gsub(",", "", $1); printf "%.0f", $1 / n }' "$TMP/cgnop.bb.txt")
		irr=$(awk -v n=$n '/PROGRAM TOTALS/ { gsub(",", "", $1); printf "%.0f", $1 / n }' "$TMP/cgnop.raw.txt")
		echo "     biobench $irb Ir/op, raw_nop $irr Ir/op; biobench's top functions (self Ir/op):"
		awk -v n=$n '/file:function/ { on = 1; next }
			on && got && /^-+$/ { exit }
			on && /^ *[0-9,]+ / { got = 1
			v = $1; gsub(",", "", v); if (v / n < 1) next
			f = $0; sub(/^ *[0-9,]+ +(\([^)]*\) +)?/, "", f)
			sub(/ \[.*\]$/, "", f); sub(/^.*\/main\//, "", f)
			printf "       %6.1f  %s\n", v / n, f }' "$TMP/cgnop.bb.txt" |
			head -16
		add_summary "a) user-space Ir/op: biobench vs raw_nop" \
			"$irb/$irr" "(info)" "-" "callgrind, $n NOPs, cache all"
	fi
fi

# ------------------------------------------ b) page-cached randread vs fio
if want file; then
	echo
	echo "== b) 4 KiB buffered randread of a page-cached ${FILE_MB} MiB" \
		"file on ext4: biobench vs fio, ${RUNTIME}s each, interleaved x $REPS"
	mkdir -p "$DATA_DIR" || die "cannot create $DATA_DIR"
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
	: >"$TMP/file.bb"
	: >"$TMP/file.fio"
	for i in $(seq 1 "$REPS"); do
		"$BB" run --cpus "$CPU" --runtime "$RUNTIME" --rw randread \
			--bs 4k --iodepth 128 --submit-batch 32 \
			--complete-batch 32 --direct=0 --fixedbufs \
			--registerfiles --size "${FILE_MB}m" --quiet --json \
			"$DATA_FILE" >"$TMP/bbfile.$i.json" \
			2>"$TMP/bbfile.$i.err" ||
			die "biobench run $DATA_FILE failed: $(cat "$TMP/bbfile.$i.err")"
		b=$(json_num "$TMP/bbfile.$i.json" .iops) || exit 1
		echo "$b" >>"$TMP/file.bb"
		# fio: the main process stays unpinned, the job runs on $CPU;
		# invalidate=0 keeps the page cache (fio drops it by default).
		fio --name=randread --ioengine=io_uring --rw=randread --bs=4k \
			--iodepth=128 --iodepth_batch_submit=32 \
			--iodepth_batch_complete_min=32 \
			--iodepth_batch_complete_max=128 --fixedbufs=1 \
			--registerfiles=1 --direct=0 --invalidate=0 \
			--norandommap --filename="$DATA_FILE" \
			--size="${FILE_MB}m" --time_based --runtime="$RUNTIME" \
			--cpus_allowed="$CPU" --output-format=json \
			>"$TMP/fio.$i.json" 2>"$TMP/fio.$i.err" ||
			die "fio failed: $(cat "$TMP/fio.$i.err")"
		f=$(json_num "$TMP/fio.$i.json" '.jobs[0].read.iops') || exit 1
		echo "$f" >>"$TMP/file.fio"
		printf '   rep %d: biobench %s IOPS   fio %s IOPS   (%.3f)\n' \
			"$i" "$(fmt_rate "$b")" "$(fmt_rate "$f")" \
			"$(awk -v a="$b" -v b="$f" 'BEGIN { print a / b }')"
	done
	mb=$(median <"$TMP/file.bb") || exit 1
	mf=$(median <"$TMP/file.fio") || exit 1
	ratio=$(awk -v a="$mb" -v b="$mf" 'BEGIN { printf "%.3f", a / b }')
	echo "   median: biobench $(fmt_rate "$mb") IOPS, fio $(fmt_rate "$mf")" \
		"IOPS, ratio $ratio"
	add_summary "b) 4k buffered randread: biobench / fio" "$ratio" ">= 1.30" \
		"$(verdict "$ratio" ">=" 1.30)" \
		"bb $(fmt_rate "$mb") fio $(fmt_rate "$mf") IOPS"
	rm -f "$DATA_FILE"
	DATA_FILE=""
fi

# ---------------------------------------------------------- c) micro
if want micro; then
	for layout in late early; do
		echo
		echo "== c) micro, layout vec_$layout (pinned to CPU $CPU)"
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
	echo "== c) callgrind: instructions per op (user space, loop overhead" \
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
		add_summary "c) cached alloc+put, all, task (vec_$layout)" \
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
		add_summary "c) may_need_split hot/cold (vec_$layout)" "-" "(info)" \
			"-" "${line%; }"
	done
	for v in task irq irq_fast all; do
		add_summary "c) Ir/op alloc+put $v (late/early)" \
			"$(cgget late "ap_${v}_task_1")/$(cgget early "ap_${v}_task_1")" \
			"(info)" "-" \
			"hardirq b32: $(cgget late "ap_${v}_hardirq_b32")/$(cgget early "ap_${v}_hardirq_b32") Ir/op"
	done
fi

# ---------------------------------------------------------- summary
echo
echo "==== summary (CPU $CPU, git $REV +$DIRTY modified, $(date -u '+%Y-%m-%d %H:%M UTC'), $(($(date +%s) - START)) s) ===="
printf '%-44s %-10s %-9s %-5s %s\n' "figure" "measured" "target" "result" "detail"
for l in "${SUMMARY[@]}"; do echo "$l"; done
exit 0
