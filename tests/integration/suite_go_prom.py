"""A Prometheus scrape of a real Go workload: the exporter's counts equal
what the Go program and the supervisor counted themselves (and the JSON)."""

import json
import os
import signal
import subprocess
import time

from scenarios import HEADER, expect, wait_line
from suite_go import GoRun, HANDLE_US, RAW_ARGS, REPLY_VALUE, go_target
from suite_prom import curl, free_port, promtool_text, samples, total
from truth import Fail, Trace, Truth


def t_go_prom_scrape(env):
    prog = go_target(env)
    port = free_port()
    url = f"http://127.0.0.1:{port}/metrics"
    out, truth_path, rep = (env.path(x) for x in ("out.jsonl", "truth.jsonl", "go.json"))
    cmd = [env.tracer, "-j", "-o", out, "--prom-listen", f"127.0.0.1:{port}",
           "--prom-linger", "30", "--", env.workload, "--killable", "--handle-us",
           str(HANDLE_US), "--reply-value", str(REPLY_VALUE), "--truth", truth_path,
           "--", prog, "-o", rep, *RAW_ARGS]
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    try:
        header = wait_line(p.stderr, 60)
        expect(header.startswith(HEADER), f"tracer stderr: {header!r}")
        live = []
        deadline = time.monotonic() + 120
        # scrape while the Go program runs; it is over once its report exists
        while not os.path.exists(rep) and time.monotonic() < deadline:
            status, _, body = curl(url)
            expect(status == 200, f"live scrape: HTTP {status}")
            live.append(total(samples(body), "notifwait_notifications_total"))
            time.sleep(0.2)
        time.sleep(1.5)  # the tracer settles its last records, then lingers
        status, _, final_text = curl(url)
        expect(status == 200, f"final scrape: HTTP {status}")
        p.send_signal(signal.SIGINT)
        rc = p.wait(20)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    expect(rc == 0, f"tracer exited {rc}")
    expect(any(n > 0 for n in live), f"no live scrape saw notifications: {live[:10]}")
    with open(rep, encoding="utf-8") as f:
        report = json.load(f)
    trace, truth = Trace(out), Truth(truth_path)
    run = GoRun(trace, truth, report, True)
    fig = run.check()
    smp = samples(final_text)
    promtool_text(final_text, env, "go")
    got = {
        "notifications": total(smp, "notifwait_notifications_total"),
        "replied": total(smp, "notifwait_notifications_total", outcome="replied"),
        "reply_failed": total(smp, "notifwait_reply_failed_total"),
        "deferred": total(smp, "notifwait_signals_total", effect="deferred"),
    }
    want = {
        "notifications": fig["notifications"],
        "replied": report["calls_completed"],
        "reply_failed": sum(1 for r in truth.ev("send") if r.get("errno") == 2),
        "deferred": fig["sigurg_deferred"],
    }
    if got != want:
        raise Fail(f"scrape {got} != the Go program's and the supervisor's counts {want}")


TESTS = [("go_prom_scrape", t_go_prom_scrape)]
