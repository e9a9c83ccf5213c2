#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Configure and build into BUILD_DIR (default ./build).  Extra arguments go
# to cmake's configure step, e.g. scripts/build.sh -DBB_SANITIZE=ON.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBB_WERROR=ON "$@" >/dev/null
cmake --build "$build" -j"$(nproc)"
