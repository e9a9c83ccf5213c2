#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/aa_sim.sh - this host's A/A false-positive rate and power for every
# design biobench offers (fixed, adaptive, the comparison of jobs, boot
# jobs), by simulation through biobench's own job runner and statistics
# (bench/aa_sim.c) on noise fitted to this host's real run series:
#
#   1. the series: `biobench calibrate --json` of AA_CAL_JOBS A/A jobs of
#      the job file (consecutive jobs: between-job drift and position
#      effects), and one long A/A job of AA_LONG_ROUNDS rounds (regimes
#      and bursts that last longer than a job);
#   2. the fit: bench_aa_sim fit (method of moments, with a check of the
#      real against the fitted figures);
#   3. the simulation: bench_aa_sim run, AA_SIM_JOBS A/A jobs per design
#      and model, AA_POWER_JOBS per effect for the power.
#
# usage: bench/aa_sim.sh [OUT_DIR]       (default BUILD_DIR/aa-sim)
#
# Environment (all optional):
#   BUILD_DIR       build tree (default <repo>/build-bench); built first
#   BENCH_NO_BUILD  1: do not run cmake --build
#   AA_JOBFILE      the workload (default examples/calibrate-nop.json)
#   AA_CAL_JOBS     A/A jobs of the calibrate series (default 40)
#   AA_LONG_ROUNDS  rounds of the long series (default 400)
#   AA_SERIES       series files already collected: skip step 1
#   AA_SIM_JOBS     A/A jobs per design and model (default 4000)
#   AA_POWER_JOBS   jobs per effect (default 1000)
#   AA_MODELS       iid,fitted,stress,replay (default all)
#   AA_DESIGNS      fixed,adaptive,cross,boot (default all)
# Exit 0 when everything ran (it asserts nothing: docs/measurement.md reads
# the tables against the target), 1 when something failed, 2 on usage.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ "${1:-}" = --help ] && { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0; }
BUILD_DIR=${BUILD_DIR:-$ROOT/build-bench}
BUILD_DIR=$(mkdir -p "$BUILD_DIR" && cd "$BUILD_DIR" && pwd)
OUT=${1:-$BUILD_DIR/aa-sim}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
JOBFILE=${AA_JOBFILE:-$ROOT/examples/calibrate-nop.json}
[ -r "$JOBFILE" ] || { echo "aa_sim.sh: no job file $JOBFILE" >&2; exit 2; }

if [ "${BENCH_NO_BUILD:-0}" != 1 ]; then
  cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$BUILD_DIR" -j"$(nproc)" --target biobench bench_aa_sim >/dev/null
fi
BB=$BUILD_DIR/biobench
SIM=$BUILD_DIR/bench/bench_aa_sim
[ -x "$BB" ] && [ -x "$SIM" ] || { echo "aa_sim.sh: build $BB and $SIM first" >&2; exit 1; }

if [ -n "${AA_SERIES:-}" ]; then
  # shellcheck disable=SC2206
  SERIES=($AA_SERIES)
else
  echo "1/3 the series: $JOBFILE, ${AA_CAL_JOBS:-40} A/A jobs, then one of ${AA_LONG_ROUNDS:-400} rounds ($(date -u +%FT%TZ))"
  "$BB" calibrate --jobs "${AA_CAL_JOBS:-40}" --json --quiet "$JOBFILE" >"$OUT/cal.json"
  python3 - "$JOBFILE" "${AA_LONG_ROUNDS:-400}" >"$OUT/long-job.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
v = d.get("variants") or {"A": {}}
name = next(iter(v))
d["variants"] = {name: v[name]}
d["aa"] = True
d["repeat"] = int(sys.argv[2])
d.pop("max_repeat", None)
d["name"] = "aa_sim.sh: long A/A series"
json.dump(d, sys.stdout)
EOF
  "$BB" ab --json --quiet "$OUT/long-job.json" >"$OUT/long.json"
  SERIES=("$OUT/cal.json" "$OUT/long.json")
fi

echo "2/3 the fit ($(date -u +%FT%TZ))"
"$SIM" fit --out "$OUT/model.json" "${SERIES[@]}" | tee "$OUT/fit.md"

echo "3/3 the simulation ($(date -u +%FT%TZ))"
"$SIM" run --model "$OUT/model.json" --jobs "${AA_SIM_JOBS:-4000}" \
  --power-jobs "${AA_POWER_JOBS:-1000}" --models "${AA_MODELS:-iid,fitted,stress,replay}" \
  --designs "${AA_DESIGNS:-fixed,adaptive,cross,boot}" | tee "$OUT/sim.md"
echo "done ($(date -u +%FT%TZ)): $OUT/fit.md, $OUT/sim.md, $OUT/model.json"
