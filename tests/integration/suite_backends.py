"""Backends: auto picks the most precise one that loads, says why it did
not pick the others, a forced unavailable backend fails cleanly, and where
both run they agree on the same workload run (fentry at least as tight)."""

import signal
import subprocess
import time

from scenarios import HEADER, expect, wait_line
from checks import LOST_COUNTERS, WAKE_MARGIN_NS
from truth import Skip, Trace, Truth


def backend_works(env, name):
    p = subprocess.run([env.real_tracer, "--backend", name, "-d", "0.1"],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    return p.returncode == 0, p


def header_of(p):
    lines = [line for line in p.stderr.splitlines() if line.startswith(HEADER)]
    return lines[0] if lines else ""


def expected_auto(env):
    """The backend auto must pick, from what each forced backend does: exact
    fentry, then a kprobe on a clone, then fentry on the caller, then
    tracepoints."""
    fentry_ok, fp = backend_works(env, "fentry")
    exact = fentry_ok and "__seccomp_filter" not in header_of(fp)
    if exact:
        return "fentry"
    if backend_works(env, "kprobe")[0]:
        return "kprobe"
    return "fentry" if fentry_ok else "tracepoint"


def t_auto_says_why(env):
    p = subprocess.run([env.real_tracer, "-d", "0.1"], stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=60)
    expect(p.returncode == 0, f"exit {p.returncode}: {p.stderr!r}")
    header = [line for line in p.stderr.splitlines() if line.startswith(HEADER)]
    expect(len(header) == 1, f"header lines: {header}")
    want = expected_auto(env)
    expect(f"backend: {want}" in header[0], f"expected {want}, auto chose: {header[0]!r}")
    if want != "fentry":
        expect("not fentry: " in header[0], f"auto fell back without saying why: {header[0]!r}")


def t_forced_fentry_fails_cleanly(env):
    ok, p = backend_works(env, "fentry")
    if ok:
        raise Skip("fentry loads on this kernel")
    lines = p.stderr.splitlines()
    expect(p.returncode == 1, f"exit {p.returncode}")
    expect(len(lines) == 1 and lines[0].startswith("notifwait: backend fentry unavailable: "),
           f"stderr: {p.stderr!r}")


def t_forced_tracepoint(env):
    ok, p = backend_works(env, "tracepoint")
    expect(ok, f"tracepoint backend failed: {p.stderr!r}")
    expect("backend: tracepoint" in p.stderr, f"stderr: {p.stderr!r}")


def reply_straddled(a, b, sa, sb):
    """A signal sent as the reply is made: tracepoint times the reply at
    sys_enter, fentry later at seccomp_notify_ioctl, so one may call it
    after the reply and the other a wake-up that raced it (or, under the
    killable rule, a signal the wait deferred). Allowed only when both send
    times fall between the two reply times (widened by the two probes' skew
    on the same signal)."""
    if {sa["effect"], sb["effect"]} not in ({"after_reply", "raced_reply"},
                                            {"after_reply", "deferred"}):
        return False
    ra, rb, ta, tb = a["t_reply_ns"], b["t_reply_ns"], sa["t_sent_ns"], sb["t_sent_ns"]
    if None in (ra, rb, ta, tb):
        return False
    skew = abs(ta - tb)
    return all(min(ra, rb) - skew <= t <= max(ra, rb) + skew for t in (ta, tb))


def brief(n):
    """A notification's times and signals, for a failure message."""
    sigs = [(s["sig"], s["t_sent_ns"], s["effect"], s.get("sent_before_wait"))
            for s in n["signals"]]
    return (f"[{n['outcome']} ret {n['ret']} notify {n['t_notify_ns']} recv {n['t_recv_ns']} "
            f"reply {n['t_reply_ns']} return {n['t_return_ns']} signals {sigs}]")


def t_backends_agree(env):
    """Both backends attached at once to one workload run: same notifications,
    outcomes, signals and addfds; fentry's notify no later than tracepoint's."""
    if not backend_works(env, "fentry")[0]:
        raise Skip("fentry does not load on this kernel")
    outs = {b: env.path(f"{b}.jsonl") for b in ("fentry", "tracepoint")}
    tracers = {}
    truth_path = env.path("truth.jsonl")
    try:
        for b, out in outs.items():
            tracers[b] = subprocess.Popen([env.real_tracer, "--backend", b, "-j", "-o", out],
                                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.PIPE, text=True)
            header = wait_line(tracers[b].stderr, 60)
            expect(f"backend: {b}" in header, f"{b} header: {header!r}")
        for wargs in (["--killable", "--sigurg-period-us", "10000", "--handle-us", "15000",
                       "--iterations", "10"],
                      ["--sigurg-period-us", "10000", "--handle-us", "5000", "--iterations", "10"],
                      ["--syscall", "openat", "--reply", "addfd-send", "--iterations", "5"],
                      ["--reply", "continue", "--iterations", "5"]):
            p = subprocess.run([env.workload, *wargs, "--truth", truth_path],
                               stdin=subprocess.DEVNULL, capture_output=True, text=True,
                               timeout=120)
            expect(p.returncode == 0, f"workload {wargs} exited {p.returncode}: {p.stderr!r}")
        time.sleep(0.7)
        for b, t in tracers.items():
            t.send_signal(signal.SIGINT)
            expect(t.wait(30) == 0, f"{b} tracer exited {t.returncode}")
    finally:
        for t in tracers.values():
            if t.poll() is None:
                t.kill()
                t.wait()
    truth = Truth(truth_path)
    mine = {r["id"] for r in truth.recv_ok()}
    traces = {b: Trace(out) for b, out in outs.items()}
    for b, t in traces.items():
        # a probe run the kernel skipped would make the two differ: say so
        lost = t.of("lost")
        expect(len(lost) == 1 and all(lost[0].get(k) == 0 for k in LOST_COUNTERS),
               f"{b}: lost record {lost}")
    recs = {b: {n["id"]: n for n in t.notifs} for b, t in traces.items()}
    f, tp = recs["fentry"], recs["tracepoint"]
    # only this run's workloads (others may run on the machine meanwhile)
    pids = {r["pid"] for r in truth.ev("target")}
    f = {i: n for i, n in f.items() if n["target_pid"] in pids}
    tp = {i: n for i, n in tp.items() if n["target_pid"] in pids}
    expect(set(f) == set(tp), f"ids only in fentry: {sorted(set(f) - set(tp))[:3]}, "
           f"only in tracepoint: {sorted(set(tp) - set(f))[:3]}")
    expect(mine <= set(f), f"{len(mine - set(f))} received ids missing")
    for i, a in f.items():
        b = tp[i]
        for k in ("outcome", "target_tid", "syscall", "killable_recv"):
            expect(a[k] == b[k], f"notif {i}: {k} fentry={a[k]!r} tracepoint={b[k]!r}")
        # the tracepoint backend can miss a RECV whose notification is gone
        # (interrupted) before the RECV returns; the fentry one cannot
        expect(a["supervisor_pid"] == b["supervisor_pid"] or
               (b["supervisor_pid"] is None and a["outcome"].startswith("interrupted")),
               f"notif {i}: supervisor_pid fentry={a['supervisor_pid']} "
               f"tracepoint={b['supervisor_pid']} ({a['outcome']})")
        # the tracepoint bracket ends later, at sys_exit: a signal sent in
        # between is in its record only; so is one pending at that exit
        # whose sender's program ran after it (seen_after_return), unless
        # fentry saw the same at its own return
        a_after = {s["sig"] for s in a["signals"] if s.get("seen_after_return")}
        late = [s for s in b["signals"] if s["t_sent_ns"] is not None and None not in
                (a["t_return_ns"], b["t_return_ns"])
                and a["t_return_ns"] < s["t_sent_ns"]
                and (s["t_sent_ns"] <= b["t_return_ns"] or
                     (s.get("seen_after_return") and s["sig"] not in a_after))]
        b_sigs = [s for s in b["signals"] if s not in late]
        # Both tracers' signal programs run back to back on the sender's
        # CPU, fentry's first: the tracepoint one, held up for a vCPU
        # (WAKE_MARGIN_NS), may run after its record was closed. Only
        # fentry's last signal, sent that close to the tracepoint record's
        # end, and later than tracepoint's last (its own time of the same
        # signal would be later still).
        a_sigs = a["signals"]
        last = a_sigs[-1]["t_sent_ns"] if a_sigs else None
        if (len(a_sigs) == len(b_sigs) + 1 and last is not None
                and b["t_return_ns"] is not None
                and 0 <= b["t_return_ns"] - last <= WAKE_MARGIN_NS
                and all(s["t_sent_ns"] is not None and s["t_sent_ns"] < last for s in b_sigs)):
            a_sigs = a_sigs[:-1]
        expect(len(a_sigs) == len(b_sigs),
               f"notif {i}: {len(a['signals'])} signals (fentry) vs {len(b_sigs)} "
               f"(+{len(late)} after fentry's return): fentry {brief(a)}, "
               f"tracepoint {brief(b)}")
        for sa, sb in zip(a_sigs, b_sigs):
            expect(sa["effect"] == sb["effect"] or reply_straddled(a, b, sa, sb),
                   f"notif {i}: effects differ: fentry {brief(a)}, tracepoint {brief(b)}")
        expect(len(a["addfd"]) == len(b["addfd"]), f"notif {i}: addfd counts differ")
        if a["t_notify_ns"] is not None and b["t_notify_ns"] is not None:
            expect(a["t_notify_ns"] <= b["t_notify_ns"],
                   f"notif {i}: fentry notify {a['t_notify_ns']} later than tracepoint's "
                   f"{b['t_notify_ns']}")
        expect(a["t_notify_ns"] is not None, f"notif {i}: fentry has no t_notify_ns")
        if a["t_killable_ns"] is not None and b["t_killable_ns"] is not None:
            expect(a["t_killable_ns"] <= b["t_killable_ns"],
                   f"notif {i}: fentry killable {a['t_killable_ns']} later than "
                   f"tracepoint's {b['t_killable_ns']}")


TESTS = [
    ("backend_auto_says_why", t_auto_says_why),
    ("backend_forced_fentry_fails_cleanly", t_forced_fentry_fails_cleanly),
    ("backend_forced_tracepoint", t_forced_tracepoint),
    ("backends_agree", t_backends_agree),
]
