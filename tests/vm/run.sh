#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The NVMe guest test: boots Debian's cloud kernel (NVMe built in) under
# QEMU software emulation with an emulated NVMe controller, runs biobench
# inside (devices, block-device runs in irq and poll modes, verified split
# writes, NVMe passthrough on /dev/ng0n1 in both modes, refusals), and
# checks the JSON lines the guest prints on its serial console
# (tests/vm/check.py).  Two boots:
#   main: -smp 2, nvme.poll_queues=2 -> polling works, zero interrupts
#   smp1: -smp 1, nvme.poll_queues=2 -> the kernel rejects the poll queues;
#         biobench must refuse (or flag) polled mode
#
# usage: tests/vm/run.sh BUILD_DIR
# Needs: qemu-system-x86, busybox-static, cpio, apt-get + dpkg (the kernel
# package is downloaded and unpacked under BUILD_DIR/vm-cache, never
# installed); installs the first three when root.  Exit: 0 pass, 1 fail,
# 77 skipped (QEMU cannot run at all on this machine).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: run.sh BUILD_DIR}
build=$(cd "$build" && pwd)
work=$build/vm-work
serial=BB0001
t_start=$(date +%s)

say() { echo "vm: $*"; }
skip() { echo "vm: SKIP: $*" >&2; exit 77; }
die() { echo "vm: FAIL: $*" >&2; exit 1; }

# --- tools, kernel (tests/vm/common.sh) -------------------------------------
. "$here/common.sh"
vm_tools

bb=$build/biobench
[ -x "$bb" ] || die "$bb not built"
vm_kernel

# --- initramfs: busybox and biobench with their
# shared libraries and the dynamic loader ------------------------------------
rm -rf "$work"
mkdir -p "$work/root"/{bin,usr/bin,proc,sys,dev,tmp,etc}
root=$work/root
cp /bin/busybox "$root/bin/busybox"
vm_copy_bin "$bb" "$root"
cp "$here/guest-init.sh" "$root/init"
chmod 755 "$root/init"
(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) \
  > "$work/initramfs.cpio.gz" || die "cannot pack the initramfs"
say "initramfs $(du -h "$work/initramfs.cpio.gz" | cut -f1)"

# --- boots ---------------------------------------------------------------
boot() { # NAME SMP -> $work/NAME.log
  local name=$1 smp=$2 img=$work/$1.img
  truncate -s 256M "$img"
  say "boot $name: -smp $smp nvme.poll_queues=2"
  vm_boot "$name" 150 "$smp" \
    "console=ttyS0 panic=-1 quiet loglevel=3 nvme.poll_queues=2 BBVM_BOOT=$name" \
    "$img" "$serial"
  rm -f "$img"
  return 0
}

boot main 2
boot smp1 1

python3 "$here/check.py" --serial "$serial" "$work/main.log" "$work/smp1.log"
rc=$?
say "total $(( $(date +%s) - t_start ))s (logs: $work)"
exit $rc
