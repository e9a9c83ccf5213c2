#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# write_safety.sh BIOBENCHD BIOBENCH - writes are refused where they must
# be, through both `biobench run` and the daemon, and the refused devices'
# data is unchanged afterwards (sha256 of every device before and after):
#   - a mounted loop device (ext4, mounted read-only so that the
#     filesystem itself does not write either);
#   - a device with holders: a dm-linear on top of it when device-mapper
#     is there; otherwise (and always, as well) a device another process
#     has opened exclusively (O_EXCL), which the kernel refuses to a
#     second exclusive opener;
#   - without --allow-write / allow_write (also when only a variant
#     switches to writing, or the workload sets allow_write itself);
#   - a target outside the allow-list (also through "..", a symlink).
# A positive control writes to a free device with --allow-write and must
# change its checksum (the checksums can see a write).  Needs root.
source "$(dirname "$0")/../integration/daemon_lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root (loop devices)"
[ -x "$CLI" ] || skip "usage: $0 BIOBENCHD BIOBENCH"
command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 is not installed"

declare -a LOOPS=()
new_loop() { # new_loop NAME: a 16 MiB loop device full of random data in $L
  dd if=/dev/urandom of="$TMP/$1.img" bs=1M count=16 status=none
  L=$(losetup -f --show "$TMP/$1.img" 2>/dev/null) || skip "losetup failed: no loop devices"
  LOOPS+=("$L")
}
MNT=$TMP/mnt
DM=bb-ws-$$
HOLDER_PID=
cleanup_hooks+=('[ -z "$DPID" ] || daemon_kill $DPID'
  '[ -z "$HOLDER_PID" ] || kill $HOLDER_PID'
  'dmsetup remove $DM 2>/dev/null'
  'umount $MNT 2>/dev/null'
  'for d in "${LOOPS[@]}"; do losetup -d $d; done')

new_loop mounted; LM=$L   # ext4, mounted read-only
new_loop held; LH=$L      # dm-linear holder, if device-mapper works
new_loop excl; LX=$L      # opened O_EXCL by another process
new_loop readonly; LR=$L  # allowed, but not for writing
new_loop outside; LO=$L   # not in the allow-list
new_loop control; LW=$L   # free: the positive control
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$LM" >/dev/null 2>&1 || skip "mkfs.ext4 failed"
mkdir -p "$MNT"
mount -o ro,noload "$LM" "$MNT" || skip "cannot mount $LM"

holders_kind="none"
if command -v dmsetup >/dev/null &&
   dmsetup create "$DM" --table "0 $(blockdev --getsz "$LH") linear $LH 0" 2>/dev/null; then
  holders_kind="dm-linear /dev/mapper/$DM"
else
  echo "note: device-mapper is not available here (dmsetup create failed): the sysfs-holders case is skipped; the exclusive-opener case covers a device in use"
fi
# another process holds $LX exclusively for the whole test
/usr/bin/python3 -c 'import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL)
print("held", flush=True)
time.sleep(3600)' "$LX" >"$TMP/holder.out" 2>&1 &
HOLDER_PID=$!
for _ in $(seq 50); do grep -q held "$TMP/holder.out" 2>/dev/null && break; sleep 0.1; done
grep -q held "$TMP/holder.out" || { fail "could not hold $LX exclusively: $(cat "$TMP/holder.out")"; finish; exit 1; }

declare -A SUM0
sums() { for d in "${LOOPS[@]}"; do echo "$d $(sha256sum <"$d" | cut -c1-16)"; done; }
while read -r d s; do SUM0[$d]=$s; done < <(sums)

# --- biobench run ------------------------------------------------------------
# cli_refused NAME WANT_RE ARGS...: exit 1 (refused) with a message matching
cli_refused() {
  local name=$1 re=$2; shift 2
  local rc=0
  "$CLI" run --rw randwrite --runtime 300ms --iodepth 4 "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
  if [ "$rc" != 0 ] && grep -Eqi "$re" "$TMP/err"; then
    pass "biobench run: $name refused (exit $rc): $(head -c 160 "$TMP/err" | head -1)"
  else
    fail "biobench run: $name: exit $rc, stderr: $(head -c 300 "$TMP/err")"
  fi
}
cli_refused "mounted $LM" "mounted" --allow-write "$LM"
[ "$holders_kind" = none ] || cli_refused "$LH with holders ($holders_kind)" "holder" --allow-write "$LH"
cli_refused "$LX opened exclusively elsewhere" "exclusive|O_EXCL|busy|in use" --allow-write "$LX"
cli_refused "$LR without --allow-write" "allow-write" "$LR"
cli_refused "$LR without --allow-write (randrw)" "allow-write" --rw randrw "$LR"

# positive control: the same command with --allow-write on a free device
rc=0
"$CLI" run --rw randwrite --runtime 300ms --iodepth 4 --allow-write "$LW" >"$TMP/out" 2>"$TMP/err" || rc=$?
if [ "$rc" = 0 ] && [ "$(sha256sum <"$LW" | cut -c1-16)" != "${SUM0[$LW]}" ]; then
  pass "control: --allow-write on free $LW wrote (checksum changed)"
else
  fail "control: exit $rc, checksum $( [ "$(sha256sum <"$LW" | cut -c1-16)" = "${SUM0[$LW]}" ] && echo unchanged || echo changed): $(head -c 300 "$TMP/err")"
fi

# --- the daemon ------------------------------------------------------------
write_config
cat >>"$DCONF" <<EOF
allow_write = $LM
allow_write = $LH
allow_write = $LX
allow = $LR
allow_write = $LW
allow_write = $TMP/rw/*.dat
EOF
ln -s "$LO" "$TMP/rw/link.dat"
daemon_start || { finish; exit 1; }

job() { # job TARGET WORKLOAD_JSON VARIANT_B_JSON
  echo "{\"name\":\"ws\",\"target\":\"$1\",\"workload\":{\"runtime\":\"300ms\",\"iodepth\":4,$2},
    \"variants\":{\"A\":{},\"B\":$3},\"repeat\":2,\"warmup\":0}"
}
# daemon_refused NAME WANT_RE JOB: refused at submission (4xx), or
# accepted and then failed with the reason, never done
daemon_refused() {
  local name=$1 re=$2 body=$3 st id msg
  api POST /api/v1/jobs "$body"
  st=$API_STATUS
  if [[ $st == 4* ]]; then
    msg=$(api_get 'd["error"]["message"]')
    if grep -Eqi "$re" <<<"$msg"; then pass "daemon: $name refused at submission ($st): $msg"
    else fail "daemon: $name: $st but the message does not say why ($re): $msg"; fi
    return
  fi
  if [ "$st" != 201 ]; then fail "daemon: $name: status $st $(cat "$API_BODY")"; return; fi
  id=$(api_get 'd["id"]')
  st=$(WAIT_S=60 wait_state "$id" done failed cancelled interrupted) || true
  api GET "/api/v1/jobs/$id"
  msg=$(api_get 'd["error"]')
  if [ "$st" = failed ] && grep -Eqi "$re" <<<"$msg"; then pass "daemon: $name: job $id failed: $msg"
  else fail "daemon: $name: job $id $st: $msg"; fi
}
W='"rw":"randwrite","allow_write":true'
daemon_refused "mounted $LM" "mounted" "$(job "$LM" "$W" '{}')"
[ "$holders_kind" = none ] || daemon_refused "$LH with holders" "holder" "$(job "$LH" "$W" '{}')"
daemon_refused "$LX opened exclusively elsewhere" "exclusive|O_EXCL|busy|in use" "$(job "$LX" "$W" '{}')"
daemon_refused "mounted $LM, only variant B writes" "mounted" "$(job "$LM" '"rw":"randread","allow_write":true' '{"rw":"randwrite"}')"
daemon_refused "$LW allowed for writing, but the job lacks allow_write" "allow.write" "$(job "$LW" '"rw":"randwrite"' '{}')"
daemon_refused "$LR read-only in the allow-list" "allow_write|read-only" "$(job "$LR" '"rw":"randwrite"' '{}')"
daemon_refused "$LR, only variant B writes" "allow_write|read-only" "$(job "$LR" '"rw":"randread"' '{"rw":"randwrite"}')"
daemon_refused "$LR, workload sets allow_write itself" "allow_write|read-only" "$(job "$LR" '"rw":"randwrite","allow_write":true' '{}')"
daemon_refused "$LO outside the allow-list (read)" "allow-list|not allowed" "$(job "$LO" '"rw":"randread"' '{}')"
daemon_refused "$LO outside the allow-list (write)" "allow-list|not allowed" "$(job "$LO" '"rw":"randwrite"' '{}')"
daemon_refused "$LO through .." "allow-list|not allowed" "$(job "$TMP/rw/../../../..$LO" '"rw":"randwrite"' '{}')"
daemon_refused "$LO through a symlink in an allow_write glob" "allow-list|not allowed" "$(job "$TMP/rw/link.dat" '"rw":"randwrite"' '{}')"
# the target checked at submission is not the one run: replaced by a
# symlink to a device outside the allow-list while the job waits in the
# queue (behind an 8 s nop job); and a target dropped from the allow-list
# by a SIGHUP reload while its job waits
api POST /api/v1/jobs '{"name":"blocker","target":"nop","workload":{"runtime":"2s"},"variants":{"A":{},"B":{}},"repeat":2,"warmup":0}'
blocker=$(api_get 'd["id"]'); [ -n "$blocker" ] || fail "blocker job refused: $API_STATUS $(cat "$API_BODY")"
head -c 16M /dev/urandom >"$TMP/rw/victim.dat"
api POST /api/v1/jobs "$(job "$TMP/rw/victim.dat" "$W" '{}')"
swapped=$(api_get 'd["id"]')
mkdir -p "$TMP/rw2"; head -c 16M /dev/urandom >"$TMP/rw2/gone.dat"
sum_gone=$(sha256sum <"$TMP/rw2/gone.dat" | cut -c1-16)
echo "allow_write = $TMP/rw2/*.dat" >>"$DCONF"; kill -HUP "$DPID"
for _ in $(seq 50); do [ "$(grep -c "configuration reloaded" "$DLOG")" -ge 1 ] && break; sleep 0.1; done
api POST /api/v1/jobs "$(job "$TMP/rw2/gone.dat" "$W" '{}')"
dropped=$(api_get 'd["id"]')
rm "$TMP/rw/victim.dat"; ln -s "$LO" "$TMP/rw/victim.dat"
sed -i "\|allow_write = $TMP/rw2/\*.dat|d" "$DCONF"; kill -HUP "$DPID"
for _ in $(seq 50); do [ "$(grep -c "configuration reloaded" "$DLOG")" -ge 2 ] && break; sleep 0.1; done
st=$(wait_state "$blocker" done failed) || true
[ "$st" = done ] || fail "blocker job $blocker: $st (the swap may have come too late)"
# and one swapped while it runs (between its runs)
head -c 16M /dev/urandom >"$TMP/rw/victim2.dat"
api POST /api/v1/jobs "$(echo "$(job "$TMP/rw/victim2.dat" "$W" '{}')" | sed 's/"repeat":2/"repeat":6/')"
midjob=$(api_get 'd["id"]')
for _ in $(seq 300); do
  api GET "/api/v1/jobs/$midjob"; [ "$(api_get 'd["runs_done"] >= 1')" = true ] && break; sleep 0.1
done
# swapped in one rename: the run must find a symlink, never a missing file
# (which it refuses too, but for another reason)
ln -s "$LO" "$TMP/rw/victim2.tmp" && mv -T "$TMP/rw/victim2.tmp" "$TMP/rw/victim2.dat"
for pair in "swapped:$swapped:symlink to $LO after submission" "dropped:$dropped:dropped from the allow-list by SIGHUP" \
            "midjob:$midjob:symlink to $LO between two runs"; do
  IFS=: read -r _ jid what <<<"$pair"
  st=$(WAIT_S=60 wait_state "$jid" done failed cancelled interrupted) || true
  api GET "/api/v1/jobs/$jid"; msg=$(api_get 'd["error"]')
  if [ "$st" = failed ] && grep -qiE "allow-list|not allowed|allow_write|replaced" <<<"$msg"; then
    pass "daemon: target $what: job $jid refused when it ran: $msg"
  else
    fail "daemon: target $what: job $jid ran anyway ($st${msg:+: $msg})"
  fi
done
[ "$(sha256sum <"$TMP/rw2/gone.dat" | cut -c1-16)" = "$sum_gone" ] && pass "dropped target's data unchanged" ||
  fail "dropped target was written after it left the allow-list"

# positive control through the daemon: the same job on the free device
api POST /api/v1/jobs "$(job "$LW" "$W" '{}')"
id=$(api_get 'd["id"]')
st=$(WAIT_S=60 wait_state "$id" done failed) || true
[ "$st" = done ] && pass "control: daemon write job on free $LW done" || fail "control: daemon job on $LW: $st $(api_get 'd["error"]')"
daemon_alive && health_ok && pass "daemon still answers" || fail "daemon died"
daemon_stop || true

# --- the data ------------------------------------------------------------------
changed=0
while read -r d s; do
  [ "$d" = "$LW" ] && continue
  if [ "$s" != "${SUM0[$d]}" ]; then changed=$((changed + 1)); fail "$d: data changed (${SUM0[$d]} -> $s)"; fi
done < <(sums)
[ "$changed" = 0 ] && pass "sha256 unchanged on all $(( ${#LOOPS[@]} - 1 )) refused devices"
echo "write_safety tally: $PASSES refusals/checks passed, $FAILS failed; holders case: $holders_kind"
finish
