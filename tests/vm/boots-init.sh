#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-only
# /init of the boot-job guest (tests/vm/boots.sh).  Every boot of the
# guest -- the first one by QEMU, the others by biobenchd's kexec -e --
# runs this: it mounts the persistent disk (ext4 on /dev/nvme0n1: the
# daemon's database and configuration, the kernel and this initramfs),
# prints one line about the boot, starts biobenchd (reboot_method
# kexec-exec) and submits the job ($D/job.json, or every $D/jobs/*.json
# in name order: bench/boot_aa.sh's A/A boot jobs), each file once across
# boots.
# Then it follows the jobs: when all have ended, the daemon is stopped cleanly, the disk
# unmounted and the guest powered off; until then biobenchd reboots the
# guest by itself (kexec -e) and this script starts again in the next
# kernel.  With $D/kill-after-runs (N), once the job has N runs done the
# daemon is killed (SIGKILL) in the middle of a boot and the guest
# kexecs into its default command line ($D/crash.sh), once: the host
# crashed and came back on its default kernel.  Lines for the host start
# with "BBVM ".
/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /tmp /run /var/lib/biobench
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
D=/var/lib/biobench
BB="/usr/bin/biobench --server http://127.0.0.1:8420"

off() {
	sync
	umount $D 2>/dev/null
	poweroff -f
}

i=0
while [ ! -b /dev/nvme0n1 ] && [ $i -lt 50 ]; do
	sleep 0.2
	i=$((i + 1))
done
if ! mount -t ext4 /dev/nvme0n1 $D; then
	echo "BBVM {\"step\":\"error\",\"err\":\"cannot mount the disk\"}"
	off
fi
echo "BBVM {\"step\":\"boot\",\"boot_id\":\"$(cat /proc/sys/kernel/random/boot_id)\",\"kernel\":\"$(uname -r)\",\"cmdline\":\"$(cat /proc/cmdline)\"}"

/usr/bin/biobenchd --config $D/biobenchd.conf --foreground 2>>$D/daemon.log &
daemon=$!
i=0
until $BB host >/dev/null 2>&1; do
	i=$((i + 1))
	if [ $i -gt 300 ] || ! kill -0 $daemon 2>/dev/null; then
		echo "BBVM {\"step\":\"error\",\"err\":\"biobenchd did not come up\"}"
		tail -5 $D/daemon.log
		off
	fi
	sleep 0.1
done
# each job file once, across boots: biobenchd may start the first boot job
# (and reboot for it) while the later files are still being submitted
touch $D/submitted $D/submitted-files
for f in $D/job.json $D/jobs/*.json; do
	[ -e "$f" ] || continue
	grep -qxF "$f" $D/submitted-files && continue
	id=$($BB submit "$f" 2>/tmp/err) || id=
	echo "BBVM {\"step\":\"submit\",\"id\":\"$id\",\"err\":\"$(tr -d '"\n' </tmp/err)\"}"
	# the daemon going down for a boot: the rest in the next boot
	[ -z "$id" ] && grep -q "cannot reach" /tmp/err && break
	[ -n "$id" ] && echo "$id" >>$D/submitted
	echo "$f" >>$D/submitted-files
	sync
done
# the first job not yet ended (the daemon runs them in turn)
for id in $(cat $D/submitted); do
	state=$($BB show "$id" --json 2>/dev/null | grep -o '"state": *"[a-z]*"' |
		head -1 | sed 's/.*: *"//; s/"//')
	case "$state" in
	done | failed | cancelled | interrupted) continue ;;
	esac
	break
done
# until the job ends (biobenchd kexecs into the next boot meanwhile)
while :; do
	doc=$($BB show "$id" --json 2>/dev/null)
	state=$(echo "$doc" | grep -o '"state": *"[a-z]*"' |
		head -1 | sed 's/.*: *"//; s/"//')
	# the crash scenario: once the job has kill-after-runs runs done,
	# biobenchd dies (SIGKILL) in the middle of a boot and the host comes
	# back on its default kernel (crash.sh: kexec with the first boot's
	# command line), once
	if [ -e $D/kill-after-runs ] && [ ! -e $D/killed ] &&
		[ "$state" = running ]; then
		done_n=$(echo "$doc" | grep -o '"runs_done": *[0-9]*' | head -1 |
			sed 's/.*: *//')
		if [ "${done_n:-0}" -ge "$(cat $D/kill-after-runs)" ]; then
			kill -KILL $daemon
			echo "BBVM {\"step\":\"kill\",\"runs_done\":$done_n}"
			touch $D/killed
			sync
			sh $D/crash.sh
			echo "BBVM {\"step\":\"error\",\"err\":\"crash.sh did not reboot\"}"
			off
		fi
	fi
	case "$state" in
	done | failed | cancelled | interrupted)
		echo "BBVM {\"step\":\"end\",\"id\":\"$id\",\"state\":\"$state\"}"
		next=$(awk -v id="$id" 'f { print; exit } $0 == id { f = 1 }' $D/submitted)
		[ -z "$next" ] && break
		id=$next
		continue
		;;
	esac
	if ! kill -0 $daemon 2>/dev/null; then
		# biobenchd stopped for a kexec -e that did not happen
		sleep 5
		echo "BBVM {\"step\":\"error\",\"err\":\"biobenchd exited while the job was $state\"}"
		tail -5 $D/daemon.log
		off
	fi
	sleep 0.2
done
kill -TERM $daemon
wait $daemon
off
