#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Polled mode must be refused, before the run and with the fix named, on
# devices that cannot poll (this machine has no poll queues anywhere).
source "$(dirname "$0")/lib.sh"

found=0
for dev in /dev/vda /dev/sda /dev/nvme0n1; do
  [ -b "$dev" ] || continue
  q=/sys/class/block/$(basename "$dev")/queue/io_poll
  [ -r "$q" ] || continue
  if [ "$(cat "$q")" = 1 ]; then
    echo "note: $dev can poll; not a refusal case"
    continue
  fi
  found=1
  if expect_rc 1 run --mode poll --runtime 1s "$dev"; then
    grep -q "io_poll" "$TMP/err" && grep -q "poll_queues" "$TMP/err" \
      && pass "poll refused on $dev naming queue/io_poll and poll_queues: $(cat "$TMP/err")" \
      || fail "poll refusal message on $dev: $(cat "$TMP/err")"
  else fail "poll on $dev not refused"; fi
done

# a file on a filesystem whose device cannot poll
f="$TMP/pollfile"
if expect_rc 1 run --mode poll --size 4m --runtime 1s "$f"; then
  grep -q -- "--mode poll" "$TMP/err" && pass "poll refused for a file: $(cat "$TMP/err")" \
    || fail "file poll refusal message"
else fail "poll on a file not refused"; fi

expect_rc 1 run --mode poll --runtime 1s nop && grep -q "nop" "$TMP/err" \
  && pass "poll refused on nop" || fail "poll on nop"
expect_rc 2 run --mode poll --completion thread --runtime 1s nop \
  && pass "poll + completion thread is a usage error" || fail "poll + thread"
[ $found = 1 ] || echo "note: no non-polling block device found besides files"
finish
