"""Ground truth written by nw-workload (tests/workload/README.md) and the
tracer's JSON Lines output, loaded for the checks in checks.py."""

import json


class Fail(Exception):
    """The tracer disagrees with the ground truth."""


class Skip(Exception):
    """The scenario cannot run here (kernel feature missing)."""


def load_jsonl(path, what):
    out = []
    try:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    out.append(json.loads(line))
                except ValueError as e:
                    raise Fail(f"{what} line {n} is not JSON ({e}): {line[:120]!r}")
    except FileNotFoundError:
        raise Fail(f"{what} file {path} was not written")
    return out


class Truth:
    """The workload's records, by type ("ev")."""

    def __init__(self, path, run=None):
        self.records = [r for r in load_jsonl(path, "truth")
                        if run is None or r.get("run") == run]
        self.by_ev = {}
        for r in self.records:
            self.by_ev.setdefault(r["ev"], []).append(r)

    def ev(self, name):
        return self.by_ev.get(name, [])

    def one(self, name):
        recs = self.ev(name)
        if len(recs) != 1:
            raise Fail(f"truth has {len(recs)} '{name}' records, expected 1")
        return recs[0]

    @property
    def start(self):
        return self.one("start")

    @property
    def summary(self):
        return self.one("summary")

    @property
    def supervisor_pid(self):
        return self.start["supervisor_pid"]

    def recv_ok(self):
        return [r for r in self.ev("recv") if r["ret"] == 0]

    def recv_by_id(self):
        return {r["id"]: r for r in self.recv_ok()}

    def ops_by_id(self, ev):
        out = {}
        for r in self.ev(ev):
            out.setdefault(r["id"], []).append(r)
        return out

    def killed_target_pids(self):
        return {r["pid"] for r in self.ev("reap")
                if r["role"] == "target" and r["signal"] == 9}


class Trace:
    """The tracer's records, by type."""

    def __init__(self, path):
        self.records = load_jsonl(path, "tracer output")
        self.by_type = {}
        for r in self.records:
            if "type" not in r:
                raise Fail(f"tracer record without 'type': {r}")
            self.by_type.setdefault(r["type"], []).append(r)

    def of(self, t):
        return self.by_type.get(t, [])

    @property
    def notifs(self):
        return self.of("notif")
