#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# knob_identity.sh BIOBENCHD BIOBENCH - knob recovery writes only onto the
# device the knob was journaled on (issue 12, finding 21).  A job sets
# read_ahead_kb on loopN and the daemon is killed (-9) while it is
# applied:
#   control: restarted with loopN as it was, the original comes back;
#   reuse:   loopN detached and a different image attached as loopN (its
#            own read_ahead_kb set), then restarted: the new loopN's knob
#            is untouched, the journal row is marked not restorable with
#            the reason, the log says so, and a later start leaves it too.
# Needs root (loop devices, sysfs).
source "$(dirname "$0")/../integration/daemon_lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root (loop devices, sysfs knobs)"
[ -x "$CLI" ] || skip "usage: $0 BIOBENCHD BIOBENCH"

dd if=/dev/zero of="$TMP/a.img" bs=1M count=32 status=none
dd if=/dev/zero of="$TMP/b.img" bs=1M count=32 status=none
LOOP=$(losetup -f --show "$TMP/a.img" 2>/dev/null) || skip "losetup failed: no loop devices"
cleanup_hooks+=('losetup -d $LOOP 2>/dev/null')
RA=/sys/block/$(basename "$LOOP")/queue/read_ahead_kb
ORIG=$(cat "$RA")
NEW=$(( ORIG == 512 ? 1024 : 512 ))
THEIRS=$(( ORIG == 3072 ? 2048 : 3072 ))   # the new device's own value

write_config
cat >>"$DCONF" <<EOF
allow = $LOOP
allow_knobs = $LOOP read_ahead_kb
EOF

# apply_and_kill: a job whose B sets read_ahead_kb; kill -9 the daemon
# while the knob is applied.  The job id in $ID.
apply_and_kill() {
  daemon_start || { finish; exit 1; }
  api POST /api/v1/jobs "{\"name\":\"identity\",\"target\":\"$LOOP\",
    \"workload\":{\"runtime\":\"2s\",\"direct\":true,\"iodepth\":4,\"rw\":\"randread\"},
    \"variants\":{\"A\":{},\"B\":{\"sysfs.read_ahead_kb\":$NEW}},\"repeat\":2,\"warmup\":0,
    \"order\":\"blocked\",\"quiescence\":{\"mode\":\"off\"}}"
  ID=$(api_get 'd["id"]')
  for _ in $(seq 1 600); do [ "$(cat "$RA")" = "$NEW" ] && break; sleep 0.02; done
  if [ "$(cat "$RA")" != "$NEW" ]; then
    fail "read_ahead_kb never became $NEW (job $ID: $(api_get 'd["state"]'))"; finish; exit 1
  fi
  kill -KILL "$DPID"; wait "$DPID" 2>/dev/null || true; DPID=
}

# --- control: the same device: restored -------------------------------------
apply_and_kill
daemon_start || { finish; exit 1; }
[ "$(cat "$RA")" = "$ORIG" ] && pass "control: same $LOOP after kill -9: restored to $ORIG" \
  || fail "control: read_ahead_kb is $(cat "$RA"), wanted $ORIG; log: $(grep -a recovery "$DLOG" | tail -2)"
daemon_stop || true

# --- another image attached as the same loop device --------------------------
apply_and_kill
losetup -d "$LOOP"
for _ in $(seq 50); do losetup "$LOOP" "$TMP/b.img" 2>/dev/null && break; sleep 0.1; done
[ "$(losetup -n -O BACK-FILE "$LOOP" 2>/dev/null)" = "$TMP/b.img" ] || { fail "cannot attach b.img as $LOOP"; finish; exit 1; }
echo "$THEIRS" >"$RA"
: >"$DLOG"
daemon_start || { finish; exit 1; }
[ "$(cat "$RA")" = "$THEIRS" ] && pass "reuse: the new $LOOP keeps its read_ahead_kb $THEIRS" \
  || fail "reuse: the new $LOOP's read_ahead_kb is $(cat "$RA"), was $THEIRS (written with the old device's original)"
grep -aq "not restored.*another device now.*marked not restorable" "$DLOG" \
  && pass "reuse: logged: $(grep -ao 'recovery: .*not restorable' "$DLOG" | head -1 | cut -c1-200)" \
  || fail "reuse: no log line: $(grep -a recovery "$DLOG" | head -3)"
api GET "/api/v1/jobs/$ID"
nr=$(api_get '[k["not_restorable"] for k in d["knobs"] if k["not_restorable"]][0]')
[ -n "$nr" ] && pass "reuse: journal row marked not restorable: $nr" \
  || fail "reuse: no row marked not restorable: $(api_get 'd["knobs"]')"
daemon_stop || true
echo "$THEIRS" >"$RA"
: >"$DLOG"
daemon_start || { finish; exit 1; }
[ "$(cat "$RA")" = "$THEIRS" ] && ! grep -aq "restored $RA" "$DLOG" \
  && pass "a later start leaves the row alone" || fail "a later start wrote $RA: $(cat "$RA")"

finish
