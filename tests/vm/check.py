#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check the JSON lines the NVMe guest printed (tests/vm/guest-init.sh).

usage: check.py --serial SERIAL MAIN_LOG SMP1_LOG

Each guest step is one serial-console line 'BBVM {...}' with the step's
name, exit code, stdout (the --json document) and stderr.  Prints one line
per check and a closing 'N passed, N failed'; exits 1 if any check failed.
"""
import argparse
import json
import sys

IORING_SETUP_IOPOLL = 1 << 0
IORING_SETUP_SQE128 = 1 << 10
IORING_SETUP_CQE32 = 1 << 11

results = []


def check(name, ok, detail=""):
    results.append(bool(ok))
    print(f"{'ok  ' if ok else 'FAIL'} {name}" + (f": {detail}" if detail else ""))


def load(path):
    steps = {}
    try:
        text = open(path, errors="replace").read()
    except OSError as e:
        print(f"FAIL cannot read {path}: {e}")
        return steps
    for raw in text.splitlines():
        i = raw.find("BBVM {")
        if i < 0:
            continue
        line = raw[i + 5:].strip()
        try:
            d = json.loads(line)
        except ValueError as e:
            d = {"step": "unparsable", "err": f"{e}: {line[:200]}"}
        steps[d.get("step", "?")] = d
    return steps


def get(d, *path, default=None):
    for p in path:
        if isinstance(d, dict) and p in d:
            d = d[p]
        elif isinstance(d, list) and isinstance(p, int) and p < len(d):
            d = d[p]
        else:
            return default
    return d


def summary(s):
    out = s.get("out") or {}
    return (f"rc={s.get('rc')} {s.get('secs')}s iops={get(out, 'iops', default=0):.0f} "
            f"ios={get(out, 'io', 'ios')} irqs={get(out, 'interrupts', 'count')} "
            f"poll_verified={get(out, 'poll_verified')} "
            f"splits={get(out, 'split', 'splits')} "
            f"verify_errors={get(out, 'io', 'verify_errors')} "
            f"err={(s.get('err') or '')[:160]!r}")


def run_ok(steps, name, kind, polled=False, verify=False, split=False,
           flags=0):
    s = steps.get(name)
    if not s:
        check(name, False, "step missing from the serial log")
        return
    out = s.get("out") or {}
    problems = []
    if s.get("rc") != 0:
        problems.append(f"exit {s.get('rc')}")
    if get(out, "error") is not None:
        problems.append(f"error {get(out, 'error')!r}")
    if not get(out, "io", "ios"):
        problems.append("no I/O completed")
    if get(out, "target", "kind") != kind:
        problems.append(f"target kind {get(out, 'target', 'kind')!r} != {kind!r}")
    rf = get(out, "ring_flags", default=0) or 0
    if rf & flags != flags:
        problems.append(f"ring_flags {rf:#x} lack {flags:#x}")
    if polled:
        if get(out, "interrupts", "count") != 0:
            problems.append(f"polled run took {get(out, 'interrupts', 'count')} interrupts")
        if get(out, "poll_verified") is not True:
            problems.append(f"poll_verified {get(out, 'poll_verified')}")
    else:
        if get(out, "poll_verified") is not None:
            problems.append("poll_verified set on a non-polled run")
    if verify:
        if get(out, "io", "verify_errors") != 0 or not get(out, "io", "writes"):
            problems.append("verify: no writes or verify errors")
    if split and not get(out, "split", "splits"):
        problems.append("no splits although forced")
    check(name, not problems, "; ".join(problems) if problems else summary(s))


def refused(steps, name, words):
    s = steps.get(name)
    if not s:
        check(name, False, "step missing from the serial log")
        return
    err = s.get("err") or ""
    ok = s.get("rc") == 1 and all(w in err for w in words)
    check(name + " (refused)", ok, f"rc={s.get('rc')} {err[:240]!r}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--serial", required=True)
    ap.add_argument("main_log")
    ap.add_argument("smp1_log")
    a = ap.parse_args()

    m = load(a.main_log)
    boot = m.get("boot", {})
    check("main: boot", boot.get("cpus") == 2 and boot.get("io_poll") == "1"
          and boot.get("poll_queues") == "2", json.dumps(boot))
    dv = m.get("devices", {})
    out = dv.get("out") or {}
    ctrls = get(out, "nvme_controllers", default=[]) or []
    c = next((c for c in ctrls if c.get("model") == "QEMU NVMe Ctrl"), None)
    check("main: devices finds QEMU NVMe Ctrl", dv.get("rc") == 0 and c is not None,
          f"rc={dv.get('rc')} controllers={[x.get('model') for x in ctrls]} "
          f"err={(dv.get('err') or '')[:200]!r}")
    c = c or {}
    check("main: serial from the QEMU command line", c.get("serial") == a.serial,
          f"serial={c.get('serial')!r} firmware={c.get('firmware')!r} "
          f"transport={c.get('transport')!r} mdts={c.get('mdts')}")
    ns = get(c, "namespaces", 0, default={}) or {}
    check("main: namespace identify fields",
          ns.get("nsid") == 1 and ns.get("lba_size") == 512
          and ns.get("capacity_bytes") == 256 << 20
          and ns.get("block_path") == "/dev/nvme0n1"
          and ns.get("char_path") == "/dev/ng0n1",
          json.dumps({k: ns.get(k) for k in ("nsid", "lba_size", "capacity_bytes",
                                            "block_path", "char_path",
                                            "max_hw_sectors_kb")}))
    check("main: polling possible", ns.get("can_poll") is True
          and c.get("poll_queues") == 2,
          f"can_poll={ns.get('can_poll')} poll_queues={c.get('poll_queues')} "
          f"why={ns.get('poll_why')!r}")
    blk = next((d for d in get(out, "devices", default=[]) or []
                if d.get("name") == "nvme0n1"), {})
    check("main: block device list has nvme0n1 with its NVMe fields",
          get(blk, "nvme", "serial") == a.serial and get(blk, "limits", "max_hw_sectors_kb"),
          f"limits={get(blk, 'limits')}")
    check("main: host metadata", str(get(out, "host", "kernel", default="")).startswith("6.")
          and get(out, "host", "cpus") == 2, f"kernel={get(out, 'host', 'kernel')}")

    run_ok(m, "blk_irq", "block")
    s = m.get("blk_irq", {})
    check("blk_irq: irq mode took interrupts",
          (get(s.get("out"), "interrupts", "count") or 0) > 0,
          f"interrupts={get(s.get('out'), 'interrupts')}")
    run_ok(m, "blk_poll", "block", polled=True, flags=IORING_SETUP_IOPOLL)
    run_ok(m, "blk_verify", "block", verify=True, split=True)
    run_ok(m, "blk_poll_verify", "block", polled=True, verify=True, split=True,
           flags=IORING_SETUP_IOPOLL)
    pt = IORING_SETUP_SQE128 | IORING_SETUP_CQE32
    run_ok(m, "pt_irq", "nvme_char", flags=pt)
    run_ok(m, "pt_poll", "nvme_char", polled=True, flags=pt | IORING_SETUP_IOPOLL)
    run_ok(m, "pt_nofixed", "nvme_char", polled=True, flags=pt | IORING_SETUP_IOPOLL)
    run_ok(m, "pt_verify", "nvme_char", verify=True, split=True, flags=pt)
    run_ok(m, "pt_poll_verify", "nvme_char", polled=True, verify=True,
           flags=pt | IORING_SETUP_IOPOLL)
    run_ok(m, "none_blk_poll", "block", polled=True, flags=IORING_SETUP_IOPOLL)
    run_ok(m, "none_pt_poll_verify", "nvme_char", polled=True, verify=True,
           flags=pt | IORING_SETUP_IOPOLL)
    for name in ("none_blk_poll", "none_pt_poll_verify"):
        out = m.get(name, {}).get("out") or {}
        check(name + ": model none, no bio counters",
              out.get("model") == "none" and out.get("bio_cache") is None,
              f"model={out.get('model')!r} bio_cache={out.get('bio_cache')!r}")
    refused(m, "pt_on_block", ["/dev/ng0n1"])
    refused(m, "blk_on_char", ["uring_cmd"])
    check("main: guest finished", "done" in m)

    s1 = load(a.smp1_log)
    boot = s1.get("boot", {})
    check("smp1: boot (poll_queues=2 > 1 CPU: io_poll 0)",
          boot.get("cpus") == 1 and boot.get("io_poll") == "0", json.dumps(boot))
    out = get(s1, "devices", "out", default={}) or {}
    ns = get(out, "nvme_controllers", 0, "namespaces", 0, default={}) or {}
    check("smp1: devices reports polling impossible, naming poll_queues",
          ns.get("can_poll") is False and "poll_queues" in (ns.get("poll_why") or ""),
          f"can_poll={ns.get('can_poll')} why={ns.get('poll_why')!r}")
    for name in ("blk_poll", "pt_poll"):
        s = s1.get(name, {})
        o = s.get("out") or {}
        refused_ok = s.get("rc") == 1 and "poll_queues" in (s.get("err") or "")
        flagged = s.get("rc") == 0 and get(o, "poll_verified") is False
        check(f"smp1: {name} refused or flagged", refused_ok or flagged,
              f"rc={s.get('rc')} poll_verified={get(o, 'poll_verified')} "
              f"err={(s.get('err') or '')[:240]!r}")
    check("smp1: guest finished", "done" in s1)

    for log, steps in (("main", m), ("smp1", s1)):
        irq = get(steps, "interrupts", "err")
        if irq:
            print(f"     {log} /proc/interrupts: {irq[:300]}")
    npass = sum(results)
    nfail = len(results) - npass
    print(f"{npass} passed, {nfail} failed")
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
