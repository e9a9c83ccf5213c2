#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# symlink_race.sh BIOBENCHD BIOBENCH - the daemon opens targets through one
# pinned path, with no fallback that follows a symlink (issue 12, finding
# 4):
#   - for RACE_S seconds (default 30) a racer flips an allowed path
#     (allow_write glob) between missing and a symlink to a file outside
#     the allow-list, as fast as it can, while write jobs on that path run
#     back to back (without "size", the case that used to fall back to a
#     plain open, and with "size", the creation case); the outside file
#     must keep its bytes, and enough runs must have been tried to have
#     lost the race before the fix (at least 1,000 flips and 100 runs);
#   - a hard link in the allow_write directory to a file outside it is not
#     written (st_nlink > 1);
#   - the daemon still answers, and a clean write job afterwards runs.
# Needs root (the daemon opens files as root, as in production).
source "$(dirname "$0")/../integration/daemon_lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
RACE_S=${RACE_S:-30}
cleanup_hooks+=('[ -z "$DPID" ] || daemon_kill $DPID')

write_config
mkdir -p "$TMP/outside"
head -c 4M /dev/urandom >"$TMP/outside/victim.dat"
head -c 1M /dev/urandom >"$TMP/outside/linked.dat"
s_victim=$(sha256sum <"$TMP/outside/victim.dat" | cut -c1-16)
s_linked=$(sha256sum <"$TMP/outside/linked.dat" | cut -c1-16)
daemon_start || { finish; exit 1; }

# --- hard link ---------------------------------------------------------------------
ln "$TMP/outside/linked.dat" "$TMP/rw/hard.dat"
api POST /api/v1/jobs "{\"name\":\"hardlink\",\"target\":\"$TMP/rw/hard.dat\",\"workload\":{\"rw\":\"randwrite\",
  \"allow_write\":true,\"direct\":false,\"number_ios\":64,\"iodepth\":4},\"variants\":{\"A\":{},\"B\":{}},
  \"repeat\":2,\"warmup\":0,\"quiescence\":{\"mode\":\"off\"}}"
if [[ $API_STATUS == 4* ]]; then
  msg=$(api_get 'd["error"]["message"]'); st=refused
else
  id=$(api_get 'd["id"]')
  st=$(WAIT_S=60 wait_state "$id" done failed cancelled interrupted) || true
  api GET "/api/v1/jobs/$id"; msg=$(api_get 'd["error"]')
fi
if [ "$st" != done ] && grep -qi "link" <<<"$msg" &&
   [ "$(sha256sum <"$TMP/outside/linked.dat" | cut -c1-16)" = "$s_linked" ]; then
  pass "a hard link to a file outside the allow-list is not written ($st): $msg"
else
  fail "hard link: job $st ($msg), outside file $( [ "$(sha256sum <"$TMP/outside/linked.dat" | cut -c1-16)" = "$s_linked" ] && echo unchanged || echo WRITTEN)"
fi
rm -f "$TMP/rw/hard.dat"

# --- the race ----------------------------------------------------------------------
/usr/bin/python3 - "$DPORT" "$TMP/rw/race.dat" "$TMP/outside/victim.dat" "$RACE_S" >"$TMP/race.out" 2>&1 <<'PY' || true
import json, os, sys, threading, time, urllib.request, urllib.error

port, path, victim, secs = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
base = f"http://127.0.0.1:{port}/api/v1"
stop = threading.Event()
flips = 0

def racer():
    global flips
    while not stop.is_set():
        try:
            os.symlink(victim, path)
        except FileExistsError:
            pass
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        flips += 1

def call(method, url, body=None):
    req = urllib.request.Request(base + url, method=method,
                                 data=json.dumps(body).encode() if body else None,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)

def job(with_size):
    wl = {"rw": "randwrite", "allow_write": True, "direct": False,
          "number_ios": 32, "iodepth": 4, "bs": "4k"}
    if with_size:
        wl["size"] = "64k"
    return {"name": "race", "target": path, "workload": wl,
            "variants": {v: {} for v in "ABCD"}, "repeat": 4, "warmup": 0,
            "quiescence": {"mode": "off"}}

t = threading.Thread(target=racer, daemon=True)
t.start()
submitted = refused = 0
ids = []
end = time.time() + secs
i = 0
while time.time() < end:
    # keep at most two jobs waiting
    pending = 0
    for jid in ids[-4:]:
        st, d = call("GET", f"/jobs/{jid}")
        pending += d.get("state") in ("queued", "running")
    if pending >= 2:
        time.sleep(0.02)
        continue
    st, d = call("POST", "/jobs", job(i % 2 == 1))
    i += 1
    if st == 201:
        submitted += 1
        ids.append(d["id"])
    else:
        refused += 1
        time.sleep(0.005)
stop.set()
t.join()
# wait for the last jobs
for jid in ids[-4:]:
    for _ in range(300):
        st, d = call("GET", f"/jobs/{jid}")
        if d.get("state") not in ("queued", "running"):
            break
        time.sleep(0.1)
runs = done = 0
states = {}
for jid in ids:
    st, d = call("GET", f"/jobs/{jid}/runs")
    runs += len(d.get("runs", d if isinstance(d, list) else []))
    st, d = call("GET", f"/jobs/{jid}")
    states[d.get("state")] = states.get(d.get("state"), 0) + 1
print(f"flips={flips} submitted={submitted} refused_at_submit={refused} runs={runs} states={json.dumps(states)}")
PY
cat "$TMP/race.out" | tail -3
eval "$(grep -o 'flips=[0-9]* submitted=[0-9]* refused_at_submit=[0-9]* runs=[0-9]*' "$TMP/race.out" | tail -1)" || true
flips=${flips:-0}; submitted=${submitted:-0}; runs=${runs:-0}
tried=$(grep -c "race\.dat" "$DLOG" || true)
[ "$flips" -ge 1000 ] && pass "racer: $flips flips in ${RACE_S} s" || fail "racer: only $flips flips"
[ "$submitted" -ge 10 ] && pass "$submitted jobs accepted while racing ($tried log lines about race.dat)" ||
  fail "only $submitted jobs accepted: $(cat "$TMP/race.out" | tail -3)"
if [ "$(sha256sum <"$TMP/outside/victim.dat" | cut -c1-16)" = "$s_victim" ]; then
  pass "the file outside the allow-list is untouched after ${RACE_S} s of racing"
else
  fail "the file outside the allow-list was WRITTEN through the symlink race"
fi
[ "$(stat -c %s "$TMP/outside/victim.dat")" = 4194304 ] || fail "victim's size changed: $(stat -c %s "$TMP/outside/victim.dat")"

# --- afterwards --------------------------------------------------------------------
rm -f "$TMP/rw/race.dat"
head -c 1M /dev/urandom >"$TMP/rw/clean.dat"
api POST /api/v1/jobs "{\"name\":\"after\",\"target\":\"$TMP/rw/clean.dat\",\"workload\":{\"rw\":\"randwrite\",
  \"allow_write\":true,\"direct\":false,\"number_ios\":64,\"iodepth\":4},\"variants\":{\"A\":{},\"B\":{}},
  \"repeat\":2,\"warmup\":0,\"quiescence\":{\"mode\":\"off\"}}"
id=$(api_get 'd["id"]')
st=$(WAIT_S=60 wait_state "$id" done failed) || true
[ "$st" = done ] && pass "a clean write job afterwards is done" || fail "clean job after the race: $st $(api_get 'd["error"]')"
daemon_alive && health_ok && pass "daemon still answers" || fail "daemon died"
daemon_stop || true
finish
