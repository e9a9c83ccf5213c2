#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# static_memory.sh BIOBENCHD [BIOBENCH] - static files do not pin memory
# (issue 12 #16): CLIENTS (400) clients, 50 per source address, request a
# 4 MiB file of the web root and read nothing.  The daemon's resident set
# must stay under RSS_MAX_MB (150) above its size before (a copy per
# request was 400 x 4 MiB = 1.6 GiB; 1,500 such requests pinned 4.1 GiB),
# and it goes on answering others; the file, read in full by a normal
# client, is byte for byte the one on disk.  The idle timeout (5 s here)
# then really closes the stalled connections: the daemon's open files go
# back to what they were.  About 25 s.
source "$(dirname "$0")/../integration/daemon_lib.sh"

CLIENTS=${CLIENTS:-400}
RSS_MAX_MB=${RSS_MAX_MB:-150}
ulimit -n 8192 2>/dev/null || true
/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.2", 0))' 2>/dev/null ||
  skip "cannot bind to 127.0.0.2 (no 127.0.0.0/8 on lo)"

write_config
IDLE_S=5
sed -i "s/^timeout = 10\$/timeout = $IDLE_S\nmax_connections = 2048/" "$DCONF"
write_web
head -c $((4 << 20)) /dev/urandom >"$DWEB/big.bin"
daemon_start || { finish; exit 1; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$DPID/status"; }
nfd() { ls "/proc/$DPID/fd" | wc -l; }
rss0=$(rss_kb)
fd0=$(nfd)

/usr/bin/python3 - "$DPORT" "$CLIENTS" "$TMP/hold.ready" "$TMP/hold.stop" >"$TMP/hold.out" 2>&1 <<'PY' &
import os, socket, sys, time
port, n, ready, stop = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
socks = []
for i in range(n):
    s = socket.socket()
    # a small receive buffer: the client reads nothing, the server blocks
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.bind(("127.0.0.%d" % (2 + i // 50), 0))
    s.connect(("127.0.0.1", port))
    s.send(b"GET /big.bin HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % port)
    socks.append(s)
open(ready, "w").write("%d\n" % len(socks))
t0 = time.time()
while not os.path.exists(stop) and time.time() - t0 < 60:
    time.sleep(0.1)
print("%d connections held" % len(socks))
PY
HPID=$!
cleanup_hooks+=("kill $HPID 2>/dev/null")
for _ in $(seq 300); do [ -s "$TMP/hold.ready" ] && break; sleep 0.1; done
# let the daemon take every request and fill what the sockets take
t_ready=$(date +%s)
sleep 1.5
peak=0
for _ in 1 2 3 4 5; do r=$(rss_kb); (( r > peak )) && peak=$r; sleep 0.3; done
fd_held=$(nfd)
grow_mb=$(( (peak - rss0) / 1024 ))
out=$(curl -s -o "$TMP/big.got" -w '%{http_code} %{time_total}' --max-time 20 "http://127.0.0.1:$DPORT/big.bin" || true)
# the stalled connections (still open on the client's side) are closed by
# the daemon once idle for the timeout
fd_after=$fd_held
while [ $(( $(date +%s) - t_ready )) -le $((IDLE_S + 6)) ]; do
  fd_after=$(nfd)
  (( fd_after <= fd0 + 10 )) && break
  sleep 0.5
done
waited=$(( $(date +%s) - t_ready ))
touch "$TMP/hold.stop"; wait "$HPID" 2>/dev/null || true
echo "  $(cat "$TMP/hold.out"); daemon RSS ${rss0} kB before, ${peak} kB with them (+$grow_mb MiB)"
if [ "$(head -c1 "$TMP/hold.ready" 2>/dev/null)" ] && (( grow_mb < RSS_MAX_MB )); then
  pass "$(cat "$TMP/hold.ready" | tr -d '\n') unread requests for a 4 MiB file: RSS +$grow_mb MiB (bound $RSS_MAX_MB MiB)"
else
  fail "unread requests for a 4 MiB file: RSS +$grow_mb MiB (bound $RSS_MAX_MB MiB)"
fi
read -r c secs <<<"$out"
if [ "$c" = 200 ] && cmp -s "$TMP/big.got" "$DWEB/big.bin"; then
  pass "meanwhile another client got the whole file, identical ($secs s)"
else
  fail "another client: status ${c:-none}, $(stat -c %s "$TMP/big.got" 2>/dev/null) bytes"
fi
curl -s -o /dev/null -w '%{http_code}' --max-time 5 -I "http://127.0.0.1:$DPORT/big.bin" | grep -q 200 &&
  pass "HEAD of the file: 200" || fail "HEAD of the file"
if (( fd_held >= fd0 + 300 )) && (( fd_after <= fd0 + 10 )); then
  pass "idle timeout ($IDLE_S s) closed the stalled connections: daemon fds $fd0 -> $fd_held -> $fd_after within $waited s"
else
  fail "stalled connections: daemon fds $fd0 -> $fd_held -> $fd_after after $waited s (timeout $IDLE_S s)"
fi
health_ok && pass "daemon answers after the clients left" || fail "daemon stuck"
daemon_stop || fail "daemon stop: exit $?"
echo "static_memory tally: $PASSES passed, $FAILS failed"
finish
