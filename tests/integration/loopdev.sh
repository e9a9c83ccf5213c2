#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The block path on a real loop device: reads, writes with verify through
# forced splits, and the write-safety refusals.
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root for losetup"
command -v losetup >/dev/null || skip "losetup not installed"
img="$TMP/loop.img"
truncate -s 64M "$img"
loop=$(losetup -f --show "$img" 2>/dev/null) || skip "cannot create a loop device"
cleanup_hooks+=("losetup -d $loop")
# direct I/O on the loop device (bypasses the backing file's page cache)
losetup --direct-io=on "$loop" 2>/dev/null || true

expect_rc 0 run --rw randread --bs 4k --iodepth 16 --runtime 1s --json "$loop" \
  && [ "$(jget "$TMP/out" 'd["io"]["ios"]')" -gt 0 ] \
  && [ "$(jget "$TMP/out" 'd["target"]["kind"]')" = block ] \
  && pass "loop randread ($(jget "$TMP/out" 'int(d["iops"])') IOPS)" || fail "loop randread"

expect_rc 1 run --rw randwrite --runtime 1s "$loop" && grep -q -- "--allow-write" "$TMP/err" \
  && pass "write refused without --allow-write" || fail "write without --allow-write"

for comp in inline thread; do
  if expect_rc 0 run --rw randwrite --allow-write --bs 64k --max-sectors-kb 8 --iodepth 8 \
      --completion $comp --size 32m --runtime 1s --verify --json "$loop"; then
    r=$(jget "$TMP/out" '"%d %d %d" % (d["io"]["ios"], d["io"]["verify_errors"], d["split"]["pieces"])')
    set -- $r
    [ "$1" -gt 0 ] && [ "$2" = 0 ] && [ "$3" -ge $((7 * $1)) ] \
      && pass "loop randwrite 64k split at 8k ($comp), verified: $r" || fail "loop verify $comp: $r"
  else fail "loop randwrite verify ($comp)"; fi
done
expect_rc 0 run --mode sqpoll --rw randread --runtime 1s "$loop" && pass "loop sqpoll" || fail "loop sqpoll"

# mounted: writes refused, data untouched
command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 missing"
mkfs.ext4 -q -F "$loop" >/dev/null 2>&1
mnt="$TMP/mnt"; mkdir -p "$mnt"
if mount "$loop" "$mnt" 2>/dev/null; then
  cleanup_hooks=("umount $mnt" "${cleanup_hooks[@]}")
  echo hello >"$mnt/file"; sync
  before=$(dd if="$loop" bs=1M count=8 2>/dev/null | md5sum)
  expect_rc 1 run --rw randwrite --allow-write --runtime 1s "$loop" \
    && grep -q "mounted on $mnt" "$TMP/err" \
    && pass "write refused on a mounted device: $(cat "$TMP/err")" || fail "mounted refusal"
  after=$(dd if="$loop" bs=1M count=8 2>/dev/null | md5sum)
  [ "$before" = "$after" ] && pass "mounted device unchanged" || fail "mounted device changed"
  expect_rc 0 run --rw randread --runtime 1s "$loop" && pass "reads allowed on a mounted device" \
    || fail "read on mounted device"
  umount "$mnt"; cleanup_hooks=("${cleanup_hooks[@]:1}")
else
  echo "note: cannot mount ext4 here; mounted-device refusal not checked"
fi
finish
