#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/boot_aa.sh - a real A/A of the boot-interleaved design: N boot jobs
# whose two "kernels" are one kernel with two command lines (bbkernel=A,
# bbkernel=B: nothing differs but a word the kernel ignores), each with
# BOOT_AA_PAIRS boot pairs of BOOT_AA_REPEAT runs, run one after another by
# biobenchd in a QEMU guest (TCG) that it reboots with kexec between the
# boots (tests/vm/boots.sh's guest: tests/vm/common.sh, boots-init.sh).
# Every verdict other than inconclusive or no change is a false positive.
# It reads the database out of the guest's disk and prints the verdicts,
# the false-positive rate with its 95 % Wilson interval, the boot pairs
# and the between-boot spread of each job.
#
# usage: bench/boot_aa.sh [BUILD_DIR]      (default <repo>/build)
# Environment: BOOT_AA_JOBS (default 40), BOOT_AA_PAIRS (6), BOOT_AA_REPEAT
# (3 measured runs a boot after 1 warm-up), BOOT_AA_RUNTIME (200ms),
# BOOT_AA_CPU (the host CPU QEMU runs on, default 0), BOOT_AA_TIMEOUT
# (seconds for all of it, default 4 * 3600).
# A boot takes 10-20 s under TCG here: 40 jobs of 6 pairs are 480 boots,
# one to three hours.  Exit 0 when it ran (it asserts nothing), 1 on a
# failure, 77 when QEMU or kexec cannot run.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$ROOT/build}
build=$(cd "$build" && pwd)
work=$build/boot-aa
jobs=${BOOT_AA_JOBS:-40}
pairs=${BOOT_AA_PAIRS:-6}
repeat=${BOOT_AA_REPEAT:-3}
runtime=${BOOT_AA_RUNTIME:-200ms}
cpu=${BOOT_AA_CPU:-0}
t_start=$(date +%s)

say() { echo "boot-aa: $*"; }
skip() { echo "boot-aa: SKIP: $*" >&2; exit 77; }
die() { echo "boot-aa: FAIL: $*" >&2; exit 1; }

. "$ROOT/tests/vm/common.sh"
extra=()
command -v kexec >/dev/null || [ -x /sbin/kexec ] || extra+=(kexec-tools)
command -v debugfs >/dev/null && command -v mkfs.ext4 >/dev/null || extra+=(e2fsprogs)
vm_tools "${extra[@]}"
kexec=$(command -v kexec || echo /sbin/kexec)
[ -x "$kexec" ] || skip "kexec is not installed (apt-get install kexec-tools)"
bb=$build/biobench
bbd=$build/daemon/biobenchd
[ -x "$bb" ] && [ -x "$bbd" ] || die "build biobench and biobenchd in $build first"
vm_kernel
rel=${kernel##*/vmlinuz-}

rm -rf "$work"
mkdir -p "$work"
vm_boots_initramfs "$bb" "$bbd" "$kexec"
base="console=ttyS0 panic=-1 quiet loglevel=3"
d=$work/disk.d
mkdir -p "$d/boot" "$d/jobs"
cp "$kernel" "$d/boot/vmlinuz-$rel"
cp "$work/initramfs.cpio.gz" "$d/boot/initrd.gz"
cat >"$d/biobenchd.conf" <<CONF
[server]
listen = 127.0.0.1:8420
db = /var/lib/biobench/biobench.db
web_root = /tmp
[targets]
allow = nop
[reboot]
allow_reboot = yes
boot_dirs = /var/lib/biobench/boot
reboot_method = kexec-exec
kexec = /usr/bin/kexec
boot_timeout = 300
max_boots_per_job = $((2 * pairs))
CONF
for v in A B; do
  printf -v "boot_${v,,}" '{"kernel": "/var/lib/biobench/boot/vmlinuz-%s", "initrd": "/var/lib/biobench/boot/initrd.gz", "cmdline": "%s bbkernel=%s"}' "$rel" "$base" "$v"
done
# shellcheck disable=SC2154
for ((i = 1; i <= jobs; i++)); do
  cat >"$d/jobs/$(printf %04d "$i").json" <<JOB
{"name": "boot A/A $i", "target": "nop",
 "workload": {"runtime": "$runtime", "iodepth": 8},
 "repeat": $repeat, "warmup": 1, "boots": $pairs, "allow_other_jobs": true,
 "quiescence": {"mode": "mark"},
 "variants": {"A": {"boot": $boot_a}, "B": {"boot": $boot_b}}}
JOB
done
img=$work/disk.img
truncate -s 256M "$img"
mkfs.ext4 -q -F -d "$d" "$img" >/dev/null 2>&1 || die "mkfs.ext4 -d failed"
say "$jobs A/A boot jobs of $pairs boot pairs x $repeat runs ($((jobs * pairs * 2)) boots at least), QEMU on CPU $cpu"
# QEMU (a child of this shell) on one CPU, the other left free
taskset -cp "$cpu" $$ >/dev/null 2>&1 || say "cannot pin to CPU $cpu: QEMU runs anywhere"
vm_boot aa "${BOOT_AA_TIMEOUT:-14400}" 1 "$base" "$img" BBBOOTAA
rm -f "$work/aa.db" "$work/aa.db-wal"
debugfs -R "dump /biobench.db $work/aa.db" "$img" >/dev/null 2>&1
debugfs -R "dump /biobench.db-wal $work/aa.db-wal" "$img" >/dev/null 2>&1
[ -s "$work/aa.db-wal" ] || rm -f "$work/aa.db-wal"
[ -s "$work/aa.db" ] || die "no database on the guest's disk (serial log: $work/aa.log)"

python3 - "$work/aa.db" "$work/aa.log" <<'EOF'
import json, math, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
boots = sum(1 for l in open(sys.argv[2], errors="replace") if '"step":"boot"' in l)
rows = db.execute("SELECT id, state, verdict, compare FROM jobs ORDER BY id").fetchall()
counts, ended, sds = {}, 0, []
print("| job | state | verdict | boot pairs | between-boot spread A / B | change | CI |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for jid, state, verdict, cmp in rows:
    c = json.loads(cmp) if cmp else {}
    comps = c.get("comparisons") or [{}]
    bb = c.get("between_boot") or {}
    sa = (bb.get("A") or {}).get("sd"); sb = (bb.get("B") or {}).get("sd")
    if sa is not None: sds.append(sa)
    if sb is not None: sds.append(sb)
    ch, lo, hi = comps[0].get("change"), comps[0].get("ci_lo"), comps[0].get("ci_hi")
    f = lambda x: "-" if x is None else "%+.2f%%" % (100 * x)
    print("| %d | %s | %s | %s | %s / %s | %s | %s .. %s |" % (jid, state, verdict, c.get("boot_pairs"),
          "-" if sa is None else "%.2f%%" % (100 * sa), "-" if sb is None else "%.2f%%" % (100 * sb),
          f(ch), f(lo), f(hi)))
    if state == "done":
        ended += 1
        counts[verdict] = counts.get(verdict, 0) + 1
fp = counts.get("faster", 0) + counts.get("slower", 0)
n = ended
z = 1.959963984540054
if n:
    p = fp / n; d = 1 + z * z / n; cen = p + z * z / (2 * n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    lo, hi = max(0, (cen - h) / d), min(1, (cen + h) / d)
else:
    p = lo = hi = float("nan")
sds.sort()
med = sds[len(sds) // 2] if sds else float("nan")
print("\n%d boot jobs done of %d, %d guest boots; verdicts %s" % (n, len(rows), boots, counts))
print("false-positive rate: %.1f%% (%d of %d; 95%% Wilson %.1f%% .. %.1f%%), nominal 5%%" % (100 * p, fp, n, 100 * lo, 100 * hi))
print("median between-boot spread (SD of a variant's boot medians): %.2f%%" % (100 * med))
EOF
say "total $(( $(date +%s) - t_start ))s (logs: $work)"
