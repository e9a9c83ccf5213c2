#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/studies.sh - run the kernel studies of examples/study-*.json with
# `biobench ab JOBFILE --json` (the same job runner and statistics as the
# daemon) and keep each comparison document, with the host's metadata and
# its load, under docs/studies/ for docs/studies.md.
#
# A study whose target is @ext4 runs on a 256 MiB file of an ext4 image
# loop-mounted from /dev/shm, read once so that it is page-cached; @loop on
# a loop device backed by a 1 GiB file in /dev/shm.  Both need root (the
# studies are skipped without it); both are removed at exit.
#
# Prints per study the load average before and after, and per variant:
# median IOPS and ns per I/O (the denominator), the change vs the baseline
# with its CI under its real coverage and the number of pairs, the verdict,
# the kernel thread's figure and whether it lies inside the CI, the context
# of the bio puts, and the counters that explain the result.
#
# Exit 0 when every study ran; 1 when one failed to run; 2 usage error.
#
# Environment (all optional):
#   BUILD_DIR     build tree with biobench (default <repo>/build-bench;
#                 built first unless BENCH_NO_BUILD=1)
#   STUDIES       study files (default: examples/study-*.json)
#   OUT_DIR       where the documents go (default <repo>/docs/studies)
set -uo pipefail

case "${1:-}" in
-h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac

HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(dirname "$HERE")
BUILD_DIR=${BUILD_DIR:-$SRC/build-bench}
OUT_DIR=${OUT_DIR:-$SRC/docs/studies}
STUDIES=${STUDIES:-$(ls "$SRC"/examples/study-*.json)}
TMP=$(mktemp -d /tmp/biobench-studies.XXXXXX) || exit 1
MNT="" LOOPDEV="" EXT4DEV=""

cleanup() {
	if [ -n "$MNT" ]; then
		umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null
		rmdir "$MNT" 2>/dev/null
	fi
	[ -n "$LOOPDEV" ] && losetup -d "$LOOPDEV" 2>/dev/null
	rm -f /dev/shm/biobench-studies-ext4."$$" /dev/shm/biobench-studies-loop."$$"
	rm -rf "$TMP"
}
trap cleanup EXIT

die() { echo "studies: $*" >&2; exit 1; }
if [ "${BENCH_NO_BUILD:-0}" != 1 ]; then
	cmake -S "$SRC" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DBB_BUILD_TESTS=OFF >/dev/null || die "cmake failed"
	cmake --build "$BUILD_DIR" -j"$(nproc)" --target biobench >/dev/null ||
		die "build failed"
fi
BB=$BUILD_DIR/biobench
[ -x "$BB" ] || die "no biobench in $BUILD_DIR"
mkdir -p "$OUT_DIR"

"$BB" host --json >"$OUT_DIR/host.json" 2>/dev/null ||
	/usr/bin/python3 - >"$OUT_DIR/host.json" <<'PY'
import json, os, platform
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "")
print(json.dumps({"kernel": platform.release(), "cpu_model": cpu, "cpus": os.cpu_count(),
                  "cmdline": open("/proc/cmdline").read().strip()}, indent=1))
PY

# The targets that need setting up, once, on first use.  Called in this
# shell (not in $(...)): MNT and LOOPDEV must survive for the next study
# and for cleanup.  The path goes to TARGET.
ext4_file() {
	if [ -z "$MNT" ]; then
		local img=/dev/shm/biobench-studies-ext4.$$
		[ "$(id -u)" = 0 ] || return 1
		truncate -s 400M "$img" && mkfs.ext4 -q -F "$img" >/dev/null 2>&1 ||
			return 1
		MNT=$(mktemp -d /tmp/biobench-studies-ext4.XXXXXX) || return 1
		mount -o loop "$img" "$MNT" || { rmdir "$MNT"; MNT=""; return 1; }
		dd if=/dev/zero of="$MNT/testfile" bs=1M count=256 conv=fsync \
			status=none || return 1
		cat "$MNT/testfile" >/dev/null
	fi
	TARGET=$MNT/testfile
}
loop_dev() {
	if [ -z "$LOOPDEV" ]; then
		local img=/dev/shm/biobench-studies-loop.$$
		[ "$(id -u)" = 0 ] || return 1
		truncate -s 1G "$img" || return 1
		LOOPDEV=$(losetup -f --show "$img") || { LOOPDEV=""; return 1; }
	fi
	TARGET=$LOOPDEV
}

status=0
for f in $STUDIES; do
	name=$(basename "$f" .json)
	target=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["target"])' "$f")
	case "$target" in
	@ext4) ext4_file && target=$TARGET || { echo "studies: $name: skipped (needs root, mkfs.ext4 and loop mounts)"; continue; } ;;
	@loop) loop_dev && target=$TARGET || { echo "studies: $name: skipped (needs root and losetup)"; continue; } ;;
	esac
	/usr/bin/python3 - "$f" "$target" >"$TMP/$name.json" <<'PY' || die "$name: cannot rewrite its target"
import json, sys
d = json.load(open(sys.argv[1]))
d["target"] = sys.argv[2]
print(json.dumps(d))
PY
	load0=$(cut -d' ' -f1-3 /proc/loadavg)
	echo "studies: $name on $target (load average $load0)"
	t0=$(date +%s)
	if ! "$BB" ab --json --quiet "$TMP/$name.json" >"$TMP/$name.out" 2>"$TMP/$name.err"; then
		echo "studies: $name failed: $(tail -3 "$TMP/$name.err")" >&2
		status=1
		continue
	fi
	load1=$(cut -d' ' -f1-3 /proc/loadavg)
	/usr/bin/python3 - "$TMP/$name.out" "$OUT_DIR/$name.json" "$name" "$target" \
		"$load0" "$load1" "$(($(date +%s) - t0))" <<'PY'
import json, math, sys
doc_path, out_path, name, target, load0, load1, secs = sys.argv[1:8]
d = json.load(open(doc_path))
# The kernel threads' figures (docs/design.md, docs/studies.md): change of
# each variant against the study's baseline, in percent, and its source.
PAVEL32 = (2.32 / 2.22 - 1) * 100      # pcpu bio caching for IRQ I/O, qd32
PAVEL128 = (2.82 / 2.60 - 1) * 100     # ... qd128
FAST = 1.0                              # in-irq put optimisation, "about +1%"
MING = (6.37 / 6.47 - 1) * 100          # bio_may_need_split via the iterator
FENG = (574 / 562 - 1) * 100            # cache on by default, ext4 + NVMe
FENGX = (647 / 648 - 1) * 100           # ... cross-CPU alloc/free
K = {
    "study-cache-off-vs-all-qd32": {"B": (PAVEL32, "2022 series qd32 2.22 -> 2.32 M")},
    "study-cache-off-vs-all-qd128": {"B": (PAVEL128, "2022 series qd128 2.60 -> 2.82 M")},
    "study-cache-off-vs-all-loop": {"B": (PAVEL32, "2022 series qd32 (Optane, not a loop device)")},
    "study-cache-irq-variants-qd32": {"irq": (PAVEL32, "2022 series qd32"),
        "irq_fast": (((1 + PAVEL32 / 100) * (1 + FAST / 100) - 1) * 100, "2022 qd32 and 2024 ~+1%")},
    "study-cache-irq-variants-qd128": {"irq": (PAVEL128, "2022 series qd128"),
        "irq_fast": (((1 + PAVEL128 / 100) * (1 + FAST / 100) - 1) * 100, "2022 qd128 and 2024 ~+1%")},
    "study-irq-vs-irq-fast": {"irq_fast": (FAST, "2024 in-irq put, ~+1%")},
    "study-split-check-layout": {"iter_late": (MING, "Dec 2025 6.47 -> 6.37 M"),
        "iter_early": (0.0, "the fix: back to the base case")},
    "study-split-check-layout-cold": {"iter_late": (MING, "Dec 2025 6.47 -> 6.37 M"),
        "iter_early": (0.0, "the fix: back to the base case")},
    "study-default-on-ext4": {"all": (FENG, "Nov 2025 562 -> 574 K")},
    "study-default-on-ext4-xcpu": {"all": (FENGX, "Nov 2025 cross-CPU 648 -> 647 K")},
}.get(name, {})
v = d["variants"]
names = list(v)
cmp = {x["variant"]: x for x in d["comparisons"]}
study = {"study": name, "target": target, "load_before": load0, "load_after": load1,
         "seconds": int(secs), "kernel": {}, "result": d}
print("  %s, %s s; load average %s -> %s; disturbed runs %s; scope: %s" % (
    d.get("verdict"), secs, load0, load1, d.get("disturbed_runs"),
    (d.get("scope") or {}).get("note")))
def c(x, k, sub="bio_cache"):
    return (v[x].get(sub) or {}).get(k, 0) + ((v[x].get(sub) or {}).get("split_bioset") or {}).get(k, 0)
for n in names:
    med = v[n]["median"] or 0
    line = "  %-10s %8.3fM IOPS %6.0f ns/IO" % (n, med / 1e6, 1e9 / med if med else 0)
    if n in cmp and "change" in cmp[n]:
        x = cmp[n]
        line += "  %+6.2f%% (%s %+.2f%% .. %+.2f%%, %d pairs, p=%.3f) %-12s" % (
            100 * x["change"], x.get("ci_label", "CI"), 100 * x["ci_lo"], 100 * x["ci_hi"],
            x.get("n", 0), x["p_value"], x["verdict"])
        if n in K:
            kf, src = K[n]
            inside = 100 * x["ci_lo"] <= kf <= 100 * x["ci_hi"]
            study["kernel"][n] = {"change_pct": kf, "source": src, "inside_ci": inside}
            line += " kernel %+.2f%% %s" % (kf, "inside" if inside else "OUTSIDE")
    else:
        line += " (baseline)"
    n_io = max(1, c(n, "alloc_hit") + c(n, "alloc_slab") + c(n, "alloc_reserve"))
    line += "\n             puts in %s; hits %4.1f%% slab %4.1f%% splices %d put_irq %d free %d checks %d walks %d" % (
        v[n].get("put_context", "?"), 100.0 * c(n, "alloc_hit") / n_io,
        100.0 * c(n, "alloc_slab") / n_io, c(n, "splice"), c(n, "put_irq"), c(n, "free"),
        c(n, "checks", "split"), c(n, "full_walks", "split"))
    print(line)
json.dump(study, open(out_path, "w"), indent=1)
PY
done
exit $status
