#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/store_pg.sh - biobenchd's PostgreSQL store against its sqlite store.
#
# Starts a throwaway PostgreSQL server (tests/pg/pgtmp.sh: a cluster in a
# temporary directory, Unix socket only, removed at exit), puts the same
# BENCH_JOBS jobs in it and in a sqlite file, and runs bench_store
# (bench/store.c): the job list's first page, a deep page and the
# queries of /metrics, interleaved, through the store's own functions;
# p50/p99 per backend and the ratios PostgreSQL/sqlite (issue 18's
# target: p99 of the list <= 2x sqlite's, with the bootstrap interval of
# that p99 ratio), then the list query through
# libpq prepared vs parsed each time, then claims under contention:
# BENCH_CLAIMERS threads (three daemons) emptying a queue of
# BENCH_CLAIM_JOBS jobs on each backend, p50/p99 of a claim, claims per
# second, the ratios, and no job claimed twice (else exit 1).  No
# absolute figure is asserted.
#
# Exit 0 when everything ran (even on a MISS); 1 when something failed;
# 77 without PostgreSQL; 2 on a usage error.
#
# Environment (all optional):
#   BUILD_DIR      build tree (default: <repo>/build-bench); built first
#   BENCH_NO_BUILD 1: do not build
#   BENCH_JOBS     jobs in each store (default 10000)
#   BENCH_REPS     interleaved rounds (default 400)
#   BENCH_PG_VACUUM 0: measure PostgreSQL without the VACUUM ANALYZE that
#                  follows the fill (default 1: as autovacuum keeps it)
#   BENCH_CLAIM_JOBS queued jobs the claimers empty (default 10000)
#   BENCH_CLAIMERS claimer threads, each a daemon of its own (default 3)
#   BENCH_DUMP     a file for every round's times (round, backend, op, us)
#   BENCH_SQLITE_DIR where the sqlite file goes (default /dev/shm: its
#                  commits then cost no fsync, as the test cluster's do
#                  not: fsync = off)
set -uo pipefail

case "${1:-}" in
-h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac

HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(dirname "$HERE")
BUILD_DIR=${BUILD_DIR:-$SRC/build-bench}
JOBS=${BENCH_JOBS:-10000}
REPS=${BENCH_REPS:-400}
SQDIR=${BENCH_SQLITE_DIR:-/dev/shm}

die() { echo "store_pg: $*" >&2; exit 1; }
if [ "${BENCH_NO_BUILD:-0}" != 1 ]; then
	cmake -S "$SRC" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DBB_BUILD_TESTS=OFF >/dev/null || die "cmake failed"
	cmake --build "$BUILD_DIR" -j"$(nproc)" --target bench_store \
		>/dev/null || die "build failed"
fi
BIN=$BUILD_DIR/bench/bench_store
[ -x "$BIN" ] || die "no $BIN"
TMP=$(mktemp -d "$SQDIR/bb-store-pg.XXXXXX") || die "cannot create a directory in $SQDIR"
trap 'rm -rf "$TMP"' EXIT
echo "store_pg: $JOBS jobs, $REPS rounds; load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
"$SRC/tests/pg/pgtmp.sh" sh -c 'exec "$0" "$1" "$BB_TEST_STORE" "$2" "$3"' \
	"$BIN" "$TMP/bb.db" "$JOBS" "$REPS"
