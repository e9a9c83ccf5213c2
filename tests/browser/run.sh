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
daemon_start || { fail "biobenchd starts"; finish; exit 1; }
BASE="http://127.0.0.1:$DPORT"
echo "  biobenchd on $BASE, web root $DWEB"

submit() { submit_job "$1"; }

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
for id in "$id_cache" "$id_slow1" "$id_slow2" "$id_html"; do
  st=$(WAIT_S=120 wait_state "$id" done failed cancelled interrupted || true)
  if [ "$st" != done ]; then
    fail "job $id done before the browser starts (state '$st')"
    sed 's/^/    /' "$DLOG" | tail -20 >&2
    finish
    exit 1
  fi
done
pass "4 short jobs done: $id_cache $id_slow1 $id_slow2 $id_html"

# one job running while the browser looks: 2 variants x 20 runs of 1 s
id_run=$(submit '{"name":"long running","target":"nop","workload":{"runtime":"1s"},
  "repeat":20,"warmup":0,"variants":{"A":{},"B":{"inject_ns":200}}}')
st=$(WAIT_S=30 wait_state "$id_run" running || true)
[ "$st" = running ] && pass "job $id_run running" || fail "job $id_run running (state '$st')"

rc=0
BB_URL=$BASE BB_ART=$ART BB_NODE_DIR=$NODE_DIR BB_CHROMIUM=$CHROMIUM \
BB_JOB_CACHE=$id_cache BB_JOB_SLOW1=$id_slow1 BB_JOB_SLOW2=$id_slow2 \
BB_JOB_HTML=$id_html BB_JOB_RUNNING=$id_run \
  node "$BROWSER_DIR/dashboard.test.mjs" || rc=$?
api POST "/api/v1/jobs/$id_run/cancel" || true
if [ "$rc" = 77 ]; then
  skip "chromium cannot be started by playwright-core (see above)"
fi
[ "$rc" = 0 ] && pass "browser checks (screenshots in $ART)" \
  || fail "browser checks (exit $rc; screenshots in $ART)"
daemon_stop || fail "biobenchd stops cleanly"
finish
