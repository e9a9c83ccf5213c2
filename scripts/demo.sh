#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The main job on the embedded default: an A/B of the bio cache on the nop
# target (io_uring NOPs through the bio model; no device needed):
# bio_cache=off against bio_cache=all (with the model's calibrated kernel
# cost, the default: the change in the kernel's order of size, and the scope
# line saying what is modelled and what is calibrated), interleaved, side by side, in the
# default design (1 warm-up pair, 12 measured pairs) with runs of 0.5 s so
# that it takes well under a minute on a quiet host.  The comparison ends
# with how noisy the host was (the spread of A's runs next to the change)
# and names every run other load disturbed: a first result says whether it
# can be trusted.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${BUILD_DIR:-build}/biobench
cpu=$(( $(nproc) > 1 ? 1 : 0 ))
exec "$bin" ab --runtime 500ms --iodepth 128 --cpus "$cpu" \
  --a bio_cache=off --b bio_cache=all nop
