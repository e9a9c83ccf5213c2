#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Build and run every test: the normal build (unit + integration +
# reliability tests, -Werror), a Release (-O3) and a clang build (built,
# not run), then all of them again under ASan+UBSan,
# then the thread tests under TSan, then each fuzz target for 30 s.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=build scripts/build.sh -DBB_BUILD_TESTS=ON
(cd build && ctest --output-on-failure -j2)
# Build only, warning-free: the Release build a user types (-O3, whose
# -Wmaybe-uninitialized sees more than -O2) and clang.
BUILD_DIR=build-release scripts/build.sh -DCMAKE_BUILD_TYPE=Release
CC=clang BUILD_DIR=build-clang scripts/build.sh
BUILD_DIR=build-asan scripts/build.sh -DBB_BUILD_TESTS=ON -DBB_SANITIZE=ON
# Under the sanitizers: everything but the browser test (its code under test
# is JavaScript; the daemon behind it is covered by it_daemon_*) and the
# guests (sanitizer shadow memory in a 1 GiB TCG guest; the guests run the
# normal build above): the NVMe guest and the boot-job guest; and, to keep
# CI well under 30 minutes, six slow ones that the normal build runs: the
# output lines against the real t/io_uring (it_tiou_cmd runs the same code
# under the sanitizers), the formatter's line table, the slow-client
# timeouts (a test of timing: rel_http_hardening covers the same request
# paths), the connection flood (its limits are timing; it_daemon_http
# runs the same handlers), the scheduler on PostgreSQL (test_scheduler
# and test_store_pg run the same code here), the A/A simulation's
# arithmetic (test_abstats covers it) and the fleet's hardening on
# PostgreSQL (its clock case LD_PRELOADs libfaketime, which ASan refuses
# to follow; test_fleet_pg runs the same store code under ASan).
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j2 \
    -E '^(it_browser|it_nvme_vm|it_boots_vm|it_tiou_vs_fio|it_tiou_lines|rel_slowloris|rel_load_abuse|test_scheduler_pg|test_abstats_sim|it_fleet_hardening_pg)$')
# The threaded code under ThreadSanitizer: the bio caches, the engine (the
# completion thread, cancel), the job runner,
# the scheduler with concurrent cancel and progress reads and its fleet
# heartbeat, the store's concurrent claims.
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBB_BUILD_TESTS=ON -DBB_TSAN=ON >/dev/null
cmake --build build-tsan -j"$(nproc)" --target test_bioset_late test_bioset_early test_engine \
  test_jobrun test_scheduler test_fleet
(cd build-tsan && TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
  ctest --output-on-failure -R '^(test_bioset_late|test_bioset_early|test_engine|test_jobrun|test_scheduler|test_fleet)$')
# libFuzzer targets (clang): job spec, run options, daemon config, HTTP.
FUZZ_SECONDS=${FUZZ_SECONDS:-30} tests/fuzz/run.sh
