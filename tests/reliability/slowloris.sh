#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# slowloris.sh BIOBENCHD [BIOBENCH] - slow clients cannot lock others out
# (issue 12 #14).  The daemon runs with max_connections = 64,
# max_connections_per_peer = 16, request_timeout = 4, timeout = 30.
#  1. max_connections + 50 = 114 connections from 127.0.0.2..9 (under the
#     per-peer limit each), each sending one header byte every 3 s and
#     reconnecting when cut off, for ATTACK_S (30) seconds: a normal
#     client (127.0.0.1, one request a second) must get every answer,
#     each within 2 x request_timeout + 3 s (before: the trickle kept the
#     idle timeout from firing and everyone waited for 40 s and more);
#  2. one peer opening 100 connections keeps at most 16 (the per-peer
#     limit holds on loopback too), the others are closed at once;
#  3. a connection that sends nothing is closed after request_timeout.
# About 45 s.  Needs python3; 127.0.0.0/8 on lo (Linux's default).
source "$(dirname "$0")/../integration/daemon_lib.sh"

ATTACK_S=${ATTACK_S:-30}
REQ_TIMEOUT=4
BOUND_S=$((2 * REQ_TIMEOUT + 3))
ulimit -n 4096 2>/dev/null || true
/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.2", 0))' 2>/dev/null ||
  skip "cannot bind to 127.0.0.2 (no 127.0.0.0/8 on lo)"

write_config
sed -i "s/^timeout = 10\$/timeout = 30\nmax_connections = 64\nmax_connections_per_peer = 16\nrequest_timeout = $REQ_TIMEOUT/" "$DCONF"
grep -q "^request_timeout = $REQ_TIMEOUT" "$DCONF" || { fail "config not written"; finish; exit 1; }
daemon_start || { finish; exit 1; }

# --- 1. the slow attack against a normal client -----------------------------
/usr/bin/python3 - "$DPORT" 114 "$ATTACK_S" "$TMP/attack.ready" >"$TMP/attack.out" 2>&1 <<'PY' &
import selectors, socket, sys, time
port, n, dur, ready = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
head = b"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Slow: " % port
sel = selectors.DefaultSelector()
conns = {}          # sock -> [source address, bytes sent, next send time]
opened = cut = 0

def connect(src):
    global opened
    s = socket.socket()
    s.setblocking(False)
    s.bind((src, 0))
    try:
        s.connect(("127.0.0.1", port))
    except BlockingIOError:
        pass
    conns[s] = [src, 0, time.time()]
    sel.register(s, selectors.EVENT_READ)
    opened += 1

for i in range(n):
    connect("127.0.0.%d" % (2 + i % 8))
open(ready, "w").write("%d\n" % n)
t0 = time.time()
while time.time() - t0 < dur:
    now = time.time()
    for s, st in list(conns.items()):
        if now >= st[2]:
            try:
                s.send(head[st[1] % len(head):st[1] % len(head) + 1])
                st[1] += 1
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:
                pass
            st[2] = now + 3
    for key, _ in sel.select(timeout=0.2):
        s = key.fileobj
        try:
            d = s.recv(4096)
        except (BlockingIOError, InterruptedError):
            continue
        except OSError:
            d = b""
        if not d:       # cut off by the server: come back at once
            src = conns.pop(s)[0]
            sel.unregister(s)
            s.close()
            cut += 1
            connect(src)
print("opened %d connections, %d cut off by the daemon and reopened" % (opened, cut))
PY
APID=$!
cleanup_hooks+=("kill $APID 2>/dev/null")
for _ in $(seq 100); do [ -s "$TMP/attack.ready" ] && break; sleep 0.1; done
sleep 1
ok=0 n=0 worst=0 failed=
t_end=$(( $(date +%s) + ATTACK_S - 3 ))
while [ "$(date +%s)" -lt "$t_end" ]; do
  n=$((n + 1))
  out=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' --max-time 20 "http://127.0.0.1:$DPORT/api/v1/health" || true)
  read -r c secs <<<"$out"
  ms=$(awk -v s="${secs:-20}" 'BEGIN { printf "%d", s * 1000 }')
  (( ms > worst )) && worst=$ms
  if [ "$c" = 200 ] && (( ms <= BOUND_S * 1000 )); then ok=$((ok + 1)); else failed+=" #$n:${c:-none}/${ms}ms"; fi
  sleep 1
done
wait "$APID" 2>/dev/null || true
echo "  attack: $(cat "$TMP/attack.out")"
if [ "$n" -ge 5 ] && [ "$ok" = "$n" ]; then
  pass "under 114 trickling connections: $ok/$n requests answered, slowest $worst ms (bound $((BOUND_S * 1000)) ms)"
else
  fail "under 114 trickling connections: $ok/$n answered within $BOUND_S s, slowest $worst ms; failed:$failed"
fi
grep -q "did not arrive within $REQ_TIMEOUT s" "$DLOG" && pass "the daemon logs the connections it cut: $(grep -m1 'did not arrive' "$DLOG")" ||
  fail "no log line about cut connections"
health_ok && pass "daemon answers after the attack" || fail "daemon stuck after the attack"

# --- 2. the per-peer limit on loopback ---------------------------------------
/usr/bin/python3 - "$DPORT" >"$TMP/peer.out" 2>&1 <<'PY' || true
import socket, sys, time
port = int(sys.argv[1])
socks = []
for i in range(100):
    s = socket.socket()
    s.bind(("127.0.0.10", 0))
    s.settimeout(2)
    s.connect(("127.0.0.1", port))
    socks.append(s)
# the daemon accepts and closes the ones beyond the limit: sample often
# (the request deadline closes the rest after request_timeout, so the
# window is short on a loaded host), report every sample, and the last
# line is the count the limit left standing (the first sample with at
# most 16 open, 0 if none came before the deadline)
t0 = time.time()
seen, kept = [], 0
while time.time() - t0 < 10:
    time.sleep(0.1)
    alive = 0
    for s in socks:
        s.settimeout(0.01)
        try:
            alive += s.recv(1, socket.MSG_PEEK) != b""
        except socket.timeout:
            alive += 1
        except OSError:
            pass
    seen.append("%.1fs:%d" % (time.time() - t0, alive))
    if 1 <= alive <= 16:
        kept = alive
        break
    if alive == 0:
        break
print(" ".join(seen))
print(kept)
PY
alive=$(tail -1 "$TMP/peer.out")
if [ -n "$alive" ] && [ "$alive" -le 16 ] && [ "$alive" -ge 1 ]; then
  pass "one peer opening 100 connections keeps $alive (max_connections_per_peer = 16)"
else
  fail "one peer with 100 connections: $alive stay open: $(cat "$TMP/peer.out")"
fi
health_ok && pass "others are served meanwhile" || fail "health after the per-peer test"

# --- 3. a silent connection is closed ------------------------------------------
secs=$(/usr/bin/python3 - "$DPORT" <<'PY'
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(30)
t0 = time.time()
try:
    s.recv(1)
except OSError:
    pass
print("%.1f" % (time.time() - t0))
PY
)
if awk -v s="$secs" -v t="$REQ_TIMEOUT" 'BEGIN { exit !(s >= t - 1 && s <= t + 2) }'; then
  pass "a connection that sends nothing is closed after $secs s (request_timeout $REQ_TIMEOUT)"
else
  fail "a silent connection was closed after $secs s (request_timeout $REQ_TIMEOUT)"
fi
daemon_stop || fail "daemon stop: exit $?"
echo "slowloris tally: $PASSES passed, $FAILS failed"
finish
