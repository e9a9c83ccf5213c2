# SPDX-License-Identifier: GPL-2.0-only
# What the QEMU guest tests share (sourced by tests/vm/run.sh and
# tests/vm/boots.sh): the tools (installed when root, else a skip), Debian's
# cloud kernel downloaded and unpacked under BUILD_DIR/vm-cache (never
# installed), and copying a program with its shared libraries and the
# dynamic loader into an initramfs tree.
#
# The caller sets: build (BUILD_DIR, absolute), and defines say, skip and
# die.  vm_tools [PKG...] checks qemu-system-x86_64 (with TCG), a static
# busybox, cpio and python3, installing the missing packages (and PKG...,
# for the caller's own tools) when root; vm_kernel sets kernel (the
# vmlinuz path); vm_copy_bin BIN ROOT [NAME] copies BIN to ROOT/usr/bin/NAME
# with its libraries; vm_boot NAME SECONDS SMP APPEND IMG SERIAL boots
# kernel with work/initramfs.cpio.gz and IMG as an NVMe namespace
# (serial SERIAL), the serial console in work/NAME.log, and skips when
# QEMU could not run at all (dies when the guest said nothing in time);
# vm_boots_initramfs BIOBENCH BIOBENCHD KEXEC packs work/initramfs.cpio.gz
# of the boot-job guest (busybox, both programs, kexec, boots-init.sh as
# /init; tests/vm/boots.sh, bench/boot_aa.sh).

static_busybox() { [ -x /bin/busybox ] && { ldd /bin/busybox 2>&1 || true; } | grep -q 'not a dynamic'; }

vm_tools() { # [EXTRA_PACKAGE...]
  local need=("$@")
  command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
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
}

vm_kernel() {
  local cache=$build/vm-cache pkg
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
}

vm_copy_bin() { # BIN ROOT [NAME]
  local bin=$1 root=$2 name=${3:-$(basename "$1")} lib
  mkdir -p "$root/usr/bin"
  cp "$bin" "$root/usr/bin/$name"
  for lib in $(ldd "$bin" | grep -o '/[^ ]*' | sort -u); do
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
  done
}

vm_boot() { # NAME SECONDS SMP APPEND IMG SERIAL
  local name=$1 secs=$2 smp=$3 append=$4 img=$5 serial=$6 rc t0
  t0=$(date +%s)
  timeout "$secs" qemu-system-x86_64 -accel tcg -cpu max -smp "$smp" -m 1024 \
    -kernel "$kernel" -initrd "$work/initramfs.cpio.gz" \
    -append "$append" \
    -drive "file=$img,format=raw,if=none,id=nvm" \
    -device "nvme,serial=$serial,drive=nvm" \
    -nodefaults -display none -serial stdio -monitor none -no-reboot \
    </dev/null >"$work/$name.log" 2>"$work/$name.qemu.err"
  rc=$?
  say "boot $name: qemu exit $rc after $(( $(date +%s) - t0 ))s"
  if [ $rc -ne 0 ] && ! grep -q '^BBVM ' "$work/$name.log"; then
    if [ $rc -eq 124 ]; then
      die "boot $name: no output within $secs s (serial log: $work/$name.log)"
    fi
    skip "QEMU cannot run here (exit $rc): $(head -3 "$work/$name.qemu.err")"
  fi
  return 0
}

vm_boots_initramfs() { # BIOBENCH BIOBENCHD KEXEC
  local root=$work/root vmdir
  vmdir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  rm -rf "$root"
  mkdir -p "$root"/{bin,usr/bin,proc,sys,dev,tmp,run,etc}
  cp /bin/busybox "$root/bin/busybox"
  vm_copy_bin "$1" "$root"
  vm_copy_bin "$2" "$root"
  vm_copy_bin "$3" "$root" kexec
  cp "$vmdir/kexec-wrong.sh" "$root/usr/bin/kexec-wrong"
  cp "$vmdir/boots-init.sh" "$root/init"
  chmod 755 "$root/init" "$root/usr/bin/kexec-wrong"
  (cd "$root" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) \
    > "$work/initramfs.cpio.gz" || die "cannot pack the initramfs"
  say "initramfs $(du -h "$work/initramfs.cpio.gz" | cut -f1)"
}
