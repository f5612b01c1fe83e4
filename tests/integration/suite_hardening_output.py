"""Safe files and honest output (issue 15, part A): what notifwait opens,
replaces and writes, and how it writes kernel-provided strings. Each test
runs the real tracer; workloads report their own truth."""

import json
import os
import re
import socket
import stat
import subprocess
import tempfile
import time
import xml.etree.ElementTree as ET

from badinput import one_line_error
from scenarios import check_header, expect, run_tracer
from truth import Fail, Skip, Truth

HEADER_COLUMNS = "TIME(s)"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def workload_summary(truth_path):
    s = Truth(truth_path).ev("summary")
    if not s:
        raise Fail("the workload wrote no summary record")
    return s[-1]


def json_lines(text, what):
    out = []
    for i, line in enumerate(text.splitlines()):
        try:
            out.append(json.loads(line))
        except ValueError:
            raise Fail(f"{what} line {i + 1} is not JSON: {line[:200]!r}")
    return out


def lines_lost(stderr):
    m = re.search(r"output lines not written: (\d+)", stderr)
    return int(m.group(1)) if m else 0


# --- --prom-file: only a regular file is replaced ------------------------------

def t_prom_file_refuses_non_regular(env):
    d = env.dir
    dev, fifo, sock_path = os.path.join(d, "dev"), os.path.join(d, "fifo"), os.path.join(d, "sock")
    os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    os.mkfifo(fifo)
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(sock_path)
    subdir = os.path.join(d, "dir")
    os.mkdir(subdir)
    target = os.path.join(d, "target.prom")
    with open(target, "w") as f:
        f.write("kept\n")
    link = os.path.join(d, "link.prom")
    os.symlink(target, link)
    try:
        for path, kind, what in ((dev, stat.S_ISCHR, "a character device"),
                                 (fifo, stat.S_ISFIFO, "a FIFO"),
                                 (sock_path, stat.S_ISSOCK, "a socket"),
                                 (subdir, stat.S_ISDIR, "a directory"),
                                 (link, stat.S_ISLNK, "a symbolic link")):
            p = one_line_error(env, ["--prom-file", path, "-d", "1"])
            expect(p.returncode == 1, f"{what}: exit {p.returncode}, expected 1")
            expect(what in p.stderr, f"{what}: {p.stderr!r}")
            expect(kind(os.lstat(path).st_mode), f"{path} was replaced: no longer {what}")
        with open(target) as f:
            expect(f.read() == "kept\n", "the symlink's target was changed")
    finally:
        sock.close()
    # a regular file is replaced, a missing one created
    missing = os.path.join(d, "new.prom")
    p = run_tracer([env.tracer, "--prom-file", target, "-d", "0.3", "-o", os.devnull], 60)
    expect(p.returncode == 0, f"regular file: exit {p.returncode}: {p.stderr[-300:]!r}")
    p = run_tracer([env.tracer, "--prom-file", missing, "-d", "0.3", "-o", os.devnull], 60)
    expect(p.returncode == 0 and os.path.isfile(missing), f"missing file: exit {p.returncode}")
    with open(target) as f:
        expect("notifwait_build_info" in f.read(), "the regular file was not rewritten")


def t_prom_file_replaced_by_fifo_while_running(env):
    """The type is checked before every rename: a failed rewrite is said, counted, exit 1."""
    prom = env.path("m.prom")
    script = f"sleep 0.5; rm {prom}; mkfifo {prom}; sleep 0.7"
    p = run_tracer([env.tracer, "--prom-file", prom, "-i", "0.1", "-o", os.devnull,
                    "--", "sh", "-c", script], 60)
    expect(p.returncode == 1, f"exit {p.returncode}, expected 1: {p.stderr[-300:]!r}")
    expect(stat.S_ISFIFO(os.lstat(prom).st_mode), "the FIFO was replaced")
    expect(p.stderr.count("is a FIFO: only a regular file is replaced") == 1,
           f"stderr {p.stderr[-300:]!r}")
    m = re.search(r"--prom-file writes failed: (\d+)", p.stderr)
    expect(m and int(m.group(1)) >= 1, f"failed writes not counted: {p.stderr[-200:]!r}")


# --- every fd close-on-exec ------------------------------------------------------

FORGE = ('for fd in 3 4 5 6 7 8 9 10 11 12; do '
         '(echo \'{"type":"summary","forged":true}\' >&$fd) 2>/dev/null; done; '
         'exec python3 -c \'import os; print(" ".join(sorted(os.listdir("/proc/self/fd"))))\'')


def t_command_gets_only_std_fds(env):
    out, tl, prom = env.path("f.jsonl"), env.path("t.svg"), env.path("m.prom")
    cmd = [env.tracer, "-j", "-o", out, "--timeline", tl, "--prom-file", prom,
           "--prom-listen", f"127.0.0.1:{free_port()}", "--", "sh", "-c", FORGE]
    p = run_tracer(cmd, 60)
    check_header(p.stderr)
    expect(p.returncode == 0, f"exit {p.returncode}: {p.stderr[-300:]!r}")
    fds = p.stdout.split()
    # 0, 1, 2 and the listing's own directory fd
    expect(len(fds) == 4 and fds[:3] == ["0", "1", "2"],
           f"the command inherited fds {fds}, expected 0 1 2 and the listing's own")
    with open(out) as f:
        text = f.read()
    expect("forged" not in text, "the command wrote a forged record into -o")
    recs = json_lines(text, "-o")
    expect(recs and recs[-1]["type"] == "summary", "no summary record last")
    with open(tl) as f:
        expect("forged" not in f.read(), "the command wrote into --timeline")


# --- -o is not truncated before start-up can still fail -----------------------

def t_output_kept_when_start_fails(env):
    out, tl = env.path("previous.jsonl"), env.path("previous.svg")
    for path in (out, tl):
        with open(path, "w") as f:
            f.write("previous\n")
    new_out = env.path("never.jsonl")
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    port = busy.getsockname()[1]
    try:
        for args in (["-j", "-o", out, "--timeline", tl], ["-j", "-o", new_out]):
            p = run_tracer([env.tracer, *args, "--prom-listen", f"127.0.0.1:{port}", "-d", "1"], 60)
            expect(p.returncode != 0, f"a busy port: exit 0 ({args})")
    finally:
        busy.close()
    for path in (out, tl):
        with open(path) as f:
            got = f.read()
        expect(got == "previous\n", f"{os.path.basename(path)} was changed by a failed start: {got[:80]!r}")
    expect(not os.path.exists(new_out), "a failed start left a new empty -o file behind")


def t_output_dev_stderr_appends(env):
    """-o /dev/stderr writes through notifwait's own stderr: no truncation."""
    err, truth = env.path("stderr.txt"), env.path("truth.jsonl")
    with open(err, "w") as f:
        f.write("earlier line\n")
    with open(err, "a") as f:
        p = subprocess.run([env.tracer, "-j", "-o", "/dev/stderr", "--", env.workload,
                            "--iterations", "3", "--truth", truth],
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=f,
                           timeout=60)
    expect(p.returncode == 0, f"exit {p.returncode}")
    with open(err) as f:
        lines = f.read().splitlines()
    expect(lines[0] == "earlier line", f"stderr's file was truncated: {lines[:2]!r}")
    recs = [json.loads(x) for x in lines if x.startswith("{")]
    expect(sum(r["type"] == "notif" for r in recs) == 3, "not 3 notif records on stderr")


# --- every write checked ---------------------------------------------------------

def t_write_error_dev_full(env):
    truth = env.path("truth.jsonl")
    wl = [env.workload, "--iterations", "20", "--truth", truth]
    p = run_tracer([env.tracer, "-j", "-o", "/dev/full", "--", *wl], 60)
    expect(p.returncode == 1, f"-o /dev/full: exit {p.returncode}, expected 1")
    expect(p.stderr.count("cannot write /dev/full") == 1, f"stderr {p.stderr[-400:]!r}")
    # 20 notif records, lost, summary
    expect(lines_lost(p.stderr) == 22, f"lines not written: {lines_lost(p.stderr)}, expected 22")
    with open("/dev/full", "w") as full:
        p = subprocess.run([env.tracer, "-j", "--", *wl], stdin=subprocess.DEVNULL,
                           stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    expect(p.returncode == 1, f"stdout to /dev/full: exit {p.returncode}, expected 1")
    expect(p.stderr.count("cannot write stdout") == 1, f"stderr {p.stderr[-400:]!r}")
    expect(lines_lost(p.stderr) == 22, f"lines not written: {lines_lost(p.stderr)}")


def t_write_error_full_filesystem(env):
    mnt = env.path("small")
    os.mkdir(mnt)
    m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt],
                       capture_output=True, text=True)
    if m.returncode:
        raise Skip(f"cannot mount a tmpfs: {m.stderr.strip()}")
    try:
        out, truth = os.path.join(mnt, "out.jsonl"), env.path("truth.jsonl")
        p = run_tracer([env.tracer, "-j", "-o", out, "--", env.workload, "--iterations", "1000",
                        "--truth", truth], 120)
        expect(p.returncode == 1, f"full filesystem: exit {p.returncode}, expected 1")
        with open(out) as f:
            recs = json_lines(f.read(), "the full file")  # no cut-off line
        lost = lines_lost(p.stderr)
        want = workload_summary(truth)["syscalls"] + 2  # + lost, summary
        expect(lost > 0, "no lost lines reported on a 64k filesystem")
        expect(len(recs) + lost == want,
               f"{len(recs)} written + {lost} reported lost != {want} records")
    finally:
        subprocess.run(["umount", mnt])


# --- whole records ---------------------------------------------------------------

def t_records_whole_with_command_on_same_stdout(env):
    """The COMMAND writes lines to the same stdout (a pipe, then a file)."""
    truth = env.path("truth.jsonl")
    script = ('i=0; while [ $i -lt 20000 ]; do '
              'echo "{\\"cmd\\":$i,\\"pad\\":\\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\\"}"; '
              'i=$((i+1)); done & '
              f'{env.workload} --threads 4 --iterations 500 --truth {truth}; wait')
    cmd = [env.tracer, "-j", "--", "sh", "-c", script]
    out_file = env.path("shared.out")
    for mode in ("pipe", "file"):
        if mode == "pipe":
            p = run_tracer(cmd, 120)
            text = p.stdout
        else:
            with open(out_file, "w") as f:
                p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=f,
                                   stderr=subprocess.PIPE, text=True, timeout=120)
            with open(out_file) as f:
                text = f.read()
        expect(p.returncode == 0, f"{mode}: exit {p.returncode}: {p.stderr[-300:]!r}")
        recs = json_lines(text, f"shared stdout ({mode})")
        cmd_lines = sum("cmd" in r for r in recs)
        notifs = sum(r.get("type") == "notif" for r in recs)
        expect(cmd_lines == 20000, f"{mode}: {cmd_lines} command lines, expected 20000")
        want = workload_summary(truth)["syscalls"]
        expect(notifs == want, f"{mode}: {notifs} notif records, the workload made {want}")


def t_records_flushed_while_running(env):
    """A reader (tail -f) sees whole records before notifwait ends."""
    out, truth = env.path("live.jsonl"), env.path("truth.jsonl")
    proc = subprocess.Popen([env.tracer, "-j", "-o", out, "--", env.workload, "--iterations",
                             "10", "--handle-us", "300000", "--truth", truth],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    seen = ""
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and proc.poll() is None:
            if os.path.exists(out):
                with open(out) as f:
                    seen = f.read()
                if seen.count("\n") >= 2:
                    break
            time.sleep(0.05)
        running = proc.poll() is None
    finally:
        proc.communicate(timeout=60)
    expect(running, "notifwait ended before any record could be seen")
    expect(seen.count("\n") >= 2, f"no records written while running: {seen[:200]!r}")
    expect(seen.endswith("\n"), f"a half record was visible: {seen[-80:]!r}")
    json_lines(seen, "the live file")


# --- escaping of kernel-provided strings -------------------------------------------

# é t é ESC [ 1 m newline 0xff ( x: 14 bytes, a comm keeps 15
WEIRD = b"\xc3\xa9t\xc3\xa9\x1b[1m\n\xff(x"
WEIRD_TEXT = "\u00e9t\u00e9\\033[1m\\n\\377(x"


def weird_workload(env, name=WEIRD):
    link = os.path.join(os.fsencode(env.dir), name)
    if not os.path.lexists(link):
        os.symlink(os.fsencode(env.workload), link)
    return link


def t_comm_escaped_in_every_output(env):
    link = weird_workload(env)
    truth = env.path("truth.jsonl")
    wl = [link, "--iterations", "3", "--truth", os.fsencode(truth)]
    j, s, svg = env.path("j.jsonl"), env.path("s.txt"), env.path("t.svg")
    p = run_tracer([env.tracer, "-j", "-o", j, "--timeline", svg, "--", *wl], 60)
    expect(p.returncode == 0, f"exit {p.returncode}: {p.stderr[-300:]!r}")
    with open(j, encoding="utf-8") as f:  # valid UTF-8 throughout
        recs = json_lines(f.read(), "JSON")
    notifs = [r for r in recs if r["type"] == "notif"]
    expect(len(notifs) == 3, f"{len(notifs)} notif records")
    for r in notifs:
        for k in ("comm", "supervisor_comm"):
            raw = r[k].encode("utf-8", "surrogateescape")
            expect(raw == WEIRD, f"{k} {r[k]!r} does not give back the bytes {WEIRD!r}")
    with open(j, "rb") as f:
        expect(b"\xc3\xa9t\xc3\xa9" in f.read(), "valid UTF-8 not kept as UTF-8 in JSON")
    ET.parse(svg)  # well-formed XML
    with open(svg, encoding="utf-8") as f:
        expect(WEIRD_TEXT in f.read(), "the SVG does not show the escaped comm")

    p = run_tracer([env.tracer, "-o", s, "--", *wl], 60)
    expect(p.returncode == 0, f"text: exit {p.returncode}")
    with open(s, "rb") as f:
        raw = f.read()
    expect(b"\x1b" not in raw and b"\xff" not in raw, "raw ESC or invalid UTF-8 in text output")
    text = raw.decode("utf-8")
    # target and supervisor on each of the 3 lines, no line split by the \n
    expect(text.count(WEIRD_TEXT) == 6, f"escaped comm missing: {text[:400]!r}")
    expect(len(text.splitlines()) == 1 + 3, f"{len(text.splitlines())} stream lines, expected 4")
    # --summary alone: the supervisor table
    p = run_tracer([env.tracer, "--summary", "--", *wl], 60)
    expect(WEIRD_TEXT + "/" in p.stdout and "\x1b" not in p.stdout, "--summary not escaped")


def t_prom_series_keyed_by_exported_labels(env):
    links = [weird_workload(env, n) for n in (b"dup\xff", b"dup\xfe", b"(not received)")]
    truth = env.path("truth.jsonl")
    script = "; ".join(f"'{os.fsdecode(l)}' --iterations 2 --truth {truth}.{i}"
                       for i, l in enumerate(links))
    prom, j = env.path("m.prom"), env.path("j.jsonl")
    p = run_tracer([env.tracer, "-j", "-o", j, "--prom-file", prom, "--", "sh", "-c", script], 60)
    expect(p.returncode == 0, f"exit {p.returncode}: {p.stderr[-300:]!r}")
    with open(prom, encoding="utf-8") as f:
        samples = [x for x in f.read().splitlines() if x.startswith("notifwait_notifications_total")]
    keys = [x.rsplit(" ", 1)[0] for x in samples]
    expect(len(keys) == len(set(keys)), f"duplicate series: {keys}")
    sups = {re.search(r'supervisor="((?:[^"\\]|\\.)*)"', k).group(1) for k in keys}
    for want in ("dup\\\\377", "dup\\\\376", "\\\\050not received)"):
        expect(want in sups, f"no series for supervisor {want}: {sups}")
    expect("(not received)" not in sups, "a real comm merged into the built-in (not received)")


# --- drops counted once ------------------------------------------------------------

def t_drops_counted_once(env):
    out, truth = env.path("d.jsonl"), env.path("truth.jsonl")
    p = run_tracer([env.tracer, "-j", "-o", out, "--max-notifs", "16", "--", env.workload,
                    "--threads", "64", "--iterations", "40", "--handle-us", "200",
                    "--truth", truth], 120)
    expect(p.returncode == 0, f"exit {p.returncode}: {p.stderr[-300:]!r}")
    with open(out) as f:
        recs = json_lines(f.read(), "-o")
    notifs = sum(r["type"] == "notif" for r in recs)
    lost = [r for r in recs if r["type"] == "lost"][0]
    want = workload_summary(truth)["syscalls"]
    expect(lost["knotifs_dropped"] > 0, "nothing dropped: the load did not exceed --max-notifs 16")
    expect(lost["events"] == 0, f"{lost['events']} records lost: the sum cannot be checked")
    expect(notifs + lost["knotifs_dropped"] == want,
           f"{notifs} reported + {lost['knotifs_dropped']} dropped != {want} notifications")


# --- smaller -----------------------------------------------------------------------

def t_max_notifs_large_costs_nothing_up_front(env):
    """--max-notifs is the joiner's limit: nothing preallocated (BPF maps
    once took 4 GiB of kernel memory at the maximum), so no warning."""
    p = run_tracer([env.tracer, "--max-notifs", "4194304", "-d", "0.3", "-o", os.devnull], 120)
    expect(p.returncode == 0, f"exit {p.returncode}: {p.stderr[-300:]!r}")
    expect("warning" not in p.stderr, f"a warning: {p.stderr[-300:]!r}")
    p = run_tracer([env.tracer, "-d", "0.3", "-o", os.devnull], 60)
    expect("warning" not in p.stderr, "a warning at the default size")


def t_stream_header_first(env):
    out, truth = env.path("s.txt"), env.path("truth.jsonl")
    # the interrupted notification's SEND fails (ENOENT)
    p = run_tracer([env.tracer, "-o", out, "--", env.workload, "--signal", "SIGUSR1",
                    "--signal-after-recv-us", "5000", "--handle-us", "30000",
                    "--truth", truth], 60)
    expect(p.returncode == 0, f"exit {p.returncode}")
    with open(out) as f:
        lines = f.read().splitlines()
    expect(lines and lines[0].startswith(HEADER_COLUMNS), f"first line {lines[:1]!r}")
    expect(sum(x.startswith(HEADER_COLUMNS) for x in lines) == 1, "more than one header")
    expect(any("NOTIF_SEND" in x and "failed" in x for x in lines), "no failed SEND line")


def t_bad_json_with_argument(env):
    p = one_line_error(env, ["--json=1"])
    expect("'--json'" in p.stderr and "argument" in p.stderr, f"stderr {p.stderr!r}")


def bad(*args):
    return lambda env: one_line_error(env, list(args))


TESTS = [
    ("hardening_prom_file_refuses_non_regular", t_prom_file_refuses_non_regular),
    ("hardening_prom_file_replaced_by_fifo_while_running",
     t_prom_file_replaced_by_fifo_while_running),
    ("hardening_command_gets_only_std_fds", t_command_gets_only_std_fds),
    ("hardening_output_kept_when_start_fails", t_output_kept_when_start_fails),
    ("hardening_output_dev_stderr_appends", t_output_dev_stderr_appends),
    ("hardening_write_error_dev_full", t_write_error_dev_full),
    ("hardening_write_error_full_filesystem", t_write_error_full_filesystem),
    ("hardening_records_whole_with_command_on_same_stdout",
     t_records_whole_with_command_on_same_stdout),
    ("hardening_records_flushed_while_running", t_records_flushed_while_running),
    ("hardening_comm_escaped_in_every_output", t_comm_escaped_in_every_output),
    ("hardening_prom_series_keyed_by_exported_labels", t_prom_series_keyed_by_exported_labels),
    ("hardening_drops_counted_once", t_drops_counted_once),
    ("hardening_max_notifs_large_costs_nothing_up_front",
     t_max_notifs_large_costs_nothing_up_front),
    ("hardening_stream_header_first", t_stream_header_first),
    ("bad_json_with_argument", t_bad_json_with_argument),
    ("bad_interval_below_poll", bad("-H", "-i", "10ms", "-d", "1")),
    ("bad_pid_kernel_thread", bad("-p", "2", "-d", "1")),
    ("bad_supervisor_kernel_thread", bad("-s", "2", "-d", "1")),
    ("bad_syscall_number_unknown", bad("--syscall", "4095", "-d", "1")),
]
