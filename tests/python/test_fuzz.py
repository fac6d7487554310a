# SPDX-License-Identifier: Apache-2.0
"""The fuzz harness: random flag combinations drawn from the core's own parameter tables (values inside
the ranges, at their ends, just beyond, absurd, of the wrong type; short durations) into the command line. Each
run must end with exit 0 and a JSON summary whose byte accounting holds and whose numbers are finite, or with
exit 2 and a message naming a parameter. Never a signal, a hang (per-run timeout) or a NaN."""
import json
import math
import random
import subprocess

import pytest

from cmswitch import _core

CASES = 500
TIMEOUT_S = 60


def _value(p, rnd):
    """A value for parameter p: mostly plausible, sometimes at or beyond the range, sometimes not a value."""
    kind = p["type"]
    r = rnd.random()
    if r < 0.06:
        return rnd.choice(["abc", "", "nan", "inf", "-inf", "1e400", "0x10", " 1"])
    if kind == "bool":
        return rnd.choice(["true", "false", "1", "0", "maybe"])
    if kind == "choice":
        return rnd.choice(p["choices"]) if r < 0.9 else "no-such-choice"
    lo, hi = p["min"], p["max"]
    if r < 0.2:
        v = rnd.choice([lo, hi])
    elif r < 0.3:
        v = rnd.choice([lo - 1, -lo - 1e-3, hi * 10 + 1, hi + 1, 1e-300, -0.0, 1e-9, 1e-13])
    else:   # inside, log-uniform where the range spans decades
        a, b = max(lo, 1e-9), max(min(hi, 1e6), max(lo, 1e-9) * 10)
        v = math.exp(rnd.uniform(math.log(a), math.log(b))) if b > a > 0 else rnd.uniform(lo, min(hi, lo + 100))
    if kind == "int":
        return str(int(round(v))) if abs(v) < 1e18 else str(v)
    return repr(float(v))


def _cases():
    rnd = random.Random(20261123)
    tables = {s: _core.describe(s)["params"] for s in _core.scenario_names()}
    # sizes that scale a run's work: kept small unless fuzzed, so that the harness stays within its time budget
    small = {"flows": "4", "senders": "4", "qps": "2", "hosts": "8", "leaves": "2", "hosts_per_leaf": "4",
             "spines": "2", "fat_tree_k": "4"}
    for i in range(CASES):
        scenario = rnd.choice(sorted(tables))
        params = tables[scenario]
        names = {p["name"] for p in params}
        chosen = rnd.sample(params, k=min(len(params), rnd.randint(1, 4)))
        args = {}
        for n, v in small.items():
            if n in names:
                args[n] = v
        args["duration_s"] = repr(rnd.choice([1e-6, 1e-4, 1e-3, 3e-3]))
        for p in chosen:
            if p["name"] == "duration_s":   # short runs: the range's low end and beyond, not its 1e4 s top
                args["duration_s"] = rnd.choice(["0", "-1", "1e-13", "1e-12", "1e-6", "0.002", "abc", "nan"])
            else:
                args[p["name"]] = _value(p, rnd)
        flags = {p["name"] for p in params if p["type"] == "bool"}
        flat = []
        for n, v in args.items():
            if n in flags and rnd.random() < 0.5:   # a flag alone, or with its value inline
                flat += ["--" + n.replace("_", "-")] if v in ("true", "1") else ["--" + n.replace("_", "-") + "=" + v]
            else:
                flat += ["--" + n.replace("_", "-"), v]
        yield pytest.param(scenario, flat, sorted(names), id=f"{i}-{scenario}")


def _finite(x):
    return not isinstance(x, float) or math.isfinite(x)


@pytest.mark.parametrize("scenario,args,names", list(_cases()))
def test_random_flags_exit_cleanly(sim_binary, scenario, args, names):
    try:
        out = subprocess.run([sim_binary, scenario, *args], capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"hung (> {TIMEOUT_S} s): {scenario} {' '.join(args)}")
    cmd = f"{scenario} {' '.join(args)}"
    assert out.returncode in (0, 2), f"exit {out.returncode} (signal if negative): {cmd}\n{out.stderr[-500:]}"
    if out.returncode == 2:
        assert any(n in out.stderr for n in names), f"no field named: {cmd}\n{out.stderr[-500:]}"
        return
    summary = json.loads(out.stdout)
    assert summary["conservation_ok"] is True, cmd
    bad = [k for k, v in summary.items() if not _finite(v)]
    assert not bad, f"not finite: {bad}: {cmd}"
