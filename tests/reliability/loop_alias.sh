#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# loop_alias.sh BIOBENCHD BIOBENCH - loop devices that alias a mounted
# device are not written (issue 12, finding 2).  With real loop devices and
# a mounted ext4 (read-only, noload, so that the filesystem itself writes
# nothing and the image's checksum can be compared):
#   1. a second loop device on the same image as the mounted loop;
#   2. a loop device backed by the mounted loop device;
#   3. a file target that is the backing file of the mounted loop;
#   4. the reverse: a loop device whose own loop (a loop on it) is mounted;
#   5. a chain: a loop under a loop under a mounted loop;
# each refused by `biobench run --allow-write` (and case 1 by the daemon),
# naming the mounted device; afterwards the images keep their checksums
# and e2fsck finds the ext4 clean.  Control: a second loop on an image
# nobody mounted is written.  Needs root.
source "$(dirname "$0")/../integration/daemon_lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root (loop devices, mounts)"
[ -x "$CLI" ] || skip "usage: $0 BIOBENCHD BIOBENCH"
command -v mkfs.ext4 >/dev/null && command -v e2fsck >/dev/null || skip "e2fsprogs is not installed"

declare -a LOOPS=() MNTS=()
cleanup_hooks+=('[ -z "$DPID" ] || daemon_kill $DPID'
  'for m in "${MNTS[@]}"; do umount $m; done'
  'for ((i = ${#LOOPS[@]} - 1; i >= 0; i--)); do losetup -d ${LOOPS[i]}; done')
loop_on() { # loop_on FILE|DEV: a new loop device on it, in L
  L=$(losetup -f --show "$1" 2>/dev/null) || skip "losetup failed: no loop devices"
  LOOPS+=("$L")
}
mkext4_mount() { # mkext4_mount DEV NAME: ext4 on DEV, mounted ro,noload on $TMP/NAME
  mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$1" >/dev/null 2>&1 || skip "mkfs.ext4 failed"
  mkdir -p "$TMP/$2"
  mount -o ro,noload "$1" "$TMP/$2" || skip "cannot mount $1"
  MNTS+=("$TMP/$2")
}
sum() { sha256sum <"$1" | cut -c1-16; }
refused() { # refused NAME TARGET: biobench run --rw randwrite --allow-write TARGET is refused
  local rc=0
  "$CLI" run --rw randwrite --allow-write --direct=0 --runtime 300ms --iodepth 4 "$2" \
    >"$TMP/out" 2>"$TMP/err" || rc=$?
  if [ "$rc" = 1 ] && grep -qi "mounted\|holder" "$TMP/err"; then
    pass "$1: refused: $(head -1 "$TMP/err" | head -c 240)"
  else
    fail "$1: exit $rc: $(head -c 300 "$TMP/err")"
  fi
}

# the mounted filesystem, and its aliases
truncate -s 32M "$TMP/a.img"; loop_on "$TMP/a.img"; LA=$L
mkext4_mount "$LA" mnt-a
loop_on "$TMP/a.img"; LB=$L      # 1. same image
loop_on "$LA"; LC=$L             # 2. backed by the mounted loop device
# 4. reverse: LD's own loop LE is mounted
truncate -s 32M "$TMP/d.img"; loop_on "$TMP/d.img"; LD=$L
loop_on "$LD"; LE=$L
mkext4_mount "$LE" mnt-e
# 5. chain: LF under LG under LH, LH mounted
truncate -s 32M "$TMP/f.img"; loop_on "$TMP/f.img"; LF=$L
loop_on "$LF"; LG=$L
loop_on "$LG"; LH=$L
mkext4_mount "$LH" mnt-h
# control: two loops on an image nobody mounted
head -c 16M /dev/urandom >"$TMP/c.img"; loop_on "$TMP/c.img"; LI=$L
loop_on "$TMP/c.img"; LJ=$L
s_a=$(sum "$TMP/a.img"); s_d=$(sum "$TMP/d.img"); s_f=$(sum "$TMP/f.img"); s_c=$(sum "$TMP/c.img")

refused "1. $LB, a second loop on the image of mounted $LA" "$LB"
refused "2. $LC, backed by mounted $LA" "$LC"
refused "3. the file $TMP/a.img, backing mounted $LA" "$TMP/a.img"
refused "4. $LD, whose loop $LE is mounted" "$LD"
refused "5. $LF, under $LG under mounted $LH" "$LF"
refused "5. $LG, under mounted $LH" "$LG"
grep -q "$LH\|mnt-h" "$TMP/err" && pass "the refusal names the mounted device" || fail "the refusal does not name $LH: $(head -c 300 "$TMP/err")"

# the daemon shares the check
write_config
cat >>"$DCONF" <<EOF
allow_write = $LB
EOF
daemon_start || { finish; exit 1; }
api POST /api/v1/jobs "{\"name\":\"alias\",\"target\":\"$LB\",\"workload\":{\"rw\":\"randwrite\",\"allow_write\":true,
  \"runtime\":\"300ms\",\"iodepth\":4},\"variants\":{\"A\":{},\"B\":{}},\"repeat\":2,\"warmup\":0,\"quiescence\":{\"mode\":\"off\"}}"
if [[ $API_STATUS == 4* ]]; then
  pass "daemon: $LB refused at submission: $(api_get 'd["error"]["message"]')"
else
  id=$(api_get 'd["id"]')
  st=$(WAIT_S=60 wait_state "$id" done failed cancelled interrupted) || true
  api GET "/api/v1/jobs/$id"; msg=$(api_get 'd["error"]')
  [ "$st" = failed ] && grep -qi "mounted" <<<"$msg" && pass "daemon: job on $LB failed: $msg" ||
    fail "daemon: job on $LB $st: $msg"
fi
daemon_stop || true

# control: a second loop on an image nobody mounted is written
rc=0
"$CLI" run --rw randwrite --allow-write --runtime 300ms --iodepth 4 "$LJ" >"$TMP/out" 2>"$TMP/err" || rc=$?
[ "$rc" = 0 ] && [ "$(sum "$TMP/c.img")" != "$s_c" ] && pass "control: $LJ (second loop, nothing mounted) written" ||
  fail "control: $LJ: exit $rc: $(head -c 300 "$TMP/err")"

# the data
[ "$(sum "$TMP/a.img")" = "$s_a" ] && [ "$(sum "$TMP/d.img")" = "$s_d" ] && [ "$(sum "$TMP/f.img")" = "$s_f" ] &&
  pass "the three mounted images keep their checksums" || fail "a mounted image changed"
for m in "${MNTS[@]}"; do umount "$m"; done; MNTS=()
for d in "$LA" "$LE" "$LH"; do
  e2fsck -fn "$d" >"$TMP/fsck" 2>&1 && pass "e2fsck -fn $d: clean" || fail "e2fsck $d: $(tail -3 "$TMP/fsck")"
done
finish
