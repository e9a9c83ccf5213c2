#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# fleet_knobs_pg.sh BIOBENCHD BIOBENCH - the knob journal of a daemon on a
# shared PostgreSQL store is a local sqlite file (knob_journal), and
# survives the network going away (ctest it_fleet_knobs_pg, under
# tests/pg/pgtmp.sh; root: a loop device's queue/read_ahead_kb).
#
# Two daemons, fleet-k1 and fleet-k2 (lease 3 s), each with its own
# journal.  A job for fleet-k1 sets read_ahead_kb in variant B; fleet-k1
# is killed (-9) while the knob is applied: the row is in its local
# journal (applied) and its copy in the shared table (the job document on
# fleet-k2 shows it); after the lease fleet-k2 marks the job interrupted.
# PostgreSQL stopped, fleet-k1 started again with the same host name: it
# restores read_ahead_kb from its local journal before it gives up on the
# unreachable store (exit non-zero, the log says both).  PostgreSQL back,
# fleet-k1 started once more: it comes up, copies the restored row into
# the shared table (the job document says restored, one row per knob),
# and a row of another host in the shared table (unrestored, naming this
# very knob) is never written back by fleet-k1.
source "$(dirname "$0")/daemon_lib.sh"

[ -n "${BB_TEST_STORE:-}" ] || skip "BB_TEST_STORE is not set (run under tests/pg/pgtmp.sh)"
[ -n "${BB_TEST_PG_STOP:-}" ] && [ -n "${BB_TEST_PG_START:-}" ] ||
  skip "BB_TEST_PG_STOP/START are not set (tests/pg/pgtmp.sh)"
[ "$(id -u)" = 0 ] || skip "needs root (loop devices, sysfs knobs)"
command -v sqlite3 >/dev/null || skip "sqlite3 is not installed"
command -v psql >/dev/null || skip "psql is not installed"
DSTORE=$BB_TEST_STORE
LEASE=3
PGUP=1
# the server is started again whatever happens (pgtmp.sh stops it at exit)
cleanup_hooks+=('[ "$PGUP" = 1 ] || $BB_TEST_PG_START >/dev/null 2>&1')
pgq() { psql -X -q -t -A -d "$DSTORE" -U postgres -c "$1" 2>&1; }

truncate -s 32M "$TMP/a.img"
LOOP=$(losetup -f --show "$TMP/a.img" 2>/dev/null) || skip "losetup failed: no loop devices"
RA=/sys/block/$(basename "$LOOP")/queue/read_ahead_kb
ORIG=$(cat "$RA")
NEW=$(( ORIG == 512 ? 1024 : 512 ))
cleanup_hooks+=("echo $ORIG >$RA 2>/dev/null" "losetup -d $LOOP 2>/dev/null")

write_config
cat >>"$DCONF" <<EOF
allow = $LOOP
allow_knobs = $LOOP read_ahead_kb
EOF

# start_k N: daemon fleet-kN, its state directory $TMP/fleet-kN
start_k() { fleet_daemon "$1" "fleet-k$1" --lease-seconds "$LEASE"; }
use() { fleet_use "$1"; }
J1=$TMP/fleet-k1/knobs.db

start_k 1 || { fail "fleet-k1 did not start"; finish; }
start_k 2 || { fail "fleet-k2 did not start"; finish; }
grep -q "knob journal $J1" "${LOGS[1]}" &&
  pass "fleet-k1 logs its local knob journal $J1" || fail "no knob journal in the log"

# --- a knob job for fleet-k1, killed while the knob is applied ---------------
use 2
ID=$(submit_job "{\"name\":\"knobs\",\"target\":\"$LOOP\",\"host\":\"fleet-k1\",
  \"workload\":{\"runtime\":\"2s\",\"direct\":true,\"iodepth\":4,\"rw\":\"randread\"},
  \"variants\":{\"A\":{},\"B\":{\"sysfs.read_ahead_kb\":$NEW}},\"repeat\":3,\"warmup\":0,
  \"order\":\"blocked\",\"quiescence\":{\"mode\":\"off\"}}") || { fail "submit"; finish; }
for _ in $(seq 1 1500); do [ "$(cat "$RA")" = "$NEW" ] && break; sleep 0.02; done
[ "$(cat "$RA")" = "$NEW" ] || { fail "read_ahead_kb never became $NEW"; finish; }
kill -KILL "${PIDS[1]}"; wait "${PIDS[1]}" 2>/dev/null || true
[ "$(cat "$RA")" = "$NEW" ] && pass "fleet-k1 killed (-9) with read_ahead_kb = $NEW (was $ORIG)" ||
  fail "read_ahead_kb changed before the kill landed"
row=$(sqlite3 "$J1" "SELECT job_id, knob, original, state FROM knob_journal WHERE state <> 'restored'")
[ "$row" = "$ID|read_ahead_kb|$ORIG|applied" ] &&
  pass "the local journal holds the row: $row" || fail "local journal: '$row'"
api GET "/api/v1/jobs/$ID"
[ "$(api_get '[(k["knob"], k["original"], k["state"]) for k in d["knobs"]]')" = "[[\"read_ahead_kb\", \"$ORIG\", \"applied\"]]" ] &&
  pass "fleet-k2 shows the knob in the job document (the shared copy)" ||
  fail "job knobs on fleet-k2: $(api_get 'd["knobs"]')"
check_openapi "$API_BODY" GET "/api/v1/jobs/$ID" 200 &&
  pass "the job document is as openapi.yaml says" || fail "job document vs openapi"
st=$(WAIT_S=30 wait_state "$ID" interrupted done failed cancelled)
[ "$st" = interrupted ] && grep -q "lease expired: host fleet-k1" <<<"$(api_get 'd["error"]')" &&
  pass "after the lease fleet-k2 marked job $ID interrupted" || fail "job $ID: $st $(api_get 'd["error"]')"
use 2
daemon_stop && pass "fleet-k2 stopped" || fail "fleet-k2 stop"

# --- PostgreSQL gone: the restart restores from the local journal -------------
$BB_TEST_PG_STOP >/dev/null 2>&1 && PGUP=0 || fail "cannot stop PostgreSQL"
out=$TMP/fleet-k1/offline.log
rc=0
timeout 60 "$DAEMON" --foreground --config "$DCONF" --store "$DSTORE" \
  --knob-journal "$J1" --host-name fleet-k1 --lease-seconds "$LEASE" \
  --listen "127.0.0.1:$(free_port)" --web-root "$DWEB" >"$out" 2>&1 || rc=$?
now=$(cat "$RA")
[ "$now" = "$ORIG" ] && pass "PostgreSQL stopped: fleet-k1 restored read_ahead_kb to $ORIG from its local journal" ||
  fail "read_ahead_kb is $now after the offline start, wanted $ORIG; log: $(tail -5 "$out")"
[ "$rc" != 0 ] && [ "$rc" != 124 ] && grep -q "recovery: restored .*read_ahead_kb to '$ORIG'" "$out" &&
  grep -qi "bbtest\|postgres" "$out" &&
  pass "then it stopped (exit $rc): no store; the log tells both: $(grep -a 'recovery: restored' "$out" | head -c 160)" ||
  fail "offline start: exit $rc; log: $(tail -5 "$out")"
row=$(sqlite3 "$J1" "SELECT state, restored_ms > 0, mirrored_rev < rev FROM knob_journal WHERE job_id = $ID")
[ "$row" = "restored|1|1" ] && pass "the local row restored, its copy behind (the store was away)" ||
  fail "local row after the offline start: '$row'"

# --- PostgreSQL back: fleet-k1 starts, copies, and never restores another host's row
$BB_TEST_PG_START >/dev/null 2>&1 && PGUP=1 || fail "cannot start PostgreSQL"
echo "$NEW" >"$RA"   # this host's knob changed by someone, not journaled here
other=$(pgq "INSERT INTO knob_journal (job_id, knob, path, original, state, created_ms, host, local_id)
  VALUES (NULL, 'read_ahead_kb', '$RA', '4096', 'applied', 1, 'fleet-k9', 1) RETURNING id")
[[ $other =~ ^[0-9]+$ ]] || fail "cannot insert another host's row: $other"
start_k 1 || { fail "fleet-k1 did not start with PostgreSQL back"; finish; }
api GET "/api/v1/jobs/$ID"
[ "$(api_get '[(k["state"], k["original"]) for k in d["knobs"]]')" = "[[\"restored\", \"$ORIG\"]]" ] &&
  [ "$(api_get 'd["knobs"][0]["restored"] is not None')" = true ] &&
  pass "back online: the job document shows the knob restored (one row: copied, not duplicated)" ||
  fail "job knobs after the restart: $(api_get 'd["knobs"]')"
n=$(pgq "SELECT count(*) FROM knob_journal WHERE job_id = $ID")
mr=$(sqlite3 "$J1" "SELECT count(*) FROM knob_journal WHERE mirrored_rev < rev")
[ "$n" = 1 ] && [ "$mr" = 0 ] && pass "one shared copy of the job's row, the local journal fully copied" ||
  fail "shared rows of job $ID: $n; local rows behind: $mr"
[ "$(cat "$RA")" = "$NEW" ] && [ "$(pgq "SELECT state FROM knob_journal WHERE id = $other")" = applied ] &&
  pass "another host's unrestored row in the shared table: not written back by fleet-k1 (read_ahead_kb still $NEW)" ||
  fail "fleet-k1 touched another host's row: read_ahead_kb $(cat "$RA"), row $(pgq "SELECT state FROM knob_journal WHERE id = $other")"
echo "$ORIG" >"$RA"
use 1
daemon_stop && pass "fleet-k1: SIGTERM, exit 0" || fail "fleet-k1 stop"
finish
