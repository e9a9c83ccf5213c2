#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# knob_permission.sh BIOBENCHD BIOBENCH - sysfs knobs need the daemon's
# permission per target (issue 12, finding 6), checked at submission
# (issue 19): 400 naming the field, nothing written.
#   - a read-only, mounted loop device: write_cache and scheduler are
#     refused under allow_knobs = DEV * (its disk holds a mounted
#     filesystem), accepted when named (and then restored);
#   - a file target uses the queue of the disk it lives on: without an
#     allow_knobs entry for it, any knob is refused;
#   - a knob not in the target's entry is refused, one in it runs;
#   - an invalid knob name and a knob the device does not have: 400 at
#     submission, not a job that fails at its first run.
# The disks are loop devices (an ext4 on one, mounted): no host disk's
# knob is touched even if a check failed.  Needs root.
source "$(dirname "$0")/../integration/daemon_lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root (loop devices, mounts, sysfs knobs)"
[ -x "$CLI" ] || skip "usage: $0 BIOBENCHD BIOBENCH"
command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 is not installed"

new_loop() { # new_loop NAME: a 32 MiB loop device in $L
  dd if=/dev/zero of="$TMP/$1.img" bs=1M count=32 status=none
  L=$(losetup -f --show "$TMP/$1.img" 2>/dev/null) || skip "losetup failed: no loop devices"
  cleanup_hooks+=("losetup -d $L")
}
q() { echo "/sys/block/$(basename "$1")/queue/$2"; }
MNT=$TMP/mnt FMNT=$TMP/fmnt
mkdir -p "$MNT" "$FMNT"
new_loop ro; LM=$L     # ext4, mounted read-only
new_loop fs; LF=$L     # ext4 mounted read-write: a file target lives on it
new_loop free; LX=$L   # not mounted
mkfs.ext4 -q -F "$LM" >/dev/null 2>&1 && mkfs.ext4 -q -F "$LF" >/dev/null 2>&1 || skip "mkfs.ext4 failed"
mount -o ro "$LM" "$MNT" || skip "cannot mount $LM"
cleanup_hooks=("umount $MNT" "${cleanup_hooks[@]}")
mount "$LF" "$FMNT" || skip "cannot mount $LF"
cleanup_hooks=("umount $FMNT" "${cleanup_hooks[@]}")
dd if=/dev/zero of="$FMNT/f.dat" bs=1M count=8 status=none

WC0=$(cat "$(q "$LM" write_cache)") SCHED0=$(cat "$(q "$LM" scheduler)")
NM0=$(cat "$(q "$LX" nomerges)") RA0=$(cat "$(q "$LX" read_ahead_kb)")
RAF0=$(cat "$(q "$LF" read_ahead_kb)")

write_config
cat >>"$DCONF" <<EOF
allow = $LM
allow = $LX
allow = $FMNT/*.dat
allow_knobs = $LM *
allow_knobs = $LX nomerges
EOF
daemon_start || { finish; exit 1; }

job() { # job TARGET VARIANT_B_JSON
  echo "{\"name\":\"perm\",\"target\":\"$1\",
    \"workload\":{\"runtime\":\"200ms\",\"iodepth\":4,\"rw\":\"randread\"},
    \"variants\":{\"A\":{},\"B\":$2},\"repeat\":2,\"warmup\":0,
    \"quiescence\":{\"mode\":\"off\"}}"
}
# refused NAME FIELD RE BODY: 400 with error.field FIELD and a message
refused() {
  local name=$1 field=$2 re=$3
  api POST /api/v1/jobs "$4"
  local f m
  f=$(api_get 'd["error"]["field"]') m=$(api_get 'd["error"]["message"]')
  if [ "$API_STATUS" = 400 ] && [ "$f" = "$field" ] && grep -Eq "$re" <<<"$m"; then
    pass "$name: 400 on $field: $m"
  else
    fail "$name: $API_STATUS field '$f': $m"
  fi
}
refused "write_cache on a mounted disk under '*'" variants.B.sysfs.write_cache \
  "mounted filesystem .*$MNT.*must be named" "$(job "$LM" '{"sysfs.write_cache":"write through"}')"
refused "scheduler on a mounted disk under '*'" variants.B.sysfs.scheduler \
  "must be named" "$(job "$LM" '{"sysfs.scheduler":"mq-deadline"}')"
refused "a knob on a file target without allow_knobs" variants.B.sysfs.read_ahead_kb \
  "may not change sysfs knobs.*allow_knobs" "$(job "$FMNT/f.dat" '{"sysfs.read_ahead_kb":512}')"
refused "a knob not in the target's entry" variants.B.sysfs.read_ahead_kb \
  "not allowed on target $LX \(allow_knobs for it: nomerges\)" "$(job "$LX" '{"sysfs.read_ahead_kb":512}')"
refused "an invalid knob name" variants.B.sysfs.NoMerges "not a valid knob name" \
  "$(job "$LX" '{"sysfs.NoMerges":1}')"
refused "a knob the device does not have" variants.B.sysfs.no_such_knob \
  "has no knob 'no_such_knob'" "$(job "$LX" '{"sysfs.no_such_knob":1}')"
[ "$(cat "$(q "$LM" write_cache)")" = "$WC0" ] && [ "$(cat "$(q "$LM" scheduler)")" = "$SCHED0" ] \
  && [ "$(cat "$(q "$LF" read_ahead_kb)")" = "$RAF0" ] && [ "$(cat "$(q "$LX" read_ahead_kb)")" = "$RA0" ] \
  && pass "nothing refused was written" || fail "a refused knob changed"

# allowed: nomerges on the free device, '*' for a harmless knob on the mounted one
api POST /api/v1/jobs "$(job "$LX" "{\"sysfs.nomerges\":$(( NM0 == 2 ? 1 : 2 ))}")"
id=$(api_get 'd["id"]')
st=$(WAIT_S=60 wait_state "$id" done failed) || true
[ "$API_STATUS" != 201 ] && st="not accepted"
[ "$st" = done ] && [ "$(cat "$(q "$LX" nomerges)")" = "$NM0" ] \
  && pass "nomerges named for $LX: job done, restored to $NM0" \
  || fail "nomerges on $LX: $st $(api_get 'd["error"]')"
api POST /api/v1/jobs "$(job "$LM" '{"sysfs.read_ahead_kb":512}')"
id=$(api_get 'd["id"]')
st=$(WAIT_S=60 wait_state "$id" done failed) || true
[ "$st" = done ] && pass "'*' covers read_ahead_kb on the mounted $LM" \
  || fail "read_ahead_kb on $LM under '*': $st $(api_get 'd["error"]')"

# named explicitly: write_cache on the mounted disk is accepted, restored
echo "allow_knobs = $LM write_cache" >>"$DCONF"
kill -HUP "$DPID"; sleep 0.5
api POST /api/v1/jobs "$(job "$LM" '{"sysfs.write_cache":"write through"}')"
id=$(api_get 'd["id"]')
st=$(WAIT_S=60 wait_state "$id" done failed) || true
[ "$st" = done ] && [ "$(cat "$(q "$LM" write_cache)")" = "$WC0" ] \
  && pass "write_cache named for $LM: job done, restored to '$WC0'" \
  || fail "write_cache named: $st $(api_get 'd["error"]'), now '$(cat "$(q "$LM" write_cache)")'"

finish
