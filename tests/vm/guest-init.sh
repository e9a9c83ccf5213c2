#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-only
# /init of the NVMe guest (tests/vm/run.sh): runs biobench against the
# emulated NVMe controller and prints one JSON line per step on the serial
# console, prefixed "BBVM ", for the host to check (tests/vm/check.py).
# BBVM_BOOT (kernel command line) selects the steps: "main" (-smp 2,
# nvme.poll_queues=2) or "smp1" (-smp 1, nvme.poll_queues=2: polling
# must be refused or flagged).
/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /tmp && mount -t tmpfs tmpfs /tmp
cd /tmp

BB=/usr/bin/biobench

# JSON string of a file's text (quotes, backslashes, control chars).
jstr() {
	printf '"'
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/\t/\\t/g' "$1" | tr '\n\r' '  '
	printf '"'
}

# step NAME CMD...: run, then one line
# BBVM {"step":NAME,"rc":N,"secs":S,"out":<stdout JSON or null>,"err":"..."}
step() {
	name=$1
	shift
	t0=$(date +%s)
	"$@" >/tmp/out 2>/tmp/err
	rc=$?
	t1=$(date +%s)
	{
		printf 'BBVM {"step":"%s","rc":%d,"secs":%d,"out":' "$name" "$rc" $((t1 - t0))
		if [ -s /tmp/out ] && head -c 1 /tmp/out | grep -q '[{[]'; then
			tr -d '\n\r' </tmp/out
		else
			printf null
		fi
		printf ',"err":'
		jstr /tmp/err
		printf '}\n'
	} >/tmp/line
	cat /tmp/line
}

# this host's devices, without a daemon
devices() {
	$BB devices --local --json
}

echo "BBVM {\"step\":\"boot\",\"boot\":\"$BBVM_BOOT\",\"kernel\":\"$(uname -r)\",\"cpus\":$(grep -c ^processor /proc/cpuinfo),\"io_poll\":\"$(cat /sys/block/nvme0n1/queue/io_poll 2>/dev/null)\",\"poll_queues\":\"$(cat /sys/module/nvme/parameters/poll_queues 2>/dev/null)\"}"

R="--json --quiet"
case "$BBVM_BOOT" in
main)
	step devices devices
	step blk_irq $BB run $R --mode irq --runtime 2 /dev/nvme0n1
	step blk_poll $BB run $R --mode poll --runtime 2 /dev/nvme0n1
	step blk_verify $BB run $R --mode irq --rw randwrite --bs 64k \
		--max-sectors-kb 8 --iodepth 16 --number-ios 300 --allow-write \
		--verify /dev/nvme0n1
	step blk_poll_verify $BB run $R --mode poll --rw randwrite --bs 32k \
		--max-sectors-kb 4 --iodepth 16 --number-ios 200 --allow-write \
		--verify --size 64m /dev/nvme0n1
	step pt_irq $BB run $R --engine uring_cmd --mode irq --runtime 2 /dev/ng0n1
	step pt_poll $BB run $R --engine uring_cmd --mode poll --runtime 2 /dev/ng0n1
	step pt_nofixed $BB run $R --engine uring_cmd --mode poll --fixedbufs=0 \
		--registerfiles=0 --bs 16k --runtime 1 /dev/ng0n1
	step pt_verify $BB run $R --engine uring_cmd --mode irq --rw randwrite \
		--bs 64k --max-sectors-kb 16 --iodepth 16 --number-ios 300 \
		--allow-write --verify --offset 128m --size 64m /dev/ng0n1
	step pt_poll_verify $BB run $R --engine uring_cmd --mode poll --rw randrw \
		--bs 8k --iodepth 32 --number-ios 500 --allow-write --verify \
		--offset 64m --size 32m /dev/ng0n1
	# without the bio model: one SQE per I/O, block and passthrough
	step none_blk_poll $BB run $R --model none --mode poll --runtime 1 /dev/nvme0n1
	step none_pt_poll_verify $BB run $R --model none --engine uring_cmd --mode poll \
		--rw randrw --bs 8k --iodepth 32 --number-ios 500 --allow-write \
		--verify --offset 64m --size 32m /dev/ng0n1
	step pt_on_block $BB run $R --engine uring_cmd --runtime 1 /dev/nvme0n1
	step blk_on_char $BB run $R --runtime 1 /dev/ng0n1
	;;
smp1)
	step devices devices
	step blk_poll $BB run $R --mode poll --runtime 1 /dev/nvme0n1
	step pt_poll $BB run $R --engine uring_cmd --mode poll --runtime 1 /dev/ng0n1
	;;
*)
	echo "BBVM {\"step\":\"error\",\"err\":\"unknown BBVM_BOOT '$BBVM_BOOT'\"}"
	;;
esac
grep -E 'nvme|CPU' /proc/interrupts >/tmp/irq
printf 'BBVM {"step":"interrupts","out":null,"err":'
jstr /tmp/irq
printf '}\n'
echo "BBVM {\"step\":\"done\"}"
sync
poweroff -f
