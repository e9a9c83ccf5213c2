#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# terminal_escapes.sh BIOBENCHD BIOBENCH - what the CLI prints from the
# server reaches the terminal escaped (issue 12, finding 8): a job whose
# name and error hold a window-title sequence (ESC ] 0 ; ... BEL), a
# screen clear (ESC [ 2 J), an OSC 52 clipboard write, a C1 CSI (U+009B)
# and DEL is listed, shown, compared and watched, and refused with such a
# variant name; no output holds a raw ESC, BEL, DEL or C1 byte, with or
# without --json.  `jobs` cuts a long name of two-byte characters on a
# character boundary with an ellipsis.
source "$(dirname "$0")/../integration/daemon_lib.sh"

[ -x "$CLI" ] || skip "usage: $0 BIOBENCHD BIOBENCH"
/usr/bin/python3 -c 'import sqlite3' 2>/dev/null || skip "python3 sqlite3 module missing"

daemon_start || { finish; exit 1; }
export BIOBENCH_SERVER="http://127.0.0.1:$DPORT"

# the hostile text, as JSON escapes (the daemon is given valid JSON)
EVIL_J='t\u001b]0;pwned\u0007 \u001b[2J \u001b]52;c;cm0gLXJmIH4=\u0007 \u009b31m \u007f end'
EVIL=$(/usr/bin/python3 -c 'import json,sys; sys.stdout.write(json.loads("\"" + sys.argv[1] + "\""))' "$EVIL_J")
LONG=$(/usr/bin/python3 -c 'print("\u00e9" * 50)')   # 50 x 2-byte é

# no_raw FILE WHAT: the file holds no ESC, BEL, DEL or UTF-8 C1 (C2 80..9F)
no_raw() {
  if /usr/bin/python3 - "$1" <<'PY'
import re, sys
b = open(sys.argv[1], "rb").read()
bad = re.search(rb"[\x1b\x07\x7f]|\xc2[\x80-\x9f]", b)
if bad:
    print("  raw control at byte %d: %r" % (bad.start(), b[max(0, bad.start() - 20):bad.start() + 20]))
    sys.exit(1)
PY
  then pass "$2: no raw control bytes"
  else fail "$2: raw control bytes reach the terminal"; fi
}

submit_job() { # submit_job NAME_JSON: the job id in $ID
  api POST /api/v1/jobs "{\"name\":\"$1\",\"target\":\"nop\",
    \"workload\":{\"runtime\":\"100ms\",\"iodepth\":4},
    \"variants\":{\"A\":{},\"B\":{\"iodepth\":8}},\"repeat\":2,\"warmup\":0}"
  ID=$(api_get 'd["id"]')
}

submit_job "$EVIL_J"
if [ "$API_STATUS" != 201 ]; then
  # a daemon that refuses control characters in names: the same text put
  # into the store directly (what an older daemon or database holds)
  echo "note: the daemon refused the name ($API_STATUS); storing it directly"
  submit_job "plain"
  DIRECT=1
fi
[ -n "$ID" ] || { fail "no job submitted: $API_STATUS $(cat "$API_BODY")"; finish; exit 1; }
st=$(WAIT_S=60 wait_state "$ID" done failed) || true
[ "$st" = done ] || fail "job $ID ended $st"
submit_job "$LONG"
ID2=$ID
WAIT_S=60 wait_state "$ID2" done failed >/dev/null || true
ID=$(( ID2 - 1 ))
/usr/bin/python3 - "$DDB" "$ID" "$EVIL" "${DIRECT:-0}" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], timeout=10)
if sys.argv[4] == "1":
    db.execute("UPDATE jobs SET name = ? WHERE id = ?", (sys.argv[3], int(sys.argv[2])))
db.execute("UPDATE jobs SET error = ? WHERE id = ?", ("boom " + sys.argv[3], int(sys.argv[2])))
db.commit()
PY

run_cli() { # run_cli NAME ARGS...: stdout+stderr to $TMP/NAME.out
  local name=$1; shift
  "$CLI" "$@" >"$TMP/$name.out" 2>&1 || true
}
run_cli jobs jobs
run_cli jobs_json jobs --json
run_cli show show "$ID"
run_cli show_json show "$ID" --json
run_cli compare compare "$ID"
run_cli watch watch "$ID"
run_cli watch_json watch "$ID" --json
for f in jobs jobs_json show show_json compare watch watch_json; do
  no_raw "$TMP/$f.out" "biobench ${f/_/ --}"
done
grep -q 'pwned' "$TMP/jobs.out" && grep -qF '\x1b]0;pwned\x07' "$TMP/show.out" \
  && pass "the escaped text is shown (\\x1b]0;pwned\\x07)" \
  || fail "the name is not shown escaped: $(grep -a pwned "$TMP/show.out" | head -2)"
grep -qF '\u009b31m' "$TMP/show.out" && pass "C1 CSI shown as \\u009b" \
  || fail "C1 CSI not shown as \\u009b: $(grep -a 31m "$TMP/show.out" | head -1)"
# --json keeps the data: the name decodes back to the original text
got=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["name"] == sys.argv[2])' \
  "$TMP/show_json.out" "$EVIL" 2>&1 || true)
[ "$got" = True ] && pass "show --json: the name decodes to the original text" \
  || fail "show --json: the name does not round-trip: $got"

# an error answer that echoes the text (a variant named with it)
api_body="{\"name\":\"x\",\"target\":\"nop\",\"variants\":{\"A\":{},\"$EVIL_J\":{}}}"
printf '%s' "$api_body" >"$TMP/bad.json"
rc=0; "$CLI" submit "$TMP/bad.json" >"$TMP/err.out" 2>&1 || rc=$?
[ "$rc" = 2 ] && pass "submit of a bad variant name: exit 2 (invalid job)" || fail "submit: exit $rc: $(cat -v "$TMP/err.out")"
no_raw "$TMP/err.out" "biobench submit (an error naming the field)"

# jobs: the long name is cut on a character boundary, with an ellipsis
line=$(grep -a "^ *$ID2 " "$TMP/jobs.out" || true)
if /usr/bin/python3 - "$line" <<'PY'
import sys
line = sys.argv[1].encode("utf-8", "surrogateescape")
s = line.decode("utf-8")           # raises on a cut inside a character
name = s.split("  ")[1] if "  " in s else ""
assert "\u2026" in s, "no ellipsis"
assert s.count("\u00e9") == 35, "%d characters kept" % s.count("\u00e9")
PY
then pass "jobs: a long UTF-8 name is cut to 35 characters + an ellipsis"
else fail "jobs: the long name line: $(printf '%s' "$line" | cat -v)"; fi

finish
