#!/usr/bin/python3
"""Integration tests: the real notifwait tracer on the real kernel against
the real nw-workload, checked against the workload's ground truth.

  run.py [--build DIR] [--scratch DIR] [-k PATTERN] [--keep]

One line per test (PASS/FAIL/SKIP), then "N passed, N failed, N skipped".
Exit 1 if any failed. Needs root (BPF, seccomp listeners)."""

import argparse
import importlib
import fnmatch
import os
import shutil
import sys
import tempfile
import time
import traceback

sys.dont_write_bytecode = True  # the checkout may be read-only
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from truth import Fail, Skip  # noqa: E402
import scenarios  # noqa: E402
import badinput  # noqa: E402


def suite_modules():
    """Further suites: every suite_*.py here exporting TESTS, by name."""
    here = os.path.dirname(os.path.abspath(__file__))
    names = sorted(f[:-3] for f in os.listdir(here) if f.startswith("suite_") and f.endswith(".py"))
    return [importlib.import_module(n) for n in names]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--build", default=os.path.join(repo, "build"),
                    help="directory with notifwait and nw-workload (default: the checkout's build/)")
    ap.add_argument("--scratch", help="directory for output files (default: a fresh mkdtemp)")
    ap.add_argument("-k", dest="patterns", action="append",
                    help="run only tests whose name contains PATTERN (or matches it as a "
                    "glob); may be given more than once")
    ap.add_argument("--keep", action="store_true",
                    help="keep the scratch files (kept anyway when a test fails)")
    ap.add_argument("--suites", help="comma-separated suite_NAME modules to run besides the "
                    "core scenarios (default: all; '' for none)")
    ap.add_argument("--backend", help="run every tracer with --backend BACKEND "
                    "(default: the tool's own choice)")
    args = ap.parse_args()

    build = os.path.abspath(args.build)
    # Under sudo, notifwait runs COMMAND as the sudo user: the workloads
    # here need root (pid namespaces, truth files in root's scratch dir).
    for k in [k for k in os.environ if k.startswith("SUDO_")]:
        del os.environ[k]
    if args.scratch:
        os.makedirs(args.scratch, exist_ok=True)
        scratch = tempfile.mkdtemp(prefix="nw-it.", dir=args.scratch)
    else:
        scratch = tempfile.mkdtemp(prefix="nw-it.")
    env = scenarios.Env(build, scratch, backend=args.backend)

    tests = scenarios.TESTS + badinput.TESTS
    wanted = None if args.suites is None else {x for x in args.suites.split(",") if x}
    for mod in suite_modules():
        if wanted is None or mod.__name__[len("suite_"):] in wanted:
            tests = tests + mod.TESTS
    if args.patterns:
        tests = [t for t in tests if any(p in t[0] or fnmatch.fnmatch(t[0], p)
                                         for p in args.patterns)]

    counts = {"PASS": 0, "FAIL": 0, "SKIP": 0}
    for name, fn in tests:
        t0 = time.monotonic()
        try:
            missing = [p for p in (env.real_tracer, env.workload) if not os.access(p, os.X_OK)]
            if missing:
                raise Fail(f"{missing[0]} not built")
            fn(env.for_test(name))
            status, line = "PASS", f"PASS {name}"
        except Skip as e:
            status, line = "SKIP", f"SKIP {name}: {e}"
        except Fail as e:
            status, line = "FAIL", f"FAIL {name}: {e}"
        except Exception as e:  # a bug of the test itself is a failure too
            tb = traceback.extract_tb(e.__traceback__)[-1]
            status, line = "FAIL", (f"FAIL {name}: test error {type(e).__name__}: {e} "
                                    f"({os.path.basename(tb.filename)}:{tb.lineno})")
        counts[status] += 1
        dt = time.monotonic() - t0
        print(line if dt < 5 else f"{line} [{dt:.1f}s]", flush=True)
    if args.keep or counts["FAIL"]:
        print(f"scratch files in {scratch}", file=sys.stderr)
    else:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"{counts['PASS']} passed, {counts['FAIL']} failed, {counts['SKIP']} skipped")
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
