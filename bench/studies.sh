#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/studies.sh - run the kernel studies of examples/study-*.json with
# `biobench ab JOBFILE --json` (the same job runner and statistics as the
# daemon) and keep each comparison document, with the host's metadata,
# under docs/studies/ for docs/studies.md.
#
# Prints one line per variant: median IOPS, change vs the baseline with its
# CI, verdict, and the counters that explain it (cache hits/slab allocs,
# splice counts, split checks).
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

for f in $STUDIES; do
	name=$(basename "$f" .json)
	echo "studies: $name"
	t0=$(date +%s)
	"$BB" ab --json --quiet "$f" >"$OUT_DIR/$name.json" 2>"$OUT_DIR/$name.err" ||
		die "$name failed: $(tail -3 "$OUT_DIR/$name.err")"
	rm -f "$OUT_DIR/$name.err"
	/usr/bin/python3 - "$OUT_DIR/$name.json" "$(($(date +%s) - t0))" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
v = d["variants"]
names = list(v)
base = names[0]
def c(x, k, sub=None):
    o = v[x]["bio_cache"] if sub is None else v[x][sub]
    return o.get(k, 0)
print("  %s, %s s; disturbed runs %s" % (d.get("verdict"), sys.argv[2], d.get("disturbed_runs")))
cmp = {x["variant"]: x for x in d["comparisons"]}
for n in names:
    med = v[n]["median"]
    line = "  %-10s median %8.3fM IOPS" % (n, med / 1e6)
    if n in cmp and "change" in cmp[n]:
        x = cmp[n]
        line += "  %+6.2f%% (CI %+.2f%% .. %+.2f%%, p=%.3f) %-12s" % (
            100 * x["change"], 100 * x["ci_lo"], 100 * x["ci_hi"], x["p_value"], x["verdict"])
    else:
        line += " " * 52 + "(baseline)"
    n_io = max(1, c(n, "alloc_hit") + c(n, "alloc_slab") + c(n, "alloc_reserve"))
    line += "  hits %4.1f%% slab %4.1f%% splices %d put_irq %d checks %d walks %d" % (
        100.0 * c(n, "alloc_hit") / n_io, 100.0 * c(n, "alloc_slab") / n_io,
        c(n, "splice"), c(n, "put_irq"), c(n, "checks", "split"), c(n, "full_walks", "split"))
    print(line)
PY
done
