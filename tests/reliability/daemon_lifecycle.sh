#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# daemon_lifecycle.sh BIOBENCHD [BIOBENCH] - biobenchd as a service:
#  1. --version prints "biobenchd VERSION" and exits 0 (issue 19);
#  2. a port in use: exit 1 with "cannot listen on ADDR:PORT: Address
#     already in use", never libmicrohttpd's "Failed to bind to port 0";
#  3. sd_notify (issue 19): with NOTIFY_SOCKET set (a datagram socket of
#     the test stands in for systemd) READY=1 once it listens, STATUS=
#     naming the running job and its run, RELOADING=1 and READY=1 around
#     SIGHUP, STOPPING=1 at SIGTERM; --pidfile holds the pid while it runs
#     and is gone after;
#  4. a second daemon on the same database (issue 12 #17) exits 1 at once
#     naming the first one's pid, and the first one's running job is not
#     touched (it used to be marked interrupted and its knobs restored by
#     the second daemon's recovery): it ends done;
#  5. knob restores are logged only when a run changed the knob (issue
#     19): a loop device's read_ahead_kb set to its own value by A and to
#     another by B logs one restore per run of B, none for A (root and a
#     loop device; skipped otherwise).
# About 30 s.
source "$(dirname "$0")/../integration/daemon_lib.sh"

# --- 1. --version -------------------------------------------------------------
out=$("$DAEMON" --version 2>&1) && rc=0 || rc=$?
[ "$rc" = 0 ] && [[ $out =~ ^biobenchd\ [0-9]+\.[0-9]+ ]] && pass "--version: $out" || fail "--version: exit $rc: $out"
out=$("$DAEMON" --help 2>&1) || true
grep -q -- "--pidfile" <<<"$out" && grep -q -- "--version" <<<"$out" && pass "--help lists --pidfile and --version" ||
  fail "--help: $(head -c 300 <<<"$out")"

# --- 2. a port in use -----------------------------------------------------------
write_config
write_web
port=$(free_port)
/usr/bin/python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1); time.sleep(15)' "$port" &
BUSY=$!
cleanup_hooks+=("kill $BUSY 2>/dev/null")
sleep 0.5
rc=0
timeout 10 "$DAEMON" --foreground --config "$DCONF" --listen "127.0.0.1:$port" --db "$TMP/busy.db" \
  --web-root "$DWEB" >"$TMP/busy.out" 2>&1 || rc=$?
kill "$BUSY" 2>/dev/null || true
if [ "$rc" = 1 ] && grep -q "cannot listen on 127.0.0.1:$port: Address already in use" "$TMP/busy.out" &&
   ! grep -qi "port 0" "$TMP/busy.out"; then
  pass "port in use: exit 1: $(grep -m1 'cannot listen' "$TMP/busy.out")"
else
  fail "port in use: exit $rc: $(cat "$TMP/busy.out")"
fi

# --- 3. sd_notify, --pidfile; 4. a second daemon ----------------------------------
NSOCK=$TMP/notify.sock
/usr/bin/python3 - "$NSOCK" "$TMP/notify.log" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(60)
out = open(sys.argv[2], "w", buffering=1)
t0 = time.time()
try:
    while True:
        d = s.recv(4096).decode()
        out.write("%.2f %s\n" % (time.time() - t0, d.replace("\n", " | ")))
        if "STOPPING=1" in d:
            break
except socket.timeout:
    pass
PY
NPID=$!
cleanup_hooks+=("kill $NPID 2>/dev/null")
for _ in $(seq 50); do [ -S "$NSOCK" ] && break; sleep 0.1; done
export NOTIFY_SOCKET=$NSOCK
daemon_start --pidfile "$TMP/biobenchd.pid" || { finish; exit 1; }
unset NOTIFY_SOCKET
grep -q "READY=1" "$TMP/notify.log" && pass "READY=1 sent once it listens: $(head -1 "$TMP/notify.log")" ||
  fail "no READY=1: $(cat "$TMP/notify.log")"
[ "$(cat "$TMP/biobenchd.pid" 2>/dev/null)" = "$DPID" ] && pass "--pidfile holds pid $DPID" ||
  fail "pid file: '$(cat "$TMP/biobenchd.pid" 2>/dev/null)' (daemon $DPID)"
api POST /api/v1/jobs '{"name":"lifecycle","target":"nop","workload":{"runtime":"500ms"},"variants":{"A":{},"B":{}},"repeat":6,"warmup":0}'
id=$(api_get 'd["id"]')
WAIT_S=20 wait_state "$id" running >/dev/null || fail "job $id does not run"
sleep 3
grep -qE "STATUS=running job $id: run [0-9]+ of 12" "$TMP/notify.log" &&
  pass "STATUS= with the running job: $(grep -m1 'STATUS=running' "$TMP/notify.log" | cut -d' ' -f2-)" ||
  fail "no STATUS for job $id: $(cat "$TMP/notify.log")"
# a second daemon on the same database, while the job runs
port2=$(free_port)
t0=$(date +%s%N)
rc=0
timeout 20 "$DAEMON" --foreground --config "$DCONF" --listen "127.0.0.1:$port2" --db "$DDB" \
  --web-root "$DWEB" >"$TMP/second.out" 2>&1 || rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
if [ "$rc" = 1 ] && grep -q "another biobenchd (pid $DPID)" "$TMP/second.out" && [ "$ms" -lt 5000 ]; then
  pass "second daemon on the same database: exit 1 in $ms ms: $(head -1 "$TMP/second.out")"
else
  fail "second daemon: exit $rc after $ms ms: $(cat "$TMP/second.out")"
fi
api GET "/api/v1/jobs/$id"
[ "$(api_get 'd["state"]')" = running ] && pass "job $id still running after the second daemon" ||
  fail "job $id after the second daemon: $(api_get 'd["state"]') $(api_get 'd["error"]')"
kill -HUP "$DPID"
sleep 1
grep -q "RELOADING=1" "$TMP/notify.log" && [ "$(grep -c 'READY=1' "$TMP/notify.log")" -ge 2 ] &&
  pass "SIGHUP: RELOADING=1, then READY=1" || fail "SIGHUP notifications: $(cat "$TMP/notify.log")"
st=$(WAIT_S=60 wait_state "$id" done failed cancelled interrupted) || true
[ "$st" = done ] && pass "job $id done (not interrupted by the second daemon)" || fail "job $id ended $st: $(api_get 'd["error"]')"
daemon_stop && pass "SIGTERM: exit 0" || fail "SIGTERM: exit $?"
wait "$NPID" 2>/dev/null || true
grep -q "STOPPING=1" "$TMP/notify.log" && pass "STOPPING=1 at SIGTERM" || fail "no STOPPING=1: $(cat "$TMP/notify.log")"
[ ! -e "$TMP/biobenchd.pid" ] && pass "pid file removed at exit" || fail "pid file left behind"
sed 's/^/    notify: /' "$TMP/notify.log" | head -8

# --- 5. restores logged only when a knob changed -----------------------------------
if [ "$(id -u)" != 0 ]; then
  echo "  (knob restores: needs root for a loop device; skipped)"
else
  truncate -s 64M "$TMP/loop.img"
  LOOP=$(losetup -f --show "$TMP/loop.img" 2>/dev/null) || LOOP=
  if [ -z "$LOOP" ]; then
    echo "  (knob restores: no loop device; skipped)"
  else
    cleanup_hooks+=("losetup -d $LOOP 2>/dev/null")
    RA=/sys/block/$(basename "$LOOP")/queue/read_ahead_kb
    orig=$(cat "$RA"); other=$(( orig == 64 ? 32 : 64 ))
    printf 'allow = %s\nallow_knobs = %s read_ahead_kb\n' "$LOOP" "$LOOP" >>"$DCONF"
    DDB=$TMP/knobs.db
    : >"$DLOG"
    daemon_start || { finish; exit 1; }
    api POST /api/v1/jobs "{\"name\":\"knobs\",\"target\":\"$LOOP\",\"workload\":{\"runtime\":\"200ms\",\"direct\":true},
      \"variants\":{\"A\":{\"sysfs.read_ahead_kb\":$orig},\"B\":{\"sysfs.read_ahead_kb\":$other}},\"repeat\":3,\"warmup\":0}"
    kid=$(api_get 'd["id"]')
    st=$(WAIT_S=60 wait_state "$kid" done failed cancelled interrupted) || true
    daemon_stop || true
    n=$(grep -c "job $kid: restored $RA\|job $kid: restored .*read_ahead_kb" "$DLOG" || true)
    if [ "$st" = done ] && [ "$n" = 3 ] && [ "$(cat "$RA")" = "$orig" ]; then
      pass "3 restores logged for B's 3 runs, none for A's (which set $orig = $orig); $RA back to $orig"
    else
      fail "knob job $kid $st: $n restore lines (wanted 3), $RA = $(cat "$RA") (was $orig): $(grep restored "$DLOG" | head -8)"
    fi
  fi
fi
echo "daemon_lifecycle tally: $PASSES passed, $FAILS failed"
finish
