#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# biobench tiou against fio's own t/io_uring (built from Debian's fio
# source package into the build tree by bench/tiou/get-fio.sh; skips, 77,
# when the source archive cannot be reached), the same command lines:
#  - on a page-cached file (-p0 -O0) and on a loop device (O_DIRECT):
#    every line of both parses with the same pattern, in the same order
#    and number (N - 1 per-second lines for -rN); the fixed lines match
#    field by field (the setup and Engine lines byte for byte, the
#    submitter line but for the tid) for fio 3.33's flavor (current fio's
#    lines are held against its printf()s in test_tiou and, with
#    TIOU_BIN=current fio's t/io_uring, by tiou_lines.sh);
#  - IOPS on the device-bound loop device: a loop device on tmpfs whose
#    reads are throttled by the block layer (blkio.throttle in a cgroup of
#    the test's own, so that a leaked rule binds no one), so that the
#    device, not the CPU, sets the rate: several short runs of each,
#    interleaved, and the medians of their per-second IOPS within +-5 %.
#    The same on the unthrottled loop device is printed, not checked: on
#    a shared 2-core host it measures the host's load.
#
# usage: tiou_vs_fio.sh path/to/biobench FIO_BUILD_DIR
source "$(dirname "$0")/lib.sh"
FIODIR=${2:?usage: $0 path/to/biobench FIO_BUILD_DIR}

[ "$(id -u)" = 0 ] || skip "needs root (loop devices, a blkio cgroup)"
TIOU=$(tiou_bin "$FIODIR") || exit $?

f=$TMP/file
dd if=/dev/urandom of="$f" bs=1M count=64 status=none
cat "$f" >/dev/null # page-cached
img=/dev/shm/biobench-tiou-vs-fio.$$
truncate -s 256M "$img"
cleanup_hooks+=("rm -f $img")
LOOP=$(losetup -f --show "$img" 2>/dev/null) || skip "losetup failed: no loop devices"
cleanup_hooks+=("losetup -d $LOOP")
dd if=/dev/urandom of="$LOOP" bs=1M count=256 oflag=direct status=none

# run_both NAME ARGS...: t/io_uring (in a directory of its own: -T writes
# ./tsc-rate there) and biobench tiou, the same arguments, in $CG when set
CG=
in_cg() { if [ -n "$CG" ]; then sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CG" "$@"; else "$@"; fi; }
run_both() {
	local name=$1 rc=0
	shift
	mkdir -p "$TMP/$name.d"
	(cd "$TMP/$name.d" && in_cg timeout 60 "$TIOU" "$@") >"$TMP/$name.fio" 2>"$TMP/$name.fio.err" || rc=$?
	[ "$rc" = 0 ] || { fail "t/io_uring $* exited $rc: $(head -c 300 "$TMP/$name.fio.err")"; return 1; }
	in_cg timeout 60 "$BIN" tiou "$@" >"$TMP/$name.bb" 2>"$TMP/$name.bb.err" || rc=$?
	[ "$rc" = 0 ] || { fail "biobench tiou $* exited $rc: $(head -c 300 "$TMP/$name.bb.err")"; return 1; }
}

# same_lines NAME FLAVOR: both outputs line by line (t/io_uring's lines:
# biobench's summary after them is not compared)
same_lines() {
	/usr/bin/python3 - "$TMP/$1.fio" "$TMP/$1.bb" "$1" "$2" <<'PY'
import re, sys
fio = open(sys.argv[1]).read().rstrip('\n').split('\n')
bb = open(sys.argv[2]).read().split('\n')
name, flavor = sys.argv[3], sys.argv[4]
N = r'(\d+|\d+\.\d\d[KM])'
kinds = [
    ('submitter', r'submitter=(\d+), tid=(\d+), file=(.*), node=(-?\d+)$' if flavor == '3.33' else
                  r'submitter=(\d+), tid=(\d+), file=(.*), nfiles=(\d+), node=(-?\d+)$'),
    ('setup', r'polled=(\d), fixedbufs=(\d)(/\d)?, register_files=(\d), buffered=(\d), QD=(\d+)$'),
    ('engine', r'Engine=io_uring, sq_ring=(\d+), cq_ring=(\d+)$'),
    ('tick', r'IOPS=' + N + r', (BW=(\d+MiB/s|\d+\.\d\dGiB/s), )?IOS/call=(-?\d+)/(-?\d+)$'),
    ('exit', r'Exiting on (timeout|signal)$'),
    ('max', r'Maximum IOPS=' + N + '$'),
]
def kind(l):
    for k, rx in kinds:
        m = re.match(rx, l)
        if m:
            return k, m
    return None, None
bb = bb[:len(fio)]  # the summary follows t/io_uring's lines
# the startup lines: each thread prints its own, and the first one set up
# the setup and Engine lines, in whatever order the threads run: compared
# as a set (t/io_uring's order varies from run to run)
def startup(lines):
    n = 0
    while n < len(lines) and kind(lines[n])[0] in ('submitter', 'setup', 'engine'):
        n += 1
    return n
ns = startup(fio)
if ns == startup(bb):
    order = {'submitter': 0, 'setup': 1, 'engine': 2}
    fio[:ns] = [l for _, l in sorted((order[kind(l)[0]], l) for l in fio[:ns])]
    bb[:ns] = [l for _, l in sorted((order[kind(l)[0]], l) for l in bb[:ns])]
errs = []
if len(bb) != len(fio):
    errs.append('%d lines of t/io_uring, %d of biobench' % (len(fio), len(bb)))
for i, (a, b) in enumerate(zip(fio, bb)):
    ka, ma = kind(a)
    kb, mb = kind(b)
    if ka is None:
        errs.append('t/io_uring line %d %r: unknown' % (i + 1, a)); continue
    if ka != kb:
        errs.append('line %d: t/io_uring %s %r, biobench %s %r' % (i + 1, ka, a, kb, b)); continue
    if ka == 'submitter':
        ga, gb = list(ma.groups()), list(mb.groups())
        ga[1] = gb[1] = 'TID'
        if ga != gb:
            errs.append('line %d: submitter fields %s vs %s' % (i + 1, ga, gb))
    elif ka in ('setup', 'engine', 'exit') and a != b:
        errs.append('line %d: %r vs %r' % (i + 1, a, b))
    elif ka == 'tick' and (ma.group(2) is None) != (mb.group(2) is None):
        errs.append('line %d: BW in one only: %r vs %r' % (i + 1, a, b))
print('\n'.join(errs) if errs else '%d lines alike' % len(fio))
sys.exit(1 if errs else 0)
PY
}

# --- the lines ------------------------------------------------------------
for c in "cached|3.33|-p0 -O0 -d64 -r3 $f" \
	"cached_n2|3.33|-p0 -O0 -d32 -n2 -s8 -c8 -r2 $f" \
	"loop_direct|3.33|-p0 -d32 -B0 -F0 -X0 -r3 $LOOP" \
	"loop_batch1|3.33|-p0 -d128 -b4096 -s1 -c1 -F1 -B1 -R1 -X1 -n1 -P1 -r2 $LOOP" \
	"nop|3.33|-N1 -d64 -r2 $f"; do
	IFS='|' read -r name flavor args <<<"$c"
	# shellcheck disable=SC2086
	if run_both "$name" $args; then
		r=$(same_lines "$name" "$flavor") && pass "$name ($args): $r" || { fail "$name ($args): $r"; cat "$TMP/$name.fio" "$TMP/$name.bb"; }
	fi
done

# --- IOPS on the device-bound loop device ---------------------------------
CGDIR=/sys/fs/cgroup/blkio
mm=$(lsblk -dno MAJ:MIN "$LOOP" | tr -d ' ')
if [ -w "$CGDIR/cgroup.procs" ] && [ -e "$CGDIR/blkio.throttle.read_iops_device" ]; then
	CG=$CGDIR/biobench-tiou-vs-fio.$$
	mkdir "$CG" && cleanup_hooks+=("rmdir $CG")
	echo "$mm 20000" >"$CG/blkio.throttle.read_iops_device"
elif [ -e /sys/fs/cgroup/cgroup.controllers ] && grep -qw io /sys/fs/cgroup/cgroup.controllers; then
	CG=/sys/fs/cgroup/biobench-tiou-vs-fio.$$
	mkdir "$CG" && cleanup_hooks+=("rmdir $CG")
	echo "$mm riops=20000" >"$CG/io.max"
else
	CG=
fi

# median_iops FILE: the median of the per-second IOPS lines
median_iops() {
	/usr/bin/python3 - "$1" <<'PY'
import re, statistics, sys
v = []
for l in open(sys.argv[1]):
    m = re.match(r'IOPS=([0-9.]+)([KM]?),', l)
    if m:
        v.append(float(m[1]) * {'': 1, 'K': 1e3, 'M': 1e6}[m[2]])
print(statistics.median(v) if v else 0)
PY
}
# compare NAME RUNS TOLERANCE(0: print only) ARGS...: interleaved runs
compare() {
	local name=$1 runs=$2 tol=$3 a=() b=()
	shift 3
	for i in $(seq "$runs"); do
		run_both "$name.$i" "$@" || return 1
		a+=("$(median_iops "$TMP/$name.$i.fio")")
		b+=("$(median_iops "$TMP/$name.$i.bb")")
	done
	/usr/bin/python3 - "$name" "$tol" "${a[*]}" "${b[*]}" <<'PY'
import statistics, sys
name, tol = sys.argv[1], float(sys.argv[2])
a = [float(x) for x in sys.argv[3].split()]
b = [float(x) for x in sys.argv[4].split()]
ma, mb = statistics.median(a), statistics.median(b)
r = mb / ma if ma else 0
print('%s: t/io_uring median %.0f IOPS %s, biobench tiou median %.0f IOPS %s, ratio %.3f' %
      (name, ma, [round(x) for x in a], mb, [round(x) for x in b], r))
sys.exit(0 if not tol or abs(r - 1) <= tol else 1)
PY
}
if [ -n "$CG" ]; then
	if r=$(compare throttled 5 0.05 -p0 -d32 -r3 "$LOOP"); then
		pass "device-bound loop device (reads throttled to 20000 IOPS), 5 interleaved runs each: $r"
	else fail "device-bound loop device: IOPS differ by more than 5 %: $r"; fi
	CG=
else
	echo "note: no blkio cgroup to throttle the loop device in: the device-bound comparison is not made"
fi
r=$(compare unthrottled 3 0 -p0 -d32 -r2 "$LOOP") && echo "info (not checked, CPU-bound on a shared host): $r"
finish
