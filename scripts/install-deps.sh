#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Install what biobench needs from Debian 12 packages: to build and run it
# (no argument), and with --tests also what the tests, benchmarks and
# package checks need.  Run as root.  Idempotent: packages already present
# are skipped.
set -euo pipefail
case "${1:-}" in
--tests) tests=1 ;;
"") tests=0 ;;
*) echo "usage: install-deps.sh [--tests]" >&2; exit 2 ;;
esac

# What building and running biobench and biobenchd need.
pkgs=(
  build-essential cmake pkg-config
  liburing-dev libjson-c-dev    # the core: io_uring, JSON
  libnvme-dev                   # NVMe discovery
  libsqlite3-dev                # biobenchd store
  libpq-dev                     # biobenchd store: the PostgreSQL backend (libpq)
  libmicrohttpd-dev libinih-dev # biobenchd HTTP server and config file
  libsystemd-dev                # biobenchd: sd_notify (Type=notify unit)
  libcurl4-openssl-dev          # biobench: the client of biobenchd's HTTP API
  libjs-chart.js                # the dashboard's charts, served locally
)
# What the tests, the benchmarks and the package checks add (--tests).
test_pkgs=(
  libcmocka-dev                 # unit tests
  util-linux e2fsprogs          # losetup, mkfs.ext4 for the loop-device tests
  fio                           # bench/: side-by-side with fio
  python3 python3-jsonschema    # result document checked against its schema
  valgrind                      # bench/: instruction counts (callgrind); tests: test_http_ct (memcheck)
  sqlite3                       # tests inspect the database
  faketime                      # tests: a fleet daemon whose clock runs ahead (leases on the database's clock)
  postgresql                    # tests: test_*_pg on a throwaway cluster (tests/pg/pgtmp.sh: initdb, pg_ctl)
  prometheus                    # tests: promtool check metrics on /metrics
  curl wrk python3-yaml         # daemon tests (API checked against openapi.yaml), bench/
  clang libclang-rt-14-dev dmsetup # tests/fuzz (libFuzzer, sanitizer runtimes); reliability: dm-linear holder where the kernel has device-mapper
  qemu-system-x86 busybox-static cpio # tests/vm: NVMe guest under QEMU
  kexec-tools                   # tests/vm/boots.sh: biobenchd kexecs the guest between boots
  grub2-common                  # test_scheduler: grub-reboot and grub-editenv, on a grubenv of the test's own
  chromium nodejs npm           # browser tests (playwright-core)
  dpkg-dev debian-archive-keyring # bench/tiou/get-fio.sh, tests: apt-get source fio, to build fio's t/io_uring
  debhelper dpkg-dev lintian rpm fakeroot systemd # packaging/ci.sh: .deb, lintian, .rpm, systemd-analyze
)

((tests)) && pkgs+=("${test_pkgs[@]}")
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
