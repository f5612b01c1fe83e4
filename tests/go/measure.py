#!/usr/bin/python3
"""Run the Go scenarios of tests/integration/suite_go.py N times (each run
checked like the test) and print the figures of README.md's section
"Go's SIGURG preemption, measured" as ranges over the runs.

  sudo python3 tests/go/measure.py [--build DIR] [-n RUNS]"""

import argparse
import json
import os
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))

import scenarios  # noqa: E402
import suite_go  # noqa: E402
from truth import Fail, Skip  # noqa: E402

MS = 1e6
ROWS = [
    ("notifications", "notifications", 1), ("go calls completed", "go_completed", 1),
    ("replied", "replied", 1), ("interrupted before RECV", "interrupted_before_recv", 1),
    ("interrupted after RECV", "interrupted_after_recv", 1),
    ("failed replies (ENOENT)", "reply_failed", 1), ("EINTR seen by Go", "go_eintr", 1),
    ("SIGURG in waits", "sigurg", 1), ("SIGURG share of signals", "sigurg_share", None),
    ("deferred SIGURG", "sigurg_deferred", 1), ("pending p50 (ms)", "pending_p50_ns", MS),
    ("pending p99 (ms)", "pending_p99_ns", MS), ("pending max (ms)", "pending_max_ns", MS),
    ("handle p50 (ms)", "handle_p50_ns", MS),
    ("pending beyond the reply, max (ms)", "beyond_reply_max_ns", MS),
    ("GC cycles", "gc_cycles", 1), ("SIGURG seen by os/signal", "go_sigurg_notified", 1),
]


def fmt(v, scale):
    if v is None:
        return "-"
    if scale is None:
        return f"{100 * v:.2f}%"
    return f"{v / scale:.1f}" if scale != 1 else str(v)


def span(vals, scale):
    got = [v for v in vals if v is not None]
    if not got:
        return "-"
    lo, hi = fmt(min(got), scale), fmt(max(got), scale)
    return lo if lo == hi else f"{lo}-{hi}"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--build", default=os.path.join(HERE, "..", "..", "build"))
    ap.add_argument("-n", type=int, default=5)
    args = ap.parse_args()
    # Under sudo, notifwait would run the workload as the sudo user: it
    # needs root here (truth files in root's scratch dir), as in run.py.
    for k in [k for k in os.environ if k.startswith("SUDO_")]:
        del os.environ[k]
    env = scenarios.Env(os.path.abspath(args.build), tempfile.mkdtemp(prefix="nw-go."))
    cols = []
    for name, fn in suite_go.TESTS:
        runs = []
        for i in range(args.n):
            e = env.for_test(f"{name}.{i}")
            try:
                runs.append(fn(e))
                print(f"{name} run {i}: ok", file=sys.stderr)
            except (Fail, Skip) as x:
                print(f"{name} run {i}: {type(x).__name__}: {x}", file=sys.stderr)
                try:
                    with open(e.path("figures.json"), encoding="utf-8") as f:
                        fig = json.load(f)
                except (OSError, ValueError):
                    fig = None
                if fig:  # measured, but a check failed: still a data point
                    runs.append(fig)
        cols.append((name, runs))
    print(f"scratch files in {env.scratch}", file=sys.stderr)
    print("| figure | " + " | ".join(n for n, _ in cols) + " |")
    print("|---|" + "---|" * len(cols))
    for label, key, scale in ROWS:
        print(f"| {label} | " + " | ".join(span([r[key] for r in runs], scale)
                                          for _, runs in cols) + " |")


if __name__ == "__main__":
    main()
