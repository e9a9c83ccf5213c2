#!/usr/bin/env bash
# Install everything biobench needs to build and test, from Debian 12
# packages.  Run as root.  Idempotent: packages already present are skipped.
set -euo pipefail

pkgs=(
  build-essential cmake pkg-config
  liburing-dev libjson-c-dev libcmocka-dev
  util-linux e2fsprogs          # losetup, mkfs.ext4 for the loop-device tests
  fio                           # bench/: side-by-side with fio
  python3 python3-jsonschema    # result document checked against its schema
  valgrind                      # bench/: instruction counts (callgrind)
  libsqlite3-dev sqlite3        # biobenchd store (sqlite3: tests inspect the database)
  libmicrohttpd-dev libinih-dev # biobenchd HTTP server and config file
  curl wrk python3-yaml         # daemon tests (API checked against openapi.yaml), bench/
  clang libclang-rt-14-dev dmsetup # tests/fuzz (libFuzzer, sanitizer runtimes); reliability: dm-linear holder where the kernel has device-mapper
  libnvme-dev qemu-system-x86 busybox-static cpio # NVMe discovery (libnvme); tests/vm: NVMe guest under QEMU
  libcurl4-openssl-dev          # biobench: the client of biobenchd's HTTP API
  chromium libjs-chart.js nodejs npm # dashboard charts (Chart.js served locally); browser tests (playwright-core)
  dpkg-dev debian-archive-keyring # bench/tiou/get-fio.sh, tests: apt-get source fio, to build fio's t/io_uring
  debhelper dpkg-dev lintian rpm fakeroot systemd libjs-chart.js # packaging/ci.sh: .deb, lintian, .rpm, systemd-analyze, Chart.js for the RPM
)

missing=()
for p in "${pkgs[@]}"; do
  # Node.js from another source (e.g. NodeSource's nodejs, which bundles
  # npm and conflicts with Debian's npm package) is as good as Debian's
  case $p in
  nodejs) command -v node >/dev/null && continue ;;
  npm) command -v npm >/dev/null && continue ;;
  esac
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [ "$(id -u)" != 0 ]; then
    echo "install-deps: need root to install: ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
echo "install-deps: all packages present"
