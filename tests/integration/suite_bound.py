"""--check-bound: the signal-delay bound (pending <= reply-sent + wake +
slack) and the --budget, against real workloads and their ground truth.

The verdict is the exit status (0 held, 1 violated, 2 cannot check); the
JSON summary carries it and each notif record that broke it has a
"bound_violation" field. Every figure is compared with the workload's own
brackets (tgkill, SEND, the syscall attempt, the SIGCONT)."""

import os
import subprocess

from checks import Checker
from scenarios import check_header, expect, run_tracer
from truth import Fail, Trace, Truth

SIGSTOP, SIGURG = 19, 23
SLACK_NS = 50000
MS = 1000000
# The runs that must hold give the scheduler 5 ms: the tests share 2 cores
# with whatever else runs, and a target preempted between sys_exit and its
# signal's delivery is (rightly) excess. Idle, the excess stays under 20 us.
LOADED_SLACK = ["--slack", "5ms"]


# The full checks against the truth, killable switch and effects included.
TruthChecker = Checker


def run_bound(env, wargs, targs=(), tag="run", timeout=120):
    """notifwait -j -o OUT --check-bound TARGS -- nw-workload WARGS; returns
    (exit status, trace, truth, stderr). The workload itself must succeed."""
    out, truth_path = env.path(f"{tag}.notifwait.jsonl"), env.path(f"{tag}.truth.jsonl")
    for f in (out, truth_path):
        if os.path.exists(f):
            os.unlink(f)
    cmd = [env.tracer, "-j", "-o", out, "--check-bound", *targs, "--", env.workload,
           *wargs, "--truth", truth_path]
    p = run_tracer(cmd, timeout)
    check_header(p.stderr)
    truth = Truth(truth_path)
    want = max((r["exit_code"] for r in truth.ev("summary")), default=None)
    expect(want == 0, f"workload failed ({want}): {p.stderr[-300:]!r}")
    return p.returncode, Trace(out), truth, p.stderr


def bound_summary(trace):
    s = trace.of("summary")
    expect(len(s) == 1 and "bound" in s[0], f"no summary record with 'bound': {s}")
    return s[0]["bound"]


def verdict_lines(stderr, prefix):
    return [ln for ln in stderr.splitlines() if ln.startswith(prefix)]


def deferred(trace):
    """(notif, index, signal) of every deferred signal."""
    return [(n, i, s) for n in trace.notifs for i, s in enumerate(n["signals"])
            if s["effect"] == "deferred"]


def flagged(trace, kind):
    """{(notif id, signal index)} the tracer flagged for kind bound|budget."""
    out = set()
    for n in trace.notifs:
        for v in (n.get("bound_violation") or {}).get("signals", []):
            if v[kind]:
                out.add((n["id"], v["index"]))
    return out


class Brackets:
    """Truth brackets of a signal's pending time: sent inside its tgkill,
    delivered after the reply's SEND began and before the syscall attempt
    ended in user space (the handler runs before the attempt's t_after)."""

    def __init__(self, truth):
        self.sends = {r["id"]: r for r in truth.ev("send") if r["ret"] == 0}
        self.sigs = {}
        for r in truth.ev("signal"):
            if r["ret"] == 0:
                self.sigs.setdefault(r["target_tid"], []).append(r)
        self.attempts = {}
        for a in truth.ev("syscall"):
            self.attempts.setdefault(a["tid"], []).append(a)

    def tgkill(self, n, s):
        m = [r for r in self.sigs.get(n["target_tid"], []) if r["sig"] == s["sig"]
             and r["t_before"] <= s["t_sent_ns"] <= r["t_after"]]
        if len(m) != 1:
            raise Fail(f"notif {n['id']}: {len(m)} tgkills of the truth bracket signal "
                       f"{s['sig']} sent at {s['t_sent_ns']}")
        return m[0]

    def attempt(self, n):
        m = [a for a in self.attempts.get(n["target_tid"], [])
             if a["t_before"] <= n["t_notify_ns"] <= a["t_after"]]
        if len(m) != 1:
            raise Fail(f"notif {n['id']}: {len(m)} syscall attempts bracket t_notify_ns")
        return m[0]

    def pending(self, n, s):
        r, send, a = self.tgkill(n, s), self.sends.get(n["id"]), self.attempt(n)
        if send is None:
            raise Fail(f"notif {n['id']}: no successful SEND in the truth")
        return send["t_before"] - r["t_after"], a["t_after"] - r["t_before"]


def check_counts(trace, b):
    """The summary's counts are those of the notif records."""
    d = deferred(trace)
    expect(b["checked"] == len(d), f"bound.checked={b['checked']}, {len(d)} deferred signals "
           "in the notif records")
    viol, bviol = flagged(trace, "bound"), flagged(trace, "budget")
    expect(b["violations"] == len(viol), f"bound.violations={b['violations']}, "
           f"{len(viol)} flagged in notif records")
    expect(b["budget_violations"] == len(bviol), f"bound.budget_violations="
           f"{b['budget_violations']}, {len(bviol)} flagged in notif records")
    for n, _, s in d:
        # the split is the whole: supervisor, wake, scheduler, delivery
        p = s["pending_split"]
        expect(p and p["supervisor_ns"] == n["t_reply_ns"] - s["t_sent_ns"] and
               p["wake_ns"] == n["wake_ns"] and sum(p.values()) == s["pending_ns"] and
               p["preempted_ns"] <= s["t_delivered_ns"] - n["t_return_ns"],
               f"notif {n['id']}: pending_split {p} of pending {s['pending_ns']}")
    if d:
        excess = max(s["pending_split"]["delivery_ns"] for n, _, s in d)
        expect(b["max_excess_ns"] == excess, f"max_excess_ns={b['max_excess_ns']}, the "
               f"records give {excess} (delivered - return - preempted)")
        pre = [s["pending_split"]["preempted_ns"] for n, _, s in d]
        expect(b["preempted"] == sum(1 for x in pre if x) and
               b["max_preempted_ns"] == max(pre),
               f"bound preempted {b['preempted']} max {b['max_preempted_ns']}, records {pre}")
    for n, i, s in d:
        allowed = ((n["t_reply_ns"] - s["t_sent_ns"]) + n["wake_ns"] +
                   s["pending_split"]["preempted_ns"] + b["slack_ns"])
        over = s["pending_ns"] > allowed
        expect(over == ((n["id"], i) in viol), f"notif {n['id']} signal {i}: pending "
               f"{s['pending_ns']} vs allowed {allowed}, flagged={(n['id'], i) in viol}")


def t_bound_slow_supervisor_holds(env):
    rc, trace, truth, err = run_bound(env, ["--killable", "--sigurg-period-us", "10000",
                                            "--handle-us", "30000", "--iterations", "10"],
                                      LOADED_SLACK)
    # a SIGURG may beat RECV and interrupt a wait (then retried): >= 10
    TruthChecker(trace, truth).check_all()
    replied = [n for n in trace.notifs if n["outcome"] == "replied"]
    expect(len(replied) == 10, f"{len(replied)} replied, expected 10")
    b = bound_summary(trace)
    expect(rc == 0, f"exit {rc}, expected 0 (held); verdict lines "
           f"{verdict_lines(err, 'bound:')}")
    expect(b["verdict"] == "held" and b["violations"] == 0, f"bound {b}")
    # every wait with a SIGURG certainly after RECV (by the truth) deferred one
    recvs, br = truth.recv_by_id(), Brackets(truth)
    held = 0
    for n in replied:
        send, recv = br.sends[n["id"]], recvs[n["id"]]
        if any(r["t_before"] > recv["t_after"] and r["t_after"] < send["t_before"]
               for r in br.sigs.get(n["target_tid"], [])):
            held += 1
            expect(any(s["effect"] == "deferred" for s in n["signals"]),
                   f"notif {n['id']}: a SIGURG came after RECV, none deferred")
    expect(held >= 5 and b["checked"] >= held, f"{b['checked']} deferred signals checked, "
           f"{held} waits had a SIGURG after RECV")
    expect(b["slack_ns"] == 5 * MS and b["budget_ns"] is None, f"bound {b}")
    check_counts(trace, b)
    for n, _, s in deferred(trace):
        lo, hi = br.pending(n, s)
        # the supervisor's part dominates: pending is the rest of 30 ms
        expect(lo <= s["pending_ns"] <= hi, f"pending {s['pending_ns']} outside the truth "
               f"[{lo}, {hi}]")
    line = verdict_lines(err, "bound:")
    expect(line == [f"bound: held for {b['checked']} deferred signals (max excess "
                    f"{b['max_excess_ns'] / 1e3:.1f}us over reply-sent+wake, slack 5000.0us)"],
           f"verdict line {line}")
    # killable, one target, no budget: nothing to find about signals; the
    # supervisor sleeps its 30 ms: supervisor_blocked
    found = [f["kind"] for f in trace.of("summary")[0]["findings"]]
    expect(found == ["supervisor_blocked"], f"findings {found} in a clean run")


def t_bound_budget_10ms(env):
    """15 ms handling, SIGURG every 10 ms: a SIGURG lands 0-10 ms after RECV,
    so some wait less than 10 ms and some more. The budget violations are
    exactly the signals the truth says stayed pending over 10 ms."""
    rc, trace, truth, err = run_bound(env, ["--killable", "--sigurg-period-us", "10000",
                                            "--handle-us", "15000", "--iterations", "20"],
                                      ["--budget", "10ms", *LOADED_SLACK])
    TruthChecker(trace, truth).check_all()
    b = bound_summary(trace)
    check_counts(trace, b)
    expect(b["budget_ns"] == 10 * MS, f"budget_ns {b['budget_ns']}")
    br = Brackets(truth)
    got = flagged(trace, "budget")
    over = under = 0
    for n, i, s in deferred(trace):
        lo, hi = br.pending(n, s)
        if lo > 10 * MS:
            over += 1
            expect((n["id"], i) in got, f"notif {n['id']} signal {i}: the truth says pending "
                   f">= {lo} ns > 10 ms, not flagged as a budget violation")
        elif hi < 10 * MS:
            under += 1
            expect((n["id"], i) not in got, f"notif {n['id']} signal {i}: the truth says "
                   f"pending <= {hi} ns < 10 ms, flagged as a budget violation")
    expect(over and under, f"the workload gave {over} signals clearly over 10 ms and "
           f"{under} clearly under: the test needs both")
    expect(b["violations"] == 0, f"bound violated (slow supervisor only): {b}")
    expect(rc == 1 and b["verdict"] == "violated", f"exit {rc}, verdict {b['verdict']}: "
           "expected 1 / violated (budget)")
    lines = [ln for ln in err.splitlines() if ln.startswith("budget violation: ")]
    expect(len(lines) == len(got), f"{len(lines)} 'budget violation' lines, {len(got)} flagged")
    for n in trace.notifs:
        if n.get("bound_violation"):
            expect(any(f" id {n['id']} " in ln for ln in lines),
                   f"no 'budget violation' line for notif {n['id']}")
    expect(verdict_lines(err, "budget: VIOLATED by "), f"no 'budget: VIOLATED' line: {err[-400:]!r}")
    # the finding: the same signals, the supervisor whose handling held them
    f = {x["kind"]: x for x in trace.of("summary")[0]["findings"]}.get(
        "signal_delay_over_budget")
    handles = [n["handle_ns"] for n in trace.notifs
               if n.get("bound_violation") and n["handle_ns"] is not None]
    expect(f and f["count"] == len(got) and f["evidence"]["budget_ns"] == 10 * MS and
           f["evidence"]["max_handle_ns"] == max(handles) and
           [x["name"] for x in f["evidence"]["supervisors"]] ==
           [f"nw-workload/{truth.supervisor_pid}"],
           f"signal_delay_over_budget {f}: {len(got)} flagged, handle max {max(handles)}")
    expect(verdict_lines(err, "bound: held for "), f"no 'bound: held' line: {err[-400:]!r}")


def t_bound_target_stopped_after_return(env):
    """SIGSTOP queued in the killable wait, SIGURG too; after the reply the
    target returns (sys_exit: the end of the wake time), dequeues SIGSTOP
    first and stops; SIGCONT 20 ms after the reply, then SIGURG is delivered.
    Pending exceeds reply-sent + wake by the stop: a real violation."""
    rc, trace, truth, err = run_bound(env, ["--killable", "--signal", "SIGURG",
                                            "--signal-after-recv-us", "5000",
                                            "--handle-us", "20000",
                                            "--stop-target-us", "20000",
                                            "--iterations", "5"])
    conts = {r["id"]: r for r in truth.ev("cont")}
    c = TruthChecker(trace, truth)
    # SIGSTOP has no handler: its "run" ends with the SIGCONT that woke it
    for r in truth.ev("cont"):
        c.handlers.setdefault(r["target_tid"], []).append({"sig": SIGSTOP, "t": r["t_after"]})
    c.check_all(expect_notifs=5)
    b = bound_summary(trace)
    check_counts(trace, b)
    viol = flagged(trace, "bound")
    sends = {r["id"]: r for r in truth.ev("send") if r["ret"] == 0}
    br = Brackets(truth)
    for n in trace.notifs:
        cont = conts.get(n["id"])
        expect(cont and cont["stopped_seen"], f"notif {n['id']}: the workload never saw the "
               f"target stopped ({cont})")
        urg = [(i, s) for i, s in enumerate(n["signals"]) if s["sig"] == SIGURG]
        expect(len(urg) == 1 and urg[0][1]["effect"] == "deferred", f"signals {n['signals']}")
        i, s = urg[0]
        expect((n["id"], i) in viol, f"notif {n['id']}: SIGURG held by the stop not flagged")
        v = [x for x in n["bound_violation"]["signals"] if x["index"] == i][0]
        # returned before it was seen stopped, delivered after SIGCONT began;
        # returned after SEND began, delivered before the attempt ended
        lo = cont["t_before"] - cont["stopped_seen"]
        hi = br.attempt(n)["t_after"] - sends[n["id"]]["t_before"]
        expect(lo <= v["excess_ns"] <= hi, f"notif {n['id']}: excess {v['excess_ns']} "
               f"outside the truth [{lo}, {hi}]")
        expect(v["allowed_ns"] == (n["t_reply_ns"] - s["t_sent_ns"]) + n["wake_ns"] + SLACK_NS,
               f"allowed_ns {v['allowed_ns']}")
    expect(rc == 1 and b["verdict"] == "violated", f"exit {rc}, verdict {b['verdict']}")
    expect(b["max_excess_ns"] >= 19 * MS, f"max_excess_ns {b['max_excess_ns']} < the 20 ms stop")
    lines = verdict_lines(err, "bound violation: ")
    expect(len(lines) == len(viol), f"{len(lines)} 'bound violation' lines, {len(viol)} flagged")
    timelines = [ln for ln in err.splitlines() if ln.startswith("  timeline (us after notify):")]
    expect(len(timelines) == len(viol) and all("return +" in t and "delivered +" in t
                                                for t in timelines),
           f"timelines {timelines[:2]}")
    expect(verdict_lines(err, f"bound: VIOLATED by {b['violations']} of {b['checked']} "),
           f"verdict line: {verdict_lines(err, 'bound:')}")


def t_bound_lost_events_cannot_check(env):
    """A 16-entry notification map and 64 threads waiting at once: the
    tracer drops notifications, counts them, and refuses a verdict."""
    rc, trace, truth, err = run_bound(env, ["--killable", "--threads", "64", "--iterations",
                                            "5", "--handle-us", "1000",
                                            "--sigurg-period-us", "3000"],
                                      ["--max-notifs", "16"])
    b = bound_summary(trace)
    lost, = trace.of("lost")
    attempts = len(truth.ev("syscall"))
    missing = attempts - len(trace.notifs)
    expect(missing > 0, f"{attempts} syscall attempts, {len(trace.notifs)} notif records: "
           "nothing was lost, the test proves nothing")
    expect(lost["knotifs_dropped"] >= missing, f"knotifs_dropped={lost['knotifs_dropped']} "
           f"but {missing} notifications have no record")
    expect(b["dropped_knotifs"] == lost["knotifs_dropped"] and b["lost"] >= missing,
           f"bound {b} vs lost {lost}")
    expect(rc == 2 and b["verdict"] == "unknown", f"exit {rc}, verdict {b['verdict']}: "
           "expected 2 / unknown")
    expect("lost events" in (b["reason"] or ""), f"reason {b['reason']!r}")
    line = verdict_lines(err, "bound: cannot check: the tracer lost events")
    expect(line and f"{lost['knotifs_dropped']} notifications dropped" in line[0],
           f"verdict line {verdict_lines(err, 'bound:')}")


def t_bound_nothing_deferred(env):
    rc, trace, truth, err = run_bound(env, ["--handle-us", "1000", "--iterations", "3"])
    Checker(trace, truth).check_all(expect_notifs=3)
    b = bound_summary(trace)
    expect(rc == 2 and b["verdict"] == "unknown" and b["checked"] == 0, f"exit {rc}, bound {b}")
    expect(b["reason"] == "no deferred signal was traced", f"reason {b['reason']!r}")
    expect(verdict_lines(err, "bound: cannot check: no deferred signal was traced"),
           f"verdict {verdict_lines(err, 'bound:')}")


def t_bound_exit_status_replaces_command_status(env):
    p = subprocess.run([env.tracer, "--check-bound", "--", "/bin/false"], capture_output=True,
                       text=True, timeout=60, stdin=subprocess.DEVNULL)
    expect(p.returncode == 2, f"exit {p.returncode}, expected 2 (nothing to check)")
    expect("the command exited 1; exiting 2" in p.stderr, f"stderr {p.stderr[-300:]!r}")
    expect(verdict_lines(p.stdout, "bound: cannot check: "), f"stdout {p.stdout!r}")


def t_bound_bad_options(env):
    for args, want in ((["--budget", "10ms"], "--budget and --slack need --check-bound"),
                       (["--check-bound", "--budget", "0"], "invalid --budget '0'"),
                       (["--check-bound", "--slack", "-1us"], "invalid --slack '-1us'"),
                       (["--slack", "1us"], "need --check-bound")):
        p = subprocess.run([env.tracer, *args], capture_output=True, text=True, timeout=30)
        lines = p.stderr.splitlines()
        expect(p.returncode == 2 and len(lines) == 1 and lines[0].startswith("notifwait: ")
               and want in lines[0], f"{args}: exit {p.returncode}, stderr {p.stderr!r}")


TESTS = [(f.__name__[2:], f) for f in (
    t_bound_slow_supervisor_holds, t_bound_budget_10ms, t_bound_target_stopped_after_return,
    t_bound_lost_events_cannot_check, t_bound_nothing_deferred,
    t_bound_exit_status_replaces_command_status, t_bound_bad_options,
)]
