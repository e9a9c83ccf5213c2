#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# no_runner.sh BIOBENCHD [BIOBENCH] - biobenchd --no-runner on a sqlite
# store (ctest it_no_runner): a front end serves the API, /metrics and
# the dashboard, is not in the hosts registry, and runs nothing (a job
# submitted to it stays queued, unclaimed; a queued job is cancelled
# through it); no_runner = yes in the file does the same.  Then a runner
# opens the same file: the job queued through the front end runs to done
# there, the cancelled one stays cancelled.
source "$(dirname "$0")/daemon_lib.sh"

JOB='{"name":"via the front end","target":"nop","workload":{"runtime":"100ms"},
 "variants":{"A":{},"B":{"inject_ns":1000}},"repeat":2,"warmup":0}'
write_config
hn=$(hostname)
[[ $hn =~ ^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$ ]] || hn=localhost

daemon_start --no-runner || { fail "biobenchd --no-runner starts"; finish; }
grep -q "no runner (no_runner): a front end, host name $hn; it runs no job" "$DLOG" &&
  pass "--no-runner: the log says it is a front end" || fail "log: $(cat "$DLOG")"
api GET /api/v1/hosts
[ "$API_STATUS" = 200 ] && [ "$(api_get 'len(d["hosts"])')" = 0 ] &&
  pass "not in the hosts registry" || fail "hosts: $API_STATUS $(head -c 300 "$API_BODY")"
api GET /api/v1/health
[ "$API_STATUS" = 200 ] && pass "health: 200" || fail "health: $API_STATUS $(cat "$API_BODY")"
id=$(submit_job "$JOB") && pass "a job submitted through the front end: $id" || fail "submit"
cancel_id=$(submit_job "$JOB") || fail "submit a second job"
# a runner on sqlite looks at the queue every 5 s and at each submission
sleep 6
api GET "/api/v1/jobs/$id"
[ "$(api_get 'd["state"]')" = queued ] && [ "$(api_get 'd["claimed_by"]')" = null ] &&
  [ "$(api_get 'd["runs_done"]')" = 0 ] &&
  pass "6 s later it is still queued, claimed by none" ||
  fail "job $id: $(head -c 300 "$API_BODY")"
api GET /metrics
grep -q "^biobench_running_jobs{host=\"$hn\"} 0$" "$API_BODY" &&
  grep -q "^biobench_jobs{host=\"$hn\",state=\"queued\"} 2$" "$API_BODY" &&
  pass "/metrics: 2 queued, running 0, host $hn" || fail "/metrics: $(grep -v '^#' "$API_BODY")"
api POST "/api/v1/jobs/$cancel_id/cancel"
[ "$API_STATUS" = 200 ] && [ "$(api_get 'd["state"]')" = cancelled ] &&
  pass "a queued job cancelled through the front end" ||
  fail "cancel: $API_STATUS $(cat "$API_BODY")"
daemon_stop && pass "the front end stops: exit 0" || fail "front end stop"

# the key in the file: the same front end
cp "$DCONF" "$TMP/front.conf"
sed -i 's/^\[server\]$/[server]\nno_runner = yes/' "$TMP/front.conf"
DCONF_RUNNER=$DCONF DCONF=$TMP/front.conf
: >"$DLOG"
daemon_start || { fail "biobenchd with no_runner = yes starts"; finish; }
grep -q "no runner (no_runner)" "$DLOG" && api GET /api/v1/hosts &&
  [ "$(api_get 'len(d["hosts"])')" = 0 ] &&
  pass "no_runner = yes in the file: a front end too" || fail "no_runner = yes: $(cat "$DLOG")"
daemon_stop || fail "stop"
DCONF=$DCONF_RUNNER

# a runner on the same file runs what the front end queued
daemon_start || { fail "the runner starts"; finish; }
st=$(WAIT_S=60 wait_state "$id" done failed cancelled interrupted) || true
[ "$st" = done ] && [ "$(api_get 'd["claimed_by"]')" = "$hn" ] &&
  pass "the runner ran job $id (queued through the front end) to done" ||
  fail "job $id on the runner: $st $(head -c 300 "$API_BODY")"
api GET "/api/v1/jobs/$cancel_id"
[ "$(api_get 'd["state"]')" = cancelled ] && pass "the cancelled one stays cancelled" ||
  fail "job $cancel_id: $(head -c 300 "$API_BODY")"
api GET /api/v1/hosts
[ "$(api_get '[h["name"] for h in d["hosts"]]')" = "[\"$hn\"]" ] &&
  pass "the runner is in the registry" || fail "hosts: $(head -c 300 "$API_BODY")"
daemon_stop || fail "runner stop"
finish
