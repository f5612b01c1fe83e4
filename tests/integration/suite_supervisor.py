"""The supervisor's handle time split by its own context switches (issue
#18): `handle_split` {running, runnable, blocked} over [RECV return, reply
entry], checked against the supervisor's own clocks (its truth "handle"
records: CLOCK_MONOTONIC and CLOCK_THREAD_CPUTIME_ID over its handling)."""

import os
import subprocess

from scenarios import expect, traced

MS = 1000000


def handled(trace, truth):
    """(notif, truth handle record) of every replied notification."""
    by_id = {r["id"]: r for r in truth.ev("handle")}
    out = [(n, by_id.get(n["id"])) for n in trace.notifs if n["outcome"] == "replied"]
    expect(out and all(h for _, h in out), f"{len(out)} replied, truth handle records for "
           f"{sum(1 for _, h in out if h)}")
    return out


def switch_gaps(trace):
    lost, = trace.of("lost")
    return lost["switch_gaps"]


def split_handled(trace, truth):
    """handled(), less the notifications left unsplit for a switch the
    tracer did not see (switch_gaps: this host's kernel skips the
    sched_switch tracepoint for some switches, see supervisor-profile.md);
    at most a quarter of them."""
    pairs = handled(trace, truth)
    out = [(n, h) for n, h in pairs if (n["handle_split"] or {}).get("running_ns") is not None]
    unsplit = len(pairs) - len(out)
    expect(unsplit <= min(switch_gaps(trace), len(pairs) // 4),
           f"{unsplit} of {len(pairs)} not split, switch_gaps {switch_gaps(trace)}")
    return out


def findings(trace):
    summary, = trace.of("summary")
    return {f["kind"]: f for f in summary["findings"]}


def check_summary(trace, truth):
    """The summary's per-supervisor sums are the records'."""
    summary, = trace.of("summary")
    sup, = [g for g in summary["supervisors"] if g["name"].endswith(f"/{truth.supervisor_pid}")]
    splits = [n["handle_split"] for n in trace.notifs
              if n["handle_split"] and n["handle_split"]["running_ns"] is not None]
    want = {k: sum(s[k] for s in splits) for k in ("running_ns", "runnable_ns", "blocked_ns")}
    got = sup["handle_state"]
    expect(got["split"] == len(splits) and all(got[k] == v for k, v in want.items()),
           f"summary handle_state {got}, the records give {len(splits)} splits {want}")


def check_whole(n, h):
    """The parts are the handle time, the replier the RECV thread."""
    s = n["handle_split"]
    expect(s and None not in (s["running_ns"], s["runnable_ns"], s["blocked_ns"]),
           f"notif {n['id']}: handle_split {s}")
    expect(s["running_ns"] + s["runnable_ns"] + s["blocked_ns"] == n["handle_ns"],
           f"notif {n['id']}: parts {s} do not add up to handle_ns {n['handle_ns']}")
    expect(s["thread"] == s["recv_thread"] == h["tid"],
           f"notif {n['id']}: threads {s['thread']}/{s['recv_thread']}, truth {h['tid']}")
    return s


def outside(n, h):
    """The part of the tracer's span [RECV return, reply entry] outside the
    workload's clock window (its user-space span between them): the
    tracer's BPF and the kernel's return and entry paths. Nanoseconds on
    real CPUs; on a QEMU TCG vCPU, where BPF takes hundreds of microseconds
    and the vCPU stalls for milliseconds, it can be several milliseconds,
    all of it running or runnable to the tracer and none of it on the
    workload's clock."""
    return max(0, n["handle_ns"] - (h["t_end"] - h["t_start"]))


def emulated():
    """A QEMU TCG vCPU (see outside())."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            return "QEMU" in f.read()
    except OSError:
        return False


# a worker's wake-up from its pool's queue up to its t_pickup: on its CPU,
# before its clock window; microseconds on real CPUs, a millisecond on TCG
PICKUP_NS = 1500000 if emulated() else 100000


# On TCG the thread's CPU clock (the scheduler's sched_clock) and the
# tracer's CLOCK_MONOTONIC drift apart by up to a fifth over milliseconds
# (seen: 13.0 ms running by sched_switch times, 10.3 ms by the CPU clock):
# there the comparison allows a quarter of the handle time.
CLOCK_SHARE = 0.25 if emulated() else 0.03


def near(got, want, what, n, h, extra=0, note=""):
    """The tracer's running time against the thread's own CPU clock."""
    tol = 100000 + CLOCK_SHARE * n["handle_ns"] + outside(n, h) + extra
    expect(abs(got - want) <= tol, f"notif {n['id']}: {what} {got} ns, the supervisor's "
           f"CPU clock says {want} ns (tolerance {tol:.0f}){note}")


def t_handle_split_sleeping(env):
    """A supervisor that sleeps its 5 ms: blocked is the handle time."""
    trace, truth = traced(env, ["--handle-us", "5000", "--iterations", "8"], tag="sleep")
    for n, h in split_handled(trace, truth):
        s = check_whole(n, h)
        near(s["running_ns"], h["cpu_ns"], "running", n, h)
        # off its CPU clock, a sleeping supervisor is asleep
        off = n["handle_ns"] - h["cpu_ns"]
        expect(s["blocked_ns"] >= 0.9 * off - outside(n, h), f"notif {n['id']}: blocked "
               f"{s['blocked_ns']} of {n['handle_ns']}, {h['cpu_ns']} ns on its CPU clock")
    check_summary(trace, truth)
    expect("supervisor_starved" not in findings(trace), "a sleeping supervisor starved")
    f = findings(trace).get("supervisor_blocked")
    blocked = sum(n["handle_split"]["blocked_ns"] for n, _ in split_handled(trace, truth))
    expect(f and f["evidence"]["blocked_ns"] == blocked,
           f"supervisor_blocked {f}, blocked {blocked} ns in the records")


def t_handle_split_computing(env):
    """A supervisor that computes for its 5 ms: running is the handle time."""
    trace, truth = traced(env, ["--handle-us", "5000", "--handle-spin", "--iterations", "8"],
                          tag="spin")
    for n, h in split_handled(trace, truth):
        s = check_whole(n, h)
        near(s["running_ns"], h["cpu_ns"], "running", n, h)
        # off its CPU only as long as its own clocks say (a guest's 9p page
        # fault in the spin blocked it 742 us, and its CPU clock agreed)
        off = h["t_end"] - h["t_start"] - h["cpu_ns"]
        expect(s["blocked_ns"] <= off + 0.05 * n["handle_ns"] + outside(n, h),
               f"notif {n['id']}: blocked {s['blocked_ns']} of {n['handle_ns']} while "
               f"computing, {off} ns off its CPU clock")
    check_summary(trace, truth)
    # off its CPU clock a tenth of its handle time or more, the machine's
    # load (a kernel build beside the suite) starved it: the finding is then right
    pairs = handled(trace, truth)
    wall = sum(h["t_end"] - h["t_start"] for _, h in pairs)
    off = sum(h["t_end"] - h["t_start"] - h["cpu_ns"] for _, h in pairs)
    if off < 0.1 * wall:
        expect("supervisor_starved" not in findings(trace),
               f"a supervisor with a CPU starved ({off} of {wall} ns off its CPU clock)")
    expect("supervisor_blocked" not in findings(trace), "a computing supervisor blocked")


def t_handle_split_starved(env):
    """Pinned to one CPU with two CPU hogs: the computing supervisor gets
    about a third of it; the rest of its handle time is runnable, never
    blocked, and its running time is what its own CPU clock says. (With
    one hog, a supervisor waking with lag got under the finding's 20%
    runnable in 2 of 20 loaded runs.)"""
    hogs = [subprocess.Popen(["taskset", "-c", "0", "sh", "-c", "while :; do :; done"])
            for _ in range(2)]
    try:
        trace, truth = traced(env, ["--handle-us", "20000", "--handle-spin",
                                    "--iterations", "6"], tag="starved",
                              wrap=["taskset", "-c", "0"])
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    shares = []
    for n, h in split_handled(trace, truth):
        s = check_whole(n, h)
        near(s["running_ns"], h["cpu_ns"], "running", n, h)
        wall = h["t_end"] - h["t_start"]
        near(s["runnable_ns"], wall - h["cpu_ns"], "runnable", n, h)
        shares.append(s["runnable_ns"] / n["handle_ns"])
    expect(max(shares) > 0.2, f"runnable shares {shares}: the hog never took the CPU")
    check_summary(trace, truth)
    f = findings(trace).get("supervisor_starved")
    total = sum(n["handle_split"]["runnable_ns"] for n, _ in split_handled(trace, truth))
    expect(f and [x["name"] for x in f["evidence"]["supervisors"]] ==
           [f"nw-workload/{truth.supervisor_pid}"] and f["evidence"]["runnable_ns"] == total,
           f"supervisor_starved {f}, runnable {total} ns in the records")


def t_supervisor_stacks_pipe(env):
    """A supervisor blocked reading a pipe: the folded stacks name the
    function it blocks in, the kernel's pipe_read under it, and their
    weights add up to the blocked time of the records."""
    folded = env.path("pipe.folded")
    trace, truth = traced(env, ["--handle-us", "5000", "--handle-pipe", "--iterations", "30"],
                          targs=["--supervisor-stacks", folded], tag="pipe")
    lines = open(folded, encoding="utf-8").read().splitlines()
    stacks = {}
    for line in lines:
        text, _, weight = line.rpartition(" ")
        expect(text and weight.isdigit(), f"not a folded line: {line!r}")
        stacks[text] = int(weight)
    blocked = sum(n["handle_split"]["blocked_ns"] for n, _ in handled(trace, truth)
                  if n["handle_split"] and n["handle_split"]["blocked_ns"] is not None)
    expect(sum(stacks.values()) == blocked, f"stacks weigh {sum(stacks.values())} ns, the "
           f"records' blocked time is {blocked} ns")
    pipe = sum(w for t, w in stacks.items()
               if "nw_supervisor_blocks_on_pipe" in t.split(";") and "pipe_read_[k]" in t)
    expect(pipe >= 0.8 * blocked, f"{pipe} of {blocked} ns in stacks with "
           f"nw_supervisor_blocks_on_pipe and pipe_read_[k]: {lines[:5]}")
    root = {t.split(";")[0] for t in stacks}
    expect(root == {"nw-workload"}, f"stack roots {root}")


def t_handle_split_worker_pool(env):
    """RECV in one thread, the handling and the reply in a worker: the
    split is the worker's, thread and recv_thread name them, and its
    running time is the worker's CPU clock (a computing worker)."""
    # on TCG a worker's bookkeeping after its reply takes milliseconds: with
    # two callers most notifications found their worker still busy (1 of
    # 12 idle seen), and with one still 0 of 12 in a CI run; so one caller,
    # and the RECV thread waits two pick-ups before each RECV
    callers = ["--threads", "1", "--iterations", "12",
               "--recv-delay-us", str(2 * PICKUP_NS // 1000)] if emulated() else \
        ["--threads", "2", "--iterations", "6"]
    trace, truth = traced(env, ["--pool", "3", "--handle-us", "5000", "--handle-spin"]
                          + callers, tag="pool")
    lost, = trace.of("lost")
    pairs = handled(trace, truth)
    # a worker is followed from its first reply on: what it handles of a
    # notification received before that cannot be split
    first_reply = {}
    for _, h in pairs:
        first_reply[h["tid"]] = min(first_reply.get(h["tid"], h["t_end"]), h["t_end"])
    split = checked = 0
    gaps_left = switch_gaps(trace)
    for n, h in pairs:
        s = n["handle_split"]
        expect(s and s["thread"] == h["tid"] and s["recv_thread"] == h["recv_tid"]
               and h["tid"] != h["recv_tid"],
               f"notif {n['id']}: handle_split {s}, truth worker {h['tid']} recv {h['recv_tid']}")
        if s["running_ns"] is None:
            if gaps_left > 0 and h["t_start"] > first_reply[h["tid"]] + MS:
                gaps_left -= 1  # a switch not seen: counted, not split
                continue
            expect(h["t_start"] <= first_reply[h["tid"]] + MS, f"notif {n['id']}: not split, "
                   f"received {h['t_start'] - first_reply[h['tid']]} ns after its worker's "
                   f"first reply (lost {lost})")
            continue
        expect(h["t_start"] >= first_reply[h["tid"]] - MS, f"notif {n['id']}: split, but "
               f"received before its worker's first reply")
        split += 1
        expect(s["running_ns"] + s["runnable_ns"] + s["blocked_ns"] == n["handle_ns"],
               f"notif {n['id']}: parts {s} do not add up to handle_ns {n['handle_ns']}")
        # the worker's CPU clock covers [t_pickup, t_end]: a notification
        # received before its worker began to wait (t_idle: still busy with
        # the one before) has that one's running time in its split
        if h["t_idle"] > h["t_start"]:
            continue
        checked += 1
        # From RECV to the pick-up the worker waited on its queue, off its
        # CPU unless its clock since t_idle says otherwise: in the vanilla
        # guest a woken worker was on its CPU 4.3 ms before it got to the
        # pick-up (TCG), and cpu_ns covers only [t_pickup, t_end].
        before = max(h["cpu_since_idle_ns"] - h["cpu_ns"], 0)
        near(s["running_ns"], h["cpu_ns"] + before, "running", n, h, PICKUP_NS,
             f"; split {s}, truth {h}, lost {lost}")
        waited = h["t_pickup"] - h["t_start"] - before
        expect(s["blocked_ns"] + s["runnable_ns"] >= 0.9 * waited - outside(n, h) - PICKUP_NS,
               f"notif {n['id']}: off the CPU {s['blocked_ns'] + s['runnable_ns']} ns, it "
               f"waited {waited} ns for the worker off its CPU clock")
    expect(split >= len(pairs) // 2 and checked >= 3, f"{split} of {len(pairs)} split, "
           f"{checked} received by an idle worker (checked against its clock)")
    check_summary(trace, truth)


def queue_parts(n):
    q = n["queue_split"]
    parts = ("supervisor_runnable_ns", "supervisor_busy_ns", "supervisor_blocked_ns",
             "no_receiver_ns", "unknown_ns")
    expect(q and sum(q[p] for p in parts) == n["queue_ns"],
           f"notif {n['id']}: queue_split {q} does not add up to queue_ns {n['queue_ns']}")
    return q


def overlap(a0, a1, spans):
    return sum(max(0, min(a1, b1) - max(a0, b0)) for b0, b1 in spans)


def t_queue_split_busy_supervisor(env):
    """Eight threads queue behind one supervisor that takes 5 ms each:
    the queue time is the supervisor busy with the others. Checked against
    the supervisor's clock: busy is its [RECV return, reply entry] of the
    others, and everything from a reply's entry to the next RECV's return
    (its own bookkeeping, a millisecond or more on TCG) is no_receiver."""
    trace, truth = traced(env, ["--threads", "8", "--handle-us", "5000", "--hold-recv"],
                          tag="busy")
    recvs = {r["id"]: r for r in truth.ev("recv") if r["ret"] == 0}
    sends = {r["id"]: r for r in truth.ev("send")}
    handling = sorted((recvs[i]["t_after"], sends[i]["t_before"]) for i in recvs if i in sends)
    expect(len(handling) >= 8, f"{len(handling)} handlings in the truth")
    first_recv = handling[0][0]
    total = busy = truth_busy = 0
    for n in trace.notifs:
        if n["queue_split"] is None or n["t_notify_ns"] is None:
            continue
        q = queue_parts(n)
        w0, w1 = n["t_notify_ns"], n["t_recv_ns"]
        want = overlap(w0, w1, handling)
        # each handling's ends: the kernel's RECV return and reply entry
        # paths, outside the supervisor's clock
        slack = 2 * PICKUP_NS * (1 + sum(1 for a, b in handling if a < w1 and b > w0))
        expect(abs(q["supervisor_busy_ns"] - want) <= slack,
               f"notif {n['id']}: supervisor_busy {q['supervisor_busy_ns']} ns, the "
               f"supervisor handled others for {want} ns of its queue time (slack {slack}): {q}")
        expect(q["unknown_ns"] <= max(0, first_recv - w0) + slack,
               f"notif {n['id']}: unknown {q['unknown_ns']} ns, queued "
               f"{max(0, first_recv - w0)} ns before the first RECV: {q}")
        total += n["queue_ns"]
        busy += q["supervisor_busy_ns"]
        truth_busy += want
    expect(total, "no queue split")
    # on real CPUs the scenario is what it says: busy dominates
    if not emulated():
        expect(truth_busy >= 0.6 * total and busy >= 0.6 * total,
               f"busy {busy} ns, the supervisor's clock {truth_busy} ns, of {total} ns queued")


def t_queue_split_idle_supervisor(env):
    """A supervisor waiting in poll for each notification: after the first,
    the queue time is a receiving supervisor getting its CPU and returning
    from RECV (supervisor_runnable) or, when the target's next syscall came
    before the supervisor was back in poll, no_receiver; never busy nor
    blocked, and mostly the first."""
    trace, truth = traced(env, ["--iterations", "10"], tag="idle")
    ns = sorted(trace.notifs, key=lambda r: r["t_notify_ns"] or 0)[1:]
    runnable = 0
    for n in ns:
        q = queue_parts(n)
        expect(q["supervisor_busy_ns"] == q["supervisor_blocked_ns"] == q["unknown_ns"] == 0,
               f"notif {n['id']}: queue_split {q} of an idle supervisor")
        runnable += q["supervisor_runnable_ns"] == n["queue_ns"]
    expect(runnable >= len(ns) // 2, f"{runnable} of {len(ns)} queue times all runnable")


TESTS = [
    ("handle_split_sleeping", t_handle_split_sleeping),
    ("handle_split_computing", t_handle_split_computing),
    ("handle_split_starved", t_handle_split_starved),
    ("handle_split_worker_pool", t_handle_split_worker_pool),
    ("queue_split_busy_supervisor", t_queue_split_busy_supervisor),
    ("queue_split_idle_supervisor", t_queue_split_idle_supervisor),
    ("supervisor_stacks_pipe", t_supervisor_stacks_pipe),
]
