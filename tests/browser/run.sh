#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The dashboard in a real browser: Debian's chromium driven by playwright-core
# (npm), against a real biobenchd (free loopback port, temporary database,
# the repository's web/ as web root) with real finished jobs and one running.
#
# usage: run.sh path/to/biobenchd path/to/biobench [ARTIFACTS_DIR [NODE_DIR]]
#   ARTIFACTS_DIR  screenshots (default ./browser-artifacts)
#   NODE_DIR       where `npm ci` installs playwright-core from this folder's
#                  package-lock.json (default ARTIFACTS_DIR/../browser-node):
#                  under the build folder, never in the source tree
# Exit 0 pass, 1 fail, 77 skip (no node, no chromium, or playwright-core
# cannot be installed).
BROWSER_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ART=${3:-$PWD/browser-artifacts}
NODE_DIR=${4:-$(dirname "$ART")/browser-node}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}

# daemon_start, api, wait_state, pass/fail/skip, $TMP and its cleanup
source "$BROWSER_DIR/../integration/daemon_lib.sh" "${1:-}" "${2:-}"
# (lib.sh sets ROOT, the source tree, and HERE, its own folder)

command -v node >/dev/null || skip "node is not installed (apt-get install nodejs)"
node -e 'process.exit(parseInt(process.versions.node) >= 18 ? 0 : 1)' \
  || skip "node $(node --version) is too old: 18 or newer is needed"
[ -x "$CHROMIUM" ] || skip "$CHROMIUM is not installed (apt-get install chromium)"
"$CHROMIUM" --version >/dev/null 2>&1 || skip "$CHROMIUM does not run"
[ -f /usr/share/javascript/chart.js/chart.min.js ] || [ -f /usr/share/javascript/chart.js/chart.umd.js ] \
  || echo "  note: libjs-chart.js is not installed: the chart checks will fail" >&2

# --- playwright-core, pinned by package-lock.json ---------------------------
mkdir -p "$ART" "$NODE_DIR"
ART=$(cd "$ART" && pwd)
NODE_DIR=$(cd "$NODE_DIR" && pwd)
if ! cmp -s "$BROWSER_DIR/package-lock.json" "$NODE_DIR/package-lock.json" ||
   [ ! -f "$NODE_DIR/node_modules/playwright-core/package.json" ]; then
  command -v npm >/dev/null || skip "npm is not installed (apt-get install npm)"
  cp "$BROWSER_DIR/package.json" "$BROWSER_DIR/package-lock.json" "$NODE_DIR/"
  echo "  installing playwright-core into $NODE_DIR (npm ci)"
  if ! (cd "$NODE_DIR" && npm ci --no-audit --no-fund --loglevel=error) >"$TMP/npm.log" 2>&1; then
    sed 's/^/    /' "$TMP/npm.log" >&2
    rm -f "$NODE_DIR/package-lock.json"
    skip "cannot install playwright-core from the npm registry (offline?); see the log above"
  fi
fi

# --- the daemon, with the repository's dashboard -----------------------------
DWEB=$ROOT/web
# a lease of 3 s: the heartbeat (the hosts page's running job) every second
daemon_start --lease-seconds 3 || { fail "biobenchd starts"; finish; exit 1; }
BASE="http://127.0.0.1:$DPORT"
echo "  biobenchd on $BASE, web root $DWEB"

submit() { submit_job "$1"; }

# register_ghost NAME: a daemon NAME in the store, seen an hour ago (stale)
register_ghost() {
  /usr/bin/python3 - "$DDB" "$1" <<'PY'
import json, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], timeout=10)
name = sys.argv[2]
old = int(time.time() * 1000) - 3600 * 1000
db.execute("INSERT INTO daemons (name, host, devices, version, pid, started_ms,"
           " last_seen_ms) VALUES (?, ?, ?, ?, ?, ?, ?)",
           (name, json.dumps({"hostname": name, "kernel": "6.1.0-ghost",
                              "cpu_model": "Ghost CPU", "cpus": 4}),
            json.dumps({"devices": [{"name": "nvme9n1", "model": "Ghost SSD"}],
                        "allow": []}), "0.0-ghost", 1, old, old))
db.commit()
PY
}

SHORT='"target":"nop","workload":{"runtime":"200ms"},"repeat":6,"warmup":1'
id_cache=$(submit '{"name":"nop cache off vs all",'"$SHORT"',
  "variants":{"A":{"bio_cache":"off"},"B":{"bio_cache":"all"}}}')
id_slow1=$(submit '{"name":"inject 1500ns in B",'"$SHORT"',
  "variants":{"A":{},"B":{"inject_ns":1500}}}')
id_slow2=$(submit '{"name":"inject 1500ns in B",'"$SHORT"',
  "variants":{"A":{},"B":{"inject_ns":1500}}}')
# a name full of markup: the page must show it as text
id_html=$(submit '{"name":"<img src=\"/escape-probe.png\" alt=\"x\"><b>bold</b>","target":"nop",
  "workload":{"runtime":"100ms"},"repeat":2,"warmup":0,"variants":{"A":{},"B":{}}}')
# a file target: the device card shows its disk in words
dd if=/dev/zero of="$TMP/ro/dev.dat" bs=1M count=16 status=none
id_file=$(submit '{"name":"file read","target":"'"$TMP"'/ro/dev.dat","workload":{"runtime":"100ms",
  "direct":false},"repeat":2,"warmup":0,"variants":{"A":{},"B":{"bio_cache":"off"}}}')
for id in "$id_cache" "$id_slow1" "$id_slow2" "$id_html" "$id_file"; do
  st=$(WAIT_S=120 wait_state "$id" done failed cancelled interrupted || true)
  if [ "$st" != done ]; then
    fail "job $id done before the browser starts (state '$st')"
    sed 's/^/    /' "$DLOG" | tail -20 >&2
    finish
    exit 1
  fi
done
pass "5 short jobs done: $id_cache $id_slow1 $id_slow2 $id_html $id_file"

# a job whose runs are disturbed: a busy loop on its CPU (the last one, the
# daemon's bench CPU) while it runs; the gate waits 50 ms for quiet, then
# runs and marks the run
bench_cpu=$(( $(nproc) - 1 ))
taskset -c "$bench_cpu" sh -c 'while :; do :; done' &
spin=$!
cleanup_hooks+=("kill $spin 2>/dev/null")
id_dist=$(submit '{"name":"disturbed","target":"nop","workload":{"runtime":"150ms"},"repeat":2,
  "warmup":0,"quiescence":{"max_wait":"50ms"},"variants":{"A":{},"B":{"bio_cache":"off"}}}')
st=$(WAIT_S=60 wait_state "$id_dist" done failed cancelled interrupted || true)
kill "$spin" 2>/dev/null; wait "$spin" 2>/dev/null || true
[ "$st" = done ] && pass "job $id_dist (disturbed) done" || fail "job $id_dist (disturbed): state '$st'"

# a group: one job on this daemon and on ghost-2 (a host registered an hour
# ago, as ghost-1 below): this daemon's job ends, ghost-2's stays queued, so
# the parent runs with one host's comparison
host_self=$(api GET /api/v1/hosts && api_get 'd["hosts"][0]["name"]')
register_ghost ghost-2 || fail "register a stale host ghost-2 in $DDB"
id_group=$(submit '{"name":"group of two","host":["'"$host_self"'","ghost-2"],"target":"nop",
  "workload":{"runtime":"100ms"},"repeat":3,"warmup":0,"variants":{"A":{},"B":{"inject_ns":1500}}}')
id_child=$(api GET "/api/v1/jobs/$id_group" &&
  api_get '[k["id"] for k in d["children"] if k["host"] == "'"$host_self"'"][0]')
st=$(WAIT_S=60 wait_state "$id_child" done failed cancelled interrupted || true)
[ -n "$id_group" ] && [ "$st" = done ] && pass "group $id_group: job $id_child on $host_self done, ghost-2's queued" ||
  fail "group '$id_group': job '$id_child' on $host_self state '$st'"

# one job running while the browser looks: 2 variants x 40 runs of 1 s
# (cancelled at the end), blocked (A A ... B B ...), so that it has
# measured runs but no comparison until its end (the page must show them
# all the same)
id_run=$(submit '{"name":"long running","target":"nop","workload":{"runtime":"1s"},
  "repeat":40,"warmup":0,"order":"blocked","variants":{"A":{},"B":{"inject_ns":200}}}')
st=$(WAIT_S=30 wait_state "$id_run" running || true)
[ "$st" = running ] && pass "job $id_run running" || fail "job $id_run running (state '$st')"

# the fleet: a second daemon registered in the store an hour ago and never
# since (stale), with a job addressed to it that stays queued
register_ghost ghost-1 || fail "register a stale host ghost-1 in $DDB"
id_ghost=$(submit '{"name":"for the ghost","host":"ghost-1","target":"nop",
  "workload":{"runtime":"100ms"},"repeat":2,"warmup":0,"variants":{"A":{},"B":{}}}')
[ -n "$host_self" ] && [ -n "$id_ghost" ] &&
  pass "this daemon is host $host_self; job $id_ghost queued for the stale ghost-1" ||
  fail "hosts: self '$host_self', ghost job '$id_ghost'"
api GET "/api/v1/jobs?host=ghost-1"
[ "$API_STATUS" = 200 ] && [ "$(api_get '[j["id"] for j in d["jobs"]]')" = "[$id_ghost]" ] &&
  pass "GET /api/v1/jobs?host=ghost-1: its job only" ||
  fail "?host=ghost-1: $API_STATUS $(head -c 300 "$API_BODY")"
api GET "/api/v1/jobs?host=no_such_host"
[ "$API_STATUS" = 400 ] && [ "$(api_get 'd["error"]["field"]')" = host ] &&
  pass "?host=no_such_host: 400 naming host: $(api_get 'd["error"]["message"]')" ||
  fail "?host=no_such_host: $API_STATUS $(head -c 300 "$API_BODY")"

rc=0
BB_URL=$BASE BB_HOST_SELF=$host_self BB_JOB_GHOST=$id_ghost BB_ART=$ART BB_NODE_DIR=$NODE_DIR BB_CHROMIUM=$CHROMIUM \
BB_JOB_CACHE=$id_cache BB_JOB_SLOW1=$id_slow1 BB_JOB_SLOW2=$id_slow2 \
BB_JOB_GROUP=$id_group BB_JOB_CHILD=$id_child \
BB_JOB_HTML=$id_html BB_JOB_RUNNING=$id_run BB_JOB_FILE=$id_file BB_JOB_DISTURBED=$id_dist \
  node "$BROWSER_DIR/dashboard.test.mjs" || rc=$?
api POST "/api/v1/jobs/$id_run/cancel" || true
api POST "/api/v1/jobs/$id_ghost/cancel" || true
api POST "/api/v1/jobs/$id_group/cancel" || true
if [ "$rc" = 77 ]; then
  skip "chromium cannot be started by playwright-core (see above)"
fi
[ "$rc" = 0 ] && pass "browser checks (screenshots in $ART)" \
  || fail "browser checks (exit $rc; screenshots in $ART)"
daemon_stop || fail "biobenchd stops cleanly"
finish
