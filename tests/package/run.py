#!/usr/bin/env python3
"""The package suite: notifwait as a system tool, and its documents.

Checks what `make install`, `make deb` and the README promise, on the real
tree and the real build: the options --help lists against the man page and
the README, every JSON example, the install layout, the completion, the
systemd unit (systemd-analyze verify), the .deb (installed into a scratch
root, run, lintian), the build's dependency check and a build as a non-root
user, the architecture check and the kernel cache lock.

One line per test (PASS/FAIL/SKIP), then "N passed, N failed, N skipped".
  usage: run.py [--build DIR] [-k PATTERN]
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TESTS = []


class Skip(Exception):
    pass


class Fail(Exception):
    pass


def test(fn):
    TESTS.append(fn)
    return fn


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def run(cmd, **kw):
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    kw.setdefault("cwd", ROOT)
    return subprocess.run(cmd, **kw)


def make(*args, **kw):
    return run(["make", "--no-print-directory", *args], **kw)


def need(tool):
    if not shutil.which(tool):
        raise Skip(f"{tool} not installed (make test installs it)")


class Ctx:
    def __init__(self, build):
        self.build = os.path.abspath(build)
        self.bin = os.path.join(self.build, "notifwait")
        self.tmp = tempfile.mkdtemp(prefix="nw-package-")

    def help_long_options(self):
        out = run([self.bin, "--help"]).stdout
        opts = set(re.findall(r"^\s+(?:-\w, )?(--[a-z0-9][a-z0-9-]*)", out, re.M))
        check(len(opts) > 10, f"--help lists only {sorted(opts)}")
        return opts


def man_long_options():
    """Long options the man page's OPTIONS section describes (.TP items)."""
    text = open(os.path.join(ROOT, "man", "notifwait.8")).read()
    m = re.search(r"^\.SH OPTIONS\n(.*?)^\.SH ", text, re.M | re.S)
    check(m, "man/notifwait.8 has no OPTIONS section")
    opts = set()
    lines = m.group(1).split("\n")
    for i, line in enumerate(lines):
        if line == ".TP" and i + 1 < len(lines):
            item = lines[i + 1].replace("\\-", "-")
            opts |= set(re.findall(r"(--[a-z0-9][a-z0-9-]*)", item))
    return opts


def readme_long_options():
    """Long options in the first column of the README's options table."""
    opts = set()
    in_table = False
    for line in open(os.path.join(ROOT, "README.md")):
        if line.startswith("| option |"):
            in_table = True
            continue
        if in_table:
            if not line.startswith("|"):
                break
            first = line.split("|")[1]
            opts |= set(re.findall(r"(--[a-z0-9][a-z0-9-]*)", first))
    check(opts, "README.md has no '| option |' table")
    return opts


def compare(doc, documented, helped):
    missing = sorted(helped - documented)
    extra = sorted(documented - helped)
    check(not missing, f"{doc} lacks options of --help: {missing}")
    check(not extra, f"{doc} documents options --help does not have: {extra}")


@test
def man_page_options_match_help(c):
    compare("man/notifwait.8", man_long_options(), c.help_long_options())


@test
def readme_options_match_help(c):
    compare("README.md's options table", readme_long_options(), c.help_long_options())


@test
def man_page_renders_without_warnings(c):
    need("man")
    r = run(["man", "--warnings", "-E", "UTF-8", "-l", "-Tutf8", "-Z",
             os.path.join(ROOT, "man", "notifwait.8")],
            env={**os.environ, "MANROFFSEQ": "", "MANWIDTH": "80", "LC_ALL": "C.UTF-8"})
    check(r.returncode == 0, f"man exited {r.returncode}: {r.stderr.strip()}")
    check(not r.stderr.strip(), f"man warns: {r.stderr.strip()}")
    for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "FIELDS",
                    "EXAMPLES", "OVERHEAD", "SEE ALSO"):
        check(re.search(rf"^\.SH {section}$", open(os.path.join(ROOT, "man", "notifwait.8")).read(), re.M),
              f"man/notifwait.8 lacks the section {section}")


def fenced_blocks(path):
    """(info string, first line number, text) of each ``` block."""
    blocks, info, start, body = [], None, 0, []
    for n, line in enumerate(open(path), 1):
        if line.startswith("```"):
            if info is None:
                info, start, body = line[3:].strip(), n + 1, []
            else:
                blocks.append((info, start, "".join(body)))
                info = None
        elif info is not None:
            body.append(line)
    return blocks


@test
def json_examples_parse(c):
    """Every ```json block is one JSON value; every ```jsonl block (and a
    ```json block that is not one value) is JSON Lines."""
    files = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    seen = 0
    for path in files:
        for info, start, body in fenced_blocks(path):
            if info not in ("json", "jsonl", "jsonlines"):
                continue
            where = f"{os.path.relpath(path, ROOT)}:{start}"
            if info == "json":
                try:
                    json.loads(body)
                    seen += 1
                    continue
                except json.JSONDecodeError:
                    pass  # JSON Lines then
            for i, line in enumerate(body.split("\n")):
                if not line.strip():
                    continue
                try:
                    json.loads(line)
                except json.JSONDecodeError as e:
                    raise Fail(f"{where}+{i}: not JSON ({e}): {line[:80]}")
            seen += 1
    check(seen >= 2, f"only {seen} JSON examples in the README and docs/")


@test
def readme_short_and_links_resolve(c):
    readme = open(os.path.join(ROOT, "README.md")).read()
    n = readme.count("\n")
    check(n <= 300, f"README.md has {n} lines (at most 300: the rest belongs in docs/)")
    m = re.search(r"<!-- overhead:begin -->\n(.*?)<!-- overhead:end -->", readme, re.S)
    check(m and "|---|" in m.group(1), "README.md: no overhead table between the overhead markers")
    files = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    broken = []
    for path in files:
        for target in re.findall(r"\]\(([^)\s]+)\)", open(path).read()):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            target = target.split("#")[0]
            if not os.path.exists(os.path.join(os.path.dirname(path), target)):
                broken.append(f"{os.path.relpath(path, ROOT)} -> {target}")
    check(not broken, f"links to missing files: {broken}")


def installed_files(prefix):
    return {
        "sbin/notifwait": 0o755,
        "share/man/man8/notifwait.8": 0o644,
        "share/notifwait/notifwait.json": 0o644,
        "share/notifwait/notifwait.default": 0o644,
        "share/bash-completion/completions/notifwait": 0o644,
        "lib/systemd/system/notifwait.service": 0o644,
    }


@test
def install_layout_and_uninstall(c):
    for prefix in ("/usr/local", "/usr"):
        dest = tempfile.mkdtemp(dir=c.tmp)
        r = make("install", f"BUILD={c.build}", f"DESTDIR={dest}", f"PREFIX={prefix}")
        check(r.returncode == 0, f"make install PREFIX={prefix} failed: {r.stderr.strip()[-300:]}")
        want = installed_files(prefix)
        got = {}
        for d, _, files in os.walk(dest):
            for f in files:
                p = os.path.join(d, f)
                got[os.path.relpath(p, dest + prefix)] = os.stat(p).st_mode & 0o777
        check(got == want, f"PREFIX={prefix}: installed {got}, expected {want}")
        bin_ = os.path.join(dest + prefix, "sbin", "notifwait")
        v = run([bin_, "--version"])
        check(v.returncode == 0 and v.stdout.startswith("notifwait "), f"installed --version: {v}")
        unit = open(os.path.join(dest + prefix, "lib/systemd/system/notifwait.service")).read()
        check(f"ExecStart={prefix}/sbin/notifwait " in unit, "the unit's ExecStart is not PREFIX/sbin/notifwait")
        r = make("uninstall", f"BUILD={c.build}", f"DESTDIR={dest}", f"PREFIX={prefix}")
        check(r.returncode == 0, f"make uninstall failed: {r.stderr.strip()}")
        left = [os.path.join(d, f) for d, _, fs in os.walk(dest) for f in fs]
        check(not left, f"make uninstall left {left}")


@test
def bash_completion_completes_help_options(c):
    need("bash")
    loader = "/usr/share/bash-completion/bash_completion"
    if not os.path.exists(loader):
        raise Skip("bash-completion not installed (make test installs it)")
    r = make(f"BUILD={c.build}", f"{c.build}/notifwait.bash")
    check(r.returncode == 0, f"make {c.build}/notifwait.bash: {r.stderr.strip()}")
    comp = os.path.join(c.build, "notifwait.bash")

    def complete(*words):
        script = (f"source {loader}; source {comp}; COMP_WORDS=({' '.join(words)}); "
                  f"COMP_CWORD={len(words) - 1}; COMP_LINE='{' '.join(words)}'; "
                  f"COMP_POINT=${{#COMP_LINE}}; _notifwait; printf '%s\\n' \"${{COMPREPLY[@]}}\"")
        r = run(["bash", "-c", script])
        check(r.returncode == 0, f"completion of {words}: {r.stderr.strip()}")
        return set(r.stdout.split())

    helped = c.help_long_options()
    got = complete("notifwait", "--")
    check(helped <= got, f"'notifwait --<TAB>' lacks {sorted(helped - got)}")
    got = complete("notifwait", "--backend", "f")
    check(got == {"fentry"}, f"'--backend f<TAB>' gave {got}")
    # an option that takes an argument: no option is offered for it
    got = complete("notifwait", "--syscall", "-")
    check(not got, f"'--syscall -<TAB>' offered {got}")


@test
def systemd_unit_verifies(c):
    need("systemd-analyze")
    prefix = os.path.join(c.tmp, "unitprefix")
    r = make("install", f"BUILD={c.build}", f"PREFIX={prefix}")
    check(r.returncode == 0, f"make install PREFIX={prefix}: {r.stderr.strip()}")
    unit = os.path.join(prefix, "lib/systemd/system/notifwait.service")
    env = {**os.environ, "MANPATH": os.path.join(prefix, "share/man")}

    def verify(path):
        r = run(["systemd-analyze", "verify", path], env=env, cwd=c.tmp)
        return r.returncode, (r.stdout + r.stderr).strip()

    rc, out = verify(unit)
    check(rc == 0 and not out, f"systemd-analyze verify: exit {rc}: {out}")
    # The check can fail: an unknown directive is reported.
    bad = os.path.join(os.path.dirname(unit), "notifwait-bad.service")
    with open(bad, "w") as f:
        f.write(open(unit).read().replace("ProtectHome=yes", "ProtectHome=yes\nProtectHomme=yes"))
    rc, out = verify(bad)
    check(out, "systemd-analyze verify did not notice an unknown directive")
    text = open(unit).read()
    for directive in ("CapabilityBoundingSet=CAP_BPF CAP_PERFMON", "NoNewPrivileges=yes",
                      "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes",
                      "Restart=on-failure", "EnvironmentFile=-/etc/default/notifwait",
                      "--prom-listen 127.0.0.1:9464"):
        check(directive in text, f"the unit lacks {directive}")


@test
def unit_capabilities_suffice(c):
    """The unit's bounding set, CAP_BPF CAP_PERFMON, is enough to trace here."""
    need("setpriv")
    if os.geteuid() != 0:
        raise Skip("needs root")
    r = run(["setpriv", "--bounding-set=-all,+bpf,+perfmon", "--inh-caps=-all",
             c.bin, "--summary", "-d", "0.5"], timeout=60)
    check(r.returncode == 0 and "notifwait: tracing" in r.stderr,
          f"with CAP_BPF CAP_PERFMON only: exit {r.returncode}: {r.stderr.strip()[-300:]}")
    # and the test can fail: without CAP_PERFMON no backend starts
    r = run(["setpriv", "--bounding-set=-all,+bpf", "--inh-caps=-all",
             c.bin, "--summary", "-d", "0.5"], timeout=60)
    check(r.returncode != 0, "CAP_BPF alone traced: the unit's set is larger than needed?")


@test
def deb_installs_and_runs(c):
    for tool in ("dpkg-deb", "dpkg-shlibdeps", "dpkg"):
        need(tool)
    r = make("deb", f"BUILD={c.build}")
    check(r.returncode == 0, f"make deb: {r.stderr.strip()[-400:]}")
    debs = glob.glob(os.path.join(c.build, "deb", "notifwait_*.deb"))
    check(len(debs) == 1, f"make deb made {debs}")
    deb = debs[0]
    depends = run(["dpkg-deb", "-f", deb, "Depends"]).stdout.strip()
    names = {d.strip().split()[0] for d in depends.split(",") if d.strip()}
    for lib in ("libbpf1", "libseccomp2", "libmicrohttpd12", "libc6"):
        check(lib in names, f"Depends lacks {lib}: {depends}")
    check(not [n for n in names if n.endswith("-dev")], f"Depends on -dev packages: {depends}")
    # Installed by dpkg into a scratch root (its own database); the
    # dependencies are the host's (checked installed here).
    root = os.path.join(c.tmp, "debroot")
    os.makedirs(os.path.join(root, "var/lib/dpkg/info"))
    os.makedirs(os.path.join(root, "var/lib/dpkg/updates"))
    open(os.path.join(root, "var/lib/dpkg/status"), "w").close()
    r = run(["dpkg", f"--root={root}", "--force-depends", "--force-not-root",
             "--force-script-chrootless", "--log=/dev/null", "-i", deb])
    check(r.returncode == 0, f"dpkg --root -i: {r.stderr.strip()[-400:]}")
    for name in names:
        s = run(["dpkg-query", "-W", "-f=${db:Status-Abbrev}", name]).stdout
        check(s.startswith("ii"), f"dependency {name} is not installed on this host")
    v = run([os.path.join(root, "usr/sbin/notifwait"), "--version"])
    want = run([c.bin, "--version"]).stdout
    check(v.returncode == 0 and v.stdout == want, f"installed --version: {v.stdout!r} {v.stderr!r}, want {want!r}")
    for path in ("lib/systemd/system/notifwait.service", "etc/default/notifwait",
                 "usr/share/man/man8/notifwait.8.gz", "usr/share/doc/notifwait/copyright",
                 "usr/share/bash-completion/completions/notifwait",
                 "usr/share/notifwait/notifwait.json"):
        check(os.path.exists(os.path.join(root, path)), f"the .deb did not install /{path}")
    unit = open(os.path.join(root, "lib/systemd/system/notifwait.service")).read()
    check("ExecStart=/usr/sbin/notifwait " in unit, "the .deb's unit does not run /usr/sbin/notifwait")
    r = run(["dpkg", f"--root={root}", "--force-not-root", "--force-script-chrootless",
             "--log=/dev/null", "-r", "notifwait"])
    check(r.returncode == 0 and not os.path.exists(os.path.join(root, "usr/sbin/notifwait")),
          f"dpkg -r: {r.stderr.strip()}")
    c.deb = deb


@test
def lintian_no_errors(c):
    need("lintian")
    r = make("deb", f"BUILD={c.build}")
    check(r.returncode == 0, f"make deb: {r.stderr.strip()[-300:]}")
    deb = glob.glob(os.path.join(c.build, "deb", "notifwait_*.deb"))[0]
    r = run(["lintian", "--tag-display-limit", "0", deb], timeout=600)
    errors = [l for l in r.stdout.splitlines() if l.startswith("E:")]
    check(not errors, "lintian: " + "; ".join(errors))
    check(r.returncode in (0, 1) and "notifwait" in r.stdout + r.stderr or r.returncode == 0,
          f"lintian exit {r.returncode}: {r.stderr.strip()[-200:]}")
    warnings = [l for l in r.stdout.splitlines() if l.startswith("W:")]
    if warnings:
        print("  lintian warnings: " + "; ".join(warnings))


def fake_tools(d, names):
    """Stand-ins for NAMES that record their call in d/calls and fail."""
    os.makedirs(d, exist_ok=True)
    for name in names:
        p = os.path.join(d, name)
        with open(p, "w") as f:
            f.write(f"#!/bin/sh\necho \"{name} $*\" >> {d}/calls\nexit 1\n")
        os.chmod(p, 0o755)
    return os.path.join(d, "calls")


@test
def missing_build_dependency_is_one_line(c):
    fake = os.path.join(c.tmp, "fakebin")
    calls = fake_tools(fake, ["apt-get", "apt", "sudo"])
    env = {**os.environ, "PATH": f"{fake}:{os.environ['PATH']}"}
    r = make(f"BUILD={c.tmp}/nobuild", "DEB_PACKAGES=make nw-no-such-package", env=env)
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    check(r.returncode != 0, "make with a missing package succeeded")
    check(len(lines) == 1 and "nw-no-such-package" in lines[0] and "make deps" in lines[0],
          f"expected one line naming the package and 'make deps', got {lines}")
    check("make" not in lines[0].split("missing Debian packages:")[1].split(";")[0].split(),
          f"an installed package was named missing: {lines[0]}")
    if os.path.exists(calls):
        raise Fail(f"make called {open(calls).read().strip()}")
    check(not os.path.exists(f"{c.tmp}/nobuild"), "make started building with a package missing")


@test
def unsupported_architecture_is_one_line(c):
    fake = os.path.join(c.tmp, "fakeuname")
    os.makedirs(fake, exist_ok=True)
    results = {}
    for machine in ("riscv64", "aarch64"):
        with open(os.path.join(fake, "uname"), "w") as f:
            f.write(f"#!/bin/sh\n[ \"$1\" = -m ] && echo {machine} && exit 0\nexec /bin/uname \"$@\"\n")
        os.chmod(os.path.join(fake, "uname"), 0o755)
        env = {**os.environ, "PATH": f"{fake}:{os.environ['PATH']}"}
        r = make("-n", f"BUILD={c.tmp}/archbuild", env=env)
        lines = [l for l in r.stderr.splitlines() if l.strip()]
        results[machine] = (r.returncode, lines)
        if machine == "aarch64" and os.path.exists(os.path.join(ROOT, "vmlinux/arm64/vmlinux.h")):
            check(r.returncode == 0, f"aarch64 with vmlinux/arm64: {lines}")
            continue
        check(r.returncode != 0 and len(lines) == 1 and f"unsupported architecture {machine}" in lines[0],
              f"uname -m {machine}: exit {r.returncode}, {lines}")
    r = make("-n", f"BUILD={c.tmp}/archbuild")
    check(r.returncode == 0, f"make -n on this machine: {r.stderr.strip()}")


@test
def builds_as_non_root_without_apt(c):
    """A fresh copy of the tree, built by a user who is not root, with apt,
    apt-get and sudo replaced by recorders: it builds and never calls them."""
    if os.geteuid() != 0:
        raise Skip("needs root to switch to another user")
    need("setpriv")
    uid = gid = 65534  # nobody
    work = tempfile.mkdtemp(dir=c.tmp)
    files = run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"]).stdout
    if not files:
        raise Skip("not a git checkout")
    for rel in files.split("\0"):
        if not rel or not os.path.isfile(os.path.join(ROOT, rel)):
            continue
        dst = os.path.join(work, "tree", rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, rel), dst)
    fake = os.path.join(work, "fakebin")
    calls = fake_tools(fake, ["apt-get", "apt", "sudo"])
    for d, dirs, fs in os.walk(work):
        for x in dirs + fs:
            os.chown(os.path.join(d, x), uid, gid)
    os.chown(work, uid, gid)
    os.chmod(c.tmp, 0o755)
    os.chmod(work, 0o755)
    env = {"PATH": f"{fake}:/usr/local/bin:/usr/bin:/bin", "HOME": work, "LC_ALL": "C"}
    start = time.monotonic()
    r = run(["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups",
             "make", "-C", os.path.join(work, "tree"), "-j2"], env=env, timeout=1200)
    took = time.monotonic() - start
    check(r.returncode == 0, f"make as uid {uid}: exit {r.returncode}: {r.stderr.strip()[-400:]}")
    if os.path.exists(calls):
        raise Fail(f"make called {open(calls).read().strip()}")
    v = run([os.path.join(work, "tree/build/notifwait"), "--version"])
    check(v.returncode == 0, f"the non-root build's --version: {v.stderr}")
    print(f"  non-root build in {took:.0f} s")


@test
def kernel_cache_lock_serialises_builds(c):
    """Two `make kernel` at once on one cache: the build script (a stand-in
    that holds until released) runs once; the second make says it waits,
    and once released finds the kernel built."""
    need("flock")
    cache = os.path.join(c.tmp, "kcache")
    os.makedirs(cache)
    release = os.path.join(c.tmp, "release-build")
    script = os.path.join(c.tmp, "fake-build-kernel.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\n"
                f"echo start >> {cache}/events\n"
                f"i=0; while [ ! -e {release} ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done\n"
                "mkdir -p \"$2\" && touch \"$2/.nw-built\"\n"
                f"echo end >> {cache}/events\n")
    os.chmod(script, 0o755)
    tarball = os.path.join(c.tmp, "linux-source-fake.tar.xz")
    open(tarball, "w").close()
    args = ["make", "--no-print-directory", "-f", "kernel-patches/kernel.mk", "kernel",
            f"KERNEL_CACHE={cache}", f"KERNEL_BUILD_SCRIPT={script}", f"KERNEL_TARBALL={tarball}"]
    popen = lambda: subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
    events = os.path.join(cache, "events")
    first = popen()
    deadline = time.monotonic() + 60
    while not os.path.exists(events) and time.monotonic() < deadline:
        time.sleep(0.1)
    second = popen()
    out2 = []
    try:
        check(os.path.exists(events), "the first make never started the build script")
        for line in second.stdout:  # until it waits for the lock
            out2.append(line)
            if "waiting for" in line:
                break
        check(any("waiting for" in l for l in out2),
              f"the second make did not wait for the lock: {''.join(out2).strip()}")
    finally:
        open(release, "w").close()
    out2.append(second.communicate(timeout=120)[0])
    out1 = first.communicate(timeout=120)[0]
    out2 = "".join(out2)
    check(first.returncode == 0 and second.returncode == 0,
          f"make kernel: exit {first.returncode}: {out1[-200:]} / {second.returncode}: {out2[-200:]}")
    ran = open(events).read().split()
    check(ran == ["start", "end"], f"the build script ran as {ran}")
    check("built meanwhile" in out2, f"the second make did not find it built: {out2.strip()}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("-k", dest="pattern", default="")
    args = ap.parse_args()
    c = Ctx(args.build)
    if not os.access(c.bin, os.X_OK):
        print(f"package: {c.bin} not built (make)")
        print("0 passed, 1 failed, 0 skipped")
        return 1
    counts = {"PASS": 0, "FAIL": 0, "SKIP": 0}
    try:
        for fn in TESTS:
            name = fn.__name__
            if args.pattern and args.pattern not in name:
                continue
            try:
                fn(c)
                status, line = "PASS", f"PASS {name}"
            except Skip as e:
                status, line = "SKIP", f"SKIP {name}: {e}"
            except Fail as e:
                status, line = "FAIL", f"FAIL {name}: {e}"
            except Exception as e:  # a broken test is a failure, with its cause
                status, line = "FAIL", f"FAIL {name}: test error {type(e).__name__}: {e}"
            counts[status] += 1
            print(line, flush=True)
    finally:
        shutil.rmtree(c.tmp, ignore_errors=True)
    print(f"{counts['PASS']} passed, {counts['FAIL']} failed, {counts['SKIP']} skipped")
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
