#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The boot-job guest test (issue 17): biobenchd reboots a QEMU guest
# (TCG) between the boots of a kernel A/B job with reboot_method
# kexec-exec, and goes on after each boot.  The "two kernels" are Debian's
# cloud kernel with two command lines (bbkernel=A, bbkernel=B: the
# variants' cmdline); a persistent disk (ext4 image on an emulated NVMe
# controller) holds the daemon's database and configuration, the kernel
# and the initramfs that kexec loads.  The guest's /init
# (tests/vm/boots-init.sh) starts biobenchd at every boot and submits
# the job at the first; the guest powers off once the job has ended.
# Two scenarios, each one QEMU process:
#   ok:    a 2 x 2-boot nop job (A B A B, after a first kexec into A:
#          the guest starts on neither) completes, every run on the
#          kernel its variant named (the stored runs' boot ids against
#          the boots the serial console reported); in the middle of boot
#          3 biobenchd is killed (SIGKILL) and the guest comes back on
#          its default kernel: the next start discards boot 3's finished
#          run, reboots into A and redoes the boot;
#   wrong: the kexec program turns B's command line into A's (a boot
#          loader falling back): the boot into B lands on A and the job
#          fails with that reason, A's runs kept.
# The host reads the database out of the disk image (debugfs) and checks
# it (tests/vm/check_boots.py).
#
# usage: tests/vm/boots.sh BUILD_DIR
# Needs what tests/vm/run.sh needs, and kexec-tools, e2fsprogs (mkfs.ext4
# -d, debugfs) and python3.  Exit: 0 pass, 1 fail, 77 skipped.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: boots.sh BUILD_DIR}
build=$(cd "$build" && pwd)
work=$build/vm-boots
t_start=$(date +%s)

say() { echo "vm-boots: $*"; }
skip() { echo "vm-boots: SKIP: $*" >&2; exit 77; }
die() { echo "vm-boots: FAIL: $*" >&2; exit 1; }

. "$here/common.sh"
extra=()
command -v kexec >/dev/null || [ -x /sbin/kexec ] || extra+=(kexec-tools)
command -v debugfs >/dev/null && command -v mkfs.ext4 >/dev/null || extra+=(e2fsprogs)
vm_tools "${extra[@]}"
kexec=$(command -v kexec || echo /sbin/kexec)
[ -x "$kexec" ] || skip "kexec is not installed (apt-get install kexec-tools)"
command -v debugfs >/dev/null || skip "debugfs is not installed (e2fsprogs)"

bb=$build/biobench
bbd=$build/daemon/biobenchd
[ -x "$bb" ] || die "$bb not built"
[ -x "$bbd" ] || die "$bbd not built"
vm_kernel
rel=${kernel##*/vmlinuz-}

# --- initramfs: busybox, biobench, biobenchd, kexec ---------------------
rm -rf "$work"
mkdir -p "$work"
vm_boots_initramfs "$bb" "$bbd" "$kexec"

base="console=ttyS0 panic=-1 quiet loglevel=3"

# scenario NAME BOOTS KEXEC_PROGRAM [KILL_AFTER_RUNS] -> $work/NAME.log,
# $work/NAME.db
scenario() {
  local name=$1 boots=$2 prog=$3 kill_after=${4:-} d=$work/$1.d img=$work/$1.img
  local workload='{"number_ios": 20000, "iodepth": 8}'
  mkdir -p "$d/boot"
  cp "$kernel" "$d/boot/vmlinuz-$rel"
  cp "$work/initramfs.cpio.gz" "$d/boot/initrd.gz"
  cat >"$d/biobenchd.conf" <<CONF
[server]
listen = 127.0.0.1:8420
db = /var/lib/biobench/biobench.db
web_root = /tmp
[targets]
allow = nop
[reboot]
allow_reboot = yes
boot_dirs = /var/lib/biobench/boot
reboot_method = kexec-exec
kexec = $prog
boot_timeout = 300
max_boots_per_job = 8
CONF
  local v boot_a boot_b
  for v in A B; do
    printf -v "boot_${v,,}" '{"kernel": "/var/lib/biobench/boot/vmlinuz-%s", "initrd": "/var/lib/biobench/boot/initrd.gz", "cmdline": "%s bbkernel=%s"}' "$rel" "$base" "$v"
  done
  if [ -n "$kill_after" ]; then
    # runs long enough for the kill to land in the middle of a boot
    workload='{"runtime": "800ms", "iodepth": 8}'
    echo "$kill_after" >"$d/kill-after-runs"
    cat >"$d/crash.sh" <<CRASH
kexec -l /var/lib/biobench/boot/vmlinuz-$rel --initrd=/var/lib/biobench/boot/initrd.gz --append="$base" && kexec -e
CRASH
  fi
  cat >"$d/job.json" <<JOB
{"name": "kernel A/B in the guest ($name)", "target": "nop",
 "workload": $workload,
 "repeat": 2, "warmup": 0, "boots": $boots, "order": "interleaved",
 "quiescence": {"mode": "mark"},
 "variants": {"A": {"boot": $boot_a}, "B": {"boot": $boot_b}}}
JOB
  rm -f "$img"
  truncate -s 96M "$img"
  mkfs.ext4 -q -F -d "$d" "$img" >/dev/null 2>&1 || die "mkfs.ext4 -d failed"
  say "scenario $name: $boots boots per variant, kexec = $prog"
  vm_boot "$name" 300 2 "$base" "$img" BBBOOT
  rm -f "$work/$name.db" "$work/$name.db-wal"
  debugfs -R "dump /biobench.db $work/$name.db" "$img" >/dev/null 2>&1
  debugfs -R "dump /biobench.db-wal $work/$name.db-wal" "$img" >/dev/null 2>&1
  [ -s "$work/$name.db-wal" ] || rm -f "$work/$name.db-wal"
  debugfs -R "dump /daemon.log $work/$name.daemon.log" "$img" >/dev/null 2>&1
  rm -f "$img"
}

# ok: killed after 5 runs, i.e. in the middle of boot 3 (A)
scenario ok 2 /usr/bin/kexec 5
scenario wrong 1 /usr/bin/kexec-wrong

python3 "$here/check_boots.py" --work "$work"
rc=$?
say "total $(( $(date +%s) - t_start ))s (logs: $work)"
exit $rc
