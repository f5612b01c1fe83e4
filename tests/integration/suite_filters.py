"""Filters and the end of tracing: -p, --syscall, and notifications still
waiting when the tracer stops (reported as pending)."""

import os
import signal
import subprocess
import time

from checks import Checker
from scenarios import HEADER, checked, expect, wait_line
from truth import Fail, Trace, Truth


def start_tracer(env, args, out):
    tracer = subprocess.Popen([env.tracer, "-j", "-o", out, *args], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    header = wait_line(tracer.stderr, 30)
    expect(header.startswith(HEADER), f"tracer stderr: {header!r}")
    return tracer, time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def stop_tracer(tracer):
    tracer.send_signal(signal.SIGINT)
    rc = tracer.wait(20)
    expect(rc == 0, f"tracer exited {rc} on SIGINT: {tracer.stderr.read()!r}")


def wait_for(truth_path, ev, timeout=20):
    """The first record of kind @ev the workload writes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if os.path.exists(truth_path):
            recs = [r for r in Truth(truth_path).ev(ev)]
            if recs:
                return recs[0]
        time.sleep(0.02)
    raise Fail(f"the workload wrote no {ev!r} record within {timeout}s")


def kill_all(procs):
    for p in procs:
        if p and p.poll() is None:
            p.kill()
            p.wait()


def t_pid_filter(env):
    """-p TGID system-wide: only that target's notifications, all of those
    made after the tracer attached, none of a second workload's."""
    # long enough for the tracer to attach meanwhile; an emulated guest can
    # take longer to attach than a run lasts: then again, longer
    for iterations in (1500, 6000, 24000):
        trace, truth, target, t_attached = pid_filter_run(env, iterations)
        late = [r for r in truth.recv_ok() if r["t_before"] > t_attached]
        if late:
            break
    expect(all(n["target_pid"] == target["pid"] for n in trace.notifs),
           f"records of other targets than {target['pid']}")
    ids = {n["id"] for n in trace.notifs}
    missing = [r["id"] for r in late if r["id"] not in ids]
    expect(late, "the workload finished before the tracer attached: nothing to check")
    expect(not missing, f"{len(missing)} of {len(late)} notifications received after the "
           f"tracer attached are missing, e.g. {missing[:3]}")


def pid_filter_run(env, iterations):
    """Two workloads, the tracer attached with -p to the first's target."""
    out = env.path(f"notifwait.{iterations}.jsonl")
    args = ["--iterations", str(iterations), "--handle-us", "1000"]
    paths = [env.path(f"{tag}.{iterations}.truth.jsonl") for tag in ("a", "b")]
    procs, tracer = [], None
    try:
        for tag, path in zip(("a", "b"), paths):
            procs.append(subprocess.Popen([env.workload, *args, "--run", tag, "--truth", path],
                                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.PIPE, text=True))
        target = wait_for(paths[0], "target")
        tracer, t_attached = start_tracer(env, ["-p", str(target["pid"])], out)
        for p in procs:
            expect(p.wait(120) == 0, f"workload exited {p.returncode}: {p.stderr.read()!r}")
        time.sleep(0.2)
        stop_tracer(tracer)
    finally:
        kill_all(procs + [tracer])
    return Trace(out), Truth(paths[0]), target, t_attached


def t_syscall_filter(env):
    """--syscall NAME and NUMBER keep exactly that syscall's notifications."""
    trace, truth = checked(env, ["--syscall", "openat", "--reply", "addfd-send",
                                 "--iterations", "5"], targs=["--syscall", "openat"],
                           expect_notifs=5)
    trace, truth = checked(env, ["--syscall", "openat", "--reply", "addfd-send",
                                 "--iterations", "5"], targs=["--syscall", "257"],
                           expect_notifs=5, tag="number")
    other, _ = checked_none(env, ["--iterations", "5"], ["--syscall", "openat"])
    expect(not other.notifs, f"{len(other.notifs)} getppid records with --syscall openat")


def checked_none(env, wargs, targs):
    """A run whose notifications the filter must drop entirely."""
    out, truth_path = env.path("none.jsonl"), env.path("none.truth.jsonl")
    cmd = [env.tracer, "-j", "-o", out, *targs, "--", env.workload, *wargs,
           "--truth", truth_path]
    p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    expect(p.returncode == 0, f"exit {p.returncode}: {p.stderr[-300:]!r}")
    return Trace(out), Truth(truth_path)


def t_pending_at_exit(env):
    """A notification never answered while traced is reported as pending."""
    out, path = env.path("notifwait.jsonl"), env.path("truth.jsonl")
    proc, tracer = None, None
    try:
        tracer, _ = start_tracer(env, [], out)
        proc = subprocess.Popen([env.workload, "--handle-us", "4000000", "--truth", path],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        recv = wait_for(path, "recv")
        time.sleep(0.2)
        stop_tracer(tracer)
        expect(proc.wait(30) == 0, f"workload exited {proc.returncode}")
    finally:
        kill_all([proc, tracer])
    trace = Trace(out)
    mine = [n for n in trace.notifs if n["id"] == recv["id"]]
    expect(len(mine) == 1, f"{len(mine)} records for the unanswered notification {recv['id']}")
    n = mine[0]
    expect(n["outcome"] == "pending", f"outcome {n['outcome']!r}")
    expect(n["t_return_ns"] is None and n["ret"] is None and n["t_reply_ns"] is None,
           f"pending record with return/reply: {n}")
    expect(recv["t_before"] <= n["t_recv_ns"] <= recv["t_after"],
           f"t_recv_ns {n['t_recv_ns']} outside the RECV bracket")
    summary = trace.of("summary")
    expect(summary and summary[0]["outcomes"]["pending"] >= 1, "summary counts no pending")


TESTS = [
    ("pid_filter", t_pid_filter),
    ("syscall_filter", t_syscall_filter),
    ("pending_at_exit", t_pending_at_exit),
]
