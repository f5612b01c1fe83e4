"""Hardening of the run (issue 15, part B): the traced COMMAND under
signals and -d, its privileges and notifwait's own, the /metrics endpoint
under slow clients, ADDFD of any size, and a kill -9 chaos run."""

import json
import os
import re
import subprocess

from scenarios import checked, expect, run_tracer
from truth import Fail

ADDFD_SIZE = "32"  # a struct seccomp_notif_addfd padded with 8 zero bytes


# --- ADDFD of any size ----------------------------------------------------------

def t_addfd_32_bytes(env):
    trace, truth = checked(env, ["--syscall", "openat", "--reply", "addfd", "--iterations", "4",
                                 "--addfd-size", ADDFD_SIZE], expect_notifs=4)
    expect(truth.summary["addfds_ok"] == 4, f"truth: {truth.summary['addfds_ok']} addfds ok")
    for n in trace.notifs:
        expect(len(n["addfd"]) == 1 and n["addfd"][0]["fd"] == n["ret"] and n["ret"] >= 0,
               f"addfd {n['addfd']} ret {n['ret']}")
        expect(n["reply"]["kind"] == "value", f"reply {n['reply']}")


def t_addfd_32_bytes_send(env):
    trace, truth = checked(env, ["--syscall", "openat", "--reply", "addfd-send",
                                 "--iterations", "4", "--addfd-size", ADDFD_SIZE],
                           expect_notifs=4)
    expect(truth.summary["addfds_ok"] == 4, f"truth: {truth.summary['addfds_ok']} addfds ok")
    for n in trace.notifs:
        expect(n["reply"] and n["reply"]["kind"] == "addfd_send", f"reply {n['reply']}")
        expect(n["outcome"] == "replied" and n["ret"] >= 0, f"outcome {n['outcome']}")
        expect(len(n["addfd"]) == 1 and n["addfd"][0]["flags"] == 2, f"addfd {n['addfd']}")


def t_addfd_32_bytes_summary(env):
    p = run_tracer([env.tracer, "--summary", "--", env.workload, "--syscall", "openat",
                    "--reply", "addfd", "--iterations", "4", "--addfd-size", ADDFD_SIZE,
                    "--truth", env.path("truth.jsonl")], 60)
    expect(p.returncode == 0, f"exit {p.returncode}: {p.stderr[-300:]!r}")
    m = re.search(r"addfd: (\d+) ok, (\d+) failed", p.stdout)
    expect(m and m.group(1) == "4" and m.group(2) == "0",
           f"--summary: {m.group(0) if m else p.stdout[-300:]!r}, want 4 ok, 0 failed")


TESTS = [
    ("hardening-addfd-32-bytes", t_addfd_32_bytes),
    ("hardening-addfd-32-bytes-send", t_addfd_32_bytes_send),
    ("hardening-addfd-32-bytes-summary", t_addfd_32_bytes_summary),
]
