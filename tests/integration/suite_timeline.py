"""--timeline: the SVG/HTML picture of a real run, checked element by
element against the JSON Lines of the same run (itself checked against the
workload's ground truth), and rendered to PNG by Chromium when installed."""

import os
import shutil
import struct
import subprocess
import tempfile
import xml.etree.ElementTree as ET
import zlib

from checks import Checker
from scenarios import check_header, expect, run_tracer
from truth import Fail, Skip, Trace, Truth

SVG = "{http://www.w3.org/2000/svg}"
CHROMIUM = "/usr/bin/chromium"


# The full checks against the truth, killable switch and effects included.
TruthChecker = Checker


def run_timeline(env, wargs, targs, tag="run", timeout=120, check=True):
    out, truth_path = env.path(f"{tag}.notifwait.jsonl"), env.path(f"{tag}.truth.jsonl")
    for f in (out, truth_path):
        if os.path.exists(f):
            os.unlink(f)
    cmd = [env.tracer, "-j", "-o", out, *targs, "--", env.workload, *wargs,
           "--truth", truth_path]
    p = run_tracer(cmd, timeout)
    check_header(p.stderr)
    expect(p.returncode == 0, f"tracer exited {p.returncode}: {p.stderr[-300:]!r}")
    trace, truth = Trace(out), Truth(truth_path)
    if check:
        TruthChecker(trace, truth).check_all()
    return trace, truth


def load_svg(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if text.startswith("<!DOCTYPE html>"):
        start, end = text.index("<svg "), text.index("</svg>") + len("</svg>")
        svg_text = text[start:end]
    else:
        svg_text = text
    try:
        root = ET.fromstring(svg_text)
    except ET.ParseError as e:
        raise Fail(f"{path} is not well-formed XML: {e}")
    return text, root


def classes(el):
    return el.get("class", "").split()


def groups(root, cls):
    return [g for g in root.iter(f"{SVG}g") if cls in classes(g)]


def signal_class(effect):
    return effect if effect in ("deferred", "interrupted") else "other"


def check_structure(root, trace, all_notifs=True, window=None):
    """Every element of the picture is a record of the JSON, and (all_notifs)
    every record is drawn; returns the notif groups by id."""
    notifs = {n["id"]: n for n in trace.notifs}
    drawn = {}
    for g in groups(root, "notif"):
        nid = int(g.get("data-id"))
        expect(nid in notifs, f"notif element {nid} is not in the JSON")
        expect(nid not in drawn, f"notif {nid} drawn twice")
        drawn[nid] = g
        n = notifs[nid]
        expect(int(g.get("data-tid")) == n["target_tid"], f"notif {nid}: data-tid")
        expect(g.get("data-outcome") == n["outcome"], f"notif {nid}: data-outcome")
        sigs = [s for s in g.iter(f"{SVG}g") if "signal" in classes(s)]
        expect(len(sigs) == len(n["signals"]), f"notif {nid}: {len(sigs)} signal elements, "
               f"{len(n['signals'])} in the JSON")
        for s in sigs:
            js = n["signals"][int(s.get("data-index"))]
            expect(classes(s) == ["signal", signal_class(js["effect"])]
                   and s.get("data-effect") == js["effect"]
                   and int(s.get("data-sig")) == js["sig"]
                   and int(s.get("data-sent-ns")) == (js["t_sent_ns"] or 0)
                   and int(s.get("data-delivered-ns")) == (js["t_delivered_ns"] or 0),
                   f"notif {nid}: signal element {s.attrib} vs JSON {js}")
        ticks = [x for x in g.iter(f"{SVG}line") if "addfd" in classes(x)]
        expect(len(ticks) == len(n["addfd"]), f"notif {nid}: {len(ticks)} addfd ticks, "
               f"{len(n['addfd'])} in the JSON")
        check_bars(g, n, window)
    if all_notifs:
        expect(set(drawn) == set(notifs), f"{len(notifs) - len(drawn)} notifications of the "
               "JSON not drawn")
    return drawn


def check_bars(g, n, window):
    """Bars in time order, each present when its span exists (and overlaps
    the window), none for a span that does not."""
    rects = {classes(r)[0]: r for r in g.iter(f"{SVG}rect")}

    def spans_drawn(spans):
        return any(a is not None and b is not None and a <= b for a, b in spans.values())

    t_n, t_r, t_k = n["t_notify_ns"], n["t_recv_ns"], n["t_killable_ns"]
    t_p = n["t_reply_ns"] if n["reply"] is not None else None
    end = n["t_return_ns"]
    spans = {"queue": (t_n if t_n is not None else t_r, t_r if t_r is not None else end)}
    if t_r is not None:
        spans["handle-interruptible"] = (t_r, t_k if t_k is not None else (t_p or end))
        if t_k is not None:
            spans["handle-killable"] = (t_k, t_p or end)
    if t_p is not None:
        spans["wake"] = (t_p, end)
    for cls, (a, b) in spans.items():
        if a is None or b is None or b < a:
            continue
        if window and (b < window[0] or a > window[1]):
            expect(cls not in rects, f"notif {n['id']}: {cls} bar outside the window")
            continue
        expect(cls in rects, f"notif {n['id']}: no {cls} bar ({sorted(rects)})")
    extra = set(rects) - set(spans)
    expect(not extra, f"notif {n['id']}: bars {extra} for spans that did not happen")
    xs = [float(rects[c].get("x")) for c in ("queue", "handle-interruptible",
                                             "handle-killable", "wake") if c in rects]
    expect(xs == sorted(xs), f"notif {n['id']}: bars out of time order {xs}")
    ys = {rects[c].get("y") for c in rects}
    # seen only at its exit, a notification has no known span and no bar
    expect(len(ys) == 1 or not spans_drawn(spans), f"notif {n['id']}: bars on different lanes {ys}")


def check_lanes(root, trace, truth, drawn):
    tids = {int(g.get("data-tid")) for g in groups(root, "lane") if "target" in classes(g)}
    sups = {int(g.get("data-pid")) for g in groups(root, "lane") if "supervisor" in classes(g)}
    notifs = [n for n in trace.notifs if n["id"] in drawn]
    want_tids = {n["target_tid"] for n in notifs}
    want_sups = {n["supervisor_pid"] for n in notifs if n["supervisor_pid"] is not None}
    expect(tids == want_tids, f"target lanes {sorted(tids)}, distinct target tids "
           f"{sorted(want_tids)}")
    expect(sups == want_sups, f"supervisor lanes {sorted(sups)}, supervisors {sorted(want_sups)}")
    truth_tids = {a["tid"] for a in truth.ev("syscall")}
    expect(want_tids <= truth_tids, "a lane for a thread the workload does not have")
    # each notif sits on its thread's lane
    lane_y = {}
    for g in groups(root, "lane"):
        if "target" in classes(g):
            bg = g.find(f"{SVG}rect")
            lane_y[int(g.get("data-tid"))] = float(bg.get("y"))
    for nid, g in drawn.items():
        r = g.find(f"{SVG}rect")
        if r is not None:
            y = float(r.get("y")) - lane_y[int(g.get("data-tid"))]
            expect(0 <= y < 26, f"notif {nid}: bar at {y} px from its lane")


def t_timeline_structure_demo(env):
    """The demo: deferred and interrupted signals, addfd, four supervisors.
    Its records against the truth are t_demo's business (scenarios.py); here
    each record must be drawn, and nothing lost."""
    svg = env.path("demo.svg")
    trace, truth = run_timeline(env, ["--demo"], ["--timeline", svg], timeout=60,
                                check=False)
    attempts = len(truth.ev("syscall"))
    # at most 1% unseen: interrupted before anyone could see them (checks.py)
    expect(attempts - max(1, attempts // 100) <= len(trace.notifs) <= attempts,
           f"{len(trace.notifs)} notif records, the truth has {attempts} syscall attempts")
    text, root = load_svg(svg)
    expect(root.tag == f"{SVG}svg", f"root element {root.tag}")
    drawn = check_structure(root, trace)
    check_lanes(root, trace, truth, drawn)
    effects = {s["effect"] for n in trace.notifs for s in n["signals"]}
    expect({"deferred", "interrupted"} <= effects, f"the demo has effects {effects}")
    expect(groups(root, "sup-handle"), "no supervisor handling bars")
    expect(any(n["addfd"] for n in trace.notifs) and root.find(f".//{SVG}line[@class='addfd']")
           is not None, "no addfd ticks")
    expect("<script" not in text and "@import" not in text and "url(" not in text,
           "the SVG loads something external")


def t_timeline_html_slowest(env):
    page = env.path("slow.html")
    trace, truth = run_timeline(env, ["--killable", "--signal", "SIGUSR1",
                                      "--signal-after-recv-us", "1000",
                                      "--iterations", "12", "--handle-us", "3000"],
                                ["--timeline", page, "--timeline-slowest", "5"])
    text, root = load_svg(page)
    expect(text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>"),
           "not an HTML page")
    expect("<script" not in text and "<link" not in text and "src=" not in text,
           "the page loads something external")
    drawn = check_structure(root, trace, all_notifs=False)
    ranked = sorted(trace.notifs, key=lambda n: n["total_ns"] or 0, reverse=True)
    expect(len(trace.notifs) > 5, f"only {len(trace.notifs)} notifications")
    expect(len(drawn) == 5, f"{len(drawn)} drawn, expected the 5 slowest")
    fifth = ranked[4]["total_ns"]
    for n in trace.notifs:
        if n["total_ns"] > fifth:
            expect(n["id"] in drawn, f"notif {n['id']} ({n['total_ns']} ns) is among the 5 "
                   "slowest but not drawn")
        elif n["total_ns"] < fifth:
            expect(n["id"] not in drawn, f"notif {n['id']} ({n['total_ns']} ns) drawn but "
                   "not among the 5 slowest")
    check_lanes(root, trace, truth, drawn)


def t_timeline_window(env):
    svg = env.path("window.svg")
    trace, truth = run_timeline(env, ["--killable", "--iterations", "40", "--handle-us",
                                      "5000"], ["--timeline", svg, "--timeline-window",
                                                "0.1:0.2"])
    _, root = load_svg(svg)
    start = int(root.get("data-start-ns"))
    lo, hi = start + 100000000, start + 200000000
    expect((int(root.get("data-from-ns")), int(root.get("data-to-ns"))) == (lo, hi),
           "the axis is not the window")
    drawn = check_structure(root, trace, all_notifs=False, window=(lo, hi))
    inside = {n["id"] for n in trace.notifs
              if n["t_return_ns"] >= lo and (n["t_notify_ns"] or n["t_recv_ns"]) <= hi}
    expect(inside and set(drawn) == inside, f"drawn {len(drawn)}, {len(inside)} overlap "
           f"the window; extra {sorted(set(drawn) - inside)[:3]}, missing "
           f"{sorted(inside - set(drawn))[:3]}")
    expect(len(inside) < len(trace.notifs), "every notification overlaps the window")


def png_pixels(path, rows):
    """RGB(A) rows 0..rows-1 of an 8-bit PNG, unfiltered (no PIL here)."""
    with open(path, "rb") as f:
        data = f.read()
    expect(data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG")
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype = ihdr[:4]
    expect(depth == 8 and ctype in (2, 6), f"PNG depth {depth} colour type {ctype}")
    bpp = 3 if ctype == 2 else 4
    raw, stride, prev, out = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
    for y in range(min(rows, h)):
        ft, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if ft == 1:
                line[i] = (line[i] + a) & 255
            elif ft == 2:
                line[i] = (line[i] + b) & 255
            elif ft == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ft == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out.append(line)
        prev = line
    return (w, h), bpp, out


def t_timeline_png_chromium(env):
    if not os.access(CHROMIUM, os.X_OK):
        raise Skip(f"{CHROMIUM} not installed (Debian package chromium, several hundred MB: "
                   "not installed by the test)")
    svg, png = env.path("png.svg"), env.path("png.png")
    trace, truth = run_timeline(env, ["--killable", "--sigurg-period-us", "10000",
                                      "--handle-us", "30000", "--iterations", "8"],
                                ["--timeline", svg])
    _, root = load_svg(svg)
    drawn = check_structure(root, trace)
    profile = tempfile.mkdtemp(prefix="nw-chromium.")
    try:
        p = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                            "--disable-quic", "--no-first-run",
                            "--disable-background-networking", "--disable-component-update",
                            "--disable-sync", f"--user-data-dir={profile}",
                            f"--screenshot={png}", "--window-size=1400,700",
                            f"file://{svg}"], capture_output=True, text=True, timeout=120)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    expect(p.returncode == 0 and os.path.exists(png), f"chromium exited {p.returncode}: "
           f"{p.stderr[-300:]!r}")
    # the widest killable-handle bar must be teal (#2a9d8f) in the screenshot
    bars = [r for g in drawn.values() for r in g.iter(f"{SVG}rect")
            if classes(r) == ["handle-killable"]]
    expect(bars, "no handle-killable bar to look at")
    bar = max(bars, key=lambda r: float(r.get("width")))
    x = int(float(bar.get("x")) + float(bar.get("width")) / 2)
    y = int(float(bar.get("y")) + float(bar.get("height")) / 2)
    (w, h), bpp, rows = png_pixels(png, y + 1)
    expect((w, h) == (1400, 700), f"screenshot {w}x{h}")
    px = tuple(rows[y][x * bpp:x * bpp + 3])
    expect(all(abs(a - b) <= 8 for a, b in zip(px, (0x2a, 0x9d, 0x8f))),
           f"pixel ({x},{y}) of a handle-killable bar is {px}, not teal")
    bg = tuple(rows[5][1390 * bpp:1390 * bpp + 3])
    expect(bg == (255, 255, 255), f"background pixel {bg} is not white")


def t_timeline_bad_path(env):
    for args, want in ((["--timeline", "/nonexistent/x.svg", "-d", "1"], "cannot write"),
                       (["--timeline", "x.png"], "want FILE.svg or FILE.html"),
                       (["--timeline-slowest", "3"], "need --timeline")):
        p = subprocess.run([env.tracer, *args], capture_output=True, text=True, timeout=30)
        lines = p.stderr.splitlines()
        expect(p.returncode != 0 and len(lines) == 1 and want in lines[0],
               f"{args}: exit {p.returncode}, stderr {p.stderr!r}")


TESTS = [(f.__name__[2:], f) for f in (
    t_timeline_structure_demo, t_timeline_html_slowest, t_timeline_window,
    t_timeline_png_chromium, t_timeline_bad_path,
)]
