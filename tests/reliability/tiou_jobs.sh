#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# tiou_jobs.sh BIOBENCHD BIOBENCH - a job carrying a t/io_uring line
# ("tiou") gets exactly the daemon's restrictions of any job (issue 31),
# over real HTTP on loopback:
#   - biobench's long options in a line (--cpus, --max-memory, --rw with
#     --allow-write, --cpus=N, in a variant's line too) are a 400 naming
#     the line's field and the option; --flavor, t/io_uring's own, is
#     taken; a job stored with one (edited into the database) is not run;
#   - unknown options (-Z1, --bogus): 400 naming the line;
#   - a FILE that resolves through a symlink outside the allow-list: 400
#     on the line naming the FILE and where it leads, the file outside
#     untouched; a FILE outside the allow-list: the same;
#   - writes need the job's own "allow_write" (400 on workload.allow_write)
#     and allow_write for the FILE in the configuration (400 on the line);
#   - CPUs: "cpus" on an HTTP CPU is a 400; -P1 (NUMA placement by the
#     engine, which may land on an HTTP CPU and cannot go with the bench
#     CPUs the daemon gives a job) is a 400 on the line;
#   - memory: -d/-b beyond max_run_memory is a 400 naming the line;
#   - the daemon keeps serving throughout, and a good line runs to done.
source "$(dirname "$0")/../integration/daemon_lib.sh"
cleanup_hooks+=('[ -z "$DPID" ] || daemon_kill $DPID')
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (one for HTTP, one for jobs)"

f=$TMP/ro/file.dat
mkdir -p "$TMP/ro" "$TMP/rw"
dd if=/dev/urandom of="$f" bs=1M count=8 status=none
ln -s ../secret.txt "$TMP/ro/link.dat"

write_config
sed -i "s/^\[server\]\$/[server]\nmax_run_memory = 256m/" "$DCONF"
daemon_start || { finish; exit 1; }
sum0=$(sha256sum <"$TMP/secret.txt") # daemon_start's web root wrote it

# refused STATUS FIELD WORDS LINE [VARIANT_B_JSON [WORKLOAD_JSON]]: a job
# with that line is refused with STATUS on FIELD, the message holding
# every |-separated word of WORDS
refused() {
  local want=$1 field=$2 words=$3 line=$4 vb=${5:-"{}"} wl=${6:-}
  local ok=1 doc
  doc="{\"name\": \"t\", \"tiou\": \"$line\", ${wl:+\"workload\": $wl, }\"variants\": {\"A\": {}, \"B\": $vb}}"
  api POST /api/v1/jobs "$doc"
  local msg
  msg=$(api_get 'd["error"]["message"]')
  for w in ${words//|/ }; do grep -qF -- "$w" <<<"$msg" || ok=0; done
  if [ "$API_STATUS" = "$want" ] && [ "$(api_get 'd["error"]["field"]')" = "$field" ] && [ "$ok" = 1 ]; then
    pass "$line ${vb#\{\}} ${wl}: $want on $field: $(head -c 200 <<<"$msg")"
  else
    fail "$line $vb $wl: wanted $want on $field with '$words': $API_STATUS $(head -c 500 "$API_BODY")"
  fi
  check_openapi "$API_BODY" POST /api/v1/jobs "$API_STATUS" >/dev/null || fail "answer not in openapi: $(cat "$API_BODY")"
}

# --- biobench's long options ------------------------------------------------
refused 400 tiou "--cpus|t/io_uring's options" "-p0 -O0 -r1 $f --cpus 0"
refused 400 tiou "--cpus" "-p0 -O0 -r1 $f --cpus=1"
refused 400 tiou "--max-memory" "-p0 -O0 -r1 $f --max-memory 1T"
refused 400 tiou "--rw" "-p0 -O0 -r1 $f --rw randwrite --allow-write"
refused 400 tiou "--allow-write" "-p0 -O0 -r1 --allow-write $f"
refused 400 variants.B.tiou "--bio-cache" "-p0 -O0 -r1 $f" '{"tiou": "-s1 --bio-cache off"}'

# --- unknown options ----------------------------------------------------------
refused 400 tiou "-Z|unknown option" "-p0 -O0 -r1 -Z1 $f"
refused 400 tiou "--bogus|unknown option" "-p0 -O0 -r1 $f --bogus"
refused 400 variants.B.tiou "-Q|unknown option" "-p0 -O0 -r1 $f" '{"tiou": "-Q4"}'

# --- targets -------------------------------------------------------------------
refused 400 tiou "FILE|$TMP/ro/link.dat|resolves to $TMP/secret.txt|allow-list" "-p0 -O0 -r1 $TMP/ro/link.dat"
refused 400 tiou "FILE|$TMP/secret.txt|allow-list" "-p0 -O0 -r1 $TMP/secret.txt"
refused 400 tiou "FILE|$TMP/ro/link.dat" "-p0 -O0 -n2 -r1 $f $TMP/ro/link.dat"
[ "$(sha256sum <"$TMP/secret.txt")" = "$sum0" ] && pass "the file behind the symlink kept its bytes" \
  || fail "the file behind the symlink changed"

# --- writes: the job's own permission, then the configuration's -------------------
refused 400 workload.allow_write "allow_write" "-p0 -O0 -r1 $TMP/rw/w.dat" '{}' '{"rw": "randwrite", "size": 1048576}'
api POST /api/v1/jobs "{\"name\": \"t\", \"tiou\": \"-p0 -O0 -r1 $f\", \"workload\": {\"rw\": \"randwrite\", \"allow_write\": true}, \"variants\": {\"A\": {}, \"B\": {}}}"
[ "$API_STATUS" = 400 ] && [ "$(api_get 'd["error"]["field"]')" = tiou ] &&
  grep -q "read-only" "$API_BODY" && pass "a write on a read-only allowed FILE: 400 on tiou (allowed read-only)" \
  || fail "write on a read-only FILE: $API_STATUS $(cat "$API_BODY")"

# --- CPUs --------------------------------------------------------------------
refused 400 workload.cpus "CPU 0|http_cpus" "-p0 -O0 -r1 $f" '{}' '{"cpus": [0]}'
refused 400 variants.B.cpus "CPU 0|http_cpus" "-p0 -O0 -r1 $f" '{"cpus": [0]}'

# --- memory ------------------------------------------------------------------
refused 400 tiou "max_run_memory 256|iodepth" "-p0 -O0 -d4096 -b1048576 -r1 $f"
refused 400 variants.B.tiou "max_run_memory 256" "-p0 -O0 -r1 $f" '{"tiou": "-d4096 -b1048576"}'

# -P1 (NUMA placement by the engine: maybe on the HTTP CPU, and never
# with the bench CPUs the daemon gives a job without "cpus")
refused 400 tiou "numa_place|-P1|http_cpus|bench_cpus" "-p0 -O0 -P1 -r1 $f"
refused 400 variants.B.tiou "-P1" "-p0 -O0 -r1 $f" '{"tiou": "-P1"}'
refused 400 workload.numa_place "-P1" "-p0 -O0 -r1 $f" '{}' '{"numa_place": true}'

# --- good lines run ----------------------------------------------------------
# with --flavor, t/io_uring's own long option
id=$(submit_job "{\"name\": \"good\", \"tiou\": \"-p0 -O0 -d16 -r1 $f --flavor current\", \"repeat\": 2, \"warmup\": 0, \"quiescence\": {\"mode\": \"off\"}, \"variants\": {\"A\": {}, \"B\": {\"tiou\": \"-s1 -c1\"}}}") &&
  st=$(wait_job "$id" 60) && [ "$st" = done ] &&
  pass "a good line (--flavor current) ran to done on the bench CPU" ||
  fail "good tiou job: ${st:-not submitted} $(cat "$API_BODY" | head -c 300)"
api GET /api/v1/health
[ "$API_STATUS" = 200 ] && pass "the daemon kept serving" || fail "health: $API_STATUS"

# a job stored with a long option in its line (written into the database
# behind the daemon's back, as one stored before the rule): not run
daemon_stop || fail "biobenchd did not stop cleanly"
id=$(sqlite3 "$DDB" "select max(id) from jobs")
/usr/bin/python3 - "$DDB" "$id" <<'PY' 2>"$TMP/sqlite.err" || fail "cannot store the edited job: $(cat "$TMP/sqlite.err")"
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
spec = json.loads(db.execute("select spec from jobs where id = ?", (int(sys.argv[2]),)).fetchone()[0])
spec["tiou"] = spec["tiou"]["line"].replace("--flavor current", "--cpus 0")
for v in spec["variants"].values():
    if isinstance(v.get("tiou"), dict):
        v["tiou"] = v["tiou"]["line"]
db.execute("insert into jobs (name, target, state, created_ms, runs_planned, spec) "
           "select name, target, 'queued', created_ms, runs_planned, ? from jobs where id = ?",
           (json.dumps(spec), int(sys.argv[2])))
db.commit()
PY
bad=$(sqlite3 "$DDB" "select max(id) from jobs")
daemon_start || { finish; exit 1; }
if [ "$bad" != "$id" ]; then
  st=$(wait_job "$bad" 30)
  api GET "/api/v1/jobs/$bad"
  [ "$st" = failed ] && grep -q "not run: tiou: --cpus" "$API_BODY" &&
    pass "a stored job with --cpus in its line is not run: $(api_get 'd["error"]' | head -c 160)" ||
    fail "stored job with a long option: $st $(head -c 400 "$API_BODY")"
fi
daemon_stop || fail "biobenchd did not stop cleanly"
finish
