#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check the boot-job guest test (tests/vm/boots.sh).

usage: check_boots.py --work DIR

DIR holds, per scenario (ok, wrong), NAME.log (the serial console: one
'BBVM {"step": "boot", "boot_id", "cmdline", ...}' line per boot of the
guest, then "submit" and "end") and NAME.db (biobenchd's database read out
of the guest's disk after it powered off).  Prints one line per check and
'N passed, N failed'; exits 1 if any check failed.
"""
import argparse
import json
import os
import re
import sqlite3
import sys

results = []


def check(name, ok, detail=""):
    results.append(bool(ok))
    print(f"{'ok  ' if ok else 'FAIL'} {name}" + (f": {detail}" if detail else ""))


def serial(path):
    lines = []
    try:
        text = open(path, errors="replace").read()
    except OSError as e:
        check(f"read {path}", False, str(e))
        return lines
    for raw in text.splitlines():
        i = raw.find("BBVM {")
        if i < 0:
            continue
        try:
            lines.append(json.loads(raw[i + 5:].strip()))
        except ValueError as e:
            lines.append({"step": "unparsable", "err": f"{e}: {raw[:200]}"})
    return lines


def kernel_of(cmdline):
    m = re.search(r"\bbbkernel=(\w+)", cmdline or "")
    return m.group(1) if m else None


def load(work, name):
    log = serial(os.path.join(work, name + ".log"))
    for e in (x for x in log if x.get("step") in ("error", "unparsable")):
        check(f"{name}: guest error", False, e.get("err"))
    boots = [x for x in log if x.get("step") == "boot"]
    end = next((x for x in log if x.get("step") == "end"), None)
    dbp = os.path.join(work, name + ".db")
    if not os.path.exists(dbp):
        check(f"{name}: database read out of the disk", False, dbp)
        return boots, end, None, None
    db = sqlite3.connect(dbp)
    db.row_factory = sqlite3.Row
    job = db.execute("SELECT * FROM jobs ORDER BY id LIMIT 1").fetchone()
    runs = db.execute("SELECT * FROM runs WHERE job_id = ? ORDER BY seq",
                      (job["id"],)).fetchall() if job else []
    events = [r["message"] for r in db.execute(
        "SELECT message FROM events WHERE job_id = ? ORDER BY id",
        (job["id"],))] if job else []
    return boots, end, (job, runs, events), db


def runs_on_their_kernels(name, boots, runs):
    by_id = {b.get("boot_id"): kernel_of(b.get("cmdline")) for b in boots}
    bad = []
    for r in runs:
        res = json.loads(r["result"]) if r["result"] else {}
        k = by_id.get(res.get("boot_id"))
        if k != r["variant"]:
            bad.append(f"run {r['seq']} ({r['variant']}, boot {r['round'] + 1}) "
                       f"on boot {res.get('boot_id')} = kernel {k}")
    check(f"{name}: every run on the kernel its variant named", runs and not bad,
          "; ".join(bad) or f"{len(runs)} runs")


def scenario_ok(work):
    boots, end, jr, _ = load(work, "ok")
    if jr is None:
        return
    job, runs, events = jr
    check("ok: the job ended done", end and end.get("state") == "done" and
          job and job["state"] == "done",
          f"end {end}, stored {job['state'] if job else None}: {job['error'] if job else ''}")
    kernels = [kernel_of(b.get("cmdline")) for b in boots]
    check("ok: the guest booted on neither kernel, A, B, A (killed), its "
          "default kernel (the crash), then A again and B",
          kernels == [None, "A", "B", "A", None, "A", "B"], str(kernels))
    kills = [x for x in serial(os.path.join(work, "ok.log")) if x.get("step") == "kill"]
    check("ok: biobenchd was killed once, after 5 runs",
          len(kills) == 1 and kills[0].get("runs_done") == 5, str(kills))
    ids = [b.get("boot_id") for b in boots]
    check("ok: every boot has its own boot id", len(set(ids)) == len(ids), str(ids))
    dropped = [r for r in runs if r["discarded"]]
    kept = [r for r in runs if not r["discarded"]]
    check("ok: the interrupted boot's finished run is kept, discarded",
          len(dropped) == 1 and dropped[0]["round"] == 2 and
          dropped[0]["variant"] == "A" and
          "boot 3 of 4 (A) was interrupted" in dropped[0]["discarded"] and
          "rebooting into it to redo the boot" in dropped[0]["discarded"],
          str([(r["seq"], r["round"], r["discarded"]) for r in dropped]))
    check("ok: 8 counted runs, all done", len(kept) == 8 and
          all(r["state"] == "done" for r in kept), f"{len(kept)} runs")
    check("ok: boots in the order A B A B (round = boot)",
          [(r["round"], r["variant"]) for r in kept] ==
          [(b, "AB"[b % 2]) for b in range(4) for _ in range(2)],
          str([(r["round"], r["variant"]) for r in kept]))
    check("ok: the redone boot's runs come after the discarded one",
          dropped and all(r["seq"] > dropped[0]["seq"] for r in kept
                          if r["round"] >= 2), str([r["seq"] for r in runs]))
    runs_on_their_kernels("ok", boots, runs)
    check("ok: runs_done counts the counted runs",
          job and job["runs_done"] == 8, f"{job['runs_done'] if job else None}")
    per_boot = {}
    for r in kept:
        res = json.loads(r["result"]) if r["result"] else {}
        per_boot.setdefault(r["round"], set()).add(res.get("boot_id"))
    check("ok: a boot's runs share one boot id, boots differ",
          all(len(v) == 1 for v in per_boot.values()) and
          len({next(iter(v)) for v in per_boot.values()}) == 4, str(per_boot))
    cmp = json.loads(job["compare"]) if job and job["compare"] else {}
    check("ok: the comparison pairs 2 boots per variant",
          cmp.get("design") == "boots" and cmp.get("boot_pairs") == 2 and
          len(cmp.get("comparisons") or []) == 1,
          f"design {cmp.get('design')} pairs {cmp.get('boot_pairs')}: {cmp.get('text')}")
    check("ok: the scope says kernel",
          (cmp.get("scope") or {}).get("kind") == "kernel", str(cmp.get("scope")))
    check("ok: events name the reboots and the redo",
          "rebooting into B (boot 2 of 4)" in events and
          events.count("rebooting into A (boot 3 of 4)") == 2 and
          any("boot 3 of 4 (A) was interrupted" in e for e in events) and
          any(e.startswith("boot 4 of 4 came up on B") for e in events),
          "; ".join(events[:16]))


def scenario_wrong(work):
    boots, end, jr, _ = load(work, "wrong")
    if jr is None:
        return
    job, runs, events = jr
    err = job["error"] if job else ""
    check("wrong: the job failed", end and end.get("state") == "failed" and
          job and job["state"] == "failed", f"end {end}")
    check("wrong: its error names the wrong kernel for B",
          err and "wrong kernel for variant B" in err and "bbkernel=B" in err, err)
    kernels = [kernel_of(b.get("cmdline")) for b in boots]
    check("wrong: the boot into B came up on A", kernels == [None, "A", "A"],
          str(kernels))
    check("wrong: A's runs are kept, none of B", len(runs) == 2 and
          all(r["variant"] == "A" and r["state"] == "done" for r in runs),
          f"{len(runs)} runs")
    runs_on_their_kernels("wrong", boots, runs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    scenario_ok(a.work)
    scenario_wrong(a.work)
    failed = results.count(False)
    print(f"{results.count(True)} passed, {failed} failed")
    return 1 if failed or not results else 0


if __name__ == "__main__":
    sys.exit(main())
