#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What notifwait costs, as ratios of traced to untraced work in one run.

    bench/bench.py --build BUILD [--out-dir DIR] [--parts 1,2,3,4,5]
    bench/bench.py --build BUILD --guest     (part 6, inside a VM guest)

Writes DIR/YYYY-MM-DD-HOST.json (default DIR: bench/results) with the six
parts of issue 13 and prints a table. Each load runs PAIRS times without,
then with, the tracer (system-wide, -j to a file: A B A B ...). Per load:
bare_ns and traced_ns are the medians, ratio = traced_ns / bare_ns (ratio of
medians), min_ratio/max_ratio the extremes of the per-pair ratios.

Pinned: the target, its supervisor and the unrelated loops on CPU 0, the
tracer (reporter) on CPU 1 (taskset), so the round trip does not include a
cross-CPU wake-up and the tracer's cost on the notifying CPU shows.

Sizes (environment):
  PAIRS=5              untraced/traced pairs per load (at least 5 for make bench)
  RT_PINNED=200000     notifications per pinned round-trip run
  RT_UNPINNED=20000    notifications per unpinned round-trip run
  SYSCALLS=2000000     getppid() calls per run
  PINGPONGS=100000     pipe round trips per run
  JOB=1                0: skip the realistic job (compile user/*.c + tar)
  JOB_FILES=all        compile only the first N of user/*.c
  JOB_TAR=/usr/include what the job's tar reads
  PEAK_THREADS=4 PEAK_SUPERVISORS=2 PEAK_SECONDS=3
                       peak rate: S workloads (one supervisor and listener
                       each) of T threads, about SECONDS long
  RINGBUF_SECONDS=1    length of each run of the ring-buffer size search
  RINGBUF_MIN=4096 RINGBUF_MAX=67108864
                       the sizes it searches (powers of 2, binary search)
  PEAK_ITERATIONS      per thread, instead of calibrating to PEAK_SECONDS
  GROUPED=0            1: one tracer per pair for all loads (smoke pass)
  WAITING=10000        notifications waiting at once for the memory part
  BACKEND=auto         the tracer's --backend (guest: GUEST_BACKENDS)
  GUEST_BACKENDS       --guest: backends to compare (default: VM_BACKENDS)

The BPF cost (part 2) is a separate pass with kernel.bpf_stats_enabled=1
(the accounting itself slows the programs, so the ratio pairs run without
it); the sysctl is restored on exit, error or signal.
"""
import argparse
import datetime
import glob
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

SYSCTL = "/proc/sys/kernel/bpf_stats_enabled"
LOST_RE = re.compile(
    r"notifwait: (\d+) notifications; lost records: (\d+), notifications "
    r"dropped \(map full\): (\d+), signals dropped: (\d+), probe runs missed: (\d+)")
GETPPID_NR = 110  # x86_64


def env_int(name, default):
    v = os.environ.get(name, "")
    if not v:
        return default
    if not v.isdigit() or int(v) <= 0:
        sys.exit(f"bench: {name}={v!r} is not a positive integer")
    return int(v)


def env_float(name, default):
    v = os.environ.get(name, "")
    if not v:
        return default
    try:
        f = float(v)
    except ValueError:
        f = 0
    if not 0 < f < 1e6:
        sys.exit(f"bench: {name}={v!r} is not a positive number")
    return f


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def cpus():
    try:
        return sorted(os.sched_getaffinity(0))
    except OSError:
        return [0]


class Bench:
    def __init__(self, build, tmp, backend="auto"):
        self.build = build
        self.tmp = tmp
        self.backend = backend
        cs = cpus()
        self.pin_cpu = cs[0]
        self.tracer_cpu = cs[1] if len(cs) > 1 else None

    def pinned(self, argv):
        return ["taskset", "-c", str(self.pin_cpu)] + argv

    def workload(self):
        return os.path.join(self.build, "nw-workload")

    def loops(self):
        return os.path.join(self.build, "loops")


class Tracer:
    """notifwait -j system-wide, started and stopped around a measurement."""
    seq = 0

    def __init__(self, bench, ringbuf=None, backend=None):
        Tracer.seq += 1
        self.b = bench
        self.out = os.path.join(bench.tmp, f"trace{Tracer.seq}.jsonl")
        self.err = os.path.join(bench.tmp, f"trace{Tracer.seq}.err")
        argv = [os.path.join(bench.build, "notifwait"), "--backend",
                backend or bench.backend, "-j", "-o", self.out]
        if ringbuf:
            argv += ["--ringbuf-size", str(ringbuf)]
        if bench.tracer_cpu is not None:
            argv = ["taskset", "-c", str(bench.tracer_cpu)] + argv
        self.argv = argv
        self.proc = None
        self.counts = None

    def __enter__(self):
        errf = open(self.err, "w")
        self.proc = subprocess.Popen(self.argv, stdout=subprocess.DEVNULL,
                                     stderr=errf, close_fds=True)
        errf.close()
        deadline = time.monotonic() + 300  # TCG guests verify slowly
        while True:
            text = open(self.err).read()
            if "notifwait: tracing" in text:
                break
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.proc.kill()
                self.proc.wait()
                raise RuntimeError("notifwait did not start: " + text.strip())
            time.sleep(0.02)
        m = re.search(r"backend: (\w+): ([^;)]*)", text)
        self.backend = m.group(1) if m else "unknown"
        if self.backend == "fentry" and m and m.group(2).startswith(
                "fentry/fexit on __seccomp_filter"):
            self.backend = "fentry_caller"
        return self

    def __exit__(self, *exc):
        self.stop()

    def stop(self):
        if not self.proc or self.counts is not None:
            return
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise RuntimeError("notifwait did not stop on SIGINT")
        text = open(self.err).read()
        m = None
        for m in LOST_RE.finditer(text):
            pass
        if not m:
            raise RuntimeError("notifwait's last line is missing: " + text.strip())
        n, lost, dropped, sigs, missed = map(int, m.groups())
        self.counts = {"notifications": n, "lost": lost, "dropped": dropped,
                       "signals_dropped": sigs, "missed_runs": missed}

    def discard_output(self):
        for p in (self.out,):
            if os.path.exists(p):
                os.unlink(p)

    @property
    def pid(self):
        return self.proc.pid

    def cpu_ticks(self):
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime, stime

    def rss_kb(self, field="VmRSS:"):
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1])
        return None

    def bpf_ids(self):
        """ids of the programs and maps the tracer holds (from fdinfo)."""
        progs, maps = set(), set()
        for info in glob.glob(f"/proc/{self.pid}/fdinfo/*"):
            try:
                text = open(info).read()
            except OSError:
                continue
            m = re.search(r"^prog_id:\s+(\d+)", text, re.M)
            if m:
                progs.add(int(m.group(1)))
            m = re.search(r"^map_id:\s+(\d+)", text, re.M)
            if m:
                maps.add(int(m.group(1)))
        return progs, maps


def bpftool(*args):
    out = subprocess.run(["bpftool", *args, "-j"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out or "[]")


def prog_stats(ids):
    """{name: (run_cnt, run_time_ns)} of our programs."""
    res = {}
    for p in bpftool("prog", "show"):
        if p["id"] in ids:
            res[p["name"]] = (p.get("run_cnt", 0), p.get("run_time_ns", 0))
    return res


def stats_delta(before, after):
    return {k: (after[k][0] - before.get(k, (0, 0))[0],
                after[k][1] - before.get(k, (0, 0))[1]) for k in after}


def timed(argv, **kw):
    t0 = time.perf_counter_ns()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, **kw)
    return time.perf_counter_ns() - t0


def summarize(bare, traced):
    ratios = [t / b for b, t in zip(bare, traced)]
    bm, tm = statistics.median(bare), statistics.median(traced)
    return {"bare_ns": round(bm, 1), "traced_ns": round(tm, 1),
            "ratio": round(tm / bm, 4), "min_ratio": round(min(ratios), 4),
            "max_ratio": round(max(ratios), 4),
            "median_pair_ratio": round(statistics.median(ratios), 4),
            "pairs": len(ratios), "bare_runs_ns": [round(x, 1) for x in bare],
            "traced_runs_ns": [round(x, 1) for x in traced]}


def run_pairs(bench, loads, n_pairs, backend=None):
    """loads: [(key, label, run)], run() -> ns per operation.

    Each load A B A B ... (B traced), a tracer started for each B; with
    GROUPED=1 one tracer per pair serves every load's B (faster, for the
    smoke pass; the A and B of one load are then further apart).
    """
    grouped = os.environ.get("GROUPED", "0") == "1"
    bare = {k: [] for k, _, _ in loads}
    traced = {k: [] for k, _, _ in loads}
    used = {}

    def traced_runs(todo):
        with Tracer(bench, backend=backend) as t:
            for k, _, run in todo:
                traced[k].append(run())
        t.discard_output()
        for k, _, _ in todo:
            used[k] = t.backend
        if t.counts["lost"]:
            log(f"bench: {t.counts['lost']} records lost while tracing "
                f"{', '.join(k for k, _, _ in todo)}")
    def bare_run(k, run):
        # our tracer is stopped: any notifwait now traces the bare run
        others[k] = max(others.get(k, 0), other_tracers())
        bare[k].append(run())
    others = {}
    if grouped:
        for _ in range(n_pairs):
            for k, _, run in loads:
                bare_run(k, run)
            traced_runs(loads)
    res = {}
    for load in loads:
        k, label, run = load
        for _ in range(0 if grouped else n_pairs):
            bare_run(k, run)
            traced_runs([load])
        r = summarize(bare[k], traced[k])
        r["backend"] = used[k]
        r["other_notifwait_max"] = others[k]
        res[k] = r
        log(f"  {label:<28} {r['bare_ns']:>11.1f} {r['traced_ns']:>11.1f} "
            f"{r['ratio']:>7.3f}x  (pairs {r['min_ratio']:.3f}..{r['max_ratio']:.3f})")
    return res


def roundtrip(bench, n, pin):
    argv = [bench.workload(), "--threads", "1", "--iterations", str(n)]
    return lambda: timed(bench.pinned(argv) if pin else argv) / n


def loop(bench, kind, n):
    def run():
        out = subprocess.run(bench.pinned([bench.loops(), kind, str(n)]),
                             check=True, capture_output=True, text=True).stdout
        return float(out.strip())
    return run


def job(bench, files, tar_dir):
    objdir = os.path.join(bench.tmp, "job")
    os.makedirs(objdir, exist_ok=True)
    cc = os.environ.get("CC", "cc")
    cflags = ["-O2", "-g", "-std=gnu11", "-I" + bench.build, "-Ibpf", "-Iuser"]

    def run():
        t0 = time.perf_counter_ns()
        for f in files:
            subprocess.run([cc, *cflags, "-c", f, "-o",
                            os.path.join(objdir, "x.o")], check=True)
        tar = subprocess.Popen(["tar", "cf", "-", tar_dir], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
        subprocess.run(["wc", "-c"], stdin=tar.stdout, check=True,
                       stdout=subprocess.DEVNULL)
        tar.stdout.close()
        if tar.wait():
            raise RuntimeError(f"job: tar cf - {tar_dir} failed")
        return time.perf_counter_ns() - t0
    return run


# Part 2: BPF run time per program, with kernel.bpf_stats_enabled.
class StatsEnabled:
    def __enter__(self):
        with open(SYSCTL) as f:
            self.saved = f.read().strip()
        with open(SYSCTL, "w") as f:
            f.write("1")
        return self

    def __exit__(self, *exc):
        with open(SYSCTL, "w") as f:
            f.write(self.saved)


def per_program(delta, events, background, seconds):
    """Rows per program; background runs (other tasks') subtracted."""
    rows = []
    for name in sorted(delta):
        cnt, ns = delta[name]
        bcnt, bns = background.get(name, (0, 0))
        cnt_net = max(cnt - bcnt * seconds, 0)
        ns_net = max(ns - bns * seconds, 0)
        rows.append({"name": name,
                     "runs_per_notif": round(cnt_net / events, 3),
                     # net of the background, so runs x ns = ns_per_notif
                     "ns_per_run": round(ns_net / cnt_net, 1) if cnt_net >= 1 else
                     (round(ns / cnt, 1) if cnt else 0),
                     "ns_per_notif": round(ns_net / events, 1),
                     "raw_runs": cnt, "raw_ns": ns,
                     "background_runs_per_s": round(bcnt, 1)})
    return rows


def bpf_cost(bench, rt_pinned, syscalls, pingpongs):
    res = {}
    with StatsEnabled(), Tracer(bench) as t:
        progs, _ = t.bpf_ids()
        # background: other tasks' events while nothing of ours runs
        s0 = prog_stats(progs)
        time.sleep(1.0)
        background = {k: v for k, v in stats_delta(s0, prog_stats(progs)).items()}

        def measure(argv, events):
            s0 = prog_stats(progs)
            t0 = time.monotonic()
            subprocess.run(bench.pinned(argv), check=True,
                           stdout=subprocess.DEVNULL)
            secs = time.monotonic() - t0
            return per_program(stats_delta(s0, prog_stats(progs)), events,
                               background, secs)
        rows = measure([bench.workload(), "--threads", "1", "--iterations",
                        str(rt_pinned)], rt_pinned)
        res["bpf_programs"] = [r for r in rows if r["raw_runs"]]
        res["bpf_ns_per_notif_total"] = round(
            sum(r["ns_per_notif"] for r in rows), 1)
        sysrows = measure([bench.loops(), "syscall", str(syscalls)], syscalls)
        # a pinned ping-pong round trip is two context switches
        swrows = measure([bench.loops(), "pingpong", str(pingpongs)],
                         2 * pingpongs)
    t.discard_output()

    def unrel(rows):
        rows = [{"name": r["name"], "runs_per_event": r["runs_per_notif"],
                 "ns_per_run": r["ns_per_run"],
                 "ns_per_event": r["ns_per_notif"]} for r in rows if r["raw_runs"]]
        return {"programs": rows,
                "ns_per_event_total": round(sum(r["ns_per_event"] for r in rows), 1)}
    res["bpf_unrelated"] = {"syscall": unrel(sysrows),
                            "context_switch": unrel(swrows)}
    log(f"  BPF per notification: {res['bpf_ns_per_notif_total']} ns; "
        f"per unrelated syscall {res['bpf_unrelated']['syscall']['ns_per_event_total']} ns, "
        f"per context switch {res['bpf_unrelated']['context_switch']['ns_per_event_total']} ns")
    for r in res["bpf_programs"]:
        log(f"    {r['name']:<26} {r['runs_per_notif']:>6.2f} runs x "
            f"{r['ns_per_run']:>7.1f} ns = {r['ns_per_notif']:>7.1f} ns")
    return res


# Part 4: peak rate.
def read_truth(path):
    recs = [json.loads(line) for line in open(path) if line.strip()]
    summary = [r for r in recs if r["ev"] == "summary"]
    targets = {r["pid"] for r in recs if r["ev"] == "target"}
    sups = {r["supervisor_pid"] for r in recs if r["ev"] == "start"}
    return summary[-1] if summary else None, targets, sups


def peak_run(bench, threads, sups, iters, ringbuf=None):
    """S workloads at once under the tracer; counts against their truth."""
    truths = [os.path.join(bench.tmp, f"peak{i}.jsonl") for i in range(sups)]
    for p in truths:
        if os.path.exists(p):
            os.unlink(p)
    with Tracer(bench, ringbuf=ringbuf) as t:
        c0, t0 = t.cpu_ticks(), time.monotonic()
        procs = [subprocess.Popen([bench.workload(), "--threads", str(threads),
                                   "--iterations", str(iters), "--truth", p],
                                  stdout=subprocess.DEVNULL) for p in truths]
        rcs = [p.wait() for p in procs]
        elapsed = time.monotonic() - t0
        time.sleep(0.2)  # the reporter drains what is left
        cpu = (t.cpu_ticks() - c0) / os.sysconf("SC_CLK_TCK")
        window = time.monotonic() - t0
    if any(rcs):
        raise RuntimeError(f"peak: nw-workload exited {rcs}")
    made, targets = 0, set()
    for p in truths:
        s, tg, _ = read_truth(p)
        if not s or s["syscalls_ok"] != s["syscalls"]:
            raise RuntimeError(f"peak: truth {p} has no clean summary")
        made += s["syscalls"]
        targets |= tg
    seen = 0
    with open(t.out) as f:
        for line in f:
            if line.startswith('{"type":"notif"'):
                if json.loads(line)["target_pid"] in targets:
                    seen += 1
    t.discard_output()
    lost = t.counts["lost"] + t.counts["dropped"] + t.counts["missed_runs"]
    rate = made / elapsed
    cpu_pct = 100 * cpu / window
    return {"notifs_per_s": round(rate), "made": made, "traced": seen,
            "lost": lost, "lost_records": t.counts["lost"],
            "notifications_dropped": t.counts["dropped"],
            "seconds": round(elapsed, 3), "reporter_cpu_pct": round(cpu_pct, 2),
            "reporter_cpu_pct_per_10k": round(cpu_pct / (rate / 1e4), 3)}


def peak(bench, threads, sups, seconds, rb_seconds):
    fixed = os.environ.get("PEAK_ITERATIONS") and env_int("PEAK_ITERATIONS", 0)
    if fixed:
        iters = fixed
    else:
        cal = peak_run(bench, threads, sups, 500)
        per_s = cal["made"] / cal["seconds"]
        iters = max(int(per_s * seconds / (threads * sups)), 100)
    res = peak_run(bench, threads, sups, iters)
    res.update({"threads": threads, "supervisors": sups,
                "exact": res["made"] == res["traced"]})
    log(f"  peak: {res['notifs_per_s']} notifications/s ({threads} threads x "
        f"{sups} supervisors), {res['traced']}/{res['made']} traced, "
        f"{res['lost']} lost, reporter {res['reporter_cpu_pct']}% of a CPU = "
        f"{res['reporter_cpu_pct_per_10k']}% per 10k/s")
    # Smallest ring buffer with nothing lost: binary search over powers of 2.
    per_s = res["made"] / res["seconds"]
    rb_iters = fixed or max(int(per_s * rb_seconds / (threads * sups)), 100)
    lo = env_int("RINGBUF_MIN", 4096).bit_length() - 1
    hi = env_int("RINGBUF_MAX", 1 << 26).bit_length() - 1
    tried = []
    ok_at = None
    while lo <= hi:
        mid = (lo + hi) // 2
        r = peak_run(bench, threads, sups, rb_iters, ringbuf=1 << mid)
        clean = r["lost"] == 0 and r["made"] == r["traced"]
        tried.append({"bytes": 1 << mid, "lost": r["lost"],
                      "traced": r["traced"], "made": r["made"],
                      "notifs_per_s": r["notifs_per_s"]})
        if clean:
            ok_at, hi = 1 << mid, mid - 1
        else:
            lo = mid + 1
    res["ringbuf_min_bytes"] = ok_at
    res["ringbuf_tried"] = tried
    log(f"  smallest ring buffer with nothing lost: {ok_at} bytes "
        f"(tried {[x['bytes'] for x in tried]})")
    return res


# Part 5: memory.
def map_bytes(t):
    progs, maps = t.bpf_ids()
    for p in bpftool("prog", "show"):
        if p["id"] in progs:
            maps |= set(p.get("map_ids", []))
    rows = [{"name": m.get("name", ""), "type": m.get("type"),
             "max_entries": m.get("max_entries"),
             "bytes": m.get("bytes_memlock", 0)}
            for m in bpftool("map", "show") if m["id"] in maps]
    rows.sort(key=lambda r: -r["bytes"])
    return sum(r["bytes"] for r in rows), rows


def threads_waiting(pids, nr):
    n = 0
    for pid in pids:
        for task in glob.glob(f"/proc/{pid}/task/*/syscall"):
            try:
                if open(task).read().split()[0] == str(nr):
                    n += 1
            except (OSError, IndexError):
                pass
    return n


def memory(bench, waiting):
    res = {}
    with Tracer(bench) as t:
        time.sleep(0.5)
        total, rows = map_bytes(t)
        res.update({"rss_kb": t.rss_kb(), "map_bytes": total, "maps": rows})
        # WAITING notifications at once: stopped supervisors, targets
        # blocked in their syscall. A workload takes up to 4096 threads.
        per = min(500, waiting)
        targets = waiting // per
        groups = [min(4, targets - i) for i in range(0, targets, 4)]
        truths, procs, sups = [], [], []
        try:
            for i, n_t in enumerate(groups):
                truth = os.path.join(bench.tmp, f"waiting{i}.jsonl")
                w = subprocess.Popen([bench.workload(), "--gate", "--targets",
                                      str(n_t), "--threads", str(per),
                                      "--iterations", "1", "--truth", truth],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True)
                procs.append(w)
                truths.append(truth)
                sups.append(int(w.stdout.readline().split()[1]))
                os.kill(sups[-1], signal.SIGSTOP)
                w.stdin.write("go\n")
                w.stdin.flush()
            n, deadline = 0, time.monotonic() + 120
            while time.monotonic() < deadline:
                pids = {r["pid"] for tr in truths for r in map(json.loads, open(tr))
                        if r["ev"] == "target"}
                n = threads_waiting(pids, GETPPID_NR)
                if n >= targets * per:
                    break
                time.sleep(0.2)
            time.sleep(0.5)  # the tracer sees the last ones arrive
            total_w, _ = map_bytes(t)
            res["waiting"] = {"notifications": n, "rss_kb": t.rss_kb(),
                              "map_bytes": total_w}
        finally:
            for sup in sups:
                os.kill(sup, signal.SIGCONT)
            for w in procs:
                w.stdin.close()
            rcs = [w.wait(timeout=300) for w in procs]
        time.sleep(0.3)  # the reporter has them all: its peak
        res["waiting"]["rss_peak_kb"] = t.rss_kb("VmHWM:")
    ours = set()
    for tr in truths:
        ours |= {r["pid"] for r in map(json.loads, open(tr)) if r["ev"] == "target"}
    with open(t.out) as f:
        res["waiting"]["traced"] = sum(
            1 for line in f if line.startswith('{"type":"notif"') and
            json.loads(line)["target_pid"] in ours)
    t.discard_output()
    res["waiting"]["lost"] = t.counts["lost"] + t.counts["dropped"]
    if any(rcs):
        raise RuntimeError(f"memory: nw-workload exited {rcs}")
    log(f"  memory: RSS {res['rss_kb']} kB, maps {res['map_bytes']} bytes; "
        f"{n} waiting: RSS {res['waiting']['rss_kb']} kB, "
        f"maps {res['waiting']['map_bytes']} bytes, reporter's peak RSS "
        f"{res['waiting']['rss_peak_kb']} kB")
    return res


def other_tracers():
    """notifwait processes not ours: they trace our untraced runs too."""
    n = 0
    for comm in glob.glob("/proc/[0-9]*/comm"):
        try:
            if open(comm).read().strip() == "notifwait":
                n += 1
        except OSError:
            pass
    return n


def header(bench):
    with Tracer(bench) as t:
        pass
    t.discard_output()
    return {"date": datetime.date.today().isoformat(),
            "time": datetime.datetime.now(datetime.timezone.utc).strftime(
                "%Y-%m-%dT%H:%M:%SZ"),
            "host": socket.gethostname(), "kernel": os.uname().release,
            "backend": t.backend, "cpus": len(cpus()),
            "pinning": {"target_supervisor_loops_cpu": bench.pin_cpu,
                        "tracer_cpu": bench.tracer_cpu},
            "loadavg_start": os.getloadavg(),
            "other_notifwait_start": other_tracers()}


def host_bench(args, bench):
    n_pairs = env_int("PAIRS", 5)
    rt_pinned = env_int("RT_PINNED", 200000)
    rt_unpinned = env_int("RT_UNPINNED", 20000)
    syscalls = env_int("SYSCALLS", 2000000)
    pingpongs = env_int("PINGPONGS", 100000)
    parts = set(args.parts.split(","))
    res = header(bench)
    res["sizes"] = {"pairs": n_pairs, "rt_pinned": rt_pinned,
                    "rt_unpinned": rt_unpinned, "syscalls": syscalls,
                    "pingpongs": pingpongs}
    log(f"bench: {res['host']}, {res['kernel']}, backend {res['backend']}, "
        f"load average {res['loadavg_start'][0]:.2f}, other notifwait "
        f"processes running: {res['other_notifwait_start']}")
    if "1" in parts or "3" in parts:
        log(f"  {'load (ns per operation)':<28} {'untraced':>11} {'traced':>11} "
            f"{'ratio':>8}")
    loads = []
    if "1" in parts:
        loads += [("roundtrip_pinned", "round trip, pinned",
                   roundtrip(bench, rt_pinned, True)),
                  ("roundtrip_unpinned", "round trip, unpinned",
                   roundtrip(bench, rt_unpinned, False))]
    if "3" in parts:
        loads += [("getppid_pinned", "unrelated getppid, pinned",
                   loop(bench, "syscall", syscalls)),
                  ("pingpong_pinned", "unrelated ping-pong, pinned",
                   loop(bench, "pingpong", pingpongs))]
        if os.environ.get("JOB", "1") != "0":
            files = sorted(glob.glob("user/*.c"))
            files = files[:env_int("JOB_FILES", len(files))]
            tar_dir = os.environ.get("JOB_TAR", "/usr/include")
            loads.append(("realistic_job", "job: cc user/*.c, tar",
                          job(bench, files, tar_dir)))
    if loads:
        res.update(run_pairs(bench, loads, n_pairs))
        if "realistic_job" in res:
            res["realistic_job"].update({"files": len(files), "tar": tar_dir})
        res["backend"] = res[loads[0][0]]["backend"]
    if "2" in parts:
        res.update(bpf_cost(bench, rt_pinned, syscalls, pingpongs))
    if "4" in parts:
        res["peak"] = peak(bench, env_int("PEAK_THREADS", 4),
                           env_int("PEAK_SUPERVISORS", 2),
                           env_float("PEAK_SECONDS", 3), env_float("RINGBUF_SECONDS", 1))
    if "5" in parts:
        res["memory"] = memory(bench, env_int("WAITING", 10000))
    res["loadavg_end"] = os.getloadavg()
    res["other_notifwait_end"] = other_tracers()
    guests = glob.glob(os.path.join(bench.build, "vm-bench", "*.json"))
    if guests:
        res["guests"] = {os.path.basename(g)[:-5]: json.load(open(g))
                         for g in sorted(guests)}
    return res


def guest_bench(bench):
    """Part 6: round trip and getppid per backend (emulated CPUs: ratios only)."""
    n_pairs = env_int("PAIRS", 5)
    rt = env_int("RT_PINNED", 2000)
    syscalls = env_int("SYSCALLS", 100000)
    backends = (os.environ.get("GUEST_BACKENDS") or
                os.environ.get("VM_BACKENDS") or "tracepoint").split()
    res = {"kernel": os.uname().release, "date": datetime.date.today().isoformat(),
           "sizes": {"pairs": n_pairs, "rt_pinned": rt, "syscalls": syscalls},
           "backends": {}}
    for b in backends:
        try:
            r = run_pairs(bench, [
                ("roundtrip_pinned", f"{b}: round trip, pinned",
                 roundtrip(bench, rt, True)),
                ("getppid_pinned", f"{b}: getppid, pinned",
                 loop(bench, "syscall", syscalls))], n_pairs, b)
            res["backends"][r["roundtrip_pinned"]["backend"]] = r
        except (RuntimeError, subprocess.CalledProcessError) as e:
            res["backends"][b] = {"error": str(e)[:300]}
            log(f"  {b}: {e}")
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--out-dir", default="bench/results")
    ap.add_argument("--parts", default="1,2,3,4,5")
    ap.add_argument("--guest", action="store_true",
                    help="part 6: print the JSON on one line 'nw-bench-json: {...}'")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("bench: needs root (BPF, bpf_stats_enabled)")
    for tool in ("taskset", "bpftool"):
        if not shutil.which(tool):
            sys.exit(f"bench: {tool} not found")
    # SIGTERM/SIGHUP unwind like Ctrl-C, so the sysctl and tracers are restored
    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.default_int_handler)
    with tempfile.TemporaryDirectory(prefix="nw-bench.") as tmp:
        bench = Bench(args.build, tmp, os.environ.get("BACKEND", "auto"))
        if args.guest:
            res = guest_bench(bench)
            print("nw-bench-json: " + json.dumps(res, separators=(",", ":")))
            return
        res = host_bench(args, bench)
    os.makedirs(args.out_dir, exist_ok=True)
    path = os.path.join(args.out_dir, f"{res['date']}-{res['host']}.json")
    tmp_path = path + ".tmp"
    with open(tmp_path, "w") as f:
        json.dump(res, f, indent=1)
        f.write("\n")
    os.replace(tmp_path, path)
    print(f"bench: wrote {path}")


if __name__ == "__main__":
    main()
