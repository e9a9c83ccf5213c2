#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# fleet_pg_restart.sh BIOBENCHD BIOBENCH - PostgreSQL restarted (pg_ctl
# stop -m fast, then start) while two daemons of one store each run a job
# (ctest it_fleet_pg_restart, under tests/pg/pgtmp.sh).  Six jobs for any
# host are queued; once both daemons run one, the server goes away for
# PG_DOWN_S (default 2) seconds.  Then: both daemons answer /health 200
# again (reconnected), every job ends done, each with exactly its planned
# runs (none lost, none stored twice: seq unique per job), each started
# once (one "started" event, its claimer's log only), each claimed by one
# daemon, and both daemons ran jobs.
source "$(dirname "$0")/daemon_lib.sh"

[ -n "${BB_TEST_STORE:-}" ] || skip "BB_TEST_STORE is not set (run under tests/pg/pgtmp.sh)"
[ -n "${BB_TEST_PG_STOP:-}" ] && [ -n "${BB_TEST_PG_START:-}" ] ||
  skip "BB_TEST_PG_STOP/START are not set (tests/pg/pgtmp.sh)"
command -v psql >/dev/null || skip "psql is not installed"
DSTORE=$BB_TEST_STORE
DOWN=${PG_DOWN_S:-2}
NJOBS=6
PGUP=1
cleanup_hooks+=('[ "$PGUP" = 1 ] || $BB_TEST_PG_START >/dev/null 2>&1')
pgq() { psql -X -q -t -A -F ' ' -d "$DSTORE" -U postgres -c "$1" 2>&1; }

write_config
# a lease well beyond the outage: nobody's job is swept meanwhile
start_r() { fleet_daemon "$1" "restart-$1" --lease-seconds 30; }
use() { fleet_use "$1"; }
for n in 1 2; do start_r "$n" || { fail "restart-$n did not start"; finish; }; done

use 1
declare -a IDS
for i in $(seq 1 "$NJOBS"); do
  IDS[$i]=$(submit_job "{\"name\":\"restart $i\",\"target\":\"nop\",
    \"workload\":{\"runtime\":\"400ms\",\"iodepth\":8},
    \"variants\":{\"A\":{},\"B\":{\"inject_ns\":2000}},\"repeat\":3,\"warmup\":0}") ||
    { fail "submit $i"; finish; }
done
pass "$NJOBS jobs queued: ${IDS[*]}"

# both daemons busy
busy=0
for _ in $(seq 1 300); do
  api GET /api/v1/hosts
  busy=$(api_get 'sum(1 for h in d["hosts"] if h["running_job"])')
  [ "$busy" = 2 ] && break
  sleep 0.1
done
[ "$busy" = 2 ] && pass "both daemons run a job: $(api_get '[(h["name"], h["running_job"]) for h in d["hosts"]]')" ||
  fail "the daemons are not both busy: $(head -c 300 "$API_BODY")"

$BB_TEST_PG_STOP >/dev/null 2>&1 && PGUP=0 || fail "cannot stop PostgreSQL"
t0=$(date +%s.%N)
sleep "$DOWN"
api GET /api/v1/health
down_status=$API_STATUS
$BB_TEST_PG_START >/dev/null 2>&1 && PGUP=1 || fail "cannot start PostgreSQL"
t1=$(date +%s.%N)
[ "$down_status" = 503 ] && pass "PostgreSQL down $(python3 -c "print(round($t1 - $t0, 1))") s: /health 503 meanwhile" ||
  fail "/health while PostgreSQL was down: $down_status"

for n in 1 2; do
  use "$n"
  ok=0
  for _ in $(seq 1 100); do health_ok && { ok=1; break; }; sleep 0.1; done
  [ "$ok" = 1 ] && daemon_alive && pass "restart-$n: /health 200 again (reconnected)" ||
    fail "restart-$n after the restart: alive $(daemon_alive && echo yes || echo no), health $(curl -s "http://127.0.0.1:$DPORT/api/v1/health" | head -c 200)"
done

use 1
bad=0
for i in $(seq 1 "$NJOBS"); do
  st=$(WAIT_S=120 wait_state "${IDS[$i]}" done failed cancelled interrupted)
  [ "$st" = done ] || { bad=$((bad + 1)); fail "job ${IDS[$i]}: $st: $(api_get 'd["error"]')"; }
done
[ "$bad" = 0 ] && pass "all $NJOBS jobs done"

# the store's own count, per job: runs stored, distinct seq, planned, done,
# started events, claimer
ids=$(IFS=,; echo "${IDS[*]}")
while read -r id runs seqs planned rdone started by; do
  if [ "$runs" = "$planned" ] && [ "$seqs" = "$runs" ] && [ "$rdone" = "$runs" ] &&
     [ "$started" = 1 ] && [ -n "$by" ]; then
    others=0
    for n in 1 2; do
      [ "restart-$n" = "$by" ] && continue
      grep -q "job $id (" "${LOGS[$n]}" && others=1
    done
    [ "$others" = 0 ] && grep -q "job $id (" "$TMP/$by/biobenchd.log" &&
      pass "job $id: $runs runs of $planned (seq unique), started once, run by $by only" ||
      fail "job $id also in the other daemon's log (claimed by $by)"
  else
    fail "job $id: runs $runs, distinct seq $seqs, planned $planned, runs_done $rdone, started $started, claimed by '$by'"
  fi
done < <(pgq "SELECT j.id, (SELECT count(*) FROM runs r WHERE r.job_id = j.id),
  (SELECT count(DISTINCT seq) FROM runs r WHERE r.job_id = j.id), j.runs_planned, j.runs_done,
  (SELECT count(*) FROM events e WHERE e.job_id = j.id AND e.message = 'started'), j.claimed_by
  FROM jobs j WHERE j.id IN ($ids) ORDER BY j.id")
n_by=$(pgq "SELECT count(DISTINCT claimed_by) FROM jobs WHERE id IN ($ids)")
[ "$n_by" = 2 ] && pass "both daemons ran jobs ($(pgq "SELECT claimed_by, count(*) FROM jobs WHERE id IN ($ids) GROUP BY 1 ORDER BY 1" | tr '\n' ';'))" ||
  fail "jobs claimed by $n_by daemon(s)"

for n in 1 2; do
  use "$n"
  daemon_stop && pass "restart-$n: SIGTERM, exit 0" || fail "restart-$n stop"
done
finish
