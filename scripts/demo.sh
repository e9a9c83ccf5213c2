#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The main job on the embedded default: an A/B of the bio cache on the nop
# target (io_uring NOPs through the bio model; no device needed):
# bio_cache=off against bio_cache=all, interleaved, side by side.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${BUILD_DIR:-build}/biobench
cpu=$(( $(nproc) > 1 ? 1 : 0 ))
exec "$bin" ab --runtime 1s --iodepth 128 --cpus "$cpu" \
  --a bio_cache=off --b bio_cache=all --repeat 6 --warmup 1 nop
