#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that a bench results file is complete and well-formed.

    bench/check_results.py [--min-pairs 5] [--waiting N] [--guests]
                           [--readme README.md] FILE|DIR

One PASS/FAIL line per check, then "N passed, N failed" (the line
scripts/run-tests.sh adds up); exit 1 if any failed. --readme also
regenerates the overhead table into a copy of the README from FILE.
"""
import argparse
import glob
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

LOAD_KEYS = ("bare_ns", "traced_ns", "ratio", "min_ratio", "max_ratio", "pairs")
HOST_LOADS = ("roundtrip_pinned", "roundtrip_unpinned", "getppid_pinned",
              "pingpong_pinned", "realistic_job")


def positive(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and \
        math.isfinite(v) and v > 0


def check_load(r, min_pairs):
    errs = [f"no {k}" for k in LOAD_KEYS if k not in r]
    if errs:
        return errs
    for k in ("bare_ns", "traced_ns", "ratio", "min_ratio", "max_ratio"):
        if not positive(r[k]):
            errs.append(f"{k} = {r[k]!r} is not positive")
    if not errs:
        if abs(r["ratio"] - r["traced_ns"] / r["bare_ns"]) > 1e-3 * r["ratio"]:
            errs.append("ratio is not traced_ns / bare_ns")
        if r["min_ratio"] > r["max_ratio"]:
            errs.append("min_ratio > max_ratio")
    if not isinstance(r["pairs"], int) or r["pairs"] < min_pairs:
        errs.append(f"pairs = {r['pairs']!r} < {min_pairs}")
    return errs


def check_programs(rows, event_key):
    errs = []
    if not isinstance(rows, list) or not rows:
        return ["no programs"]
    for p in rows:
        for k in ("name", "runs_per_" + event_key, "ns_per_run", "ns_per_" + event_key):
            if k not in p:
                errs.append(f"program {p.get('name', '?')} has no {k}")
    if not errs and not any(positive(p["ns_per_" + event_key]) for p in rows):
        errs.append("no program has a positive cost")
    return errs


def checks(res, args):
    """(name, [errors]) per check."""
    out = []
    missing = [k for k in ("date", "host", "kernel", "backend") if not res.get(k)]
    out.append(("header: date, host, kernel, backend", [f"no {k}" for k in missing]))
    for k in HOST_LOADS:
        out.append((f"part 1/3 load {k}",
                    check_load(res[k], args.min_pairs) if k in res else ["missing"]))
    out.append(("part 2 bpf_programs: runs, ns per run, ns per notification",
                check_programs(res.get("bpf_programs"), "notif")))
    un = res.get("bpf_unrelated", {})
    for ev in ("syscall", "context_switch"):
        e = un.get(ev)
        out.append((f"part 2 bpf_unrelated {ev}",
                    check_programs(e.get("programs"), "event") if e else ["missing"]))
    pk = res.get("peak")
    errs = ["missing"] if not pk else []
    if pk:
        for k in ("notifs_per_s", "lost", "reporter_cpu_pct_per_10k", "made", "traced",
                  "ringbuf_min_bytes"):
            if k not in pk:
                errs.append(f"no {k}")
        if not errs:
            if not positive(pk["notifs_per_s"]):
                errs.append("notifs_per_s is not positive")
            if pk["traced"] != pk["made"]:
                errs.append(f"{pk['traced']} traced of {pk['made']} made")
            if pk["lost"] != 0:
                errs.append(f"{pk['lost']} lost")
            if not isinstance(pk["reporter_cpu_pct_per_10k"], (int, float)) or \
                    pk["reporter_cpu_pct_per_10k"] < 0:
                errs.append("reporter_cpu_pct_per_10k is negative")
            rb = pk["ringbuf_min_bytes"]
            if rb is not None and (not isinstance(rb, int) or rb < 4096 or rb & (rb - 1)):
                errs.append(f"ringbuf_min_bytes {rb!r} is not a power of 2 >= 4096")
    out.append(("part 4 peak: rate, counts exact, 0 lost, reporter CPU", errs))
    mem = res.get("memory")
    errs = ["missing"] if not mem else []
    if mem:
        for k in ("rss_kb", "map_bytes"):
            if not positive(mem.get(k)):
                errs.append(f"{k} = {mem.get(k)!r} is not positive")
        w = mem.get("waiting", {})
        if args.waiting and w.get("notifications") != args.waiting:
            errs.append(f"{w.get('notifications')} waiting, wanted {args.waiting}")
        if w.get("traced") != w.get("notifications") or w.get("lost"):
            errs.append(f"{w.get('traced')} of {w.get('notifications')} waiting "
                        f"traced, {w.get('lost')} lost")
        if not positive(w.get("rss_kb")) or not positive(w.get("map_bytes")):
            errs.append("no rss_kb/map_bytes with notifications waiting")
    out.append(("part 5 memory: RSS and map bytes, idle and with waiting", errs))
    if args.guests:
        g = res.get("guests")
        errs = ["missing"] if not g else []
        for flavour, gr in (g or {}).items():
            bs = gr.get("backends", {})
            if not bs:
                errs.append(f"{flavour}: no backends")
            for b, r in bs.items():
                if "error" in r:
                    continue
                for k in ("roundtrip_pinned", "getppid_pinned"):
                    errs += [f"{flavour} {b} {k}: {e}" for e in
                             (check_load(r[k], args.min_pairs) if k in r else ["missing"])]
        out.append(("part 6 guests", errs))
    return out


BEGIN, END = "<!-- overhead:begin -->", "<!-- overhead:end -->"


def outside(doc):
    return doc[:doc.find(BEGIN)] + doc[doc.find(END):]


def check_readme(path, readme):
    """The table regenerates into a copy of the README, inside the markers."""
    with tempfile.TemporaryDirectory() as d:
        copy = os.path.join(d, "README.md")
        shutil.copy(readme, copy)
        here = os.path.dirname(os.path.abspath(__file__))
        p = subprocess.run([sys.executable, os.path.join(here, "overhead_table.py"),
                            "--results", path, copy], capture_output=True, text=True)
        if p.returncode:
            return [p.stderr.strip() or f"overhead_table.py exited {p.returncode}"]
        doc = open(copy).read()
        body = doc[doc.find(BEGIN):doc.find(END)]
        errs = []
        if os.path.basename(path) not in body:
            errs.append("the table does not name its results file")
        for word in ("ratio of medians", "pairs", "Pinned", "| target |"):
            if word not in body:
                errs.append(f"the table does not say '{word}'")
        if outside(doc) != outside(open(readme).read()):
            errs.append("text outside the markers changed")
        return errs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--min-pairs", type=int, default=5)
    ap.add_argument("--waiting", type=int, default=0)
    ap.add_argument("--guests", action="store_true")
    ap.add_argument("--readme")
    ap.add_argument("path")
    args = ap.parse_args()
    path = args.path
    if os.path.isdir(path):
        files = sorted(glob.glob(os.path.join(path, "*.json")))
        path = files[-1] if files else os.path.join(path, "(none).json")
    results = []
    try:
        res = json.load(open(path))
        results.append(("results file is one JSON object", []
                        if isinstance(res, dict) else ["not an object"]))
    except (OSError, ValueError) as e:
        res = None
        results.append(("results file is one JSON object", [str(e)]))
    if isinstance(res, dict):
        results += checks(res, args)
        if args.readme:
            results.append(("README overhead table regenerates from it",
                            check_readme(path, args.readme)))
    failed = 0
    for name, errs in results:
        if errs:
            failed += 1
            print(f"FAIL {name}: {'; '.join(errs[:5])}")
        else:
            print(f"PASS {name}")
    print(f"bench: {len(results) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
