#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# read_never_writes.sh BIOBENCHD BIOBENCH - a read job never writes, creates
# or extends anything; creating or laying out a file is a write (issue 12,
# findings 1 and 11):
#   - `biobench run --rw randread --size 64k` on a 101-byte and a
#     10,000-byte file: refused with what to do, both files keep their
#     bytes (sha256); a read of a region that fits reads and changes
#     nothing;
#   - a read job does not create a missing file; a write job creates one
#     only with --allow-write;
#   - an --offset on a new file does not write the gap (the file stays
#     sparse: only --size bytes are allocated);
#   - free space is checked before a layout: a 64 MiB file on a 32 MiB
#     tmpfs is refused with the numbers, nothing is left behind;
#   - no regular file is created on devtmpfs (`--size 16m /dev/typo0n1`
#     fails, nothing appears in /dev), and the hint for a missing /dev path
#     does not suggest --size;
#   - the daemon: a read job on a read-only glob neither lays out nor
#     creates files; a write job on a file needs "allow_write": true in the
#     job (400 otherwise) as SECURITY.md says; a job laying out more than
#     the free space fails with the numbers.
# Needs root (tmpfs mount).
source "$(dirname "$0")/../integration/daemon_lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root (tmpfs mount)"
[ -x "$CLI" ] || skip "usage: $0 BIOBENCHD BIOBENCH"

SMALLFS=$TMP/small
cleanup_hooks+=('[ -z "$DPID" ] || daemon_kill $DPID' 'umount $SMALLFS 2>/dev/null'
  'rm -f /dev/typo0n1 /dev/typo1n1')
mkdir -p "$SMALLFS"
mount -t tmpfs -o size=32m tmpfs "$SMALLFS" || skip "cannot mount a tmpfs"

sum() { sha256sum <"$1" | cut -c1-16; }
# run_rc ARGS...: biobench run, exit status in RC, stderr in $TMP/err
run_rc() { RC=0; "$CLI" run --runtime 200ms --iodepth 4 "$@" >"$TMP/out" 2>"$TMP/err" || RC=$?; }
err1() { head -c 300 "$TMP/err" | head -2 | tr '\n' ' '; }

# --- biobench run: existing short files are not laid out -----------------------
mkdir -p "$TMP/cli"
head -c 101 /dev/urandom >"$TMP/cli/small.dat"
head -c 10000 /dev/urandom >"$TMP/cli/big.dat"
s_small=$(sum "$TMP/cli/small.dat"); s_big=$(sum "$TMP/cli/big.dat")
for f in small big; do
  for dio in 1 0; do
    run_rc --rw randread --direct=$dio --size 64k "$TMP/cli/$f.dat"
    if [ "$RC" = 1 ] && grep -qi "smaller than" "$TMP/err" && grep -qi "write" "$TMP/err"; then
      pass "randread --size 64k --direct=$dio on the $f file refused: $(err1)"
    else fail "randread --size 64k --direct=$dio on the $f file: exit $RC: $(err1)"; fi
  done
  run_rc --rw read --direct=0 --size 64k --offset 4k "$TMP/cli/$f.dat"
  [ "$RC" = 1 ] && pass "read --size 64k --offset 4k on the $f file refused" || fail "read --offset on the $f file: exit $RC: $(err1)"
done
[ "$(stat -c %s "$TMP/cli/small.dat") $(sum "$TMP/cli/small.dat")" = "101 $s_small" ] &&
  pass "the 101-byte file keeps its 101 bytes" || fail "the 101-byte file changed: $(stat -c %s "$TMP/cli/small.dat") bytes"
[ "$(stat -c %s "$TMP/cli/big.dat") $(sum "$TMP/cli/big.dat")" = "10000 $s_big" ] &&
  pass "the 10,000-byte file keeps its bytes" || fail "the 10,000-byte file changed: $(stat -c %s "$TMP/cli/big.dat") bytes"
# a region that fits is read, and still nothing changes
run_rc --rw randread --direct=0 --bs 4k --size 8k "$TMP/cli/big.dat"
[ "$RC" = 0 ] && pass "randread --size 8k inside the 10,000-byte file runs" || fail "randread inside: exit $RC: $(err1)"
[ "$(sum "$TMP/cli/big.dat")" = "$s_big" ] && pass "... and leaves it unchanged" || fail "a read changed the file"
# a file on a read-only mount: a read opens it read-only, and works
mkdir -p "$TMP/cli-ro"
if mount --bind -o ro "$TMP/cli" "$TMP/cli-ro" 2>/dev/null; then
  cleanup_hooks+=('umount $TMP/cli-ro 2>/dev/null')
  run_rc --rw randread --direct=0 --bs 4k --size 8k "$TMP/cli-ro/big.dat"
  [ "$RC" = 0 ] && pass "read of a file on a read-only mount works (opened read-only)" ||
    fail "read of a file on a read-only mount: exit $RC: $(err1)"
else echo "note: cannot bind-mount read-only here: the read-only mount case is skipped"; fi

# --- creation needs a write job and --allow-write -------------------------------
run_rc --rw randread --size 1m "$TMP/cli/new.dat"
if [ "$RC" = 1 ] && [ ! -e "$TMP/cli/new.dat" ] && grep -q -- "--allow-write" "$TMP/err"; then
  pass "a read job does not create a file (and says how): $(err1)"
else fail "read job on a missing file: exit $RC, exists: $([ -e "$TMP/cli/new.dat" ] && echo yes || echo no): $(err1)"; fi
run_rc --rw randwrite --size 1m "$TMP/cli/new.dat"
if [ "$RC" = 1 ] && [ ! -e "$TMP/cli/new.dat" ] && grep -q -- "--allow-write" "$TMP/err"; then
  pass "a write job without --allow-write creates nothing: $(err1)"
else fail "write job without --allow-write: exit $RC, exists: $([ -e "$TMP/cli/new.dat" ] && echo yes || echo no): $(err1)"; fi
run_rc --rw randwrite --size 1m --allow-write "$TMP/cli/new.dat"
[ "$RC" = 0 ] && [ "$(stat -c %s "$TMP/cli/new.dat")" = 1048576 ] &&
  pass "control: --rw randwrite --allow-write --size 1m creates a 1 MiB file" || fail "control: exit $RC: $(err1)"
# extending an existing file is a write too
head -c 4096 /dev/urandom >"$TMP/cli/short.dat"; s_short=$(sum "$TMP/cli/short.dat")
run_rc --rw randwrite --size 1m "$TMP/cli/short.dat"
[ "$RC" = 1 ] && [ "$(sum "$TMP/cli/short.dat")" = "$s_short" ] &&
  pass "extending a file without --allow-write refused, file unchanged" || fail "extend without --allow-write: exit $RC: $(err1)"

# --- an offset on a new file does not write the gap ---------------------------
run_rc --rw write --allow-write --direct=0 --bs 64k --size 1m --offset 256m --number-ios 16 "$TMP/cli/gap.dat"
if [ "$RC" = 0 ]; then
  alloc=$(( $(stat -c %b "$TMP/cli/gap.dat") * $(stat -c %B "$TMP/cli/gap.dat") ))
  size=$(stat -c %s "$TMP/cli/gap.dat")
  [ "$size" = $(( 257 * 1048576 )) ] && [ "$alloc" -le $(( 4 * 1048576 )) ] &&
    pass "--offset 256m --size 1m on a new file: $size bytes long, $alloc allocated (the gap is a hole)" ||
    fail "--offset on a new file: $size bytes, $alloc allocated (the gap was written)"
else fail "--offset on a new file: exit $RC: $(err1)"; fi

# --- free space before a layout -----------------------------------------------
used0=$(df --output=used -k "$SMALLFS" | tail -1 | tr -d ' ')
run_rc --rw randwrite --allow-write --direct=0 --size 64m "$SMALLFS/big.dat"
used1=$(df --output=used -k "$SMALLFS" | tail -1 | tr -d ' ')
if [ "$RC" = 1 ] && grep -qiE "free|space" "$TMP/err" && grep -q "MiB" "$TMP/err" &&
   [ ! -e "$SMALLFS/big.dat" ] && [ "$used1" -le $((used0 + 64)) ]; then
  pass "64 MiB on a 32 MiB tmpfs refused with the numbers, nothing left: $(err1)"
else fail "64 MiB on a 32 MiB tmpfs: exit $RC, used ${used0}k -> ${used1}k, left: $(ls "$SMALLFS"): $(err1)"; fi
# the margin: 31 MiB fits in 32 MiB only without it
run_rc --rw randwrite --allow-write --direct=0 --size 31m "$SMALLFS/edge.dat"
[ "$RC" = 1 ] && [ ! -e "$SMALLFS/edge.dat" ] && pass "31 MiB of 32 MiB refused (5% margin): $(err1)" ||
  fail "31 MiB on a 32 MiB tmpfs: exit $RC: $(err1)"
run_rc --rw randwrite --allow-write --direct=0 --size 8m "$SMALLFS/ok.dat"
[ "$RC" = 0 ] && pass "control: 8 MiB on the 32 MiB tmpfs laid out" || fail "control 8 MiB: exit $RC: $(err1)"
rm -f "$SMALLFS/ok.dat"

# --- devtmpfs -------------------------------------------------------------------
run_rc --size 16m /dev/typo0n1
if [ "$RC" != 0 ] && [ ! -e /dev/typo0n1 ] && ! grep -q -- "--size" "$TMP/err"; then
  pass "biobench run --size 16m /dev/typo0n1 fails, creates nothing, no --size hint: $(err1)"
else fail "/dev/typo0n1 (read): exit $RC, exists: $([ -e /dev/typo0n1 ] && echo yes || echo no): $(err1)"; fi
run_rc --rw randwrite --allow-write --size 16m /dev/typo1n1
if [ "$RC" != 0 ] && [ ! -e /dev/typo1n1 ] && grep -qi "devtmpfs\|/dev" "$TMP/err"; then
  pass "a write job does not create /dev/typo1n1 either: $(err1)"
else fail "/dev/typo1n1 (write): exit $RC, exists: $([ -e /dev/typo1n1 ] && echo yes || echo no): $(err1)"; fi
run_rc /dev/typo0n1
! grep -q -- "--size" "$TMP/err" && pass "missing /dev path: the hint does not suggest --size: $(err1)" ||
  fail "missing /dev path suggests --size: $(err1)"

# --- the daemon -----------------------------------------------------------------
write_config
echo "allow_write = $SMALLFS/*.dat" >>"$DCONF"
head -c 101 /dev/urandom >"$TMP/ro/small.dat"
head -c 10000 /dev/urandom >"$TMP/ro/big.dat"
head -c 65536 /dev/urandom >"$TMP/rw/exist.dat"
ds_small=$(sum "$TMP/ro/small.dat"); ds_big=$(sum "$TMP/ro/big.dat"); ds_exist=$(sum "$TMP/rw/exist.dat")
daemon_start || { finish; exit 1; }
job() { # job TARGET WORKLOAD_JSON
  echo "{\"name\":\"rnw\",\"target\":\"$1\",\"workload\":{\"runtime\":\"200ms\",\"iodepth\":4,\"direct\":false,$2},
    \"variants\":{\"A\":{},\"B\":{}},\"repeat\":2,\"warmup\":0,\"quiescence\":{\"mode\":\"off\"}}"
}
# daemon_fails NAME WANT_RE JOB: refused at submission (4xx) or failed with
# the reason, never done
daemon_fails() {
  local name=$1 re=$2 st id msg
  api POST /api/v1/jobs "$3"; st=$API_STATUS
  if [[ $st == 4* ]]; then
    msg=$(api_get 'd["error"]["message"]')
    grep -Eqi "$re" <<<"$msg" && pass "daemon: $name refused at submission ($st): $msg" ||
      fail "daemon: $name: $st, message lacks ($re): $msg"
    return
  fi
  [ "$st" = 201 ] || { fail "daemon: $name: status $st $(cat "$API_BODY")"; return; }
  id=$(api_get 'd["id"]')
  st=$(WAIT_S=60 wait_state "$id" done failed cancelled interrupted) || true
  api GET "/api/v1/jobs/$id"; msg=$(api_get 'd["error"]')
  [ "$st" = failed ] && grep -Eqi "$re" <<<"$msg" && pass "daemon: $name: job $id failed: $msg" ||
    fail "daemon: $name: job $id $st: $msg"
}
daemon_fails "randread size 64k on a 101-byte file (read-only glob)" "smaller than" "$(job "$TMP/ro/small.dat" '"rw":"randread","size":"64k"')"
daemon_fails "randread size 64k on a 10,000-byte file" "smaller than" "$(job "$TMP/ro/big.dat" '"rw":"randread","size":"64k"')"
daemon_fails "randread size 1m on a missing file (read-only glob)" "does not create|no such" "$(job "$TMP/ro/new.dat" '"rw":"randread","size":"1m"')"
daemon_fails "randwrite on an existing file without the job's allow_write" "allow_write" "$(job "$TMP/rw/exist.dat" '"rw":"randwrite"')"
daemon_fails "randwrite creating a file without the job's allow_write" "allow_write" "$(job "$TMP/rw/new.dat" '"rw":"randwrite","size":"1m"')"
daemon_fails "a 64 MiB layout on a 32 MiB tmpfs" "free" "$(job "$SMALLFS/fill.dat" '"rw":"randwrite","size":"64m","allow_write":true')"
[ "$(stat -c %s "$TMP/ro/small.dat") $(sum "$TMP/ro/small.dat")" = "101 $ds_small" ] &&
  pass "daemon: the 101-byte file keeps its bytes" || fail "daemon: the 101-byte file changed ($(stat -c %s "$TMP/ro/small.dat") bytes)"
[ "$(stat -c %s "$TMP/ro/big.dat") $(sum "$TMP/ro/big.dat")" = "10000 $ds_big" ] &&
  pass "daemon: the 10,000-byte file keeps its bytes" || fail "daemon: the 10,000-byte file changed ($(stat -c %s "$TMP/ro/big.dat") bytes)"
[ ! -e "$TMP/ro/new.dat" ] && pass "daemon: no file created under the read-only glob" || fail "daemon: a read job created $TMP/ro/new.dat"
[ "$(sum "$TMP/rw/exist.dat")" = "$ds_exist" ] && pass "daemon: the file written without allow_write is unchanged" ||
  fail "daemon: written without the job's allow_write"
[ ! -e "$TMP/rw/new.dat" ] && pass "daemon: nothing created without the job's allow_write" || fail "daemon: created without allow_write"
[ ! -e "$SMALLFS/fill.dat" ] && pass "daemon: the refused layout left nothing on the tmpfs" || fail "daemon: $SMALLFS/fill.dat left ($(stat -c %s "$SMALLFS/fill.dat") bytes)"
# control: a write job with allow_write creates and lays out its file
api POST /api/v1/jobs "$(job "$TMP/rw/made.dat" '"rw":"randwrite","size":"1m","allow_write":true')"
id=$(api_get 'd["id"]')
st=$(WAIT_S=60 wait_state "$id" done failed) || true
[ "$st" = done ] && [ "$(stat -c %s "$TMP/rw/made.dat" 2>/dev/null)" = 1048576 ] &&
  pass "daemon control: a write job with allow_write created its 1 MiB file" || fail "daemon control: $st $(api_get 'd["error"]')"
daemon_alive && health_ok && pass "daemon still answers" || fail "daemon died"
daemon_stop || true
finish
