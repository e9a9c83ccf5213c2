# SPDX-License-Identifier: GPL-2.0-only
# Shared helpers for the integration tests (sourced).
set -euo pipefail
BIN=${1:?usage: $0 path/to/biobench}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
TMP=$(mktemp -d /var/tmp/biobench-it.XXXXXX)
# the device locks of this test's biobench and biobenchd, apart from the
# host's /run/biobench (other suites may run on the same disks meanwhile)
export BIOBENCH_LOCK_DIR=$TMP/locks
FAILS=0
PASSES=0
cleanup_hooks=()
cleanup() {
  for h in "${cleanup_hooks[@]}"; do eval "$h" || true; done
  rm -rf "$TMP"
}
trap cleanup EXIT

pass() { echo "ok   - $*"; PASSES=$((PASSES + 1)); }
fail() { echo "FAIL - $*"; FAILS=$((FAILS + 1)); }
skip() { echo "skip: $*"; exit 77; }
finish() {
  echo "$PASSES passed, $FAILS failed"
  [ "$FAILS" -eq 0 ]
}

# jq-like field access with python: jget FILE 'expr on d'
jget() { /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# Run biobench, expecting exit code $1; stdout to $TMP/out, stderr to $TMP/err.
expect_rc() {
  local want=$1; shift
  local rc=0
  "$BIN" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
  if [ "$rc" != "$want" ]; then
    echo "  command: $BIN $*" >&2
    echo "  exit $rc, wanted $want; stderr:" >&2
    sed 's/^/    /' "$TMP/err" >&2
    return 1
  fi
}

validate_schema() {
  /usr/bin/python3 - "$1" "$ROOT/schema/result.schema.json" <<'PY'
import json, sys, jsonschema
doc = json.load(open(sys.argv[1]))
schema = json.load(open(sys.argv[2]))
jsonschema.validate(doc, schema)
PY
}

# tiou_bin FIO_BUILD_DIR: fio's t/io_uring, built from Debian's fio source
# package by bench/tiou/get-fio.sh, on stdout; skips (77) when the source
# archive cannot be reached, fails otherwise (call as
# TIOU=$(tiou_bin DIR) || exit $?).
tiou_bin() {
  local rc=0 bin
  bin=$("$ROOT/bench/tiou/get-fio.sh" "$1") || rc=$?
  case $rc in
  0) ;;
  77) skip "t/io_uring could not be built: Debian's fio source package is unreachable" >&2 ;;
  *) echo "FAIL - bench/tiou/get-fio.sh $1 failed (exit $rc)" >&2; exit 1 ;;
  esac
  echo "t/io_uring: $bin (fio $(cat "$1/fio-version" 2>/dev/null))" >&2
  echo "$bin"
}
