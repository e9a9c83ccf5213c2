#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Build the libFuzzer targets (clang, ASan+UBSan, -DBB_FUZZ=ON) in
# build-fuzz and run each for FUZZ_SECONDS (default 60) from its seed
# corpus (tests/fuzz/corpus/<target>; new inputs go to
# build-fuzz/corpus/<target>, the repository's seeds are not touched).
# Any crash, leak, sanitizer report, timeout or out-of-memory fails the
# run; the input is saved under build-fuzz/crashes/ and printed as a
# reproduction command.  Prints executions and coverage per target.
#
# usage: tests/fuzz/run.sh [TARGET...]   (default: all four)
# env:   FUZZ_SECONDS (60), BUILD_DIR (build-fuzz), CC (clang)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
BUILD_DIR=${BUILD_DIR:-build-fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
CC=${CC:-clang}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(jobspec options dconfig http)

command -v "$CC" >/dev/null || { echo "fuzz: $CC not found (apt install clang libclang-rt-14-dev)"; exit 77; }

t0=$(date +%s)
mkdir -p "$BUILD_DIR"
cmake -S . -B "$BUILD_DIR" -DCMAKE_C_COMPILER="$CC" -DBB_FUZZ=ON \
  -DBB_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$BUILD_DIR/cmake-fuzz.log" 2>&1 ||
  { cat "$BUILD_DIR/cmake-fuzz.log"; exit 1; }
cmake --build "$BUILD_DIR" -j"$(nproc)" --target fuzz
echo "fuzz: built in $(( $(date +%s) - t0 )) s"

mkdir -p "$BUILD_DIR/crashes"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
fails=0
summary=()
for t in "${targets[@]}"; do
  bin=$BUILD_DIR/tests/fuzz/fuzz_$t
  seeds=$ROOT/tests/fuzz/corpus/$t
  work=$BUILD_DIR/corpus/$t
  log=$BUILD_DIR/fuzz_$t.log
  [ -x "$bin" ] || { echo "fuzz: no target $bin"; exit 1; }
  mkdir -p "$work"
  extra=()
  [ "$t" = http ] && extra+=(-max_len=16384)
  [ "$t" = jobspec ] && extra+=(-max_len=8192)
  echo "fuzz: $t for ${FUZZ_SECONDS}s ($(ls "$seeds" | wc -l) seeds)"
  rc=0
  "$bin" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$BUILD_DIR/crashes/$t-" \
    "${extra[@]}" "$work" "$seeds" >"$log" 2>&1 || rc=$?
  execs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | awk '{print $2}')
  rate=$(awk '/stat::average_exec_per_sec/ {print $2}' "$log" | tail -1)
  if [ "$rc" != 0 ]; then
    fails=$((fails + 1))
    echo "FAIL - fuzz_$t: exit $rc after ${execs:-?} executions; log $log"
    grep -E "ERROR|SUMMARY|runtime error|==[0-9]+==|Test unit written|^#[0-9]+ +in " "$log" | head -30 | sed 's/^/    /'
    for a in $(grep -oE "Test unit written to [^ ]+" "$log" | awk '{print $5}'); do
      echo "    reproduce: $bin $a"
    done
    summary+=("fuzz_$t: CRASH after ${execs:-?} execs")
  else
    echo "ok   - fuzz_$t: ${execs:-?} executions (${rate:-?}/s), coverage ${cov:-?} edges, no crash"
    summary+=("fuzz_$t: ${execs:-?} execs, ${rate:-?}/s, cov ${cov:-?}")
  fi
done
echo "fuzz: $(printf '%s; ' "${summary[@]}")"
echo "fuzz: total $(( $(date +%s) - t0 )) s, ${#targets[@]} target(s), $fails failed"
[ "$fails" -eq 0 ]
