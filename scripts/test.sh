#!/usr/bin/env bash
# Build and run every test: the normal build (unit + integration tests,
# -Werror), then all of them again under ASan+UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=build scripts/build.sh
(cd build && ctest --output-on-failure -j2)
BUILD_DIR=build-asan scripts/build.sh -DBB_SANITIZE=ON
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j2)
