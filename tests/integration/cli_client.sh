#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# biobench's daemon client (submit, jobs, show, compare, watch, cancel,
# devices, host) against a real biobenchd, its exit codes (0 ok, 1 job
# failed / server error, 2 usage, 3 daemon unreachable), --json checked
# against schema/openapi.yaml; and the local `biobench ab` (job file and
# short form) through the same job runner and comparison printer.
#
# usage: cli_client.sh path/to/biobenchd path/to/biobench
source "$(dirname "$0")/daemon_lib.sh"
[ -n "$CLI" ] && [ -x "$CLI" ] || skip "no biobench binary given"

# A small A/B job: B pays 1.5 us per I/O, so it must come out slower (8
# pairs, up to 16 while open: one pair spoiled by a busy host leaves it
# significant).
cat >"$TMP/slow.json" <<'EOF'
{
  "name": "cli: inject 1500 ns in B",
  "target": "nop",
  "workload": { "rw": "randread", "bs": "4k", "iodepth": 32, "runtime": "200ms" },
  "variants": { "A": { "bio_cache": "all" }, "B": { "bio_cache": "all", "inject_ns": 1500 } },
  "repeat": 8, "order": "interleaved",
  "max_repeat": 16,
  "warmup": 1,
  "min_effect": 5
}
EOF
# Long enough to be caught running, and cancelled.
cat >"$TMP/long.json" <<'EOF'
{
  "name": "cli: long",
  "target": "nop",
  "workload": { "iodepth": 32, "runtime": "1s" },
  "variants": { "A": { "bio_cache": "off" }, "B": { "bio_cache": "all" } },
  "repeat": 30,
  "warmup": 0
}
EOF
cat >"$TMP/bad.json" <<'EOF'
{
  "name": "bad",
  "target": "nop",
  "workload": { "iodepth": 0 },
  "variants": { "A": { "bio_cache": "fast" }, "B": { "bogus": 1 } },
  "repeat": 0
}
EOF

# save_out NAME: keep $TMP/out and $TMP/err of the last expect_rc.
save_out() { cp "$TMP/out" "$TMP/$1.out"; cp "$TMP/err" "$TMP/$1.err"; }
show_out() { echo "  stdout:" >&2; sed 's/^/    /' "$TMP/out" >&2; echo "  stderr:" >&2; sed 's/^/    /' "$TMP/err" >&2; }

# --- usage errors need no daemon ---------------------------------------------
expect_rc 0 --help && for c in run ab submit jobs show compare watch cancel devices host; do
  grep -q "^  $c" "$TMP/out" || { fail "biobench --help lacks $c"; break; }
done && pass "biobench --help lists every command"
for c in submit jobs show compare watch cancel devices host ab run; do
  expect_rc 0 "$c" --help && grep -q "usage: biobench $c" "$TMP/out" \
    || { fail "$c --help"; continue; }
  if [ "$c" != run ] && [ "$c" != ab ]; then
    grep -q -- "--json" "$TMP/out" && grep -q -- "--server" "$TMP/out" \
      || fail "$c --help lacks --json/--server"
  fi
done
pass "every command has --help"
expect_rc 0 help watch && grep -q "usage: biobench watch" "$TMP/out" && pass "biobench help CMD" || fail "help CMD"
expect_rc 2 frobnicate && grep -q "unknown command" "$TMP/err" && pass "unknown command: exit 2" || fail "unknown command"
expect_rc 2 show && grep -q "missing ID" "$TMP/err" && pass "show without ID: exit 2" || fail "show without ID"
expect_rc 2 show abc && grep -q "not a job id" "$TMP/err" && pass "show abc: exit 2" || fail "show abc"
expect_rc 2 show 1 2 && pass "show with two ids: exit 2" || fail "show 1 2"
expect_rc 2 jobs --limit 0 && grep -q -- "--limit" "$TMP/err" && pass "jobs --limit 0: exit 2" || fail "jobs --limit 0"
expect_rc 2 jobs --state sleeping && grep -q "queued, running, done" "$TMP/err" \
  && pass "jobs --state sleeping: exit 2 listing the states" || fail "jobs --state"
expect_rc 2 jobs --wait && grep -q "unknown option '--wait'" "$TMP/err" && pass "jobs --wait: unknown option" || fail "jobs --wait"
expect_rc 2 submit "$TMP/does-not-exist.json" && grep -q "cannot open" "$TMP/err" \
  && pass "submit of a missing file: exit 2" || fail "submit missing file"
expect_rc 2 --server ftp://127.0.0.1:1 jobs && grep -q "not an http" "$TMP/err" \
  && pass "--server ftp://: exit 2" || fail "--server ftp"
expect_rc 2 jobs --token-file "$TMP/no-token" && grep -q "token-file" "$TMP/err" \
  && pass "unreadable --token-file: exit 2" || fail "--token-file missing"
expect_rc 2 --server http://127.0.0.1:1 ab "$TMP/slow.json" && pass "ab refuses --server" || fail "ab --server"

expect_rc 0 devices --local --json && [ "$(jget "$TMP/out" '"devices" in d')" = True ] \
  && pass "devices --local: this host's devices without a daemon" || { fail "devices --local"; show_out; }

# --- unreachable daemon: exit 3 with the hint -------------------------------
port=$(free_port)
expect_rc 3 --server "http://127.0.0.1:$port" jobs \
  && grep -q "cannot reach biobenchd at http://127.0.0.1:$port" "$TMP/err" \
  && grep -q "biobenchd --foreground" "$TMP/err" \
  && pass "no daemon (--server on a free port): exit 3 with the hint" || { fail "unreachable"; show_out; }
BIOBENCH_SERVER="http://127.0.0.1:$port" expect_rc 3 host \
  && pass "no daemon (BIOBENCH_SERVER): exit 3" || fail "BIOBENCH_SERVER unreachable"

# --- a real daemon -------------------------------------------------------------
daemon_start || { fail "biobenchd did not start"; finish; exit 1; }
export BIOBENCH_SERVER="http://127.0.0.1:$DPORT"

# submit --wait: id, progress, the comparison, verdict slower, exit 0
if expect_rc 0 submit --wait --interval 0.1 "$TMP/slow.json"; then
  save_out wait
  id=$(sed -n 's/^job \([0-9]*\) submitted$/\1/p' "$TMP/wait.out")
  [ -n "$id" ] && pass "submit --wait announces job $id" || fail "submit --wait: no id line"
  grep -q "^verdict: slower$" "$TMP/wait.out" && pass "submit --wait prints the verdict (slower)" \
    || { fail "submit --wait verdict"; show_out; }
  grep -q "^job $id done$" "$TMP/wait.out" && pass "submit --wait ends with the job's state" || fail "submit --wait end line"
  grep -q "^job $id: run [0-9]*/[0-9]*" "$TMP/wait.out" && pass "submit --wait (not a tty): plain progress lines" \
    || fail "submit --wait progress lines"
  grep -q $'\r' "$TMP/wait.out" && fail "progress bar escapes when not a tty" || pass "no carriage returns when not a tty"
  # the IOPS shown are the last finished run's, named with its variant:
  # interleaved A B A B ... (the job says so), so run k is A when k is odd
  bad=$(sed -n 's/.*last run \([0-9]*\) (\([AB]\)[,)].*/\1 \2/p' "$TMP/wait.out" \
        | awk '{ if (($1 % 2 == 1) != ($2 == "A")) print }')
  grep -q "last run [0-9]* ([AB]" "$TMP/wait.out" && [ -z "$bad" ] \
    && pass "progress lines name the variant of the run whose IOPS they show" \
    || { fail "progress lines: wrong variant for the IOPS ($bad)"; show_out; }
else
  fail "submit --wait"; show_out; id=
fi
id=${id:-1}

# submit without --wait prints the id alone; --json the API's answer
if expect_rc 0 submit --json "$TMP/slow.json"; then
  cp "$TMP/out" "$TMP/created.json"
  check_openapi "$TMP/created.json" POST /api/v1/jobs 201 && pass "submit --json matches openapi (201)" \
    || fail "submit --json schema"
  id2=$(jget "$TMP/created.json" 'd["id"]')
else fail "submit --json"; id2=; fi
if expect_rc 0 submit - <"$TMP/slow.json" && grep -qx '[0-9][0-9]*' "$TMP/out"; then
  id3=$(cat "$TMP/out"); pass "submit - (stdin) prints the id alone ($id3)"
else fail "submit -"; id3=; fi

# jobs
if expect_rc 0 jobs; then
  head -n1 "$TMP/out" | grep -q "ID.*NAME.*STATE.*PROGRESS.*CHANGE.*VERDICT.*AGE" \
    && pass "jobs: table header" || fail "jobs header: $(head -n1 "$TMP/out")"
  grep -Eq "^ *$id +cli: inject 1500 ns in B +done +([0-9]+)/\1 100% +-[0-9.]+% +slower +[0-9]" "$TMP/out" \
    && pass "jobs lists job $id done, n/n runs, its (negative) change, slower" || { fail "jobs row of $id"; show_out; }
else fail "jobs"; fi
expect_rc 0 jobs --json && cp "$TMP/out" "$TMP/jobs.json" \
  && check_openapi "$TMP/jobs.json" GET /api/v1/jobs 200 && pass "jobs --json matches openapi" || fail "jobs --json"
expect_rc 0 jobs --state done --limit 1 && [ "$(grep -c 'done' "$TMP/out")" = 1 ] \
  && pass "jobs --state done --limit 1: one row" || { fail "jobs --state --limit"; show_out; }
expect_rc 0 jobs --state interrupted && grep -q "no jobs in state interrupted" "$TMP/out" \
  && pass "jobs --state interrupted: none" || fail "jobs --state interrupted"

# show
if expect_rc 0 show "$id"; then
  grep -q "^job $id: cli: inject 1500 ns in B" "$TMP/out" && grep -q "state *done, verdict slower" "$TMP/out" \
    && grep -q "B: bio_cache=all inject_ns=1500" "$TMP/out" && grep -q "^  host " "$TMP/out" \
    && grep -q "^verdict: slower" "$TMP/out" \
    && pass "show: state, verdict, variants, host and the comparison" || { fail "show text"; show_out; }
else fail "show $id"; fi
expect_rc 0 show --json "$id" && cp "$TMP/out" "$TMP/show.json" \
  && check_openapi "$TMP/show.json" GET "/api/v1/jobs/$id" 200 \
  && [ "$(jget "$TMP/show.json" 'd["verdict"]')" = slower ] && pass "show --json matches openapi" || fail "show --json"

# compare
if expect_rc 0 compare "$id"; then
  save_out compare
  ok=1
  for want in "median IO/s" "change" "[0-9.]*% \(sequential \)\?CI" "p-value" "TOST p" \
      "statistics: group-sequential t" "measured runs *[0-9][0-9]* *[0-9][0-9]*" "overrides" \
      "verdict *slower" "B vs A: B is .*slower than A" "^verdict: slower"; do
    grep -q -- "$want" "$TMP/out" || { ok=0; echo "  compare lacks: $want" >&2; }
  done
  [ $ok = 1 ] && pass "compare: medians, change, CI, p-value, repetitions, verdict" || { fail "compare text"; show_out; }
else fail "compare $id"; fi
expect_rc 0 compare --json "$id" && cp "$TMP/out" "$TMP/compare.json" \
  && check_openapi "$TMP/compare.json" GET "/api/v1/jobs/$id/compare" 200 \
  && [ "$(jget "$TMP/compare.json" 'd["compare"]["verdict"]')" = slower ] \
  && pass "compare --json matches openapi, verdict slower" || fail "compare --json"

# watch a running job (not a tty): progress lines, then the verdict
[ -n "$id2" ] || id2=$id
if expect_rc 0 watch --interval 0.1 "$id2"; then
  n=$(grep -c "^job $id2: run [0-9]*/[0-9]*" "$TMP/out" || true)
  [ "$n" -ge 2 ] && pass "watch: $n progress lines while it runs" || { fail "watch: $n progress lines"; show_out; }
  tail -n1 "$TMP/out" | grep -q "^job $id2 done" && grep -q "^verdict: slower" "$TMP/out" \
    && pass "watch ends with the verdict and the job's state" || { fail "watch end"; show_out; }
else fail "watch $id2"; show_out; fi
# watch --json of a finished job: one line, the job document
if expect_rc 0 watch --json "$id"; then
  [ "$(wc -l <"$TMP/out")" = 1 ] && check_openapi "$TMP/out" GET "/api/v1/jobs/$id" 200 \
    && pass "watch --json of a finished job: one job document (openapi)" || fail "watch --json"
else fail "watch --json"; fi
[ -n "$id3" ] && { expect_rc 0 watch "$id3" || fail "watch $id3"; }

# cancel: a running submit --wait ends with exit 1. The output file exists
# before the client starts: the shell opens the redirection in the child, and
# a poll that runs first must not die (set -e) on a missing file.
: >"$TMP/long.out"
"$BIN" submit --wait --interval 0.1 "$TMP/long.json" >"$TMP/long.out" 2>"$TMP/long.err" &
wpid=$!
lid=
for _ in $(seq 1 600); do
  lid=$(sed -n 's/^job \([0-9]*\) submitted$/\1/p' "$TMP/long.out" 2>/dev/null || true)
  [ -n "$lid" ] && grep -q "^job $lid: run" "$TMP/long.out" && break
  sleep 0.1
done
if [ -n "$lid" ]; then
  expect_rc 0 cancel "$lid" && grep -Eq "job $lid: (cancelling|cancelled)" "$TMP/out" \
    && pass "cancel of running job $lid" || { fail "cancel $lid"; show_out; }
  rc=0; wait "$wpid" || rc=$?
  [ "$rc" = 1 ] && grep -q "^job $lid cancelled" "$TMP/long.out" \
    && pass "submit --wait of a cancelled job: exit 1, says cancelled" \
    || { fail "submit --wait after cancel: exit $rc"; sed 's/^/    /' "$TMP/long.out" "$TMP/long.err" >&2; }
  expect_rc 1 watch "$lid" && grep -q "^job $lid cancelled" "$TMP/out" \
    && pass "watch of a cancelled job: exit 1" || fail "watch cancelled"
  expect_rc 1 cancel "$lid" && grep -q "already finished" "$TMP/err" \
    && pass "cancel of a finished job: exit 1 with the API's message" || fail "cancel twice"
else
  fail "submit --wait of the long job printed no id"; kill "$wpid" 2>/dev/null || true
fi
# cancel --json of a queued job (the queue is empty: submit two, cancel the 2nd)
if expect_rc 0 submit "$TMP/long.json" && a=$(cat "$TMP/out") && expect_rc 0 submit "$TMP/long.json"; then
  b=$(cat "$TMP/out")
  expect_rc 0 cancel --json "$b" && cp "$TMP/out" "$TMP/cancel.json" \
    && check_openapi "$TMP/cancel.json" POST "/api/v1/jobs/$b/cancel" 200 \
    && [ "$(jget "$TMP/cancel.json" 'd["state"]')" = cancelled ] \
    && pass "cancel --json of a queued job: cancelled (openapi)" || { fail "cancel --json queued"; show_out; }
  expect_rc 0 cancel "$a" || fail "cancel $a"
else fail "submit two long jobs"; fi

# server errors: exit 1 with error.message (and field)
expect_rc 1 show 999999 && grep -q "no job 999999" "$TMP/err" && pass "show of an unknown id: exit 1, no job 999999" \
  || { fail "show 999999"; show_out; }
expect_rc 1 compare 999999 && grep -q "no job 999999" "$TMP/err" && pass "compare of an unknown id: exit 1" || fail "compare 999999"
expect_rc 1 watch 999999 && pass "watch of an unknown id: exit 1" || fail "watch 999999"
# an invalid job is exit 2 for submit as for ab (below) and calibrate
expect_rc 2 submit "$TMP/bad.json" && grep -q 'variants.A.bio_cache: "fast" is not one of' "$TMP/err" \
  && grep -q "repeat: 0 is out of range" "$TMP/err" && grep -q "variants.B.bogus" "$TMP/err" \
  && pass "submit of a bad job: exit 2 (as ab), every error with its field path" || { fail "submit bad"; show_out; }
echo '{"name":"x","target":"/etc/passwd","variants":{"A":{},"B":{}}}' >"$TMP/forbidden.json"
expect_rc 1 submit "$TMP/forbidden.json" && grep -q "field: target\|^biobench submit: target" "$TMP/err" \
  && pass "submit of a target outside the allow-list: exit 1 naming the field" || { fail "submit forbidden"; show_out; }

# devices, host
expect_rc 0 devices && head -n1 "$TMP/out" | grep -q "NAME.*PATH.*SIZE" && pass "devices: table" \
  || { fail "devices"; show_out; }
expect_rc 0 devices --json && cp "$TMP/out" "$TMP/devices.json" \
  && check_openapi "$TMP/devices.json" GET /api/v1/devices 200 && pass "devices --json matches openapi" || fail "devices --json"
expect_rc 0 host && grep -q "^daemon *biobenchd" "$TMP/out" && grep -q "^kernel *Linux" "$TMP/out" \
  && grep -q "^boot id *$(cat /proc/sys/kernel/random/boot_id)" "$TMP/out" \
  && pass "host: kernel, boot id and daemon" || { fail "host"; show_out; }
expect_rc 0 host --json && cp "$TMP/out" "$TMP/host.json" \
  && check_openapi "$TMP/host.json" GET /api/v1/host 200 && pass "host --json matches openapi" || fail "host --json"

# --server given explicitly (and on the command) wins over the environment
BIOBENCH_SERVER="http://127.0.0.1:$port" expect_rc 0 --server "http://127.0.0.1:$DPORT" host \
  && BIOBENCH_SERVER="http://127.0.0.1:$port" expect_rc 0 host --server "http://127.0.0.1:$DPORT/" \
  && pass "--server (global or per command) wins over BIOBENCH_SERVER" || fail "--server precedence"

# stopped daemon: exit 3
daemon_stop || true
expect_rc 3 jobs && grep -q "cannot reach biobenchd" "$TMP/err" && pass "stopped daemon: exit 3" || fail "stopped daemon"

# a daemon with a token: 401 without it (exit 1), fine with --token-file
printf 'cli-token-%s\n' "$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')" >"$TMP/token"
chmod 600 "$TMP/token"
if daemon_start --token-file "$TMP/token"; then
  export BIOBENCH_SERVER="http://127.0.0.1:$DPORT"
  expect_rc 1 jobs && pass "token daemon without a token: exit 1 ($(head -c 80 "$TMP/err"))" || fail "no token"
  expect_rc 0 jobs --token-file "$TMP/token" && pass "--token-file sends the bearer token" || { fail "--token-file"; show_out; }
  BIOBENCH_TOKEN_FILE="$TMP/token" expect_rc 0 host && pass "BIOBENCH_TOKEN_FILE" || fail "BIOBENCH_TOKEN_FILE"
  daemon_stop || true
else
  fail "biobenchd with a token did not start"
fi

# --- local ab ------------------------------------------------------------------
if expect_rc 0 ab "$TMP/slow.json"; then
  grep -Eq "run ([0-9]+)/\1 +B round [0-9]+ " "$TMP/out" && pass "ab JOBFILE: a progress line per run" || { fail "ab progress"; show_out; }
  grep -q "^verdict: slower$" "$TMP/out" && grep -q "B vs A: B is .*slower than A" "$TMP/out" \
    && grep -q "median IO/s" "$TMP/out" && pass "ab JOBFILE: inject_ns 1500 in B comes out slower" \
    || { fail "ab JOBFILE verdict"; show_out; }
else fail "ab JOBFILE"; show_out; fi
if expect_rc 0 ab --json --quiet "$TMP/slow.json"; then
  [ "$(jget "$TMP/out" 'd["verdict"]')" = slower ] \
    && [ "$(jget "$TMP/out" 'd["comparisons"][0]["variant"]')" = B ] \
    && [ "$(jget "$TMP/out" 'len(d["variants"]["A"]["values"]) >= 8')" = True ] \
    && pass "ab --json: the job runner's document, verdict slower" || { fail "ab --json"; show_out; }
  [ -s "$TMP/err" ] && fail "ab --json --quiet wrote to stderr" || true
else fail "ab --json"; fi
expect_rc 0 ab - <"$TMP/slow.json" && grep -q "^verdict: slower" "$TMP/out" && pass "ab - (stdin)" || fail "ab -"
# the host's noise in one line, next to the change (the demo's last word)
grep -qE "^host noise: A's [0-9]+ runs spread ±[0-9.]+% \(CV; .* \.\. .*\) against a change of [-+][0-9.]+%: the change " "$TMP/out" \
  && pass "ab: one line on the host's noise next to the change" || { fail "ab: no host noise line"; show_out; }
if expect_rc 2 ab "$TMP/bad.json"; then
  ok=1
  for want in 'repeat: 0 is out of range' 'workload.iodepth' 'variants.A.bio_cache: "fast" is not one of' 'variants.B.bogus'; do
    grep -q -- "$want" "$TMP/err" || { ok=0; echo "  ab bad job lacks: $want" >&2; }
  done
  [ $ok = 1 ] && pass "ab with a bad job: exit 2 listing every field path" || { fail "ab bad job errors"; show_out; }
else fail "ab bad job exit"; show_out; fi
echo '{"name": "x", ' >"$TMP/broken.json"
expect_rc 2 ab "$TMP/broken.json" && grep -q "invalid JSON" "$TMP/err" && pass "ab with broken JSON: exit 2" || fail "ab broken JSON"
expect_rc 2 ab && pass "ab without arguments: exit 2" || fail "ab without arguments"
expect_rc 2 ab --runtime 1s nop && grep -q -- "--a KEY=VAL" "$TMP/err" && pass "ab with run options but no variants: exit 2" \
  || fail "ab no variants"

# the short form builds a job and takes the same path
if expect_rc 0 ab --runtime 100ms --iodepth 32 --a bio_cache=off --b bio_cache=all --b inject_ns=1500 \
     --repeat 10 --warmup 0 --min-effect 5 nop; then
  grep -q "B: bio_cache=all inject_ns=1500" "$TMP/out" && grep -q "^verdict: slower" "$TMP/out" \
    && grep -q "median IO/s" "$TMP/out" \
    && pass "ab --a/--b short form: side by side, inject_ns in B slower" || { fail "ab short form output"; show_out; }
else fail "ab short form"; show_out; fi
expect_rc 0 ab --json --runtime 100ms --a iodepth=8 --b iodepth=16 --repeat 2 --warmup 0 nop \
  && [ "$(jget "$TMP/out" 'd["runs_done"]')" = 4 ] && pass "ab short form --json (4 runs)" || { fail "ab short --json"; show_out; }
expect_rc 2 ab --runtime 100ms --a bio_cache=fast --b bio_cache=all nop && grep -q "off, task, irq, irq_fast, all" "$TMP/err" \
  && pass "ab short form: bad value, exit 2" || fail "ab short bad value"
expect_rc 2 ab --runtime 100ms --a frob=1 --b bio_cache=all nop && grep -q "unknown option 'frob'" "$TMP/err" \
  && pass "ab short form: unknown key, exit 2" || fail "ab short unknown key"
expect_rc 2 ab --runtime 100ms --a bio_cache=off --b bio_cache=all --repeat 1 nop && pass "ab --repeat 1: exit 2" || fail "ab --repeat 1"

# sysfs knobs in a local ab: applied for B, restored after each run and on SIGINT
if [ "$(id -u)" = 0 ] && command -v losetup >/dev/null && truncate -s 64m "$TMP/loop.img" \
   && LOOP=$(losetup -f --show "$TMP/loop.img" 2>/dev/null); then
  cleanup_hooks+=("losetup -d $LOOP")
  knob=/sys/block/$(basename "$LOOP")/queue/nomerges
  orig=$(cat "$knob")
  new=$(( orig == 1 ? 2 : 1 ))
  cat >"$TMP/knob.json" <<EOF
{"name": "knob", "target": "$LOOP", "workload": {"runtime": "1s", "iodepth": 4},
 "variants": {"A": {}, "B": {"sysfs.nomerges": $new}}, "repeat": 10, "warmup": 0}
EOF
  "$BIN" ab --quiet "$TMP/knob.json" >"$TMP/knob.out" 2>"$TMP/knob.err" &
  apid=$!
  seen=
  for _ in $(seq 1 300); do
    [ "$(cat "$knob")" = "$new" ] && { seen=1; break; }
    sleep 0.1
  done
  [ -n "$seen" ] && pass "ab applies sysfs.nomerges=$new for B" || fail "sysfs knob never applied"
  kill -INT "$apid"
  rc=0; wait "$apid" || rc=$?
  [ "$rc" = 1 ] && grep -q "cancelled" "$TMP/knob.err" && pass "ab on SIGINT: exit 1, cancelled" \
    || { fail "ab SIGINT: exit $rc"; sed 's/^/    /' "$TMP/knob.err" >&2; }
  [ "$(cat "$knob")" = "$orig" ] && pass "ab on SIGINT restored nomerges to $orig" || fail "nomerges left at $(cat "$knob")"
  sed -i 's/"repeat": 10/"repeat": 2/; s/"1s"/"200ms"/' "$TMP/knob.json"
  expect_rc 0 ab "$TMP/knob.json" && [ "$(cat "$knob")" = "$orig" ] && grep -q "sysfs.nomerges=$new" "$TMP/out" \
    && pass "ab with a knob runs to the end and leaves nomerges at $orig" || { fail "ab knob run"; show_out; }
else
  echo "  (sysfs knob checks skipped: need root, losetup and a free loop device)"
fi

finish
