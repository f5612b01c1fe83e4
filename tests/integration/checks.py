"""Checks of the tracer's records against the workload's ground truth.

Every kernel timestamp must lie inside the user-space bracket
[t_before, t_after] of the action it timestamps (exact inequalities: the
workload reads CLOCK_MONOTONIC, the clock of bpf_ktime_get_ns, just before
and just after each action). "About equal" is checked the same way: the
bound comes from brackets, never from a fixed tolerance."""

import os

from truth import Fail

EINTR, ENOENT, ENOSYS = 4, 2, 38
ERESTARTSYS = 512
SIGKILL = 9
ADDFD_FLAG_SEND = 2
# How long a woken target may take to run again. 1 ms on real CPUs; the VM
# (emulated, tests/vm/guest-suite.sh) sets more: a vCPU there can leave a
# runnable task waiting for several milliseconds.
WAKE_MARGIN_NS = int(os.environ.get("NW_TEST_WAKE_MARGIN_NS", "1000000"))
# How many notifications, in percent, may be seen only at RECV or exit: the
# supervisor or a signal got there before the target slept or woke anyone.
# Scheduling decides it: 10% on real CPUs, more with emulated vCPUs.
NOTIFY_UNSEEN_PCT = int(os.environ.get("NW_TEST_NOTIFY_UNSEEN_PCT", "10"))

# the lost record's counters; each names a cause, and none may be nonzero
LOST_COUNTERS = ("events", "knotifs_dropped", "signals_dropped", "missed_runs")
# issue #14: checked when the tracer reports it (a missing key counts as 0)
OPTIONAL_LOST_COUNTERS = ("unidentified",)

NOTIF_KEYS = (
    "id", "target_pid", "target_tid", "comm", "syscall", "nr", "supervisor_pid",
    "supervisor_comm", "supervisor_seen_pid", "target_seen_pid", "listener",
    "killable_recv", "recv_flag", "t_notify_ns", "t_recv_ns", "t_killable_ns",
    "killable_cause", "t_reply_ns", "t_return_ns", "queue_ns", "handle_ns",
    "wake_ns", "total_ns", "interruptible_ns", "killable_ns", "outcome", "ret",
    "reply", "signals", "addfd",
)
OUTCOMES = ("replied", "continued", "interrupted_before_recv",
            "interrupted_after_recv", "killed", "supervisor_gone", "pending")
EFFECTS = ("deferred", "interrupted", "fatal", "pending", "ignored", "coalesced",
           "blocked", "after_reply", "raced_reply")


def inside(t, rec, what, problems, lo="t_before", hi="t_after"):
    if t is None:
        problems.append(f"{what} is null, truth bracket [{rec[lo]}, {rec[hi]}]")
        return False
    if not rec[lo] <= t <= rec[hi]:
        problems.append(f"{what}={t} outside the truth bracket [{rec[lo]}, {rec[hi]}] "
                        f"(off by {t - rec[lo] if t < rec[lo] else t - rec[hi]} ns)")
        return False
    return True


def span(a, b):
    return None if a is None or b is None else b - a


class Checker:
    """Checks one tracer output against the truth of one or more runs."""

    def __init__(self, trace, truth, allow_pending=False):
        self.trace = trace
        self.truth = truth
        self.allow_pending = allow_pending
        self.problems = []
        self.recv = truth.recv_by_id()
        self.sends = truth.ops_by_id("send")
        self.addfds = truth.ops_by_id("addfd")
        self.starts = {r["run"]: r for r in truth.ev("start")}
        self.attempts = {}
        for a in truth.ev("syscall"):
            self.attempts.setdefault(a["tid"], []).append(a)
        self.signals = {}
        for s in truth.ev("signal"):
            if s["ret"] == 0:
                self.signals.setdefault(s["target_tid"], []).append(s)
        for k in truth.ev("kill"):
            if k["victim"] == "target" and k["ret"] == 0:
                self.signals.setdefault(("kill", k["pid"]), []).append(dict(k, sig=SIGKILL))
        self.handlers = {}
        for h in truth.ev("handler"):
            self.handlers.setdefault(h["tid"], []).append(h)
        self.killed_pids = truth.killed_target_pids()
        self.notif_of_attempt = {}
        self.unknown_effects = {}
        self.notify_unseen = 0
        self.lost_replies = 0

    def fail_if_problems(self, limit=6):
        if self.problems:
            more = len(self.problems) - limit
            msg = "; ".join(self.problems[:limit])
            raise Fail(msg + (f"; ... and {more} more" if more > 0 else ""))

    # --- one notification -------------------------------------------------

    def find_attempt(self, n):
        t = n["t_notify_ns"]
        if t is None:  # reported below; match by the return to go on checking
            t = n["t_return_ns"]
        cands = [a for a in self.attempts.get(n["target_tid"], [])
                 if t is not None and a["t_before"] <= t <= a["t_after"]]
        if len(cands) > 1:
            self.problems.append(f"notif {n['id']}: t_notify_ns matches {len(cands)} syscall attempts")
        return cands[0] if cands else None

    def check_notif(self, n):
        p = []
        nid = n.get("id")
        missing = [k for k in NOTIF_KEYS if k not in n]
        if missing:
            self.problems.append(f"notif {nid}: missing keys {missing}")
            return
        if n["outcome"] not in OUTCOMES:
            p.append(f"unknown outcome {n['outcome']!r}")
        a = self.find_attempt(n)
        recv = self.recv.get(nid)
        run = (recv or a or {}).get("run")
        start = self.starts.get(run)
        if a is None and n["target_pid"] not in self.killed_pids:
            p.append(f"no syscall attempt of tid {n['target_tid']} brackets t_notify_ns={n['t_notify_ns']}")
        if a is not None:
            key = (a["tid"], a["t_before"])
            if key in self.notif_of_attempt:
                p.append(f"same syscall attempt as notif {self.notif_of_attempt[key]}")
            self.notif_of_attempt[key] = nid
            for f, t in (("target_pid", "pid"), ("target_tid", "tid"),
                         ("target_seen_pid", "ns_tid"), ("nr", "nr")):
                if n[f] != a[t]:
                    p.append(f"{f}={n[f]}, truth {t}={a[t]}")
        if start is not None:
            if n["syscall"] != start["syscall"]:
                p.append(f"syscall={n['syscall']!r}, truth {start['syscall']!r}")
            if start["killable"] and not n["killable_recv"]:
                p.append("killable_recv=false with SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV")
            if not start["killable"] and not start["recv_flag"] and n["killable_recv"]:
                p.append("killable_recv=true without the filter flag or the RECV flag")
            if recv is not None and n["recv_flag"] != bool(recv["flags_in"]):
                p.append(f"recv_flag={n['recv_flag']}, truth RECV flags {recv['flags_in']}")

        t_notify, t_recv = n["t_notify_ns"], n["t_recv_ns"]
        t_reply, t_return = n["t_reply_ns"], n["t_return_ns"]
        if t_notify is None:
            # only RECV showed it (the supervisor took it before the target
            # slept or woke anyone), or only its exit (a signal aborted it
            # before anyone slept or woke on it): allowed, but must stay rare
            seen = n.get("notify_seen_at")
            if seen == "recv" and t_recv is not None:
                self.notify_unseen += 1
            elif seen == "exit" and t_recv is None and recv is None:
                self.notify_unseen += 1
                if n["outcome"] != "interrupted_before_recv" or n["ret"] != -512:
                    p.append(f"seen only at its exit: outcome {n['outcome']!r} ret {n['ret']}")
            else:
                p.append(f"t_notify_ns is null (notify_seen_at={seen!r})")
        if a is not None and t_return is not None:
            inside(t_return, a, "t_return_ns", p)
        if recv is not None:
            inside(t_recv, recv, "t_recv_ns", p)
            if t_notify is not None and t_recv is not None and t_notify > t_recv:
                p.append(f"t_notify_ns={t_notify} > t_recv_ns={t_recv}")
            if n["supervisor_pid"] != recv["sup_pid"]:
                p.append(f"supervisor_pid={n['supervisor_pid']}, truth {recv['sup_pid']}")
            if n["supervisor_seen_pid"] != recv["pid"]:
                p.append(f"supervisor_seen_pid={n['supervisor_seen_pid']}, RECV returned pid {recv['pid']}")
        elif t_recv is not None:
            p.append(f"t_recv_ns={t_recv} but the supervisor never received id {nid}")

        sends = self.sends.get(nid, [])
        addfds = self.addfds.get(nid, [])
        ok_send = [s for s in sends if s["ret"] == 0]
        ok_addfd_send = [x for x in addfds if x["ret"] >= 0 and x["flags"] & ADDFD_FLAG_SEND]
        reply_op = (ok_send or ok_addfd_send or [None])[0]
        if reply_op is not None and a is not None and a["ret"] == -1 and a["errno"] == EINTR:
            # a kernel race, not the tracer's: the signal woke the wait, the
            # SEND then succeeded, and the target still took the interrupted
            # path; the reply is lost and the target saw EINTR
            self.lost_replies += 1
            reply_op = None

        # outcome, ret and reply against what the supervisor and target saw
        expect_ret = None
        if reply_op is not None:
            inside(t_reply, reply_op, "t_reply_ns", p)
            if t_return is not None and t_reply is not None and t_return < t_reply:
                p.append(f"t_return_ns={t_return} < t_reply_ns={t_reply}")
            rep = n["reply"] or {}
            if reply_op in ok_addfd_send:
                want_outcome, kind, expect_ret = "replied", "addfd_send", reply_op["ret"]
            elif reply_op["flags"] & 1:
                want_outcome, kind = "continued", "continue"
                expect_ret = a["ret"] if a is not None else None
            elif reply_op["error"]:
                want_outcome, kind, expect_ret = "replied", "error", reply_op["error"]
                if rep.get("error") not in (reply_op["error"], -reply_op["error"]):
                    p.append(f"reply.error={rep.get('error')}, truth {reply_op['error']}")
            else:
                want_outcome, kind, expect_ret = "replied", "value", reply_op["val"]
                if rep.get("val") != reply_op["val"]:
                    p.append(f"reply.val={rep.get('val')}, truth {reply_op['val']}")
            if rep.get("kind") != kind:
                p.append(f"reply.kind={rep.get('kind')!r}, truth {kind!r}")
            if a is not None and expect_ret is not None:
                user_ret = a["ret"] if a["ret"] != -1 else -a["errno"]
                if user_ret != expect_ret:
                    p.append(f"truth inconsistent: target got {user_ret}, reply {expect_ret}")
        else:
            if t_reply is not None:
                p.append(f"t_reply_ns={t_reply} but no reply of the supervisor succeeded")
            if n["reply"] is not None:
                p.append(f"reply={n['reply']} but no reply of the supervisor succeeded")
            if a is None:
                want_outcome = "killed"
            elif a["errno"] == EINTR:
                want_outcome = ("interrupted_after_recv" if recv is not None
                                else "interrupted_before_recv")
                expect_ret = -ERESTARTSYS
            elif a["errno"] == ENOSYS:
                want_outcome, expect_ret = "supervisor_gone", -ENOSYS
            else:
                want_outcome = f"<truth: attempt ret {a['ret']} errno {a['errno']} without reply>"
        if n["outcome"] != want_outcome and not (self.allow_pending and n["outcome"] == "pending"):
            p.append(f"outcome={n['outcome']!r}, truth says {want_outcome!r}")
        # the fentry and kprobe backends end at the bracket: a CONTINUEd
        # syscall runs after it, so they report its return as null
        ret_unknown = n["outcome"] == "continued" and n["ret"] is None and \
            n.get("notify_seen_at") in ("entry", "signal")
        if expect_ret is not None and n["ret"] != expect_ret and not ret_unknown:
            p.append(f"ret={n['ret']}, expected {expect_ret}")
        if a is not None and t_return is None:
            p.append("t_return_ns is null but the syscall returned")

        # durations are differences of the timestamps
        for f, want in (("queue_ns", span(t_notify, t_recv)),
                        ("handle_ns", span(t_recv, t_reply)),
                        ("wake_ns", span(t_reply, t_return)),
                        ("total_ns", span(t_notify, t_return))):
            if n[f] != want:
                p.append(f"{f}={n[f]}, timestamps give {want}")
        t_k = n["t_killable_ns"]
        if t_return is not None:
            want_i = span(t_notify, t_k if t_k is not None else t_return)
            if n["interruptible_ns"] != want_i:
                p.append(f"interruptible_ns={n['interruptible_ns']}, timestamps give {want_i}")
            want_k = span(t_k, t_return)
            if n["killable_ns"] not in ((want_k,) if t_k is not None else (None, 0)):
                p.append(f"killable_ns={n['killable_ns']}, timestamps give {want_k}")

        self.check_signals(n, a, recv, start, reply_op, p)
        self.check_addfd(n, addfds, p)
        self.check_killable(n, recv, start, reply_op, p)
        for msg in p:
            self.problems.append(f"notif {nid} (tid {n.get('target_tid')}): {msg}")

    def check_signals(self, n, a, recv, start, reply_op, p):
        tid, t_recv, t_return = n["target_tid"], n["t_recv_ns"], n["t_return_ns"]
        truth_sigs = self.signals.get(tid, []) + self.signals.get(("kill", n["target_pid"]), [])
        used = set()
        killable = start is not None and (start["killable"] or start["recv_flag"])
        interrupted = n["outcome"] in ("interrupted_before_recv", "interrupted_after_recv")
        for s in n["signals"]:
            if s.get("effect") not in EFFECTS:
                # reported once per output (check_all); judged as "ignored" here
                self.unknown_effects[s.get("effect")] = self.unknown_effects.get(s.get("effect"), 0) + 1
                s = dict(s, effect="ignored")
            if s["t_sent_ns"] is None:
                # pending before the wait began: the tgkill started before the
                # tracer first saw the notification, and the wait was aborted,
                # or (RECV before the first sleep) held by the killable wait
                held = (s["effect"] == "deferred" and killable
                        and n["outcome"] in ("replied", "continued"))
                if not s.get("sent_before_wait") or not (
                        s["effect"] == "interrupted" and interrupted or held):
                    p.append(f"signal {s['sig']} without t_sent_ns: sent_before_wait="
                             f"{s.get('sent_before_wait')} effect={s['effect']!r} "
                             f"outcome={n['outcome']!r}")
                # "before the wait" = before the tracer could see the wait:
                # the tgkill began before the syscall returned (a held one:
                # before the wait's start, else the tracer lost its record),
                # sender unknown
                before = n["t_notify_ns"] if held and n["t_notify_ns"] is not None else t_return
                match = [i for i, r in enumerate(truth_sigs) if i not in used
                         and r["sig"] == s["sig"] and r["t_before"] <= before]
                if not match:
                    p.append(f"signal {s['sig']} reported as sent before the wait: no tgkill/kill "
                             f"of the truth began before {before}")
                if s.get("sender_pid") is not None:
                    p.append(f"signal {s['sig']} sent before the wait has a sender_pid")
                elif match:
                    used.add(match[-1])
                continue
            match = [i for i, r in enumerate(truth_sigs) if i not in used and r["sig"] == s["sig"]
                     and r["t_before"] <= s["t_sent_ns"] <= r["t_after"]]
            if not match:
                p.append(f"signal {s['sig']} t_sent_ns={s['t_sent_ns']}: no tgkill/kill of the "
                         f"truth brackets it")
                continue
            used.add(match[0])
            r = truth_sigs[match[0]]
            if s.get("seen_after_return") and (t_return is None or r["t_before"] > t_return):
                p.append(f"signal {s['sig']} seen_after_return: its tgkill/kill began at "
                         f"{r['t_before']}, after the return at {t_return}")
            if s["effect"] == "coalesced" and s.get("t_delivered_ns") is not None:
                p.append(f"coalesced signal {s['sig']} has t_delivered_ns")
            if s["effect"] == "blocked":
                p.append(f"signal {s['sig']} reported blocked: the workload never masks signals")
            if s["effect"] == "after_reply" and (
                    reply_op is None or r["t_after"] < reply_op["t_before"]
                    or n["t_reply_ns"] is None or s["t_sent_ns"] < n["t_reply_ns"]):
                p.append(f"signal {s['sig']} reported after_reply but sent in "
                         f"[{r['t_before']}, {r['t_after']}], reply {reply_op}")
            if s["effect"] == "raced_reply" and (
                    killable and t_recv is not None and s["t_sent_ns"] >= t_recv
                    or n["outcome"] not in ("replied", "continued")):
                p.append(f"signal {s['sig']} reported raced_reply: a killable wait after RECV or "
                         f"outcome {n['outcome']!r}")
            if s.get("sender_pid") != r["sender_pid"]:
                p.append(f"signal {s['sig']}: sender_pid={s.get('sender_pid')}, truth {r['sender_pid']}")
            t_del = s.get("t_delivered_ns")
            if t_del is not None:
                if t_del < s["t_sent_ns"]:
                    p.append(f"signal {s['sig']}: t_delivered_ns < t_sent_ns")
                if s.get("pending_ns") != t_del - s["t_sent_ns"]:
                    p.append(f"signal {s['sig']}: pending_ns={s.get('pending_ns')}, "
                             f"timestamps give {t_del - s['t_sent_ns']}")
                if s["sig"] != SIGKILL:
                    hs = [h for h in self.handlers.get(tid, [])
                          if h["sig"] == s["sig"] and h["t"] >= t_del]
                    if not hs:
                        p.append(f"signal {s['sig']}: t_delivered_ns={t_del} after every run "
                                 f"of its handler")
            if s["sig"] == SIGKILL:
                if s["effect"] != "fatal":
                    p.append(f"SIGKILL effect={s['effect']!r}, expected 'fatal'")
                continue
            # A killable wait that got its reply: every non-fatal signal sent
            # before the reply was held until the syscall returned (one sent
            # before RECV may still have lost the race to it and not interrupt).
            replied = reply_op is not None and r["t_after"] < reply_op["t_before"]
            if killable and replied:
                if s["effect"] not in ("deferred", "ignored", "coalesced"):
                    p.append(f"signal {s['sig']} sent to a killable wait before its reply: "
                             f"effect={s['effect']!r}, expected 'deferred'")
                if s["effect"] == "deferred":
                    if t_del is None:
                        p.append(f"deferred signal {s['sig']}: t_delivered_ns is null")
                    else:
                        if t_return is not None and t_del < t_return:
                            p.append(f"deferred signal {s['sig']}: delivered at {t_del}, "
                                     f"before the syscall returned at {t_return}")
                        # pending = delivered - sent, bounded by the brackets:
                        # reply entry .. handler run, minus the tgkill bracket
                        lo = reply_op["t_before"] - r["t_after"]
                        hi = (a["t_after"] if a else t_del) - r["t_before"]
                        if not lo <= s["pending_ns"] <= hi:
                            p.append(f"deferred signal {s['sig']}: pending_ns={s['pending_ns']} "
                                     f"outside [{lo}, {hi}] (reply - sent from the brackets)")
            if n["outcome"] in ("replied", "continued") and s["effect"] in ("interrupted", "fatal"):
                p.append(f"signal {s['sig']}: effect {s['effect']!r} but the wait got its reply")
        if interrupted:
            culprits = [s for s in n["signals"] if s.get("effect") == "interrupted"]
            if len(culprits) != 1:
                p.append(f"outcome {n['outcome']} with {len(culprits)} signals of effect "
                         f"'interrupted' (expected 1)")
        if n["outcome"] == "killed" and not any(s["sig"] == SIGKILL for s in n["signals"]):
            p.append("outcome 'killed' without a SIGKILL in signals")
        # every signal the truth sent strictly inside the wait (notify .. reply
        # or return) must be there; those after the reply may be
        t_notify = n["t_notify_ns"]
        end = n["t_reply_ns"] if n["t_reply_ns"] is not None else t_return
        if end is None:
            end = float("inf")
        for i, r in enumerate(truth_sigs):
            if i in used or t_notify is None:
                continue
            if r["t_before"] >= t_notify and r["t_after"] <= end:
                p.append(f"signal {r['sig']} sent by {r['sender_pid']} in "
                         f"[{r['t_before']}, {r['t_after']}] during the wait is missing")

    def check_addfd(self, n, addfds, p):
        want = [x for x in addfds if not (x["ret"] < 0 and x["errno"] == ENOENT)]
        got = n["addfd"]
        if len(got) != len(want):
            p.append(f"{len(got)} addfd entries, truth {len(want)}")
            return
        for g, x in zip(sorted(got, key=lambda g: g["t_ns"]), want):
            inside(g["t_ns"], x, "addfd t_ns", p)
            if g.get("flags") != x["flags"]:
                p.append(f"addfd flags={g.get('flags')}, truth {x['flags']}")
            if x["ret"] >= 0:
                if g.get("fd") != x["ret"] or g.get("error") is not None:
                    p.append(f"addfd fd={g.get('fd')} error={g.get('error')}, truth fd {x['ret']}")
            else:
                if g.get("fd") is not None or g.get("error") != x["errno"]:
                    p.append(f"addfd fd={g.get('fd')} error={g.get('error')}, truth errno {x['errno']}")
                if x["errno"] == 24 and g.get("error_name") != "EMFILE":
                    p.append(f"addfd error_name={g.get('error_name')!r}, expected 'EMFILE'")

    def check_killable(self, n, recv, start, reply_op, p):
        t_k, cause = n["t_killable_ns"], n["killable_cause"]
        if (t_k is None) != (cause is None):
            p.append(f"t_killable_ns={t_k} with killable_cause={cause!r}")
        if start is None:
            return
        if not start["killable"] and not start["recv_flag"]:
            if t_k is not None:
                p.append(f"t_killable_ns={t_k} without the filter flag or the RECV flag")
            return
        if recv is None:
            if t_k is not None:
                p.append(f"t_killable_ns={t_k} but never received")
            return
        # the kernel marks it received inside RECV: the target may re-sleep
        # killable before the RECV returns (t_recv_ns), not before RECV began
        if t_k is not None and t_k < recv["t_before"]:
            p.append(f"t_killable_ns={t_k} before the RECV began at {recv['t_before']}")
        if t_k is not None and n["t_return_ns"] is not None and t_k > n["t_return_ns"]:
            p.append(f"t_killable_ns={t_k} after t_return_ns")
        if recv["flags_in"]:
            if cause != "recv":
                p.append(f"RECV flag: killable_cause={cause!r}, expected 'recv'")
            if t_k is not None and not recv["t_before"] <= t_k <= (n["t_return_ns"] or t_k):
                p.append(f"RECV flag: t_killable_ns={t_k} not from RECV on")
            return
        # upstream: lazily, at the first signal or addfd that wakes the wait
        # after RECV (a signal sent just before RECV may be handled after it)
        # a signal wakes the target before the sender's signal_generate
        # fires: its time here is the start of the sender's kill bracket
        tid = n["target_tid"]
        truth_sigs = self.signals.get(tid, []) + self.signals.get(("kill", n["target_pid"]), [])

        def woke(s):
            if s["t_sent_ns"] is None:
                # pending before the wait: the latest send of it before then
                br = [r["t_before"] for r in truth_sigs if r["sig"] == s["sig"]
                      and r["t_before"] <= (n["t_notify_ns"] or n["t_return_ns"] or 0)]
                return max(br) if br else None
            br = [r["t_before"] for r in truth_sigs if r["sig"] == s["sig"]
                  and r["t_before"] <= s["t_sent_ns"] <= r["t_after"]]
            return min(br) if br else s["t_sent_ns"]
        events = [(woke(s), "signal") for s in n["signals"] if s["sig"] != SIGKILL]
        events += [(x["t_ns"], "addfd") for x in n["addfd"]]
        t_recv = n["t_recv_ns"]
        # a wake-up well before the reply (WAKE_MARGIN_NS: time for the woken
        # target to run and re-sleep) must have made the wait killable; one
        # closer to it may find the reply there and never sleep killable
        certain = [e for e in events if t_recv is not None and e[0] is not None
                   and e[0] >= t_recv
                   and (reply_op is None or e[0] < reply_op["t_before"] - WAKE_MARGIN_NS)]
        if certain and t_k is None and n["outcome"] != "killed":
            p.append(f"no t_killable_ns although a {certain[0][1]} came at {certain[0][0]} "
                     f"after RECV, before the reply")
        if t_k is not None:
            causes = [e for e in events if e[0] is not None and e[0] <= t_k]
            if not causes:
                p.append(f"t_killable_ns={t_k} (cause {cause!r}) before any signal or addfd")
            elif cause not in {e[1] for e in causes}:
                p.append(f"killable_cause={cause!r}, but only {sorted({e[1] for e in causes})} "
                         f"came before t_killable_ns")

    # --- the whole output -------------------------------------------------

    def check_all(self, expect_notifs=None):
        notifs = self.trace.notifs
        ids = [n.get("id") for n in notifs]
        if len(set(ids)) != len(ids):
            self.problems.append("duplicate notification ids in the tracer output")
        for n in notifs:
            self.check_notif(n)
        # nothing lost: every attempt and every received id is reported
        n_attempts = sum(len(v) for v in self.attempts.values())
        unmatched = [a for v in self.attempts.values() for a in v
                     if (a["tid"], a["t_before"]) not in self.notif_of_attempt]
        # The tracepoint backend cannot see a notification that a signal
        # pending beforehand aborts at once, while no supervisor waits: the
        # target neither wakes anyone nor sleeps, and RECV never has it.
        # Tolerated when rare (1%); the fentry backend's bracket sees them.
        unseen = [a for a in unmatched if a["errno"] == EINTR
                  and not any(r.get("pid") == a["tid"] and a["t_before"] <= r["t_after"]
                              and r["t_before"] <= a["t_after"] for r in self.recv.values())]
        if len(unseen) <= max(1, n_attempts // 100):
            unmatched = [a for a in unmatched if a not in unseen]
        if unmatched:
            a = unmatched[0]
            self.problems.append(f"{len(unmatched)} of {n_attempts} syscall attempts have no notif "
                                 f"record (first: tid {a['tid']} iter {a['iter']} attempt "
                                 f"{a['attempt']} errno {a['errno']})")
        missing_ids = set(self.recv) - set(ids)
        if missing_ids:
            self.problems.append(f"{len(missing_ids)} received ids missing, e.g. {min(missing_ids)}")
        if expect_notifs is not None and len(notifs) != expect_notifs:
            self.problems.append(f"{len(notifs)} notif records, expected {expect_notifs}")
        # How often the supervisor takes a notification before the target
        # sleeps or wakes anyone is scheduling, not the tracer: on a loaded
        # 2-core machine two busy supervisors reached 1.5%; one supervisor of
        # three targets in the emulated guest 0-1 of 60 when run alone (8
        # runs), 4 and once 10 of 60 inside the full guest suite; on the
        # host, in a fresh-clone CI run, 4 of 60 (once, 2026-12-04).
        # NOTIFY_UNSEEN_PCT (10%, 20% in the guest) still fails a tracer
        # that stops seeing the target's side.
        if self.notify_unseen > max(1, len(notifs) * NOTIFY_UNSEEN_PCT // 100):
            self.problems.append(f"{self.notify_unseen} of {len(notifs)} notifications seen only at "
                                 f"RECV or exit (t_notify_ns null): more than {NOTIFY_UNSEEN_PCT}%")
        if self.unknown_effects:
            self.problems.insert(0, f"signal effects outside the contract's "
                                 f"{'|'.join(EFFECTS)}: {self.unknown_effects}")
        self.check_reply_failed()
        self.check_lost()
        self.fail_if_problems()

    def check_reply_failed(self):
        failed = [r for r in self.truth.ev("send") if r["ret"] != 0] + \
                 [dict(r, ev="addfd") for r in self.truth.ev("addfd") if r["ret"] < 0]
        got = list(self.trace.of("reply_failed"))
        for r in failed:
            op = "send" if r["ev"] == "send" else "addfd"
            m = [g for g in got if g.get("id") == r["id"] and g.get("op") == op
                 and g.get("errno") == r["errno"]]
            if not m:
                if r["errno"] == ENOENT:
                    self.problems.append(f"no reply_failed record for the {op} of id {r['id']} "
                                         f"that failed with ENOENT")
                continue
            g = m[0]
            got.remove(g)
            inside(g.get("t_ns"), r, f"reply_failed {op} t_ns", self.problems)
            if g.get("supervisor_pid") != r["sup_pid"]:
                self.problems.append(f"reply_failed supervisor_pid={g.get('supervisor_pid')}, "
                                     f"truth {r['sup_pid']}")
            if r["errno"] == ENOENT and g.get("error") != "ENOENT":
                self.problems.append(f"reply_failed error={g.get('error')!r}, expected 'ENOENT'")
        for g in got:
            self.problems.append(f"reply_failed record without a failed reply in the truth: {g}")

    def check_lost(self):
        lost = self.trace.of("lost")
        if len(lost) != 1:
            self.problems.append(f"{len(lost)} 'lost' records, expected 1")
        else:
            # nothing may be lost in these small runs; each counter names a cause
            for k in LOST_COUNTERS:
                if lost[0].get(k) != 0:
                    self.problems.append(f"lost record: {k}={lost[0].get(k)}")
            # not a loss, but a suspect for what went wrong
            if self.problems and lost[0].get("late_facts"):
                self.problems.append(f"late_facts={lost[0]['late_facts']}: facts were applied "
                                     f"past the reorder window")
            for k in OPTIONAL_LOST_COUNTERS:
                if lost[0].get(k, 0) != 0:
                    self.problems.append(f"lost record: {k}={lost[0].get(k)}")
        if len(self.trace.of("summary")) != 1:
            self.problems.append(f"{len(self.trace.of('summary'))} 'summary' records, expected 1")
