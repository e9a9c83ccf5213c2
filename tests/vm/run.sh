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
cache=$build/vm-cache
work=$build/vm-work
serial=BB0001
t_start=$(date +%s)

say() { echo "vm: $*"; }
skip() { echo "vm: SKIP: $*" >&2; exit 77; }
die() { echo "vm: FAIL: $*" >&2; exit 1; }

# --- tools ----------------------------------------------------------------
need=()
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
static_busybox() { [ -x /bin/busybox ] && { ldd /bin/busybox 2>&1 || true; } | grep -q 'not a dynamic'; }
static_busybox || need+=(busybox-static)
command -v cpio >/dev/null || need+=(cpio)
if ((${#need[@]})); then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing ${need[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends "${need[@]}" >/dev/null 2>&1 || {
      apt-get update -qq >/dev/null 2>&1
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends "${need[@]}" >/dev/null 2>&1
    }
  fi
fi
command -v qemu-system-x86_64 >/dev/null \
  || skip "qemu-system-x86_64 is not installed and cannot be installed (apt-get install qemu-system-x86 as root)"
qemu-system-x86_64 -version >/dev/null 2>&1 \
  || skip "qemu-system-x86_64 does not run: $(qemu-system-x86_64 -version 2>&1 | head -1)"
qemu-system-x86_64 -accel help 2>/dev/null | grep -qx tcg \
  || skip "qemu-system-x86_64 has no TCG (software emulation) accelerator"
static_busybox || die "a static /bin/busybox is missing (apt-get install busybox-static)"
command -v cpio >/dev/null || die "cpio is missing (apt-get install cpio)"
command -v python3 >/dev/null || die "python3 is missing (the host-side checks)"

bb=$build/biobench
[ -x "$bb" ] || die "$bb not built"

# --- kernel: Debian's cloud kernel, downloaded and unpacked, not installed --
mkdir -p "$cache"
kernel=$(ls "$cache"/kernel/boot/vmlinuz-*-cloud-amd64 2>/dev/null | head -1)
if [ -z "$kernel" ]; then
  say "fetching linux-image-cloud-amd64 (apt-get download, dpkg -x)"
  pkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null \
        | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
  if [ -z "$pkg" ]; then
    apt-get update -qq >/dev/null 2>&1 || true
    pkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null \
          | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
  fi
  [ -n "$pkg" ] || die "apt-cache knows no linux-image-cloud-amd64 (Debian's cloud kernel); run apt-get update"
  rm -rf "$cache/deb" "$cache/kernel"
  mkdir -p "$cache/deb"
  (cd "$cache/deb" && apt-get download "$pkg" >/dev/null 2>&1) \
    || die "apt-get download $pkg failed"
  dpkg -x "$cache"/deb/*.deb "$cache/kernel" || die "dpkg -x failed"
  rm -rf "$cache/deb"
  kernel=$(ls "$cache"/kernel/boot/vmlinuz-*-cloud-amd64 2>/dev/null | head -1)
  [ -n "$kernel" ] || die "no boot/vmlinuz-*-cloud-amd64 in $pkg"
fi
say "kernel $(basename "$kernel")"

# --- initramfs: busybox and biobench with their
# shared libraries and the dynamic loader ------------------------------------
rm -rf "$work"
mkdir -p "$work/root"/{bin,usr/bin,proc,sys,dev,tmp,etc}
root=$work/root
cp /bin/busybox "$root/bin/busybox"
cp "$bb" "$root/usr/bin/biobench"
cp "$here/guest-init.sh" "$root/init"
chmod 755 "$root/init"
for lib in $( ldd "$bb" | grep -o '/[^ ]*' | sort -u); do
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done
(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) \
  > "$work/initramfs.cpio.gz" || die "cannot pack the initramfs"
say "initramfs $(du -h "$work/initramfs.cpio.gz" | cut -f1)"

# --- boots ---------------------------------------------------------------
boot() { # NAME SMP -> $work/NAME.log
  local name=$1 smp=$2 img=$work/$1.img
  truncate -s 256M "$img"
  say "boot $name: -smp $smp nvme.poll_queues=2"
  local t0=$(date +%s)
  timeout 150 qemu-system-x86_64 -accel tcg -cpu max -smp "$smp" -m 1024 \
    -kernel "$kernel" -initrd "$work/initramfs.cpio.gz" \
    -append "console=ttyS0 panic=-1 quiet loglevel=3 nvme.poll_queues=2 BBVM_BOOT=$name" \
    -drive "file=$img,format=raw,if=none,id=nvm" \
    -device "nvme,serial=$serial,drive=nvm" \
    -nodefaults -display none -serial stdio -monitor none -no-reboot \
    </dev/null >"$work/$name.log" 2>"$work/$name.qemu.err"
  local rc=$?
  say "boot $name: qemu exit $rc after $(( $(date +%s) - t0 ))s"
  rm -f "$img"
  if [ $rc -ne 0 ] && ! grep -q '^BBVM ' "$work/$name.log"; then
    if [ $rc -eq 124 ]; then
      die "boot $name: no output within 150 s (serial log: $work/$name.log)"
    fi
    skip "QEMU cannot run here (exit $rc): $(head -3 "$work/$name.qemu.err")"
  fi
  return 0
}

boot main 2
boot smp1 1

python3 "$here/check.py" --serial "$serial" "$work/main.log" "$work/smp1.log"
rc=$?
say "total $(( $(date +%s) - t_start ))s (logs: $work)"
exit $rc
