#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# load_abuse.sh BIOBENCHD [BIOBENCH] - biobenchd under load and abuse:
#  1. 10,000 jobs in the store (inserted with sqlite3 in one transaction
#     after the daemon made the schema), then wrk for LOAD_SECONDS (30)
#     with 200 connections against GET /api/v1/jobs?limit=50 and /metrics
#     (alternating): 0 errors (non-2xx, socket errors, timeouts); p50/p99
#     printed (target p99 < 50 ms; fails only beyond LOAD_P99_MAX_MS, 1000,
#     since the CI host is shared and noisy);
#  2. 1,000 idle connections (half of them with a request that never
#     ends) do not stop other clients being served;
#  3. abuse, each with the right refusal, the daemon alive after each:
#     oversized bodies (with Content-Length, chunked), deeply nested JSON,
#     invalid UTF-8 (body, path, query), path traversal in static URLs,
#     unknown methods, many query arguments;
#  4. a non-loopback listener (10.123.0.1/32 added to lo for the test):
#     refused at start without a token file or with a token file others
#     can read; with one: missing or wrong tokens get 401 on the API and
#     /metrics (health too: not loopback), the right one 200.
# The daemon's config for 1-2: max_connections = 2048 (the default) and
# max_connections_per_peer = 512 (wrk's 200 connections share an address).
# The idle connections of 2 come from 127.0.0.2: past 512 of them the
# per-peer limit closes the rest, the others (127.0.0.1) are served.
# Needs root for 4 (ip addr); wrk and python3.
source "$(dirname "$0")/../integration/daemon_lib.sh"

command -v wrk >/dev/null || skip "wrk is not installed"
command -v sqlite3 >/dev/null || skip "sqlite3 is not installed"
LOAD_SECONDS=${LOAD_SECONDS:-30}
P99_MAX=${LOAD_P99_MAX_MS:-1000}
ulimit -n 8192 2>/dev/null || true

write_config
# wrk's 200 connections come from one address: above the per-peer default
sed -i 's/^timeout = 10$/timeout = 10\nmax_connections = 2048\nmax_connections_per_peer = 512/' "$DCONF"
grep -q "max_connections = 2048" "$DCONF" || echo "max_connections = 2048" >>"$DCONF"
daemon_start || { finish; exit 1; }

# --- 1. 10,000 jobs and wrk ---------------------------------------------------
t0=$(date +%s%N)
sqlite3 "$DDB" >/dev/null <<'SQL' || fail "inserting 10,000 jobs"
PRAGMA busy_timeout = 10000;
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
INSERT INTO jobs (name, target, state, created_ms, started_ms, finished_ms,
                  runs_planned, runs_done, verdict, error, spec)
SELECT 'load ' || i, 'nop',
       CASE i % 4 WHEN 0 THEN 'done' WHEN 1 THEN 'failed'
                  WHEN 2 THEN 'cancelled' ELSE 'interrupted' END,
       1700000000000 + i * 1000, 1700000000000 + i * 1000 + 10,
       1700000000000 + i * 1000 + 900, 12, 12,
       CASE i % 4 WHEN 0 THEN 'no_change' END,
       CASE i % 4 WHEN 1 THEN 'run 3 (variant B, round 2): synthetic failure' END,
       '{"name":"load ' || i || '","target":"nop","workload":{"runtime":"1s"},"variants":{"A":{},"B":{"bio_cache":"off"}},"repeat":6,"warmup":0}'
FROM n;
COMMIT;
SQL
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
n=$(sqlite3 "$DDB" "SELECT count(*) FROM jobs")
[ "$n" -ge 10000 ] && pass "10,000 jobs inserted in $ms ms ($n in the store)" || fail "jobs in the store: $n"
api GET "/api/v1/jobs?limit=50"
[ "$API_STATUS" = 200 ] && [ "$(api_get 'len(d["jobs"])')" = 50 ] && pass "list answers 50 jobs" ||
  fail "list: $API_STATUS $(head -c 200 "$API_BODY")"

cat >"$TMP/paths.lua" <<'LUA'
local paths = { "/api/v1/jobs?limit=50", "/metrics" }
local i = 0
request = function()
  i = i + 1
  return wrk.format("GET", paths[(i % 2) + 1])
end
LUA
echo "  wrk: 200 connections, ${LOAD_SECONDS}s, /api/v1/jobs?limit=50 and /metrics"
wrk -t2 -c200 -d"${LOAD_SECONDS}s" --timeout 5s --latency -s "$TMP/paths.lua" \
  "http://127.0.0.1:$DPORT" >"$TMP/wrk.out" 2>&1 || fail "wrk failed: $(cat "$TMP/wrk.out")"
sed 's/^/    /' "$TMP/wrk.out"
to_ms() { awk '{ v = $1; if (v ~ /us$/) { sub(/us$/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms$/, "", v) } else if (v ~ /s$/) { sub(/s$/, "", v); v *= 1000 } printf "%.2f", v }' <<<"$1"; }
p50=$(to_ms "$(awk '$1 == "50%" { print $2 }' "$TMP/wrk.out")")
p99=$(to_ms "$(awk '$1 == "99%" { print $2 }' "$TMP/wrk.out")")
reqs=$(awk '/requests in/ { print $1 }' "$TMP/wrk.out")
rps=$(awk '/^Requests\/sec/ { print $2 }' "$TMP/wrk.out")
non2xx=$(awk '/Non-2xx/ { print $NF }' "$TMP/wrk.out"); non2xx=${non2xx:-0}
sockerr=$(awk -F'[ ,]+' '/Socket errors/ { print $4 + $6 + $8 + $10 }' "$TMP/wrk.out"); sockerr=${sockerr:-0}
if [ -n "$reqs" ] && [ "$reqs" -gt 0 ] && [ "$non2xx" = 0 ] && [ "$sockerr" = 0 ]; then
  pass "wrk: $reqs requests ($rps/s), 0 errors"
else
  fail "wrk: ${reqs:-0} requests, $non2xx non-2xx, $sockerr socket errors"
fi
verdict=$(awk -v p="$p99" 'BEGIN { print (p < 50) ? "target met" : "MISS (target 50 ms)" }')
if awk -v p="$p99" -v m="$P99_MAX" 'BEGIN { exit !(p != "" && p < m) }'; then
  pass "wrk latency: p50 $p50 ms, p99 $p99 ms: $verdict"
else
  fail "wrk latency: p99 ${p99:-?} ms above the hard bound $P99_MAX ms"
fi
health_ok || fail "daemon does not answer after the load"

# --- 2. 1,000 idle connections ---------------------------------------------
/usr/bin/python3 - 127.0.0.1 "$DPORT" 1000 "$TMP/idle.ready" "$TMP/idle.stop" >"$TMP/idle.out" 2>&1 <<'PY' &
import os, socket, sys, time
host, port, n, ready, stop = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
socks, refused = [], 0
for i in range(n):
    s = socket.socket()
    s.settimeout(2)
    try:
        s.bind(("127.0.0.2", 0))
        s.connect((host, port))
        if i % 2:   # a request whose headers never end
            s.send(b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        socks.append(s)
    except OSError:
        refused += 1
        s.close()
open(ready, "w").write(f"{len(socks)} {refused}\n")
t0 = time.time()
while not os.path.exists(stop) and time.time() - t0 < 60:
    time.sleep(0.1)
alive = 0
for s in socks:
    try:
        s.settimeout(0.01)
        alive += s.recv(1, socket.MSG_PEEK) != b""
    except socket.timeout:
        alive += 1
    except OSError:
        pass
print(f"{alive} of {len(socks)} idle connections still open at the end")
PY
IDLE_PID=$!
cleanup_hooks+=("kill $IDLE_PID 2>/dev/null")
for _ in $(seq 300); do [ -s "$TMP/idle.ready" ] && break; sleep 0.1; done
read -r nidle nref <"$TMP/idle.ready" || { nidle=0; nref=?; }
ok=0 worst=0
for i in $(seq 1 20); do
  out=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' --max-time 3 "http://127.0.0.1:$DPORT/api/v1/jobs?limit=50" || true)
  read -r code secs <<<"$out"
  [ "$code" = 200 ] && ok=$((ok + 1))
  ms=$(awk -v s="${secs:-3}" 'BEGIN { printf "%d", s * 1000 }')
  (( ms > worst )) && worst=$ms
done
touch "$TMP/idle.stop"; wait "$IDLE_PID" 2>/dev/null || true
if [ "$nidle" -ge 1000 ] && [ "$ok" = 20 ]; then
  pass "with $nidle idle connections open: 20/20 other requests served (slowest $worst ms)"
else
  fail "idle connections: $nidle open ($nref refused); other requests served $ok/20 (slowest $worst ms)"
fi
echo "  $(cat "$TMP/idle.out")"
health_ok && pass "daemon answers after the idle connections" || fail "daemon stuck after the idle connections"

# --- 3. abuse -------------------------------------------------------------------
# expect NAME STATUS_RE CURL_ARGS...: status matches, daemon alive after
expect() {
  local name=$1 want=$2; shift 2
  local code
  code=$(curl -s --path-as-is -o "$TMP/abuse.body" -D "$TMP/abuse.hdr" -w '%{http_code}' --max-time 20 "$@" || true)
  if [[ $code =~ ^($want)$ ]]; then pass "$name: $code"
  else fail "$name: status '$code', wanted $want: $(head -c 200 "$TMP/abuse.body")"; fi
  if grep -q "TOP-SECRET-OUTSIDE" "$TMP/abuse.body" 2>/dev/null; then fail "$name: served the file outside the web root"; fi
  $ALIVE || fail "$name: daemon does not answer afterwards"
}
ALIVE=health_ok
U=http://127.0.0.1:$DPORT
echo "TOP-SECRET-OUTSIDE" >"$TMP/secret.txt"
head -c $((1024 * 1024 + 1)) /dev/zero | tr '\0' ' ' >"$TMP/big.json"
expect "body of 1 MiB + 1 (Content-Length)" 413 -X POST -H 'Content-Type: application/json' --data-binary @"$TMP/big.json" "$U/api/v1/jobs"
expect "body of 1 MiB + 1 (chunked)" 413 -X POST -H 'Transfer-Encoding: chunked' -H 'Content-Type: application/json' --data-binary @"$TMP/big.json" "$U/api/v1/jobs"
expect "Content-Length: 10 GB announced" "413" -X POST -H 'Content-Type: application/json' -H 'Content-Length: 10000000000' -H 'Expect:' --data-binary '{}' "$U/api/v1/jobs"
python3 -c 'print("[" * 200000 + "]" * 200000)' >"$TMP/deep.json"
expect "nested arrays 200,000 deep" 400 -X POST -H 'Content-Type: application/json' --data-binary @"$TMP/deep.json" "$U/api/v1/jobs"
python3 -c 'print("{\"name\":\"x\",\"target\":\"nop\",\"workload\":" + "{\"a\":" * 5000 + "1" + "}" * 5000 + "}")' >"$TMP/deep2.json"
expect "nested objects 5,000 deep in workload" 400 -X POST -H 'Content-Type: application/json' --data-binary @"$TMP/deep2.json" "$U/api/v1/jobs"
printf '{"name":"\xff\xfe bad","target":"nop","variants":{"A":{},"B":{}}}' >"$TMP/utf8.json"
expect "invalid UTF-8 in the body" 400 -X POST -H 'Content-Type: application/json' --data-binary @"$TMP/utf8.json" "$U/api/v1/jobs"
printf '{"name":"\xc0\xaf","target":"nop","variants":{"A":{},"B":{}}}' >"$TMP/utf8b.json"
expect "overlong UTF-8 in the body" 400 -X POST -H 'Content-Type: application/json' --data-binary @"$TMP/utf8b.json" "$U/api/v1/jobs"
expect "invalid UTF-8 in the path" "404|400" "$U/api/v1/jobs/%ff%fe"
expect "invalid UTF-8 in a query" 400 "$U/api/v1/jobs?state=%ff%fe"
expect "NUL in a query" 400 "$U/api/v1/jobs?state=done%00x"
q=$(python3 -c 'print("&".join(f"k{i}=v" for i in range(40)))')
expect "40 query arguments" 400 "$U/api/v1/jobs?$q"
for p in "/../secret.txt" "/%2e%2e/secret.txt" "/%2e%2e%2fsecret.txt" "/..%2fsecret.txt" \
         "/sub/../../secret.txt" "/out.txt" "/.%2e/secret.txt" "/%252e%252e/secret.txt" \
         "//etc/passwd" "/javascript/../../../etc/passwd" "/javascript/%2e%2e/%2e%2e/etc/passwd" \
         "/index.html%00.png" "/..\\secret.txt" "/%5c..%5csecret.txt"; do
  expect "static traversal $p" "403|404|400" "$U$p"
done
expect "static index still served" 200 "$U/"
expect "DELETE on a job" 405 -X DELETE "$U/api/v1/jobs/1"
grep -qi "^allow: GET, HEAD" "$TMP/abuse.hdr" && pass "405 carries Allow: GET, HEAD" || fail "405 without Allow: $(cat "$TMP/abuse.hdr")"
expect "PUT on a static file" 405 -X PUT --data-binary x "$U/index.html"
expect "PATCH on the job list" 405 -X PATCH --data-binary '{}' "$U/api/v1/jobs"
expect "GET on cancel" 405 "$U/api/v1/jobs/1/cancel"
expect "unknown method FOO" "405|501|400" -X FOO "$U/api/v1/jobs"
expect "TRACE" "405|501" -X TRACE "$U/"
expect "unknown API route" 404 "$U/api/v1/nope"
expect "job id overflow" 400 "$U/api/v1/jobs/99999999999999999999999"
expect "request line of 100 KB" "414|400|431|404|413" "$U/$(head -c 100000 /dev/zero | tr '\0' a)"
expect "header of 100 KB" "431|400|413" -H "X-Big: $(head -c 100000 /dev/zero | tr '\0' a)" "$U/api/v1/health"
daemon_stop || fail "daemon stop after abuse: exit $?"

# --- 4. a non-loopback listener needs a token -----------------------------------
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
  echo "  (non-loopback listener: needs root and ip; skipped)"
else
  ADDR=10.123.0.1
  if ip addr add "$ADDR/32" dev lo 2>/dev/null; then
    cleanup_hooks+=("ip addr del $ADDR/32 dev lo")
    port=$(free_port)
    rc=0
    timeout 10 "$DAEMON" --foreground --config "$DCONF" --listen "$ADDR:$port" --db "$TMP/tok.db" \
      --web-root "$DWEB" >"$TMP/notoken.out" 2>&1 || rc=$?
    [ "$rc" != 0 ] && grep -qi token "$TMP/notoken.out" && pass "listen on $ADDR without a token file: refused at start (exit $rc)" ||
      fail "listen on $ADDR without a token: exit $rc $(cat "$TMP/notoken.out")"
    TOK=$(head -c 24 /dev/urandom | base64 | tr -d '/+=')
    echo "$TOK" >"$TMP/token"; chmod 0644 "$TMP/token"
    rc=0
    timeout 10 "$DAEMON" --foreground --config "$DCONF" --listen "$ADDR:$port" --db "$TMP/tok.db" \
      --web-root "$DWEB" --token-file "$TMP/token" >"$TMP/badmode.out" 2>&1 || rc=$?
    [ "$rc" != 0 ] && pass "token file readable by others: refused at start (exit $rc): $(head -c 150 "$TMP/badmode.out")" ||
      fail "token file 0644 accepted"
    chmod 0600 "$TMP/token"
    "$DAEMON" --foreground --config "$DCONF" --listen "$ADDR:$port" --db "$TMP/tok.db" \
      --web-root "$DWEB" --token-file "$TMP/token" 2>>"$DLOG" &
    TPID=$!
    cleanup_hooks+=("daemon_kill $TPID")
    for _ in $(seq 100); do curl -s -o /dev/null --max-time 1 "http://$ADDR:$port/" && break; sleep 0.1; done
    V=http://$ADDR:$port
    remote_ok() { [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -H "Authorization: Bearer $TOK" "$V/api/v1/health")" = 200 ]; }
    ALIVE=remote_ok
    expect "remote: list without a token" 401 "$V/api/v1/jobs"
    grep -qi "^www-authenticate: Bearer" "$TMP/abuse.hdr" && pass "401 carries WWW-Authenticate: Bearer" || fail "401 without WWW-Authenticate"
    expect "remote: list with a wrong token" 401 -H "Authorization: Bearer x$TOK" "$V/api/v1/jobs"
    expect "remote: list with a token prefix" 401 -H "Authorization: Bearer ${TOK:0:10}" "$V/api/v1/jobs"
    expect "remote: list with the token as Basic" 401 -H "Authorization: Basic $TOK" "$V/api/v1/jobs"
    expect "remote: empty bearer" 401 -H "Authorization: Bearer " "$V/api/v1/jobs"
    expect "remote: /metrics without a token" 401 "$V/metrics"
    expect "remote: health without a token (not loopback)" 401 "$V/api/v1/health"
    expect "remote: submit without a token" 401 -X POST --data-binary @"$ROOT/examples/nop-bio-cache.json" "$V/api/v1/jobs"
    expect "remote: cancel without a token" 401 -X POST "$V/api/v1/jobs/1/cancel"
    expect "remote: list with the token" 200 -H "Authorization: Bearer $TOK" "$V/api/v1/jobs"
    expect "remote: /metrics with the token" 200 -H "Authorization: Bearer $TOK" "$V/metrics"
    expect "remote: dashboard without a token (static files hold no data)" 200 "$V/"
    expect "remote: traversal without a token" "403|404|400" "$V/%2e%2e/secret.txt"
    daemon_kill "$TPID"
  else
    echo "  (cannot add $ADDR to lo: non-loopback listener skipped)"
  fi
fi
echo "load_abuse tally: $PASSES passed, $FAILS failed; 10,000 jobs; wrk ${reqs:-0} requests at ${rps:-?}/s, p50 ${p50:-?} ms, p99 ${p99:-?} ms; $nidle idle connections, 20/20 = $ok served"
finish
