"""Restart chains and interrupt causes (issue #16): which notification's
syscall a notification restarts, why a wait was interrupted and what the
kernel made of it. Checked against the workload's own truth: its syscall
attempts (t_before/t_after, EINTR), the RECVs and SENDs its supervisor
logged."""

import os
import subprocess
import threading
import time

from scenarios import expect, traced
from truth import Skip, Trace, Truth

ENOENT = 2


def target_notifs(trace, truth):
    tids = {r["tid"] for r in truth.ev("syscall")}
    return sorted((n for n in trace.notifs if n["target_tid"] in tids),
                  key=lambda n: n["t_return_ns"] or 0)


def chains_of(notifs):
    """Chains by restart_of, each in attempt order."""
    by_id = {n["id"]: n for n in notifs}
    heads = [n for n in notifs if n["restart_of"] is None]
    nxt = {n["restart_of"]: n for n in notifs if n["restart_of"] is not None}
    chains = []
    for h in heads:
        c = [h]
        while c[-1]["id"] in nxt:
            c.append(nxt[c[-1]["id"]])
        chains.append(c)
    linked = sum(len(c) for c in chains)
    expect(linked == len(notifs), f"{len(notifs) - linked} notifications in no chain "
           f"(restart_of of an id not reported: "
           f"{[n['restart_of'] for n in notifs if n['restart_of'] not in by_id][:3]})")
    return chains


def findings_of(trace):
    """The summary record's findings, by kind."""
    summary, = trace.of("summary")
    return {f["kind"]: f for f in summary["findings"]}


def expect_findings(trace, kinds, why):
    got = findings_of(trace)
    expect(set(got) == set(kinds), f"{why}: findings {sorted(got)}, expected {sorted(kinds)}")
    return got


def check_lost_replies(found, truth):
    """Every SEND the supervisor saw fail with ENOENT is a lost reply."""
    enoent = truth.summary["sends_enoent"]
    if not enoent:
        expect("lost_reply" not in found, f"lost_reply {found.get('lost_reply')} "
               "without a failed SEND")
        return
    f = found.get("lost_reply")
    expect(f and f["evidence"]["failed_enoent"] == enoent and f["count"] >= enoent,
           f"lost_reply {f}, truth: {enoent} SENDs failed with ENOENT")


def t_chain_sa_restart(env):
    """SIGURG every 7 ms, a 5 ms supervisor, a handler with SA_RESTART: the
    kernel restarts each interrupted call, the program sees one call; every
    chain is one of its calls, attempts equal its notifications. (A period
    shorter than the handle time restarts for ever: restart_storm.)"""
    trace, truth = traced(env, ["--sigurg-period-us", "7000", "--handle-us", "5000",
                                "--sa-restart", "--iterations", "8"])
    calls = sorted(truth.ev("syscall"), key=lambda r: r["t_before"])
    expect(len(calls) == 8 and all(c["ret"] != -1 for c in calls),
           f"truth: {len(calls)} calls, errors {[c['errno'] for c in calls if c['ret'] == -1]}")
    notifs = target_notifs(trace, truth)
    chains = chains_of(notifs)
    expect(len(chains) == len(calls), f"{len(chains)} chains for {len(calls)} calls")
    expect(any(len(c) > 1 for c in chains), "no call was restarted: nothing to check")
    recvs = truth.recv_by_id()
    sends = truth.ops_by_id("send")
    for call, chain in zip(calls, chains):
        *restarted, last = chain
        for i, n in enumerate(chain, 1):
            expect(n["attempt"] == i, f"notif {n['id']}: attempt {n['attempt']}, expected {i}")
            expect((n["t_recv_ns"] is not None) == (n["id"] in recvs),
                   f"notif {n['id']}: t_recv_ns {n['t_recv_ns']}, supervisor RECV "
                   f"{n['id'] in recvs}")
        for n in restarted:
            expect(n["outcome"].startswith("interrupted") and
                   n["interrupt_cause"] == "signal" and
                   n["interrupt_result"] == "restarted" and n["chain_total_ns"] is None,
                   f"notif {n['id']}: {n['outcome']} cause {n['interrupt_cause']} "
                   f"result {n['interrupt_result']} chain_total {n['chain_total_ns']}")
            failed = [s for s in sends.get(n["id"], []) if s["errno"] == ENOENT]
            expect(bool(failed) == (n["outcome"] == "interrupted_after_recv"),
                   f"notif {n['id']}: {n['outcome']}, supervisor SEND ENOENT {bool(failed)}")
        expect(last["outcome"] == "replied" and last["interrupt_cause"] is None,
               f"notif {last['id']}: ends its chain as {last['outcome']}")
        # the chain is the call: inside what the program measured around it
        first = chain[0]
        start = first["t_notify_ns"] or first["t_recv_ns"] or first["t_return_ns"]
        expect(call["t_before"] <= start and last["t_return_ns"] <= call["t_after"],
               f"chain {first['id']}..{last['id']} [{start}, {last['t_return_ns']}] outside "
               f"the call [{call['t_before']}, {call['t_after']}]")
        expect(last["chain_total_ns"] == last["t_return_ns"] - start,
               f"chain_total_ns {last['chain_total_ns']}, expected "
               f"{last['t_return_ns'] - start}")
    found = findings_of(trace)
    worst = max(len(c) - 1 for c in chains)
    # restart_storm: a call restarted at least --restart-threshold (10)
    # times; a TCG guest once restarted one exactly 10 times
    expect(("restart_storm" in found) == (worst >= 10) and "eintr_to_program" not in found,
           f"calls restarted at most {worst} times, no EINTR: findings {sorted(found)}")
    check_lost_replies(found, truth)


def t_chain_eintr(env):
    """The same without SA_RESTART: each interruption reaches the program as
    EINTR (the truth counts them), so no notification restarts another."""
    trace, truth = traced(env, ["--sigurg-period-us", "7000", "--handle-us", "5000",
                                "--iterations", "8"])
    notifs = target_notifs(trace, truth)
    eintr = [c for c in truth.ev("syscall") if c["ret"] == -1 and c["errno"] == 4]
    interrupted = [n for n in notifs if n["interrupt_result"] is not None]
    expect(eintr, "no EINTR: nothing to check")
    expect(len(interrupted) == len(eintr) and
           all(n["interrupt_result"] == "eintr" and n["interrupt_cause"] == "signal"
               for n in interrupted),
           f"{len(interrupted)} interrupted ({[n['interrupt_result'] for n in interrupted][:4]}),"
           f" truth {len(eintr)} EINTR")
    expect(all(n["restart_of"] is None and n["attempt"] == 1 for n in notifs),
           "a restart_of without a kernel restart")
    expect(all(n["chain_total_ns"] == n["total_ns"] for n in notifs if n["total_ns"]),
           "a one-notification chain whose chain_total_ns is not its total_ns")
    found = findings_of(trace)
    f = found.get("eintr_to_program")
    expect(f and f["count"] == len(eintr) and f["severity"] == "critical" and
           f["evidence"]["not_native"] == len(eintr) and
           f["evidence"]["syscalls"] == [{"name": "getppid", "count": len(eintr),
                                          "not_native": True}],
           f"eintr_to_program {f}, truth {len(eintr)} EINTR from getppid")
    expect("restart_storm" not in found, "a restart_storm with no restart")
    check_lost_replies(found, truth)


def replay_findings(env, recording, *args):
    out = env.path("storm.replay.jsonl")
    p = subprocess.run([env.real_tracer, "--replay", recording, "-j", "-o", out, *args],
                       capture_output=True, text=True, timeout=60)
    expect(p.returncode == 0, f"replay {args}: exit {p.returncode}: {p.stderr[-300:]!r}")
    return findings_of(Trace(out))


def t_findings_restart_storm(env):
    """SIGURG every 2 ms (40 rounds) against a 20 ms supervisor, SA_RESTART:
    one getppid restarts until the storm ends. One restart_storm whose
    restarts are the chain's; its attempts are the supervisor's RECVs plus
    the waits interrupted unreceived, its failed SENDs the lost replies;
    the waits queued behind the supervisor's held one are checked against
    the supervisor's own RECV/SEND brackets."""
    rec = env.path("storm.facts")
    # SIGURG ten times within each 20 ms handling: slow emulated CPUs too
    trace, truth = traced(env, ["--sigurg-period-us", "2000", "--sigurg-count", "40",
                                "--handle-us", "20000", "--sa-restart", "--iterations", "1"],
                          targs=["--record", rec], tag="storm")
    call, = truth.ev("syscall")
    expect(call["ret"] != -1, f"the call failed: errno {call['errno']}")
    notifs = target_notifs(trace, truth)
    chain, = chains_of(notifs)
    restarts = len(chain) - 1
    expect(restarts >= 10, f"only {restarts} restarts: no storm to find")
    recvs, sends = truth.recv_by_id(), truth.ops_by_id("send")
    received = [n for n in chain if n["t_recv_ns"] is not None]
    expect(len(received) == len(recvs) and all(n["id"] in recvs for n in received),
           f"{len(received)} attempts received, the supervisor logged {len(recvs)} RECVs")
    expect(chain[-1]["outcome"] == "replied" and chain[-1]["attempt"] == len(chain),
           f"last attempt {chain[-1]['attempt']} {chain[-1]['outcome']}")
    found = findings_of(trace)
    f = found.get("restart_storm")
    ev = f["evidence"] if f else {}
    expect(f and f["count"] == 1 and ev["max_restarts"] == restarts and
           ev["unfinished"] == 0 and ev["examples"] == [chain[-1]["id"]] and
           ev["syscalls"] == [{"name": "getppid", "count": 1}],
           f"restart_storm {f}, the chain restarted {restarts} times, ends at {chain[-1]['id']}")
    check_lost_replies(found, truth)
    behind = [n for n in chain if n["queued_behind"] is not None]
    for n in behind:
        x = n["queued_behind"]
        r, sx = recvs.get(x), [s for s in sends.get(x, [])]
        expect(r and sx and r["t_before"] < n["t_return_ns"] < sx[0]["t_after"],
               f"notif {n['id']} queued behind {x}: supervisor RECV {r}, SEND {sx}, "
               f"return {n['t_return_ns']}")
    q = found.get("interrupted_while_queued")
    expect(len(behind) == (q["count"] if q else 0),
           f"{len(behind)} waits queued behind, interrupted_while_queued {q}")
    # the threshold is a report option: a replay of the run judges anew
    expect("restart_storm" not in replay_findings(env, rec, "--restart-threshold",
                                                  str(restarts + 1)),
           f"a restart_storm at threshold {restarts + 1} for {restarts} restarts")
    again = replay_findings(env, rec, "--restart-threshold", str(restarts))
    expect(again.get("restart_storm", {}).get("count") == 1,
           f"threshold {restarts}: {again.get('restart_storm')}")


class Freezer:
    """A child group of the cgroup v1 freezer or of cgroup v2 (cgroup.freeze)."""

    V1 = ("/sys/fs/cgroup/freezer",)
    V2 = ("/sys/fs/cgroup/unified", "/sys/fs/cgroup")

    def __init__(self, name, v2):
        self.path, self.v2 = None, v2
        tried = []
        for root in self.V2 if v2 else self.V1:
            # the root group cannot freeze: make() checks the child's file
            mark = "cgroup.controllers" if v2 else "cgroup.procs"
            if os.path.exists(os.path.join(root, mark)) and self.make(root, name, tried):
                return
            tried.append(f"{root}: no {mark}")
        raise Skip(f"no writable cgroup {'v2' if v2 else 'v1'} freezer ({'; '.join(tried)})")

    def make(self, root, name, tried):
        path = os.path.join(root, name)
        try:
            os.makedirs(path, exist_ok=True)
            if not os.path.exists(os.path.join(path, "cgroup.freeze" if self.v2 else
                                               "freezer.state")):
                raise OSError("no freeze file")
        except OSError as e:
            tried.append(f"{path}: {e}")
            return False
        self.path = path
        return True

    def write(self, f, value):
        with open(os.path.join(self.path, f), "w") as fh:
            fh.write(value)

    def add(self, pid):
        self.write("cgroup.procs", str(pid))

    def freeze(self, on):
        if self.v2:
            self.write("cgroup.freeze", "1" if on else "0")
        else:
            self.write("freezer.state", "FROZEN" if on else "THAWED")

    def remove(self):
        if self.path:
            try:
                os.rmdir(self.path)
            except OSError:
                pass


def wait_truth(path, ev, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if os.path.exists(path):
            recs = Truth(path).ev(ev)
            if recs:
                return recs[0]
        time.sleep(0.01)
    return None


def chain_freezer(env, v2):
    """The cgroup freezer interrupts a wait after RECV with no signal: the
    cause is the freezer, the syscall restarts as a new notification and the
    supervisor's reply to the old id fails with ENOENT (gvisor#12820)."""
    fz = Freezer(f"notifwait-test-{os.getpid()}", v2)
    tag = "freezer-v2" if v2 else "freezer-v1"
    truth_path = env.path(f"{tag}.truth.jsonl")
    done = {}

    def freeze_when_received():
        try:
            if not wait_truth(truth_path, "recv"):
                done["err"] = "the supervisor received nothing within 30 s"
                return
            target = wait_truth(truth_path, "target")
            fz.add(target["pid"])
            fz.freeze(True)
            time.sleep(0.05)
            fz.freeze(False)
            done["ok"] = True
        except OSError as e:
            done["err"] = f"freezer: {e}"

    try:
        if os.path.exists(truth_path):
            os.unlink(truth_path)
        helper = threading.Thread(target=freeze_when_received, daemon=True)
        helper.start()
        trace, truth = traced(env, ["--iterations", "1", "--handle-us", "400000"],
                              tag=tag)
        helper.join(5)
    finally:
        fz.remove()
    expect("ok" in done, done.get("err", "the freezer step did not run"))
    notifs = target_notifs(trace, truth)
    expect(len(notifs) == 2, f"{len(notifs)} notifications, expected the frozen one and "
           f"its restart: {[(n['id'], n['outcome']) for n in notifs]}")
    a, b = notifs
    expect(a["outcome"] == "interrupted_after_recv" and a["signals"] == [] and
           a["interrupt_cause"] == "freezer" and a["interrupt_result"] == "restarted",
           f"frozen one: {a['outcome']} signals {a['signals']} cause {a['interrupt_cause']} "
           f"result {a['interrupt_result']}")
    # the reply comes after the record was handed over: a record of its own
    failed = [r for r in trace.of("reply_failed") if r.get("id") == a["id"]]
    expect(len(failed) == 1 and failed[0].get("errno") == ENOENT and
           truth.summary["sends_enoent"] == 1,
           f"reply_failed {failed}, truth sends_enoent {truth.summary['sends_enoent']}")
    expect(b["restart_of"] == a["id"] and b["attempt"] == 2 and b["outcome"] == "replied",
           f"restart: restart_of {b['restart_of']} attempt {b['attempt']} {b['outcome']}")
    found = expect_findings(trace, ["interrupted_by_freezer", "lost_reply"], "frozen once")
    f = found["interrupted_by_freezer"]
    expect(f["count"] == 1 and f["evidence"]["after_recv"] == 1 and
           f["evidence"]["restarted"] == 1 and f["evidence"]["replies_lost"] == 1 and
           f["evidence"]["examples"] == [a["id"]], f"interrupted_by_freezer {f}")
    check_lost_replies(found, truth)
    expect(found["lost_reply"]["evidence"]["by_freezer"] == 1,
           f"lost_reply {found['lost_reply']}: not the freezer's")
    call, = truth.ev("syscall")
    expect(call["ret"] != -1 and b["chain_total_ns"] <= call["t_after"] - call["t_before"],
           f"chain_total_ns {b['chain_total_ns']}, the call took "
           f"{call['t_after'] - call['t_before']} ns (ret {call['ret']})")


TESTS = [
    ("chain_sa_restart", t_chain_sa_restart),
    ("chain_eintr", t_chain_eintr),
    ("findings_restart_storm", t_findings_restart_storm),
    ("chain_freezer_v1", lambda env: chain_freezer(env, False)),
    ("chain_freezer_v2", lambda env: chain_freezer(env, True)),
]
