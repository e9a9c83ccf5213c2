#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# fleet_examples.sh BIOBENCHD - the fleet's monitoring examples against a
# real daemon's /metrics (ctest it_fleet_examples): every series carries
# host="bench-1.lab" (the daemon's --host-name), promtool check metrics is
# clean, examples/prometheus-fleet.yml passes promtool check config (its
# token file made real in the temporary folder), and
# examples/grafana-fleet.json is JSON whose every query is PromQL that
# promtool parses (as recording rules) and names only metric families
# this /metrics has, with only the labels those series carry.
source "$(dirname "$0")/daemon_lib.sh"

command -v promtool >/dev/null || skip "promtool is not installed (apt-get install prometheus)"
EX=$ROOT/examples
write_config
daemon_start --host-name bench-1.lab || { fail "biobenchd starts"; finish; }

api GET /metrics
cp "$API_BODY" "$TMP/metrics.txt"
series=$(grep -vc '^#' "$TMP/metrics.txt")
[ "$API_STATUS" = 200 ] && [ "$series" -gt 10 ] &&
  [ "$(grep -v '^#' "$TMP/metrics.txt" | grep -vc '{host="bench-1.lab"[,}]')" = 0 ] &&
  pass "/metrics: all $series series carry host=\"bench-1.lab\" first" ||
  fail "/metrics: $API_STATUS $(grep -v '^#' "$TMP/metrics.txt" | grep -v 'host="bench-1.lab"' | head -3)"
promtool check metrics <"$TMP/metrics.txt" >"$TMP/promtool.out" 2>&1 &&
  pass "promtool check metrics: clean" || fail "promtool check metrics: $(cat "$TMP/promtool.out")"

# promtool opens the token file the config names: a real one here
echo "a-token-of-32-bytes-for-promtool" >"$TMP/biobench.token"
sed "s|/etc/prometheus/biobench.token|$TMP/biobench.token|" \
  "$EX/prometheus-fleet.yml" >"$TMP/prometheus-fleet.yml"
grep -q "credentials_file: $TMP/biobench.token" "$TMP/prometheus-fleet.yml" ||
  fail "prometheus-fleet.yml: no credentials_file /etc/prometheus/biobench.token"
promtool check config "$TMP/prometheus-fleet.yml" >"$TMP/config.out" 2>&1 &&
  pass "promtool check config examples/prometheus-fleet.yml: clean" ||
  fail "promtool check config: $(cat "$TMP/config.out")"

# the dashboard's queries: JSON, families and labels of this /metrics, and
# the expressions as a rules file for promtool to parse
if /usr/bin/python3 - "$EX/grafana-fleet.json" "$TMP/metrics.txt" "$TMP/rules.yml" \
    >"$TMP/grafana.out" 2>&1 <<'PY'
import json, re, sys
dash = json.load(open(sys.argv[1]))
families, labels = set(), {}
for line in open(sys.argv[2]):
    m = re.match(r"# TYPE (\w+) ", line)
    if m:
        families.add(m.group(1))
        continue
    m = re.match(r"(\w+)\{([^}]*)\} ", line)
    if m:
        labels.setdefault(m.group(1), set()).update(
            re.findall(r'(\w+)="', m.group(2)))
exprs = []
def walk(o, where):
    if isinstance(o, dict):
        for k, v in o.items():
            if k in ("expr", "definition") and isinstance(v, str):
                exprs.append((where, v))
            elif k == "query" and isinstance(v, str) and "(" in v:
                exprs.append((where, v))
            else:
                walk(v, where + "." + k)
    elif isinstance(o, list):
        for i, v in enumerate(o):
            walk(v, "%s[%d]" % (where, i))
walk(dash, "dashboard")
bad = []
used = set()
ids = [p["id"] for p in dash["panels"]]
if len(ids) != len(set(ids)):
    bad.append("panel ids repeat: %s" % ids)
for where, e in exprs:
    names = set(re.findall(r"\bbiobench_\w+", e))
    if not names:
        bad.append("%s: %r queries no biobench_ metric" % (where, e))
    for n in names:
        used.add(n)
        if n not in families:
            bad.append("%s: %s is not in /metrics" % (where, n))
        for sel in re.findall(n + r"\{([^}]*)\}", e):
            for l in re.findall(r"(\w+)\s*=~?", sel):
                if l not in labels.get(n, set()):
                    bad.append("%s: %s has no label %s" % (where, n, l))
    for grp in re.findall(r"\b(?:by|without)\s*\(([^)]*)\)", e):
        for l in re.split(r"\s*,\s*", grp.strip()):
            if not any(l in labels.get(n, set()) for n in names):
                bad.append("%s: no label %s on %s" % (where, l, sorted(names)))
    m = re.match(r"label_values\((\w+),\s*(\w+)\)$", e)
    if m and m.group(2) not in labels.get(m.group(1), set()):
        bad.append("%s: %s has no label %s" % (where, m.group(1), m.group(2)))
with open(sys.argv[3], "w") as f:
    f.write("groups:\n  - name: grafana-fleet\n    rules:\n")
    for i, (where, e) in enumerate(exprs):
        if e.startswith("label_values("):
            continue
        f.write("      - record: grafana_fleet:q%d\n        expr: %s\n"
                % (i, json.dumps(e.replace("$host", ".*"))))
print("%d queries over %d families (%s)" % (len(exprs), len(used), ", ".join(sorted(used))))
for b in bad:
    print("  " + b)
sys.exit(1 if bad or len(used) < 5 else 0)
PY
then
  pass "grafana-fleet.json: $(cat "$TMP/grafana.out")"
else
  fail "grafana-fleet.json: $(cat "$TMP/grafana.out")"
fi
promtool check rules "$TMP/rules.yml" >"$TMP/rules.out" 2>&1 &&
  pass "grafana-fleet.json: promtool parses every query ($(grep -c 'record:' "$TMP/rules.yml"))" ||
  fail "grafana-fleet.json queries: $(cat "$TMP/rules.out")"

daemon_stop || fail "biobenchd stops cleanly"
finish
