#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# biobench tiou (t/io_uring's command lines run on the engine) and
# Ctrl-C, end to end on real io_uring, a page-cached file and the host's
# own disk (no poll queues):
#  - usage, bad values (exit 2, one line naming the option), refusals
#    (-p1 on a device without poll queues before the run, with the sysfs
#    file and -p0; writes);
#  - the output: t/io_uring's lines in t/io_uring's order and shapes (one
#    IOPS line per whole second, N - 1 for -rN, both flavors, NOPs, the
#    per-thread percentile blocks of -t1 under the submitters' tids),
#    then biobench's summary, none of whose lines starts with one of
#    t/io_uring's words;
#  - SIGINT after 1.5 s: biobench run --runtime 0 and biobench tiou -r0
#    print a summary of at least one sample and exit 0; tiou also with
#    two SIGINTs 10 ms apart and with one 50, 100, 200 ms after its start
#    ("Exiting on signal", exit 0: t/io_uring's behaviour);
#  - jobs with a "tiou" line: biobench ab (job file and --tiou), and a
#    real biobenchd (submitted, normalized with what the line became, run
#    to the end; a line whose FILE is not allowed refused with 400 on tiou).
# (t/io_uring itself: tiou_vs_fio.sh.)
#
# usage: tiou_cmd.sh path/to/biobenchd path/to/biobench
source "$(dirname "$0")/daemon_lib.sh"
[ -n "$CLI" ] && [ -x "$CLI" ] || skip "no biobench binary given"

f=$TMP/ro/file.dat
mkdir -p "$TMP/ro"
dd if=/dev/urandom of="$f" bs=1M count=32 status=none
cat "$f" >/dev/null # page-cached: -O0 reads are CPU-bound, not disk-bound

show() { echo "  stdout:"; sed 's/^/    /' "$TMP/out"; echo "  stderr:"; sed 's/^/    /' "$TMP/err"; }

# --- usage and bad values ----------------------------------------------------
expect_rc 0 --help && grep -q "^  tiou " "$TMP/out" && pass "biobench --help lists tiou" \
	|| fail "biobench --help lacks tiou"
if expect_rc 0 tiou --help; then
	for o in d s c b p B F n N O t T r R X P V e u D a S H h; do
		grep -q "^ -$o " "$TMP/out" || { fail "tiou --help lacks -$o"; break; }
	done && pass "tiou --help lists every t/io_uring option"
	grep -q -- "--flavor 3.33|current" "$TMP/out" && pass "tiou --help names --flavor" || fail "tiou --help --flavor"
else fail "tiou --help"; fi
expect_rc 0 tiou -h && grep -q "usage: biobench tiou" "$TMP/out" && pass "tiou -h: the usage, exit 0" || fail "tiou -h"

# bad_line WANT ARGS...: exit 2, one line on stderr containing WANT
bad_line() {
	local want=$1
	shift
	if expect_rc 2 tiou "$@" && [ "$(wc -l <"$TMP/err")" = 1 ] && grep -qF -- "$want" "$TMP/err"; then
		pass "tiou $*: exit 2: $(cat "$TMP/err")"
	else
		fail "tiou $*: wanted exit 2 and one line with '$want'"; show
	fi
}
bad_line "-d: '0' is out of range 1..32768 (queue depth)" -d0 "$f"
bad_line "-d: '4k' is not a decimal integer" -d 4k "$f"
bad_line "-b: 1000 is not a multiple of 512" -p0 -b1000 "$f"
bad_line "-p: 'x' is not an integer" -px "$f"
bad_line "-Z: unknown option" -Z1 "$f"
bad_line "-a: legacy libaio (-a1) is not supported by biobench tiou" -a1 "$f"
bad_line "-S: synchronous preadv2 (-S1) is not supported by biobench tiou" -S1 "$f"
bad_line "-H: hugetlbfs buffers (-H) are not supported by biobench tiou" -H /mnt/huge "$f"
bad_line "FILE: none given" -p0
bad_line "-p1: polled IO needs O_DIRECT" -O0 "$f"
bad_line "--flavor: '4' is not 3.33" -p0 "$f" --flavor 4
bad_line "--rw randwrite: t/io_uring only reads" -p0 "$f" --rw randwrite
bad_line "--allow-write: t/io_uring only reads" -p0 "$f" --allow-write
bad_line "--cpus: missing value" -p0 "$f" --cpus
# biobench's long options anywhere: before the FILE, t/io_uring's options
# after them, a value taken by its option and not as a FILE
if expect_rc 0 tiou --cpus 0 --lat off -p0 -O0 -r2 "$f" &&
	[ "$(grep -c '^IOPS=' "$TMP/out")" = 1 ] && grep -q "^submitter=0" "$TMP/out" &&
	grep -q "buffered=1" "$TMP/out"; then
	pass "tiou --cpus 0 --lat off -p0 -O0 -r2 FILE: long options before the FILE"
else fail "tiou with long options first"; show; fi

# -p1, t/io_uring's default, on a device without poll queues: refused
# before the run, naming the sysfs file and the fix (t/io_uring spins)
dev=$(df --output=source "$TMP" | tail -1)
q=/sys/class/block/$(basename "$(readlink -f "$dev")")/queue/io_poll
if [ -r "$q" ] && [ "$(cat "$q")" = 0 ]; then
	if expect_rc 1 tiou -r1 "$f" && grep -q "queue/io_poll is 0" "$TMP/err" &&
		grep -q "give -p0" "$TMP/err" && ! grep -q "IOPS=" "$TMP/out"; then
		pass "plain 'tiou FILE' (-p1) refused before the run: $(cat "$TMP/err")"
	else fail "tiou -p1 on a device without poll queues"; show; fi
else
	echo "note: the disk under $TMP polls or has no io_poll file: no -p1 refusal case"
fi

# --- t/io_uring's lines ------------------------------------------------------
# check_lines NAME RUNTIME NOP FLAVOR: the order and shapes of
# t/io_uring's lines in $TMP/out, RUNTIME - 1 per-second lines (0: any
# number >= 1), then the summary
check_lines() {
	/usr/bin/python3 - "$TMP/out" "$@" <<'PY'
import re, sys
out, name, runtime, nop, flavor = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == '1', sys.argv[5]
lines = open(out).read().split('\n')
sub = (r'submitter=(\d+), tid=(\d+), file=(.*), node=(-?\d+)$' if flavor == '3.33' else
       r'submitter=(\d+), tid=(\d+), file=(.*), nfiles=(\d+), node=(-?\d+)$')
setup = (r'polled=[01], fixedbufs=[01]/0, register_files=[01], buffered=[01], QD=\d+$' if flavor == '3.33' else
         r'polled=[01], fixedbufs=[01], register_files=[01], buffered=[01], QD=\d+$')
iops = r'IOPS=(\d+|\d+\.\d\dK|\d+\.\d\dM), ' + ('' if nop else r'BW=(\d+MiB/s|\d+\.\d\dGiB/s), ') + r'IOS/call=\d+/\d+$'
errs = []
i = 0
tids = []
def want(rx, what):
    global i
    if i >= len(lines) or not re.match(rx, lines[i]):
        errs.append('%s: line %d: %r is not %s' % (name, i + 1, lines[i] if i < len(lines) else None, what))
        return None
    m = re.match(rx, lines[i]); i += 1
    return m
m = want(sub, 'submitter=0')
if m: tids.append(m[2])
want(setup, 'the setup line')
want(r'Engine=io_uring, sq_ring=\d+, cq_ring=\d+$', 'the Engine line')
while i < len(lines) and lines[i].startswith('submitter='):
    m = want(sub, 'submitter=N')
    if m: tids.append(m[2])
ticks = 0
while i < len(lines) and lines[i].startswith('IOPS='):
    if want(iops, 'an IOPS line'): ticks += 1
if runtime and ticks != runtime - 1:
    errs.append('%s: %d per-second lines for -r%d (want %d)' % (name, ticks, runtime, runtime - 1))
if not runtime and ticks < 1:
    errs.append('%s: no per-second line' % name)
want(r'Exiting on (timeout|signal)$', 'Exiting on ...')
want(r'Maximum IOPS=(\d+|\d+\.\d\dK|\d+\.\d\dM)$', 'Maximum IOPS=')
blocks = []
while i < len(lines) and re.match(r'\d+: Latency percentiles:$', lines[i]):
    blocks.append(lines[i].split(':')[0]); i += 1
    want(r'    percentiles \((nsec|usec)\):$', 'the unit line')
    while i < len(lines) and lines[i].startswith('     |'):
        i += 1
if blocks and sorted(blocks) != sorted(tids):
    errs.append('%s: percentile blocks of %s, submitters %s' % (name, blocks, tids))
rest = [l for l in lines[i:] if l]
for l in rest:
    if re.match(r'(IOPS=|Maximum|Exiting|submitter=|polled=|Engine=|\d+: )', l):
        errs.append('%s: summary line %r starts with a t/io_uring word' % (name, l))
if not any(l.startswith('target: ') for l in rest) or not any('IOPS=' in l for l in rest):
    errs.append('%s: no biobench summary after the lines' % name)
print('\n'.join(errs) if errs else 'ok %d ticks, %d blocks, tids %s' % (ticks, len(blocks), tids))
sys.exit(1 if errs else 0)
PY
}

if expect_rc 0 tiou -p0 -O0 -d32 -r3 "$f" && r=$(check_lines buffered 3 0 3.33); then
	pass "tiou -p0 -O0 -r3: t/io_uring's lines (fio 3.33), 2 per-second lines, then the summary ($r)"
else fail "tiou -p0 -O0 -r3: $r"; show; fi
if expect_rc 0 tiou -p0 -O0 -d32 -r2 "$f" --flavor current && r=$(check_lines current 2 0 current); then
	grep -q "^submitter=0, tid=[0-9]*, file=$f, nfiles=1, node=-1$" "$TMP/out" &&
		pass "--flavor current: current fio's startup lines ($r)" || { fail "--flavor current: file/nfiles"; show; }
else fail "tiou --flavor current: $r"; show; fi
if expect_rc 0 tiou -N1 -r2 && r=$(check_lines nop 2 1 3.33); then
	grep -q "^submitter=0, tid=[0-9]*, file=(null), node=-1$" "$TMP/out" &&
		pass "tiou -N1: plain NOPs, file=(null), no BW ($r)" || { fail "-N1 startup line"; show; }
else fail "tiou -N1: $r"; show; fi
if expect_rc 0 tiou -p0 -O0 -t1 -n2 -d16 -r2 "$f" "$f" && r=$(check_lines lat 2 0 3.33); then
	pass "tiou -t1 -n2: one percentile block per submitter, under its tid ($r)"
	grep -q "measures per submit batch with biobench's clock" "$TMP/err" && pass "-t1: the clock note on stderr" \
		|| fail "-t1 note"
else fail "tiou -t1 -n2: $r"; show; fi
expect_rc 0 tiou -p0 -O0 -r2 "$f" --json && jget "$TMP/out" 'd["config"]["model"]' | grep -qx none &&
	! grep -q "^IOPS=" "$TMP/out" && pass "tiou --json: the result document alone, model none" || fail "tiou --json"
expect_rc 0 tiou -p0 -O0 -r2 "$f" --model bio --bio-cache off &&
	grep -q "^model: bio bio_cache=off" "$TMP/out" && pass "tiou ... --model bio --bio-cache off: the bio model" \
	|| { fail "tiou --model bio"; show; }

# --- Ctrl-C ----------------------------------------------------------------
# sigint_after NAME ARGS...: biobench ARGS, SIGINT after 1.5 s
sigint_after() {
	local rc=0 pid
	"$BIN" "$@" >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	sleep 1.5
	kill -INT "$pid"
	wait "$pid" || rc=$?
	echo "$rc"
}
rc=$(sigint_after run --runtime 0 --model none --no-direct "$f" --json)
n=$(jget "$TMP/out" 'len(d["samples"])' 2>/dev/null || echo 0)
if [ "$rc" = 0 ] && [ "$n" -ge 1 ] && [ "$(jget "$TMP/out" 'd["interrupted"]')" = SIGINT ] &&
	[ "$(jget "$TMP/out" 'd["error"]')" = None ] && [ "$(jget "$TMP/out" 'd["io"]["ios"] > 0')" = True ]; then
	pass "biobench run --runtime 0: SIGINT after 1.5 s: exit 0, $n sample(s), interrupted SIGINT"
	validate_schema "$TMP/out" && pass "the interrupted result matches the result schema" || fail "interrupted result schema"
else fail "run --runtime 0 + SIGINT: exit $rc, $n samples"; show; fi
rc=$(sigint_after run --runtime 0 --model none --no-direct "$f")
if [ "$rc" = 0 ] && grep -q "^  IOPS=" "$TMP/out" && grep -q "interrupted by SIGINT after" "$TMP/err"; then
	pass "biobench run: SIGINT prints the summary of what ran"
else fail "run + SIGINT text"; show; fi
rc=$(sigint_after tiou -p0 -O0 -d32 "$f")
if [ "$rc" = 0 ] && r=$(check_lines sigint 0 0 3.33) && grep -q "^Exiting on signal$" "$TMP/out"; then
	pass "biobench tiou -r0: SIGINT after 1.5 s: Exiting on signal, the summary, exit 0 ($r)"
else fail "tiou + SIGINT: exit $rc: $r"; show; fi
# Ctrl-C pressed twice (t/io_uring's handler only sets its finish flag:
# it never dies of a second one), and Ctrl-C during the start (before the
# first I/O: the command watches signals from before it takes the device)
rc=0
"$BIN" tiou -p0 -O0 -d32 "$f" >"$TMP/out" 2>"$TMP/err" &
pid=$!
sleep 1.5
kill -INT "$pid"; sleep 0.01; kill -INT "$pid" 2>/dev/null || true
wait "$pid" || rc=$?
if [ "$rc" = 0 ] && grep -q "^Exiting on signal$" "$TMP/out" && grep -q "^Maximum IOPS=" "$TMP/out"; then
	pass "biobench tiou: SIGINT twice 10 ms apart: Exiting on signal, the summary, exit 0"
else fail "tiou + 2 x SIGINT: exit $rc"; show; fi
bad=""
for d in 0.05 0.1 0.2; do
	rc=0
	# (-r10: a lost signal fails the test instead of hanging it)
	"$BIN" tiou -p0 -O0 -d32 -r10 "$f" >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	sleep "$d"
	kill -INT "$pid"
	wait "$pid" || rc=$?
	{ [ "$rc" = 0 ] && grep -q "^Exiting on signal$" "$TMP/out"; } || bad="$bad $d s: exit $rc;"
done
[ -z "$bad" ] && pass "biobench tiou: SIGINT 50, 100, 200 ms after the start: Exiting on signal, exit 0" \
	|| { fail "tiou + early SIGINT:$bad"; show; }

# --- jobs with t/io_uring lines -----------------------------------------------
cat >"$TMP/job.json" <<EOF
{"name": "tiou: batches 1 vs 32", "tiou": "-p0 -O0 -d32 -s1 -c1 -r1 $f",
 "variants": {"A": {}, "B": {"tiou": "-s32 -c32"}}, "repeat": 2, "warmup": 0}
EOF
if expect_rc 0 ab --quiet "$TMP/job.json" && grep -q "tiou=-s32 -c32" "$TMP/out" &&
	grep -q "^verdict: " "$TMP/out"; then
	pass "biobench ab JOBFILE with a tiou line: ran, B labelled by its line"
else fail "ab with a tiou job"; show; fi
if expect_rc 0 ab --quiet --tiou "-p0 -O0 -d32 -r1 $f" --bio-cache off --a tiou="-s1 -c1" --b iodepth=16 \
	--repeat 2 --warmup 0 && grep -q "^verdict: " "$TMP/out"; then
	pass "biobench ab --tiou LINE --a tiou=... --b iodepth=16: ran"
else fail "ab --tiou"; show; fi
expect_rc 2 ab --quiet --tiou "-p0 -d0 $f" --a iodepth=1 && grep -q "tiou: -d: '0' is out of range" "$TMP/err" \
	&& pass "ab --tiou with a bad line: exit 2 naming tiou" || { fail "ab --tiou bad line"; show; }

# the daemon: allow-list on the line's FILE, the normalized job, a run
write_config
daemon_start || { finish; exit 1; }
job=$(sed 's/"repeat": 2/"repeat": 2, "quiescence": {"mode": "off"}/' "$TMP/job.json")
api POST /api/v1/jobs "$job"
if [ "$API_STATUS" = 201 ]; then
	id=$(api_get 'd["id"]')
	api GET "/api/v1/jobs/$id"
	if [ "$(api_get 'd["spec"]["target"]')" = "$f" ] &&
		[ "$(api_get 'd["spec"]["tiou"]["options"]["submit_batch"]')" = 1 ] &&
		[ "$(api_get 'd["spec"]["variants"]["B"]["tiou"]["options"]["submit_batch"]')" = 32 ] &&
		[ "$(api_get 'd["spec"]["tiou"]["options"]["model"]')" = none ]; then
		pass "biobenchd: the job's lines normalized with the options they became"
	else fail "biobenchd: normalized tiou job: $(cat "$API_BODY" | head -c 600)"; fi
	check_openapi "$API_BODY" GET "/api/v1/jobs/$id" 200 && pass "the tiou job matches openapi" || fail "tiou job openapi"
	st=$(wait_job "$id" 60)
	[ "$st" = done ] && pass "biobenchd ran the tiou job to the end" || fail "biobenchd tiou job: $st"
else fail "biobenchd: submit a tiou job: $API_STATUS $(cat "$API_BODY")"; fi
api POST /api/v1/jobs "{\"name\": \"x\", \"tiou\": \"-p0 -r1 $TMP/secret.txt\", \"variants\": {\"A\": {}, \"B\": {}}}"
[ "$API_STATUS" = 400 ] && [ "$(api_get 'd["error"]["field"]')" = tiou ] &&
	pass "biobenchd: a tiou line whose FILE is not allowed: 400 on tiou" \
	|| fail "biobenchd allow-list on a tiou line: $API_STATUS $(cat "$API_BODY")"
api POST /api/v1/jobs '{"name": "x", "tiou": "-p0 -d0 /x", "variants": {"A": {}, "B": {}}}'
[ "$API_STATUS" = 400 ] && grep -q "tiou: -d: '0' is out of range" "$API_BODY" &&
	pass "biobenchd: a bad line: 400 naming tiou" || fail "biobenchd bad line: $API_STATUS $(cat "$API_BODY")"
# several FILEs: several targets, each checked against the allow-list
g=$TMP/ro/file2.dat
cp "$f" "$g"
api POST /api/v1/jobs "{\"name\": \"two files\", \"tiou\": \"-p0 -O0 -d16 -n2 -r1 $f $TMP/secret.txt\", \"variants\": {\"A\": {}, \"B\": {}}}"
[ "$API_STATUS" = 400 ] && grep -q "secret.txt" "$API_BODY" &&
	pass "biobenchd: a line with a second FILE not allowed: 400 naming it" \
	|| fail "biobenchd two FILEs, one not allowed: $API_STATUS $(cat "$API_BODY")"
api POST /api/v1/jobs "{\"name\": \"two files\", \"tiou\": \"-p0 -O0 -d16 -n2 -r1 $f $g\", \"repeat\": 2, \"warmup\": 0, \"quiescence\": {\"mode\": \"off\"}, \"variants\": {\"A\": {}, \"B\": {\"tiou\": \"-s1 -c1\"}}}"
if [ "$API_STATUS" = 201 ]; then
	id=$(api_get 'd["id"]')
	st=$(wait_job "$id" 60)
	api GET "/api/v1/jobs/$id"
	[ "$st" = done ] && [ "$(api_get 'd["spec"]["target"]')" = "[\"$f\", \"$g\"]" ] &&
		pass "biobenchd ran a job on two FILEs (target an array in the normalized job)" \
		|| fail "biobenchd two-file job: $st $(head -c 400 "$API_BODY")"
else fail "biobenchd: submit a two-file tiou job: $API_STATUS $(cat "$API_BODY")"; fi
daemon_stop || fail "biobenchd did not stop cleanly"

# several targets in biobench ab's job file (an array)
cat >"$TMP/two.json" <<EOF
{"name": "two targets", "target": ["$f", "$g"], "workload": {"threads": 2, "direct": false, "runtime": "300ms", "model": "none"},
 "variants": {"A": {}, "B": {"iodepth": 8}}, "repeat": 2, "warmup": 0}
EOF
if expect_rc 0 ab "$TMP/two.json" && grep -q "^  target $f $g;" "$TMP/out"; then
	pass "biobench ab with \"target\": [two files]: ran on both"
else fail "ab with a target array"; show; fi
finish
