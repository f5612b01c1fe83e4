"""Bad input: each must give exactly one line on stderr and a non-zero
exit status that is not a signal (no crash, no sanitizer noise)."""

import os
import shutil
import subprocess

from truth import Fail

NOISE = ("Sanitizer", "runtime error", "Segmentation", "core dumped", "libbpf:")


def one_line_error(env, args, prefix=(), timeout=20):
    cmd = [*prefix, env.tracer, *args]
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        raise Fail(f"hangs: {' '.join(cmd)}")
    lines = p.stderr.splitlines()
    if p.returncode < 0:
        raise Fail(f"killed by signal {-p.returncode}")
    if p.returncode == 0:
        raise Fail(f"exit 0; stderr {p.stderr!r}")
    if len(lines) != 1 or not lines[0].strip():
        raise Fail(f"{len(lines)} lines on stderr, expected 1: {p.stderr[:400]!r}")
    if any(w in p.stderr for w in NOISE):
        raise Fail(f"noise on stderr: {p.stderr!r}")
    if p.stdout:
        raise Fail(f"output on stdout: {p.stdout[:200]!r}")
    return p


def case(*args):
    return lambda env: one_line_error(env, list(args))


def t_missing_command(env):
    p = one_line_error(env, ["--", os.path.join(env.dir, "no-such-command")])
    if "no-such-command" not in p.stderr:
        raise Fail(f"error does not name the command: {p.stderr!r}")


def t_not_root(env):
    """As nobody: no BPF permission. The binary is copied where nobody can run it."""
    os.chmod(env.scratch, 0o711)
    os.chmod(env.dir, 0o711)
    tracer = os.path.join(env.dir, "notifwait")
    shutil.copy(env.tracer, tracer)
    os.chmod(tracer, 0o755)
    setpriv = shutil.which("setpriv")
    if not setpriv:
        raise Fail("setpriv not installed")
    prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
              "--inh-caps=-all", "--bounding-set=-all"]
    env_copy = type(env)(env.build, env.scratch, env.name)
    env_copy.tracer = tracer
    one_line_error(env_copy, ["-d", "1"], prefix=prefix)


TESTS = [
    ("bad_unknown_option", case("--no-such-option")),
    ("bad_pid_garbage", case("-p", "abc", "-d", "1")),
    ("bad_pid_negative", case("-p", "-5", "-d", "1")),
    ("bad_supervisor_pid", case("-s", "12x", "-d", "1")),
    ("bad_syscall_name", case("--syscall", "no_such_syscall", "-d", "1")),
    ("bad_duration_negative", case("-d", "-1")),
    ("bad_duration_garbage", case("-d", "1x")),
    ("bad_interval_zero", case("-i", "0", "-H", "-d", "1")),
    ("bad_missing_argument", case("-p")),
    ("bad_missing_command", t_missing_command),
    ("bad_not_root", t_not_root),
]
