"""Prometheus/OpenMetrics export (--prom-listen, --prom-file): scraped with
curl while nw-workload runs, validated with promtool and a strict
OpenMetrics parser, every count checked against the workload's ground
truth and every duration against its CLOCK_MONOTONIC brackets."""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

from checks import Checker
from scenarios import HEADER, check_header, expect
from truth import Fail, Trace, Truth

try:
    from prometheus_client.parser import text_string_to_metric_families as parse_text
    from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_om
except ImportError:  # Debian's python3-prometheus-client under another python3
    sys.path.append("/usr/lib/python3/dist-packages")
    from prometheus_client.parser import text_string_to_metric_families as parse_text
    from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_om

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DASHBOARD = os.path.join(REPO, "dashboards", "notifwait.json")
TEXT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
OM_TYPE = "application/openmetrics-text; version=1.0.0; charset=utf-8"
# What Prometheus 2.x sends when it scrapes
PROM_ACCEPT = ("application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
               "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1")
FAMILIES = (
    "notifwait_notifications", "notifwait_queue_seconds", "notifwait_handle_seconds",
    "notifwait_wake_seconds", "notifwait_total_seconds", "notifwait_signal_pending_seconds",
    "notifwait_signals", "notifwait_addfd", "notifwait_reply_failed", "notifwait_lost_events",
    "notifwait_dropped", "notifwait_bound_violations", "notifwait_build_info",
    "notifwait_backend_info",
)
COUNTERS = ("notifwait_notifications", "notifwait_signals", "notifwait_addfd",
            "notifwait_reply_failed", "notifwait_lost_events", "notifwait_dropped",
            "notifwait_bound_violations")
END_LINE = re.compile(r"^notifwait: (\d+) notifications; lost records")


# --- helpers -------------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def curl(url, accept=None, head=False, method=None, timeout=5):
    """(status, headers, body) of one request made by curl."""
    cmd = ["curl", "-sS", "-i", "--max-time", str(timeout)]
    if accept:
        cmd += ["-H", f"Accept: {accept}"]
    if head:
        cmd.append("-I")
    if method:
        cmd += ["-X", method]
    p = subprocess.run(cmd + [url], capture_output=True, timeout=timeout + 5)
    if p.returncode != 0:
        raise Fail(f"curl {url} failed ({p.returncode}): {p.stderr.decode()[:200]!r}")
    raw = p.stdout.decode("utf-8")
    head_part, _, body = raw.partition("\r\n\r\n")
    lines = head_part.split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    return status, headers, body


def listening(port):
    """Local addresses listening on TCP @port, from /proc/net/tcp{,6}."""
    out = set()
    for path in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(path) as f:
            for line in f.readlines()[1:]:
                local, state = line.split()[1], line.split()[3]
                addr, p = local.split(":")
                if state == "0A" and int(p, 16) == port:
                    raw = bytes.fromhex(addr)
                    if len(raw) == 4:
                        out.add(socket.inet_ntop(socket.AF_INET, raw[::-1]))
                    else:
                        words = b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))
                        out.add(socket.inet_ntop(socket.AF_INET6, words))
    return out


def samples(text, om=False):
    """{(sample name, ((label, value), ...)): value}; the parser raises on bad input."""
    out = {}
    for fam in (parse_om if om else parse_text)(text):
        for s in fam.samples:
            key = (s.name, tuple(sorted(s.labels.items())))
            if key in out:
                raise Fail(f"sample {key} twice")
            out[key] = s.value
    return out


def total(smp, name, **match):
    return sum(v for (n, labels), v in smp.items()
               if n == name and all(dict(labels).get(k) == w for k, w in match.items()))


def by_label(smp, name, label):
    out = {}
    for (n, labels), v in smp.items():
        if n == name:
            key = dict(labels).get(label)
            out[key] = out.get(key, 0) + v
    return {k: v for k, v in out.items() if v}


def promtool_text(text, env, tag):
    p = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True,
                       text=True, timeout=30)
    if p.returncode != 0 or p.stdout.strip() or p.stderr.strip():
        path = env.path(f"{tag}.prom")
        with open(path, "w") as f:
            f.write(text)
        raise Fail(f"promtool check metrics ({tag}, in {path}) exit {p.returncode}: "
                   f"{(p.stdout + p.stderr)[:300]!r}")


def promtool_om(text, env, tag):
    """Prometheus' own OpenMetrics parser (promtool's backfill; it wants timestamps)."""
    ts = int(time.time())
    stamped = "".join(line if line.startswith("#") else f"{line.rstrip()} {ts}\n"
                      for line in text.splitlines(keepends=True))
    path, blocks = env.path(f"{tag}.om"), env.path(f"{tag}.blocks")
    with open(path, "w") as f:
        f.write(stamped)
    p = subprocess.run(["promtool", "tsdb", "create-blocks-from", "openmetrics", path, blocks],
                       capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        raise Fail(f"promtool's OpenMetrics parser refused {path}: {(p.stdout + p.stderr)[-300:]!r}")


def check_families(text, om):
    for fam in FAMILIES:
        name = fam + ("_total" if fam in COUNTERS and not om else "")
        for kind in ("HELP", "TYPE"):
            expect(re.search(rf"^# {kind} {name} ", text, re.M),
                   f"no '# {kind} {name}' line ({'OpenMetrics' if om else 'text'})")


def check_histograms(smp):
    """Cumulative buckets, +Inf == _count, for every histogram series."""
    series = {}
    for (n, labels), v in smp.items():
        if n.endswith("_bucket"):
            d = dict(labels)
            le = d.pop("le")
            series.setdefault((n[:-7], tuple(sorted(d.items()))), []).append(
                (float(le), v))
    expect(series, "no histogram series")
    for (base, labels), buckets in series.items():
        buckets.sort()
        expect(len(buckets) == 23, f"{base}{labels}: {len(buckets)} buckets, expected 23")
        expect(buckets[0][0] == 1e-6 and buckets[-2][0] == 10 and buckets[-1][0] == float("inf"),
               f"{base}: buckets span {buckets[0][0]} .. {buckets[-2][0]}")
        counts = [c for _, c in buckets]
        expect(counts == sorted(counts), f"{base}{labels}: buckets not cumulative {counts}")
        expect(counts[-1] == smp[(base + "_count", labels)],
               f"{base}{labels}: +Inf {counts[-1]} != _count {smp[(base + '_count', labels)]}")
    return series


class Tracer:
    """notifwait [targs] -j -o OUT -- nw-workload WARGS --truth TRUTH, with its
    stderr read by a thread (header, end-of-report line)."""

    def __init__(self, env, targs, wargs, tag="run"):
        self.out, self.truth_path = env.path(f"{tag}.notifwait.jsonl"), env.path(f"{tag}.truth.jsonl")
        for f in (self.out, self.truth_path):
            if os.path.exists(f):
                os.unlink(f)
        cmd = [env.tracer, "-j", "-o", self.out, *targs,
               "--", env.workload, *wargs, "--truth", self.truth_path]
        self.p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
        self.lines = []
        self.started, self.reported = threading.Event(), threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stderr:
            self.lines.append(line)
            if line.startswith(HEADER):
                self.started.set()
            if END_LINE.match(line):
                self.reported.set()
        self.started.set()
        self.reported.set()

    def stderr(self):
        return "".join(self.lines)

    def wait_started(self, timeout=60):
        self.started.wait(timeout)
        check_header(self.stderr())

    def wait(self, timeout=120):
        try:
            rc = self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise Fail(f"tracer still running after {timeout}s")
        time.sleep(0.05)  # the reader thread's last lines
        return rc

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()

    def results(self, rc):
        truth = Truth(self.truth_path)
        want = max(r["exit_code"] for r in truth.ev("summary"))
        expect(rc == want == 0, f"tracer exited {rc}, workload {want}: {self.stderr()[-300:]!r}")
        trace = Trace(self.out)
        Checker(trace, truth).check_all()  # the JSON alongside is still right
        return trace, truth


def prom_file_run(env, path, wargs, **kw):
    """notifwait --prom-file PATH -- nw-workload WARGS to its end; the samples
    of the file it left."""
    tr = Tracer(env, ["--prom-file", path], wargs, **kw)
    try:
        rc = tr.wait(60)
    finally:
        tr.kill()
    tr.results(rc)
    with open(path) as f:
        return samples(f.read())


def truth_sum(truth, key):
    return sum(r[key] for r in truth.ev("summary"))


def check_against_truth(smp, trace, truth):
    """Counts of the exposition == the workload's own counts == the JSON."""
    notifs = trace.notifs
    n = total(smp, "notifwait_notifications_total")
    expect(n == len(notifs) == len(truth.ev("syscall")),
           f"notifications_total {n}, JSON {len(notifs)}, truth {len(truth.ev('syscall'))} attempts")
    outcomes = by_label(smp, "notifwait_notifications_total", "outcome")
    json_outcomes = {}
    for r in notifs:
        json_outcomes[r["outcome"]] = json_outcomes.get(r["outcome"], 0) + 1
    expect(outcomes == json_outcomes, f"outcomes {outcomes}, JSON {json_outcomes}")
    replied = outcomes.get("replied", 0)
    expect(replied == truth_sum(truth, "syscalls_ok"),
           f"replied {replied}, truth syscalls_ok {truth_sum(truth, 'syscalls_ok')}")
    interrupted = outcomes.get("interrupted_before_recv", 0) + outcomes.get("interrupted_after_recv", 0)
    expect(interrupted == truth_sum(truth, "syscalls_eintr"),
           f"interrupted {interrupted}, truth syscalls_eintr {truth_sum(truth, 'syscalls_eintr')}")
    after = outcomes.get("interrupted_after_recv", 0)
    expect(after == truth_sum(truth, "recvs_ok") - replied,
           f"interrupted_after_recv {after}, truth recvs_ok - replied "
           f"{truth_sum(truth, 'recvs_ok') - replied}")
    # per supervisor and syscall, as the JSON says
    for r in {(x["supervisor_comm"], x["syscall"]) for x in notifs if x["supervisor_pid"]}:
        want = sum(1 for x in notifs if (x["supervisor_comm"], x["syscall"]) == r)
        got = total(smp, "notifwait_notifications_total", supervisor=r[0], syscall=r[1])
        expect(got == want, f"notifications_total{{supervisor={r[0]},syscall={r[1]}}} {got}, JSON {want}")
    # addfd by result
    addfd = by_label(smp, "notifwait_addfd_total", "result")
    expect(addfd.get("ok", 0) == truth_sum(truth, "addfds_ok"),
           f"addfd ok {addfd.get('ok', 0)}, truth addfds_ok {truth_sum(truth, 'addfds_ok')}")
    failed = sum(v for k, v in addfd.items() if k != "ok")
    want_failed = truth_sum(truth, "addfds") - truth_sum(truth, "addfds_ok")
    expect(failed == want_failed, f"addfd failed {failed}, truth {want_failed}")
    # failed replies: the late SENDs and ADDFDs of interrupted notifications
    rf = by_label(smp, "notifwait_reply_failed_total", "error")
    want_rf = truth_sum(truth, "sends_enoent") + truth_sum(truth, "addfds_enoent")
    expect(rf.get("ENOENT", 0) == want_rf == len(trace.of("reply_failed")),
           f"reply_failed ENOENT {rf}, truth {want_rf}, JSON {len(trace.of('reply_failed'))}")
    # signals by effect, as the JSON (which the Checker held against the truth)
    effects = by_label(smp, "notifwait_signals_total", "effect")
    json_effects = {}
    for r in notifs:
        for s in r["signals"]:
            json_effects[s["effect"]] = json_effects.get(s["effect"], 0) + 1
    expect(effects == json_effects, f"signals by effect {effects}, JSON {json_effects}")
    # histogram counts and sums, exact to the ns against the JSON's spans
    for metric, field in (("queue", "queue_ns"), ("handle", "handle_ns"), ("wake", "wake_ns"),
                          ("total", "total_ns")):
        spans = [r[field] for r in notifs if r[field] is not None]
        count = total(smp, f"notifwait_{metric}_seconds_count")
        s = total(smp, f"notifwait_{metric}_seconds_sum")
        expect(count == len(spans), f"{metric}_seconds_count {count}, JSON {len(spans)}")
        expect(abs(s - sum(spans) / 1e9) < 1e-6 * max(1, len(spans)) ** 0.5 + 1e-9,
               f"{metric}_seconds_sum {s}, JSON {sum(spans) / 1e9}")
    pend = [s["pending_ns"] for r in notifs for s in r["signals"]
            if s["effect"] == "deferred" and s["pending_ns"] is not None]
    got = total(smp, "notifwait_signal_pending_seconds_count", effect="deferred")
    expect(got == len(pend), f"signal_pending_seconds_count{{deferred}} {got}, JSON {len(pend)}")
    lost = [r for r in trace.of("lost")]
    expect(lost and total(smp, "notifwait_lost_events_total") == lost[0]["events"],
           f"lost_events_total {total(smp, 'notifwait_lost_events_total')}, JSON {lost}")
    for what in ("unidentified", "switch_gaps"):
        got = total(smp, "notifwait_dropped_total", what=what)
        expect(lost and got == lost[0].get(what, 0),
               f"dropped_total{{what={what}}} {got}, JSON {lost}")
    backend = trace.of("summary")[0]["backend"] if trace.of("summary") else None
    expect(total(smp, "notifwait_backend_info", backend=backend) == 1,
           f"no notifwait_backend_info{{backend={backend!r}}} 1")
    for (name, labels) in smp:
        for k, _ in labels:
            expect(k not in ("pid", "tid", "id", "target_pid", "supervisor_pid"),
                   f"high-cardinality label {k} on {name}")


# --- tests -----------------------------------------------------------------------

def t_prom_http_live_and_final(env):
    """--prom-listen while the demo runs: live scrapes never go backwards and
    see the run in progress; the last scrape (in --prom-linger) equals the
    ground truth; Ctrl-C ends the linger."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/metrics"
    tr = Tracer(env, ["--prom-listen", f"127.0.0.1:{port}", "--prom-linger", "20"], ["--demo"])
    scrapes = []
    try:
        tr.wait_started()
        while not tr.reported.is_set():
            status, headers, body = curl(url)
            expect(status == 200 and headers.get("content-type") == TEXT_TYPE,
                   f"live scrape: {status} {headers.get('content-type')!r}")
            if not tr.reported.is_set():
                scrapes.append(samples(body))
            time.sleep(0.05)
        expect(tr.p.poll() is None, "tracer gone before the final scrape despite --prom-linger")
        status, headers, final_text = curl(url)
        expect(status == 200, f"final scrape: {status}")
        status, headers, final_om = curl(url, accept=PROM_ACCEPT)
        expect(status == 200 and headers.get("content-type") == OM_TYPE,
               f"OpenMetrics scrape: {status} {headers.get('content-type')!r}")
        t0 = time.monotonic()
        tr.p.send_signal(signal.SIGINT)
        rc = tr.wait(10)
        expect(time.monotonic() - t0 < 5, "Ctrl-C did not end --prom-linger")
    finally:
        tr.kill()
    trace, truth = tr.results(rc)
    final = samples(final_text)
    n_final = total(final, "notifwait_notifications_total")
    live = [total(s, "notifwait_notifications_total") for s in scrapes]
    expect(len(scrapes) >= 5, f"only {len(scrapes)} scrapes during the run")
    expect(any(0 < n < n_final for n in live),
           f"no live scrape saw the run in progress: {live[:20]} ... final {n_final}")
    for a, b in zip(scrapes + [final], scrapes[1:] + [final]):
        for key, v in a.items():
            if key[0].endswith(("_total", "_count", "_bucket")):
                expect(b.get(key, 0) >= v, f"{key} went from {v} to {b.get(key)}")
    check_families(final_text, om=False)
    check_histograms(final)
    check_against_truth(final, trace, truth)
    version = subprocess.run([env.tracer, "-V"], capture_output=True, text=True).stdout.split()[-1]
    expect(total(final, "notifwait_build_info", version=version) == 1,
           f"no notifwait_build_info{{version={version!r}}} 1")
    promtool_text(final_text, env, "final")
    om = samples(final_om, om=True)
    check_families(final_om, om=True)
    promtool_om(final_om, env, "final")
    expect(total(om, "notifwait_notifications_total") == n_final,
           "OpenMetrics and text scrapes disagree")


def bracket_bucket_checks(name, spans, smp, match):
    """Each span lies in [lo, hi] (truth brackets): every cumulative bucket
    count must lie between #(hi <= le) and #(lo <= le), the sum between the
    sums of the brackets."""
    buckets = sorted((float(dict(labels)["le"]), v) for (n, labels), v in smp.items()
                     if n == name + "_bucket" and all(dict(labels).get(k) == w
                                                      for k, w in match.items()))
    expect(len(buckets) == 23, f"{name}{match}: {len(buckets)} buckets")
    for le, cum in buckets:
        lo_n = sum(1 for lo, hi in spans if hi <= le * 1e9)
        hi_n = sum(1 for lo, hi in spans if lo <= le * 1e9)
        expect(lo_n <= cum <= hi_n, f"{name}{match} le={le}: {cum}, brackets allow {lo_n}..{hi_n}")
    s = total(smp, name + "_sum", **match) * 1e9
    lo_s, hi_s = sum(lo for lo, _ in spans), sum(hi for _, hi in spans)
    expect(lo_s - 1 <= s <= hi_s + 1, f"{name}_sum {s:.0f} ns outside the truth brackets "
           f"[{lo_s}, {hi_s}]")
    expect(total(smp, name + "_count", **match) == len(spans), f"{name}_count")


def t_prom_file_durations_in_brackets(env):
    """--prom-file written at exit: deferred signals' pending time and the
    handle time, bucket by bucket, inside the workload's brackets."""
    path = env.path("notifwait.prom")
    tr = Tracer(env, ["--prom-file", path],
                ["--killable", "--signal", "SIGUSR1", "--signal-after-recv-us", "5000",
                 "--handle-us", "40000", "--iterations", "4"])
    try:
        rc = tr.wait(60)
    finally:
        tr.kill()
    trace, truth = tr.results(rc)
    with open(path) as f:
        text = f.read()
    promtool_text(text, env, "file")
    smp = samples(text)
    check_histograms(smp)
    check_against_truth(smp, trace, truth)
    expect(total(smp, "notifwait_signals_total", effect="deferred") == 4,
           f"deferred signals {by_label(smp, 'notifwait_signals_total', 'effect')}, expected 4")
    sends = {r["id"]: r for r in truth.ev("send") if r["ret"] == 0}
    recvs = truth.recv_by_id()
    handlers = sorted(truth.ev("handler"), key=lambda h: h["t"])
    pending, handle = [], []
    for sig in sorted(truth.ev("signal"), key=lambda s: s["t_before"]):
        send = sends[sig["id"]]
        h = next(h for h in handlers if h["tid"] == sig["target_tid"] and h["t"] > sig["t_after"])
        pending.append((send["t_before"] - sig["t_after"], h["t"] - sig["t_before"]))
    for nid, send in sends.items():
        r = recvs[nid]
        handle.append((send["t_before"] - r["t_after"], send["t_after"] - r["t_before"]))
    expect(len(pending) == 4 and len(handle) == 4, "truth: not 4 signals and 4 replies")
    bracket_bucket_checks("notifwait_signal_pending_seconds", pending, smp, {"effect": "deferred"})
    bracket_bucket_checks("notifwait_handle_seconds", handle, smp, {})
    expect(os.stat(path).st_mode & 0o777 == 0o644, "textfile not 0644")


def t_prom_file_atomic(env):
    """-i 50ms --prom-file under load: a reader polling the file never sees a
    partial one, the temporaries are hidden, the final file is the truth."""
    d = env.path("textfile")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "notifwait.prom")
    stop = threading.Event()
    seen, bad, names = [], [], set()

    def poll():
        while not stop.is_set():
            names.update(os.listdir(d))
            try:
                with open(path) as f:
                    text = f.read()
            except FileNotFoundError:
                continue
            if seen and text == seen[-1]:
                continue
            ok = text.endswith("\n") and all(f"# TYPE {fam}" in text for fam in FAMILIES)
            try:
                samples(text)
            except Exception as e:  # noqa: BLE001 - any parse error is a partial file
                ok = False
                text += f"\n(parse error {e})"
            (seen if ok else bad).append(text)

    tr = Tracer(env, ["--prom-file", path, "-i", "50ms"],
                ["--threads", "2", "--iterations", "1500", "--handle-us", "1000"])
    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    try:
        rc = tr.wait(120)
    finally:
        stop.set()
        poller.join(10)
        tr.kill()
    trace, truth = tr.results(rc)
    expect(not bad, f"{len(bad)} partial or invalid files seen, e.g. {bad[0][-200:]!r}" if bad else "")
    expect(len(seen) >= 10, f"only {len(seen)} versions of the file seen over the run")
    counts = [total(samples(t), "notifwait_notifications_total") for t in seen]
    expect(counts == sorted(counts), "notification counts went backwards between versions")
    leftovers = os.listdir(d)
    expect(leftovers == ["notifwait.prom"], f"files left in the directory: {leftovers}")
    temps = names - {"notifwait.prom"}
    expect(all(n.startswith(".") and not n.endswith(".prom") for n in temps),
           f"temporaries a textfile collector would read: {sorted(temps)[:5]}")
    with open(path) as f:
        final = f.read()
    promtool_text(final, env, "atomic")
    smp = samples(final)
    expect(total(smp, "notifwait_notifications_total") == 3000, "final file: not 3000 notifications")
    check_against_truth(smp, trace, truth)


def t_prom_accept_negotiation(env):
    """Text 0.0.4 by default, OpenMetrics 1.0 when asked; both valid."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    tr = Tracer(env, ["--prom-listen", f":{port}", "--prom-linger", "30"],
                ["--reply", "addfd", "--syscall", "openat", "--killable", "--iterations", "3"])
    try:
        tr.reported.wait(60)
        expect(tr.p.poll() is None, f"tracer ended before the scrapes: {tr.stderr()[-300:]!r}")
        where = listening(port)
        expect(where == {"127.0.0.1"}, f"--prom-listen :{port} listens on {where}")
        got = {}
        for tag, accept in (("none", None), ("any", "*/*"), ("text", "text/plain;version=0.0.4"),
                            ("om", "application/openmetrics-text; version=1.0.0"),
                            ("prometheus", PROM_ACCEPT),
                            ("om_refused", "application/openmetrics-text;q=0, text/plain")):
            got[tag] = curl(base + "/metrics", accept=accept)
        head = curl(base + "/metrics", head=True)
        other = curl(base + "/nope")
        post = curl(base + "/metrics", method="POST")
        tr.p.send_signal(signal.SIGINT)
        rc = tr.wait(10)
    finally:
        tr.kill()
    trace, truth = tr.results(rc)
    for tag in ("none", "any", "text", "om_refused"):
        status, headers, body = got[tag]
        expect(status == 200 and headers.get("content-type") == TEXT_TYPE,
               f"Accept {tag}: {status} {headers.get('content-type')!r}")
        expect("# EOF" not in body, f"Accept {tag}: '# EOF' in the text format")
        expect("# TYPE notifwait_notifications_total counter" in body, f"Accept {tag}: counter TYPE")
    for tag in ("om", "prometheus"):
        status, headers, body = got[tag]
        expect(status == 200 and headers.get("content-type") == OM_TYPE,
               f"Accept {tag}: {status} {headers.get('content-type')!r}")
        expect(body.endswith("\n# EOF\n") and body.count("# EOF") == 1, f"Accept {tag}: no final # EOF")
        expect("# TYPE notifwait_notifications counter" in body and
               re.search(r"^notifwait_notifications_total\{", body, re.M),
               f"Accept {tag}: OpenMetrics counter family/sample names")
        check_families(body, om=True)
        smp = samples(body, om=True)
        check_histograms(smp)
        check_against_truth(smp, trace, truth)
        expect(by_label(smp, "notifwait_addfd_total", "result") == {"ok": 3}, "addfd not 3 ok")
    promtool_text(got["none"][2], env, "negotiated_text")
    promtool_om(got["om"][2], env, "negotiated_om")
    check_against_truth(samples(got["none"][2]), trace, truth)
    status, headers, body = head
    expect(status == 200 and headers.get("content-type") == TEXT_TYPE and not body,
           f"HEAD: {status} {headers} {body[:50]!r}")
    expect(other[0] == 404, f"/nope: {other[0]}")
    expect(post[0] == 405 and "GET" in post[1].get("allow", ""), f"POST: {post[0]} {post[1]}")


def t_prom_bound_violations(env):
    """--check-bound's counts reach notifwait_bound_violations_total: a 10 ms
    budget broken by each of 4 signals deferred ~35 ms (truth brackets), the
    bound itself as often as the bound sink reports it; 0 without it."""
    path = env.path("notifwait.prom")
    wargs = ["--killable", "--signal", "SIGUSR1", "--signal-after-recv-us", "5000",
             "--handle-us", "40000", "--iterations", "4"]
    tr = Tracer(env, ["--check-bound", "--budget", "10ms", "--prom-file", path], wargs)
    try:
        tr.wait(60)  # the exit status is the verdict's (--check-bound's contract)
    finally:
        tr.kill()
    truth = Truth(tr.truth_path)
    sends = {r["id"]: r for r in truth.ev("send") if r["ret"] == 0}
    over = sum(1 for sig in truth.ev("signal")
               if sends[sig["id"]]["t_before"] - sig["t_after"] > 10e6)
    expect(over == 4, f"truth: {over} signals surely pending > 10 ms, expected 4")
    with open(path) as f:
        text = f.read()
    promtool_text(text, env, "bound")
    smp = samples(text)
    budget = total(smp, "notifwait_bound_violations_total", kind="budget")
    bound = total(smp, "notifwait_bound_violations_total", kind="bound")
    reported = sum(1 for line in tr.lines if line.startswith("bound violation"))
    expect(budget == over, f"bound_violations_total{{kind=budget}} {budget}, expected {over}")
    expect(bound == reported, f"bound_violations_total{{kind=bound}} {bound}, "
           f"the bound sink reported {reported}")
    # without --check-bound the series exist and stay 0
    smp = prom_file_run(env, path, wargs, tag="unchecked")
    expect(by_label(smp, "notifwait_bound_violations_total", "kind") == {} and
           {dict(ls)["kind"] for n, ls in smp if n == "notifwait_bound_violations_total"}
           == {"bound", "budget"}, "bound_violations_total not 0 for bound and budget")


def t_prom_listen_addresses(env):
    """0.0.0.0:PORT binds all IPv4 addresses, [::1]:PORT IPv6 loopback."""
    for addr, url_host, want in (("0.0.0.0", "127.0.0.1", "0.0.0.0"), ("[::1]", "[::1]", "::1")):
        port = free_port()
        p = subprocess.Popen([env.tracer, "--prom-listen", f"{addr}:{port}", "-d", "30"],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        try:
            line = p.stderr.readline()
            expect(line.startswith(HEADER), f"{addr}: tracer stderr {line!r}")
            where = listening(port)
            expect(where == {want}, f"--prom-listen {addr}:{port} listens on {where}")
            status, headers, body = curl(f"http://{url_host}:{port}/metrics")
            expect(status == 200 and "notifwait_build_info" in body, f"{addr}: scrape {status}")
            p.send_signal(signal.SIGINT)
            expect(p.wait(20) == 0, f"{addr}: exit {p.returncode}")
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()


def one_line(env, args, want_rc, what):
    p = subprocess.run([env.tracer, *args], stdin=subprocess.DEVNULL, capture_output=True,
                       text=True, timeout=30)
    lines = p.stderr.splitlines()
    expect(p.returncode == want_rc, f"{what}: exit {p.returncode}, expected {want_rc}: {p.stderr!r}")
    expect(len(lines) == 1 and lines[0].startswith("notifwait: "),
           f"{what}: {len(lines)} lines on stderr: {p.stderr[:300]!r}")
    expect(not p.stdout, f"{what}: stdout {p.stdout[:100]!r}")
    return lines[0]


def t_prom_bad_input(env):
    for bad in ("9464", "", ":", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536",
                "127.0.0.1:http", "localhostt:9464", "1.2.3:9464", "[::1]9464", "::1:9464",
                "0.0.0.0:-1"):
        line = one_line(env, ["--prom-listen", bad, "-d", "1"], 2, f"--prom-listen {bad!r}")
        expect("--prom-listen" in line, f"--prom-listen {bad!r}: {line!r}")
    one_line(env, ["--prom-linger", "1", "-d", "1"], 2, "--prom-linger without --prom-listen")
    one_line(env, ["--prom-listen", ":9", "--prom-linger", "0"], 2, "--prom-linger 0")
    one_line(env, ["--prom-file", "", "-d", "1"], 2, "--prom-file ''")
    one_line(env, ["-i", "1", "-d", "1"], 2, "-i alone")
    # runtime failures: exit 1, before anything is traced or run
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        marker = env.path("ran")
        line = one_line(env, ["--prom-listen", f"127.0.0.1:{port}", "--", "touch", marker], 1,
                        "port in use")
        expect("Address already in use" in line, f"port in use: {line!r}")
        expect(not os.path.exists(marker), "the command ran although the port was busy")
    line = one_line(env, ["--prom-file", env.path("no/such/dir/x.prom"), "-d", "1"], 1,
                    "unwritable --prom-file")
    expect("No such file" in line, f"unwritable --prom-file: {line!r}")


def dashboard_exprs(dash):
    out = []
    for p in dash["panels"]:
        for t in p.get("targets", []):
            out.append((p["title"], p["type"], t))
    for v in dash["templating"]["list"]:
        if v.get("type") == "query":
            out.append((v["name"], "variable", {"expr": v["definition"]}))
    return out


def t_prom_dashboard_metrics(env):
    """dashboards/notifwait.json: every metric and label its PromQL uses is
    one a real scrape shows; every expression parses (promtool check rules)."""
    with open(DASHBOARD) as f:
        dash = json.load(f)
    path = env.path("notifwait.prom")
    smp = prom_file_run(env, path, ["--demo"])
    names = {n for n, _ in smp}
    labels = {k for _, ls in smp for k, _ in ls} | {"le"}
    exprs = dashboard_exprs(dash)
    expect(len(exprs) >= 10, f"only {len(exprs)} expressions in the dashboard")
    used = set()
    rules = ["groups:", "  - name: dashboard", "    rules:"]
    for i, (title, kind, t) in enumerate(exprs):
        e = t["expr"]
        for m in re.findall(r"\bnotifwait_\w+", e):
            expect(m in names, f"panel {title!r}: {m} is not in a scrape ({sorted(names)[:5]}...)")
            used.add(m)
        for grp in re.findall(r"\bby \(([^)]*)\)", e):
            for lab in grp.split(","):
                expect(lab.strip() in labels, f"panel {title!r}: by label {lab.strip()!r} unknown")
        for lab in re.findall(r"[{,]\s*(\w+)\s*[=!]~?\"", e):
            expect(lab in labels, f"panel {title!r}: matcher label {lab!r} unknown")
        if kind == "heatmap":
            expect(t.get("format") == "heatmap" and "_bucket" in e and "by (le)" in e,
                   f"heatmap {title!r}: not a heatmap of _bucket series by le")
        if kind == "variable":
            continue
        promql = (e.replace("$__rate_interval", "5m").replace("$supervisor", ".*")
                  .replace("$syscall", ".*"))
        rules += [f"      - record: dashboard:expr{i}", f"        expr: {json.dumps(promql)}"]
    for want in ("notifwait_queue_seconds_bucket", "notifwait_handle_seconds_bucket",
                 "notifwait_wake_seconds_bucket", "notifwait_signal_pending_seconds_bucket",
                 "notifwait_notifications_total", "notifwait_lost_events_total"):
        expect(want in used, f"the dashboard does not use {want}")
    expect(any("histogram_quantile(0.99" in t["expr"] and "signal_pending_seconds_bucket" in t["expr"]
               and 'effect="deferred"' in t["expr"] for _, _, t in exprs),
           "no deferred-signal pending p99 (histogram_quantile)")
    expect(any('outcome=~"interrupted_' in t["expr"] and "rate(" in t["expr"] for _, _, t in exprs),
           "no interrupted rate")
    heat = {t["expr"].split("{")[0].split("(")[-1] for _, k, t in exprs if k == "heatmap"}
    expect({"notifwait_queue_seconds_bucket", "notifwait_handle_seconds_bucket",
            "notifwait_wake_seconds_bucket"} <= heat, f"heat maps: {heat}")
    rules_path = env.path("dashboard.rules.yml")
    with open(rules_path, "w") as f:
        f.write("\n".join(rules) + "\n")
    p = subprocess.run(["promtool", "check", "rules", rules_path], capture_output=True, text=True,
                       timeout=30)
    expect(p.returncode == 0, f"promtool check rules {rules_path}: {(p.stdout + p.stderr)[-400:]!r}")


TESTS = [(f.__name__[2:], f) for f in (
    t_prom_http_live_and_final, t_prom_file_durations_in_brackets, t_prom_file_atomic,
    t_prom_accept_negotiation, t_prom_listen_addresses, t_prom_bound_violations,
    t_prom_bad_input,
    t_prom_dashboard_metrics,
)]
