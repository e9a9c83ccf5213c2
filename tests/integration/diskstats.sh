#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# diskstats.sh BIOBENCH - biobench's counts against the kernel's.  On a loop
# device, the reads, writes and sectors biobench reports (dev_reads,
# dev_writes, sectors_read, sectors_written: the requests it issued, split
# children counted as the kernel sees them) must equal the delta of
# /proc/diskstats for that device exactly, for several workloads including
# splits forced by a smaller max_sectors_kb and splits at the device's own
# limit.
#
# The device's nomerges is set to 2 for the test (and restored): biobench
# issues each split child as its own SQE, and the block layer would
# otherwise merge adjacent children (or sequential I/Os) back into fewer
# requests, which is the block layer's business, not a counting error.
# That effect is measured and printed at the end, not asserted.
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root for losetup"
command -v losetup >/dev/null || skip "losetup not installed"
truncate -s 128M "$TMP/ds.img"
loop=$(losetup -f --show "$TMP/ds.img" 2>/dev/null) || skip "cannot create a loop device"
cleanup_hooks+=("losetup -d $loop")
dev=$(basename "$loop")
command -v udevadm >/dev/null && udevadm settle 2>/dev/null || true
q=/sys/block/$dev/queue
orig_nomerges=$(cat "$q/nomerges")
cleanup_hooks=("echo $orig_nomerges > $q/nomerges" "${cleanup_hooks[@]}")
echo 2 >"$q/nomerges"
hw_kb=$(cat "$q/max_sectors_kb")

# reads-completed, sectors-read, writes-completed, sectors-written
stats() { awk -v d="$dev" '$3 == d { print $4, $6, $8, $10 }' /proc/diskstats; }

# check NAME ARGS...: one run, biobench's counters against the delta.
check() {
	local name=$1; shift
	local b a
	b=$(stats)
	if ! expect_rc 0 run --json --quiet "$@" "$loop"; then
		fail "$name: run failed"
		return
	fi
	a=$(stats)
	local got want
	want=$(/usr/bin/python3 - "$b" "$a" <<'PY'
import sys
b = [int(x) for x in sys.argv[1].split()]
a = [int(x) for x in sys.argv[2].split()]
print(" ".join(str(y - x) for x, y in zip(b, a)))
PY
)
	got=$(jget "$TMP/out" '"%d %d %d %d" % (d["io"]["dev_reads"], d["io"]["sectors_read"], d["io"]["dev_writes"], d["io"]["sectors_written"])')
	local pieces
	pieces=$(jget "$TMP/out" '(d["split"] or {"pieces": "no"})["pieces"]')
	if [ "$got" = "$want" ]; then
		pass "$name: reads, sectors, writes, sectors = $got in both ($pieces split pieces)"
	else
		fail "$name: biobench [r rs w ws] = $got, diskstats delta = $want"
	fi
	# the run's own diskstats snapshot of the measured interval: the same
	local own
	own=$(jget "$TMP/out" '"%s %d %d %d %d" % (d["diskstats"]["device"], d["diskstats"]["reads"], d["diskstats"]["sectors_read"], d["diskstats"]["writes"], d["diskstats"]["sectors_written"]) if d["diskstats"] else "null"')
	[ "$own" = "$dev $want" ] && pass "$name: the result's diskstats ($own) = the delta" \
		|| fail "$name: the result's diskstats = $own, the delta = $dev $want"
}

check "4k randread, qd16, 2000 I/Os" --rw randread --bs 4k --iodepth 16 --number-ios 2000
check "16k randwrite, 1 s" --rw randwrite --allow-write --bs 16k --iodepth 8 --runtime 1s
check "64k randread split at 8k" --rw randread --bs 64k --max-sectors-kb 8 --iodepth 8 --number-ios 1000
check "64k randwrite split at 4k, completion thread" --rw randwrite --allow-write --bs 64k \
	--max-sectors-kb 4 --iodepth 8 --completion thread --runtime 1s
check "randrw 70/30, 8k, 1 s" --rw randrw --rwmixread 70 --allow-write --bs 8k --iodepth 32 --runtime 1s
check "sequential 128k reads, sqpoll" --rw read --bs 128k --iodepth 4 --mode sqpoll --number-ios 500
big=$(( hw_kb * 4 ))k
check "$big randread: split at the device's own max_sectors_kb ($hw_kb)" --rw randread --bs "$big" \
	--iodepth 4 --number-ios 200
check "64k randread, 2 threads" --rw randread --bs 64k --max-sectors-kb 16 --threads 2 --iodepth 8 --runtime 1s
# Without the bio model: one SQE per I/O, every one a request (no split
# below the device's max_sectors_kb).
check "4k randread, --model none" --model none --rw randread --bs 4k --iodepth 16 --number-ios 2000
check "16k randrw, --model none, 1 s" --model none --rw randrw --allow-write --bs 16k --iodepth 8 --runtime 1s
check "64k randread, --model none, 2 threads" --model none --rw randread \
	--bs 64k --threads 2 --iodepth 8 --runtime 1s

# Two devices on one thread (t/io_uring's several FILE arguments): the two
# deltas add up to biobench's counts, and each device got its share.
truncate -s 64M "$TMP/ds2.img"
if loop2=$(losetup -f --show "$TMP/ds2.img" 2>/dev/null); then
	cleanup_hooks=("losetup -d $loop2" "${cleanup_hooks[@]}")
	dev2=$(basename "$loop2")
	command -v udevadm >/dev/null && udevadm settle 2>/dev/null || true
	orig2=$(cat "/sys/block/$dev2/queue/nomerges")
	cleanup_hooks=("echo $orig2 > /sys/block/$dev2/queue/nomerges" "${cleanup_hooks[@]}")
	echo 2 >"/sys/block/$dev2/queue/nomerges"
	stats2() { awk -v d="$1" '$3 == d { print $4, $6 }' /proc/diskstats; }
	for model in bio none; do
		b1=$(stats2 "$dev"); b2=$(stats2 "$dev2")
		if expect_rc 0 run --json --quiet --model "$model" --rw randread --bs 4k \
			--iodepth 32 --number-ios 4000 "$loop" "$loop2"; then
			a1=$(stats2 "$dev"); a2=$(stats2 "$dev2")
			r=$(/usr/bin/python3 - "$b1" "$a1" "$b2" "$a2" "$TMP/out" <<'PY'
import json, sys
d1 = [int(y) - int(x) for x, y in zip(sys.argv[1].split(), sys.argv[2].split())]
d2 = [int(y) - int(x) for x, y in zip(sys.argv[3].split(), sys.argv[4].split())]
io = json.load(open(sys.argv[5]))["io"]
ok = (d1[0] + d2[0] == io["dev_reads"] == 4000 and
      d1[1] + d2[1] == io["sectors_read"] and d1[0] > 500 and d2[0] > 500)
print("ok" if ok else "bad %s %s %s" % (d1, d2, io["dev_reads"]))
PY
)
			[ "$r" = ok ] && pass "two devices, one thread, model $model: the deltas add up to biobench's 4000 reads, both devices read" ||
				fail "two devices, model $model: $r"
		else
			fail "two devices, model $model: run failed"
		fi
	done
else
	echo "info: no second loop device: the two-device check is skipped"
fi

# For the record: with merges allowed, split children are merged back.
echo 0 >"$q/nomerges"
b=$(stats)
if expect_rc 0 run --json --quiet --rw read --bs 64k --max-sectors-kb 8 --iodepth 8 --number-ios 1000 "$loop"; then
	a=$(stats)
	k=$(/usr/bin/python3 -c 'import sys; print(int(sys.argv[2].split()[0]) - int(sys.argv[1].split()[0]))' "$b" "$a")
	echo "info: with nomerges=0, 8000 sequential 8k children reached the device as $k requests (block-layer merging)"
fi

# A page-cached file on a filesystem on the loop device: the device line is
# the bio model's requests (labelled so), the disk line the loop device's
# own count, which the page cache keeps far below it.
if command -v mkfs.ext4 >/dev/null && mkfs.ext4 -q -F "$loop" 2>/dev/null; then
	mkdir -p "$TMP/mnt"
	if mount "$loop" "$TMP/mnt" 2>/dev/null; then
		cleanup_hooks=("umount $TMP/mnt" "${cleanup_hooks[@]}")
		f="$TMP/mnt/cached.dat"
		expect_rc 0 run --quiet --rw write --direct=0 --bs 1m --size 16m --number-ios 16 --allow-write "$f" \
			|| fail "laying out $f"
		if expect_rc 0 run --rw randread --direct=0 --bs 4k --size 16m --number-ios 20000 "$f"; then
			grep -q "device: model requests read=20000 " "$TMP/out" \
				&& grep -q "the bio model's, not the disk's" "$TMP/out" \
				&& pass "cached file: the device line says the 20000 reads are the model's" \
				|| fail "cached file: device line: $(grep 'device:' "$TMP/out")"
			disk=$(sed -n "s/^  disk: \($dev\) in \/proc\/diskstats: reads=\([0-9]*\) .*/\1 \2/p" "$TMP/out")
			set -- $disk
			[ "${1:-}" = "$dev" ] && [ "${2:-99999}" -lt 2000 ] \
				&& pass "cached file: $dev's own count beside it ($2 reads in /proc/diskstats)" \
				|| fail "cached file: disk line: $(grep 'disk:' "$TMP/out")"
		else fail "cached file read"; fi
		expect_rc 0 run --json --quiet --rw randread --direct=0 --bs 4k --size 16m --number-ios 2000 "$f" \
			&& validate_schema "$TMP/out" \
			&& [ "$(jget "$TMP/out" 'd["diskstats"]["device"]')" = "$dev" ] \
			&& pass "cached file --json: diskstats names $dev, schema valid" || fail "cached file --json diskstats"
	else
		echo "info: cannot mount $loop: the cached-file case is skipped"
	fi
fi
finish
