#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# biobench's t/io_uring output lines (biobench/tiou.h, through the
# tiou_lines helper) against the real t/io_uring, built from Debian's fio
# source package by bench/tiou/get-fio.sh in the test's build tree.
#
# The real t/io_uring runs briefly: NOPs (-N1), page-cached buffered reads
# (-p0 -O0), 2 MiB buffered reads (integer IOPS, BW above 1 MiB blocks),
# O_DIRECT reads of a file, and latency tracking (-t1) without and with a
# TSC rate (tsc ticks, nsec or usec).  Every line it prints is parsed into
# its numbers; the helper formats the same numbers (startup lines from the
# same command line through bb_tiou_parse) and the two lines must have the
# same shape field by field (names, separators, number formats) and, where
# the numbers can be recovered exactly from the printed line, the same
# bytes.  Skips (77) when Debian's source archive cannot be reached.
#
# usage: tiou_lines.sh path/to/tiou_lines FIO_BUILD_DIR
source "$(dirname "$0")/lib.sh"
FIODIR=${2:?usage: $0 path/to/tiou_lines FIO_BUILD_DIR}

TIOU=$(tiou_bin "$FIODIR") || exit $?

f=$TMP/file
dd if=/dev/urandom of="$f" bs=1M count=64 status=none
cat "$f" >/dev/null # page-cached for the buffered runs

# run NAME ARGS...: the real t/io_uring in its own directory (-T writes
# ./tsc-rate there); NAME.args holds the arguments, one per line
run() {
	local name=$1 rc=0
	shift
	mkdir -p "$TMP/$name"
	printf '%s\n' "$@" >"$TMP/$name.args"
	(cd "$TMP/$name" && timeout 60 "$TIOU" "$@") >"$TMP/$name.out" 2>"$TMP/$name.err" || rc=$?
	if [ "$rc" != 0 ]; then
		fail "t/io_uring $* exited $rc: $(head -c 300 "$TMP/$name.err") $(tail -n 2 "$TMP/$name.out")"
		return 1
	fi
	RUNS+=("$name")
}
RUNS=()
run nop -N1 -r2 "$f"
run cached -p0 -O0 -r2 "$f"
run big -p0 -O0 -b2097152 -d4 -s1 -c1 -r3 "$f"
run lat_ticks -p0 -O0 -t1 -r3 "$f"
run lat_nsec -p0 -O0 -t1 -T2000000000 -r3 "$f"
if dd if="$f" of=/dev/null bs=4k count=1 iflag=direct status=none 2>/dev/null; then
	run direct -p0 -d32 -r2 "$f"
else
	echo "note: $TMP does not take O_DIRECT: no O_DIRECT run"
fi
[ -f "$TMP/lat_nsec/tsc-rate" ] && pass "t/io_uring -T wrote ./tsc-rate (biobench does not: tiou.h)"

out=$(/usr/bin/python3 - "$BIN" "$TMP" "${RUNS[@]}" <<'PY'
import re, subprocess, sys

helper, tmp, runs = sys.argv[1], sys.argv[2], sys.argv[3:]

def mine(*args):
    r = subprocess.run([helper] + [str(a) for a in args], capture_output=True, text=True)
    if r.returncode:
        raise SystemExit("helper %s: %s" % (args, r.stderr.strip()))
    return r.stdout

NUM = re.compile(r'-?\d+(?:\.\d+)?')
def shape(line):
    """names and separators kept, each number replaced by its format"""
    def cls(m):
        s = m.group(0)
        sign = '-' if s.startswith('-') else ''
        if '.' in s:
            return sign + 'F%d' % len(s.split('.')[1])
        return sign + 'I'
    return NUM.sub(cls, line)

def iops_of(s):
    """the I/O count behind t/io_uring's IOPS text, and whether exact"""
    # "x.xxM" means more than 1,000,000 and "x.xxK" more than 100,000 (the
    # rule is iops > 1000000): "1.00M" is 1,000,001 to 1,004,999, never
    # 1,000,000 itself, which prints as "1000.00K"
    if s.endswith('M'):
        return max(round(float(s[:-1]) * 1e6), 1000001), False
    if s.endswith('K'):
        return max(round(float(s[:-1]) * 1e3), 100001), False
    return int(s), True

def bw_value(s):
    return float(s[:-5]) * 1000 if s.endswith('GiB/s') else float(s[:-5])

def check(what, ok, detail=''):
    print(('ok   - ' if ok else 'FAIL - ') + what + (': ' + detail if detail and not ok else ''))

def same(what, a, b, exact=True):
    sa, sb = shape(a), shape(b)
    check(what + ' shape', sa == sb, 'real %r, biobench %r' % (sa, sb))
    if exact:
        check(what + ' bytes', a == b, 'real %r, biobench %r' % (a, b))

for run in runs:
    args = open('%s/%s.args' % (tmp, run)).read().split('\n')[:-1]
    lines = open('%s/%s.out' % (tmp, run)).read().split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    nop = '-N1' in args
    bs = next((int(a[2:]) for a in args if a.startswith('-b')), 4096)
    runtime = next(int(a[2:]) for a in args if a.startswith('-r'))
    ticks = 0
    i = 0
    seen = []
    while i < len(lines):
        l = lines[i]
        m = re.match(r'submitter=(\d+), tid=(\d+), file=(.*), node=(-?\d+)$', l)
        if m:
            seen.append('submitter')
            same('%s: submitter line' % run, l,
                 mine('submitter', '3.33', m[1], m[2], m[3], 1, m[4]).rstrip('\n'))
            i += 1; continue
        if l.startswith('polled='):
            seen.append('setup')
            same('%s: setup line from the same command line' % run, l,
                 mine('setup', '3.33', *args).rstrip('\n'))
            i += 1; continue
        m = re.match(r'Engine=io_uring, sq_ring=(\d+), cq_ring=(\d+)$', l)
        if m:
            seen.append('engine')
            same('%s: engine line' % run, l, mine('engine', m[1], m[2]).rstrip('\n'))
            i += 1; continue
        m = re.match(r'IOPS=([0-9.]+[MK]?), (?:BW=([0-9.]+(?:MiB|GiB)/s), )?IOS/call=(-?\d+)/(-?\d+)$', l)
        if m:
            ticks += 1
            done, exact = iops_of(m[1])
            rpc, ipc = int(m[3]), int(m[4])
            if rpc < 0:
                calls = reaps = 0
            elif rpc == 0:
                calls = done + 1; reaps = ipc * calls
            else:
                calls = done // rpc; reaps = ipc * calls
            b = mine('tick', done, 0, calls, reaps, bs, int(nop)).rstrip('\n')
            mb = re.match(r'IOPS=(\S+), (?:BW=(\S+), )?IOS/call=(\S+)$', b)
            check('%s: tick %d parses' % (run, ticks), mb is not None, b)
            if mb:
                check('%s: tick %d IOPS field' % (run, ticks), mb[1] == m[1], '%s vs %s' % (m[1], mb[1]))
                check('%s: tick %d IOS/call field' % (run, ticks), mb[3] == '%s/%s' % (m[3], m[4]),
                      '%s/%s vs %s' % (m[3], m[4], mb[3]))
                check('%s: tick %d BW present iff not NOP' % (run, ticks),
                      (m[2] is None) == (mb[2] is None) == nop, '%r %r' % (m[2], mb[2]))
                if m[2] and mb[2]:
                    # the count behind x.xxM is known to +-0.5 %: BW too
                    near = abs(bw_value(m[2]) - bw_value(mb[2])) <= max(10, 0.01 * bw_value(m[2]))
                    check('%s: tick %d BW within the IOPS rounding' % (run, ticks), near,
                          '%s vs %s' % (m[2], mb[2]))
            same('%s: tick %d' % (run, ticks), l, b, exact=exact)
            i += 1; continue
        if l.startswith('Exiting on'):
            seen.append('exit')
            same('%s: exit line' % run, l, mine('exit', 'timeout').rstrip('\n'))
            i += 1; continue
        m = re.match(r'Maximum IOPS=(\S+)$', l)
        if m:
            seen.append('max')
            same('%s: maximum line' % run, l, mine('max', iops_of(m[1])[0]).rstrip('\n'))
            i += 1; continue
        m = re.match(r'(\d+): Latency percentiles:$', l)
        if m:
            seen.append('latency')
            block = [l]
            i += 1
            while i < len(lines) and (lines[i].startswith('    percentiles (') or lines[i].startswith('     |')):
                block.append(lines[i]); i += 1
            unit = re.match(r'    percentiles \((tsc ticks|nsec|usec)\):', block[1])[1]
            vals = re.findall(r'th=\[\s*(\d+)\]', '\n'.join(block))
            check('%s: latency has %d values' % (run, len(vals)), len(vals) == 17)
            b = mine('latency', m[1], 'ticks' if unit == 'tsc ticks' else unit, *vals)
            real = '\n'.join(block) + '\n'
            check('%s: latency block (%s) byte for byte' % (run, unit), real == b,
                  '\nreal:\n%sbiobench:\n%s' % (real, b))
            for k, (x, y) in enumerate(zip(real.split('\n'), b.split('\n'))):
                if shape(x) != shape(y):
                    check('%s: latency line %d shape' % (run, k), False, '%r vs %r' % (x, y))
            continue
        check('%s: known line' % run, False, 'unexpected line %r' % l)
        i += 1
    want = ['submitter', 'setup', 'engine', 'exit', 'max'] + (['latency'] if '-t1' in args else [])
    check('%s: line order %s' % (run, ' '.join(want)), seen == want, 'saw %s' % seen)
    check('%s: -r%d printed %d per-second lines' % (run, runtime, runtime - 1), ticks == runtime - 1,
          'saw %d' % ticks)
PY
) || fail "the comparison script failed: $out"
while IFS= read -r l; do
	case $l in
	"ok   - "*) pass "${l#ok   - }" ;;
	"FAIL - "*) fail "${l#FAIL - }" ;;
	*) echo "$l" ;;
	esac
done <<<"$out"
finish
