#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# store_faults.sh BIOBENCHD [BIOBENCH] - the store's failures are seen and
# said (issue 12 #20); before, a job stayed "running" for ever and health
# said ok:
#  1. the database files deleted under the running daemon (sqlite writes
#     on into the unlinked inode, lost at exit): health answers 503 naming
#     the deletion, the running job fails with that reason before its next
#     run, submissions get 503, /metrics has biobench_store_up 0;
#  2. the database's filesystem (a 4 MiB tmpfs) fills up while a job
#     runs: the job fails ("full"), health answers 503 while there is no
#     room for the daemon's reserve, a queued job waits; once space is
#     back health is ok and the queued job runs, without a restart;
#  3. every write fails (the database and its WAL made immutable with
#     chattr +i: EPERM, an I/O error to sqlite): the running job fails and
#     its end cannot be recorded: the API shows it failed ("not recorded"),
#     health and submissions answer 503, queued jobs wait; once writable
#     again the end is recorded without a restart and the next job runs.
# Needs root for 2 (tmpfs) and 3 (chattr, on a filesystem that has it);
# sqlite3.  About 60 s.
source "$(dirname "$0")/../integration/daemon_lib.sh"

command -v sqlite3 >/dev/null || skip "sqlite3 is not installed"
LONG='{"name":"long","target":"nop","workload":{"runtime":"300ms"},"variants":{"A":{},"B":{}},"repeat":60,"warmup":0}'
NOPJOB='{"name":"small","target":"nop","workload":{"runtime":"100ms"},"variants":{"A":{},"B":{}},"repeat":2,"warmup":0}'
submit() { api POST /api/v1/jobs "$1"; api_get 'd["id"]'; }
# wait_runs ID N: the job is running with at least N runs done (30 s)
wait_runs() {
  for _ in $(seq 300); do
    api GET "/api/v1/jobs/$1"
    [ "$(api_get 'd["state"] == "running" and d["runs_done"] >= '"$2")" = true ] && return 0
    sleep 0.1
  done
  return 1
}
# health_503 WORDS: health answers 503 with WORDS (a regex) within 15 s
health_503() {
  for _ in $(seq 150); do
    api GET /api/v1/health
    [ "$API_STATUS" = 503 ] && grep -qiE "$1" <<<"$(api_get 'd["error"]["message"]')" && return 0
    sleep 0.1
  done
  return 1
}

write_config
DDB=$TMP/del/biobench.db
mkdir -p "$TMP/del"
daemon_start || { finish; exit 1; }

# --- 1. the database deleted -----------------------------------------------------
id=$(submit "$LONG")
wait_runs "$id" 1 || fail "job $id does not get going"
rm -f "$DDB" "$DDB-wal" "$DDB-shm"
if health_503 "deleted"; then pass "database deleted: health 503: $(api_get 'd["error"]["message"]')"
else fail "database deleted: health $API_STATUS $(cat "$API_BODY")"; fi
st=$(WAIT_S=15 wait_state "$id" failed done cancelled interrupted) || true
err=$(api_get 'd["error"]')
[ "$st" = failed ] && grep -q deleted <<<"$err" && pass "the running job failed: $err" ||
  fail "job $id with its database deleted: $st $err"
api POST /api/v1/jobs "$NOPJOB"
[ "$API_STATUS" = 503 ] && pass "submission: 503 $(api_get 'd["error"]["code"]')" || fail "submission with the database deleted: $API_STATUS"
api GET /metrics
grep -q '^biobench_store_up{host="[^"]*"} 0$' "$API_BODY" && pass "metrics: biobench_store_up 0" || fail "metrics: $(grep store "$API_BODY")"
daemon_alive && pass "daemon alive" || fail "daemon died"
daemon_stop || fail "daemon stop: exit $?"

# --- 2. a full filesystem -------------------------------------------------------------
if [ "$(id -u)" != 0 ]; then
  echo "  (full filesystem: needs root for a tmpfs; skipped)"
else
  DBFS=$TMP/dbfs
  mkdir -p "$DBFS"
  if mount -t tmpfs -o size=4m tmpfs "$DBFS"; then
    cleanup_hooks+=('[ -z "$DPID" ] || daemon_kill $DPID' "umount $DBFS 2>/dev/null")
    DDB=$DBFS/biobench.db
    daemon_start || { finish; exit 1; }
    id=$(submit '{"name":"fills the disk","target":"nop","workload":{"runtime":"100ms","lat":"io"},
      "variants":{"A":{},"B":{},"C":{},"D":{}},"repeat":200,"warmup":0}')
    id2=$(submit "$NOPJOB")
    wait_runs "$id" 2 || fail "job $id does not get going"
    dd if=/dev/zero of="$DBFS/filler" bs=16k status=none 2>/dev/null || true
    echo "  filesystem full ($(df --output=avail -k "$DBFS" | tail -1 | tr -d ' ') KiB free); job $id running"
    st=$(WAIT_S=60 wait_state "$id" failed done cancelled interrupted) || true
    err=$(api_get 'd["error"]')
    [ "$st" = failed ] && grep -qi full <<<"$err" && pass "job $id failed: $err" || fail "job $id with the disk full: $st $err"
    if health_503 "full"; then pass "health 503 while the filesystem is full: $(api_get 'd["error"]["message"]')"
    else fail "health with the filesystem full: $API_STATUS $(cat "$API_BODY")"; fi
    sleep 6   # the scheduler looks at the queue every 5 s
    api GET "/api/v1/jobs/$id2"
    [ "$(api_get 'd["state"]')" = queued ] && pass "job $id2 waits while the store cannot keep it" ||
      fail "job $id2 with the filesystem full: $(api_get 'd["state"]') $(api_get 'd["error"]')"
    rm -f "$DBFS/filler"
    ok=
    for _ in $(seq 150); do health_ok && { ok=1; break; }; sleep 0.1; done
    [ -n "$ok" ] && pass "space back: health ok again without a restart" || { api GET /api/v1/health; fail "health after space came back: $API_STATUS $(cat "$API_BODY")"; }
    st=$(WAIT_S=60 wait_state "$id2" done failed cancelled interrupted) || true
    [ "$st" = done ] && pass "the waiting job ($id2) ran" || fail "job $id2 after space came back: $st"
    daemon_stop || fail "daemon stop: exit $?"
    left=$(sqlite3 "$DDB" "SELECT count(*) FROM jobs WHERE state IN ('running', 'queued')")
    [ "$left" = 0 ] && pass "no job left running or queued" || fail "$left job(s) left running/queued"
  else
    echo "  (cannot mount a tmpfs; full filesystem skipped)"
  fi
fi

# --- 3. write errors: the end of a job cannot be recorded ---------------------------------
# The database and its WAL made immutable (chattr +i) under the running
# daemon: every write fails with EPERM, an I/O error for sqlite.
DDB=$TMP/io/biobench.db
mkdir -p "$TMP/io"
if ! command -v chattr >/dev/null || ! touch "$TMP/io/probe" || ! chattr +i "$TMP/io/probe" 2>/dev/null; then
  echo "  (write errors: chattr +i does not work on $TMP; skipped)"
else
  chattr -i "$TMP/io/probe"; rm -f "$TMP/io/probe"
  cleanup_hooks+=("chattr -i $DDB $DDB-wal 2>/dev/null")
  daemon_start || { finish; exit 1; }
  id=$(submit "$LONG")
  id2=$(submit "$NOPJOB")
  wait_runs "$id" 1 || fail "job $id does not get going"
  chattr +i "$DDB" "$DDB-wal"
  st=
  for _ in $(seq 150); do
    api GET "/api/v1/jobs/$id"; st=$(api_get 'd["state"]')
    [ "$st" = running ] || break
    sleep 0.1
  done
  err=$(api_get 'd["error"]')
  if [ "$st" = failed ] && grep -q "not recorded" <<<"$err"; then pass "write errors: job $id shown failed: $err"
  else fail "write errors: job $id '$st' '$err'"; fi
  if health_503 "not recorded"; then pass "health 503: $(api_get 'd["error"]["message"]')"
  else fail "health with write errors: $API_STATUS $(cat "$API_BODY")"; fi
  api POST /api/v1/jobs "$NOPJOB"
  [ "$API_STATUS" = 503 ] && pass "submission with write errors: 503" || fail "submission with write errors: $API_STATUS"
  api GET "/api/v1/jobs/$id2"
  [ "$(api_get 'd["state"]')" = queued ] && pass "job $id2 waits" || fail "job $id2: $(api_get 'd["state"]')"
  chattr -i "$DDB" "$DDB-wal"
  ok=
  for _ in $(seq 200); do health_ok && { ok=1; break; }; sleep 0.1; done
  [ -n "$ok" ] && pass "writable again: health ok without a restart" || fail "health after chattr -i: $(cat "$API_BODY")"
  grep -q "job $id: its end (failed) is recorded now" "$DLOG" && pass "log: $(grep -m1 'is recorded now' "$DLOG")" ||
    fail "no log of the late record: $(grep "job $id" "$DLOG" | tail -3)"
  st=$(WAIT_S=60 wait_state "$id2" done failed cancelled interrupted) || true
  [ "$st" = done ] && pass "the waiting job ($id2) ran" || fail "job $id2: $st"
  daemon_stop || fail "daemon stop: exit $?"
  in_db=$(sqlite3 "$DDB" "SELECT state || ': ' || coalesce(error, '') FROM jobs WHERE id = $id")
  grep -q "^failed: " <<<"$in_db" && pass "job $id's end is in the database: $in_db" || fail "job $id in the database: $in_db"
fi
echo "store_faults tally: $PASSES passed, $FAILS failed"
finish
