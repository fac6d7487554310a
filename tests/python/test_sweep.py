# SPDX-License-Identifier: Apache-2.0
"""sweep(): grid order, process pool vs in-process vs Dask, resuming from the store after a kill."""
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

import cmswitch

BASE = cmswitch.IncastConfig(duration_s=0.3, min_rto_ms=10, jitter_ns=400)
GRID = {"flows": [4, 16], "buffer_kb": [32, 128], "seed": [1, 2]}


def same_rows(a, b):
    a = a.drop(columns="wall_s").reset_index(drop=True)
    b = b.drop(columns="wall_s").reset_index(drop=True)
    return a.equals(b)


def _wait_for_rows(store, n, timeout_s=120):
    """Until a sweep running elsewhere has n finished points in its store (or the timeout)."""
    deadline = time.time() + timeout_s
    done = 0
    while time.time() < deadline and done < n:
        if store.exists():
            try:
                with sqlite3.connect(str(store)) as db:
                    done = db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
            except sqlite3.OperationalError:
                done = 0
        time.sleep(0.02)
    return done


def test_expand_grid_crosses_points_with_the_grid():
    pts = cmswitch.expand_grid({"a": [1, 2], "b": [3]}, points=[{"c": 0}, {"c": 1}])
    assert pts == [{"c": 0, "a": 1, "b": 3}, {"c": 0, "a": 2, "b": 3}, {"c": 1, "a": 1, "b": 3},
                   {"c": 1, "a": 2, "b": 3}]
    with pytest.raises(ValueError, match="must be a list"):
        cmswitch.expand_grid({"flows": 4})


def test_results_do_not_depend_on_sweep_order_or_on_how_it_runs():
    forward = cmswitch.sweep(BASE, GRID, workers=2, progress=False)
    backward = cmswitch.sweep(BASE, {k: list(reversed(v)) for k, v in GRID.items()}, workers=1, progress=False)
    key = ["flows", "buffer_kb", "seed"]
    assert same_rows(forward.sort_values(key), backward.sort_values(key))
    assert forward.attrs == {"computed": 8, "reused": 0, "failed": 0}
    # each row equals a plain run of its config
    row = forward.iloc[5]
    r = cmswitch.run(BASE.replace(flows=int(row.flows), buffer_kb=row.buffer_kb, seed=int(row.seed)))
    assert r["goodput_mbps"] == row.goodput_mbps and r["drops"] == row.drops


def test_a_bad_point_fails_before_anything_runs(tmp_path):
    store = tmp_path / "s.sqlite"
    with pytest.raises(ValueError, match="buffer_kb"):
        cmswitch.sweep(BASE, {"buffer_kb": [64, -1]}, store=str(store), progress=False)
    assert len(cmswitch.ResultStore(str(store))) == 0


def test_local_dask_cluster_gives_the_same_dataframe_as_the_process_pool():
    distributed = pytest.importorskip("distributed")
    pool = cmswitch.sweep(BASE, GRID, workers=2, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cl, \
            distributed.Client(cl) as client:
        dask = cmswitch.sweep(BASE, GRID, executor=client, progress=False)
    assert same_rows(pool, dask)


def test_concurrent_futures_executor_is_accepted():
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(1) as ex:
        df = cmswitch.sweep(BASE, {"flows": [2, 4]}, executor=ex, progress=False)
    assert list(df["flows"]) == [2, 4]


def test_a_killed_sweep_resumes_and_computes_only_the_missing_points(tmp_path):
    store = tmp_path / "resume.sqlite"
    script = tmp_path / "sweep.py"
    script.write_text(
        "import cmswitch\n"
        "base = cmswitch.IncastConfig(duration_s=0.6, min_rto_ms=10, jitter_ns=400)\n"
        f"cmswitch.sweep(base, {{'flows': [2, 4, 8, 16], 'buffer_kb': [32, 64, 128], 'seed': [1]}},"
        f" workers=1, store={str(store)!r}, progress=False)\n")
    p = subprocess.Popen([sys.executable, str(script)])
    _wait_for_rows(store, 4)
    p.send_signal(signal.SIGKILL)
    p.wait()
    with sqlite3.connect(str(store)) as db:
        done = db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    assert 4 <= done < 12, "the sweep finished before it could be killed; make its points longer"
    base = cmswitch.IncastConfig(duration_s=0.6, min_rto_ms=10, jitter_ns=400)
    grid = {"flows": [2, 4, 8, 16], "buffer_kb": [32, 64, 128], "seed": [1]}
    df = cmswitch.sweep(base, grid, workers=2, store=str(store), progress=False)
    assert df.attrs == {"computed": 12 - done, "reused": done, "failed": 0}
    again = cmswitch.sweep(base, grid, workers=2, store=str(store), progress=False)
    assert again.attrs == {"computed": 0, "reused": 12, "failed": 0}
    fresh = cmswitch.sweep(base, grid, workers=2, progress=False)
    assert same_rows(df, fresh)


def test_an_infeasible_point_is_recorded_with_its_reason_and_the_sweep_goes_on(tmp_path):
    # DCTCP without a marking scheme is a cross-field conflict the core finds when it checks the whole config:
    # that point gets its reason, the others run (it used to abort the sweep)
    base = cmswitch.IncastConfig(flows=4, duration_s=0.05)
    df = cmswitch.sweep(base, points=[{"transport": "newreno"}, {"transport": "dctcp"},
                                      {"transport": "dctcp", "marking": "step"}], workers=1, progress=False)
    assert list(df["infeasible"] == "") == [True, False, True]
    assert "marking" in df["infeasible"][1]
    assert df["goodput_mbps"][0] > 0 and df["goodput_mbps"][2] > 0


def test_every_point_is_checked_as_a_whole_before_anything_runs(tmp_path):
    # cross-field conflicts (DCTCP without marking, warm-up past the end, a PFC headroom that does not fit)
    # used to surface only when that point ran, after the points before it had finished
    assert cmswitch.IncastConfig(transport="dctcp", marking="step").check() is None
    for bad, field in [(cmswitch.IncastConfig(transport="dctcp"), "marking"),
                       (cmswitch.OverloadConfig(warmup_s=1, duration_s=0.5), "warmup_s"),
                       (cmswitch.IncastConfig(pause="pfc", buffer_kb=16, flows=64), "buffer_kb")]:
        with pytest.raises(ValueError, match=field):
            bad.check()
    store = tmp_path / "s.sqlite"
    base = cmswitch.IncastConfig(duration_s=0.3)
    grid = {"flows": [4, 64], "pause": ["none", "pfc"], "buffer_kb": [64]}   # 1 KB per input at 64 flows
    with pytest.raises(ValueError, match=r"sweep point 3 \(flows=64, buffer_kb=64.0, pause='pfc'\).*buffer_kb"):
        cmswitch.sweep(base, grid, store=str(store), infeasible="raise", progress=False)
    assert len(cmswitch.ResultStore(str(store))) == 0, "a point ran before the check refused the sweep"
    df = cmswitch.sweep(base, grid, store=str(store), workers=2, progress=False)
    assert list(df["infeasible"] != "") == [False, False, False, True]
    assert df.attrs == {"computed": 4, "reused": 0, "failed": 0}
    assert df["goodput_mbps"].isna().tolist() == [False, False, False, True]
    with pytest.raises(ValueError, match="infeasible"):
        cmswitch.sweep(base, grid, infeasible="skip", progress=False)


def _sweep_script(tmp_path, name, store, grid, workers=1, extra=""):
    script = tmp_path / name
    script.write_text(
        "import json, sys, cmswitch\n"
        "base = cmswitch.IncastConfig(duration_s=2, min_rto_ms=10, jitter_ns=400)\n"
        f"{extra}"
        f"df = cmswitch.sweep(base, {grid!r}, workers={workers}, store={str(store)!r}, progress=False)\n"
        "print(json.dumps({**df.attrs, 'goodput': df['goodput_mbps'].tolist()}))\n")
    return script


def test_two_sweeps_on_one_store_share_the_work(tmp_path):
    # both used to compute every point; now each point is claimed by one of them and the other takes its result
    store = tmp_path / "shared.sqlite"
    grid = {"flows": [2, 4, 8, 16, 32], "buffer_kb": [32, 64], "seed": [1]}
    import json
    # both start together: each says it is ready (cmswitch imported), then waits for "go"
    wait_go = ("import os, time\n"
               f"open({str(tmp_path)!r} + '/ready' + str(os.getpid()), 'w').close()\n"
               f"while not os.path.exists({str(tmp_path / 'go')!r}):\n    time.sleep(0.01)\n")
    scripts = [_sweep_script(tmp_path, f"s{k}.py", store, grid, extra=wait_go) for k in (1, 2)]
    procs = [subprocess.Popen([sys.executable, str(s)], stdout=subprocess.PIPE, text=True) for s in scripts]
    deadline = time.time() + 60
    while len(list(tmp_path.glob("ready*"))) < 2 and time.time() < deadline:
        time.sleep(0.01)
    (tmp_path / "go").touch()
    outs = [json.loads(p.communicate(timeout=300)[0]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert outs[0]["computed"] + outs[1]["computed"] == 10, outs
    assert outs[0]["computed"] > 0 and outs[1]["computed"] > 0, f"one sweep did all the work: {outs}"
    assert outs[0]["goodput"] == outs[1]["goodput"]
    with sqlite3.connect(str(store)) as db:
        assert db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 10
        assert db.execute("SELECT COUNT(*) FROM claims").fetchone()[0] == 0, "claims left behind"


def test_a_point_claimed_by_a_dead_sweep_is_taken_over(tmp_path):
    store = tmp_path / "dead.sqlite"
    base = cmswitch.IncastConfig(duration_s=0.05)
    key = base.replace(flows=2).key(cmswitch.BUILD_ID)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    with cmswitch.ResultStore(str(store)), sqlite3.connect(str(store)) as db:
        db.execute("INSERT INTO claims VALUES (?, ?, ?, ?)", (key, __import__("socket").gethostname(), dead.pid,
                                                               time.time()))
    df = cmswitch.sweep(base, {"flows": [2, 4]}, workers=1, store=str(store), progress=False)
    assert df.attrs == {"computed": 2, "reused": 0, "failed": 0}


def test_an_interrupted_sweep_writes_the_points_that_finished(tmp_path):
    # Ctrl-C used to lose the whole CSV; now the finished points go to <csv>.partial.csv (and stay in the store)
    spec = tmp_path / "spec.toml"
    store = tmp_path / "s.sqlite"
    # runs of about 0.2 s each (6 s simulated), so that the sweep is still running when the signal comes
    spec.write_text('scenario = "incast"\n[base]\nduration_s = 6\nmin_rto_ms = 10\n'
                    '[grid]\nflows = [2, 4, 8, 16]\nbuffer_kb = [32, 64, 128]\n'
                    f'[output]\nstore = "{store}"\nworkers = 1\n')
    p = subprocess.Popen([sys.executable, "-m", "cmswitch", "sweep", str(spec)], stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))   # see test_run.py
    _wait_for_rows(store, 3)
    p.send_signal(signal.SIGINT)
    err = p.communicate(timeout=60)[1]
    assert p.returncode == 130, err
    import pandas as pd
    part = pd.read_csv(tmp_path / "spec.partial.csv")
    assert 3 <= len(part) < 12, err
    assert f"{len(part)} of 12 points finished" in err
    assert not (tmp_path / "spec.csv").exists()
    with sqlite3.connect(str(store)) as db:
        assert db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == len(part)
    # in Python: SweepInterrupted (a KeyboardInterrupt) carries the same rows
    assert issubclass(cmswitch.SweepInterrupted, KeyboardInterrupt)


def test_numpy_grid_values_are_accepted():
    import numpy as np
    df = cmswitch.sweep(cmswitch.IncastConfig(duration_s=0.02), {"flows": np.array([2, 4]),
                                                                "buffer_kb": np.linspace(32, 64, 2)},
                        workers=1, progress=False)
    assert list(df["flows"]) == [2, 2, 4, 4] and all(isinstance(v, int) for v in df["flows"].tolist())


def test_a_store_of_another_schema_or_not_sqlite_is_refused_naming_the_file(tmp_path):
    other = tmp_path / "other.sqlite"
    db = sqlite3.connect(str(other))
    db.execute("CREATE TABLE runs (a TEXT, b TEXT)")
    db.commit()
    db.close()
    with pytest.raises(ValueError, match="other.sqlite.*not a cmswitch result store"):
        cmswitch.ResultStore(str(other))
    text = tmp_path / "notes.sqlite"
    text.write_text("these are notes, not a database\n" * 100)
    with pytest.raises(ValueError, match="notes.sqlite"):
        cmswitch.sweep(BASE, {"flows": [2]}, store=str(text), progress=False)


def _alive(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            return not any(line.startswith("State:") and "Z" in line.split()[1] for line in f)
    except FileNotFoundError:
        return False


def test_workers_die_with_a_killed_sweep(tmp_path):
    # the worker processes of a SIGKILLed sweep used to run on, orphaned
    script = tmp_path / "sweep.py"
    script.write_text(
        "import cmswitch\n"
        "base = cmswitch.IncastConfig(duration_s=3000, flows=16)\n"
        "cmswitch.sweep(base, {'seed': [1, 2, 3, 4]}, workers=2, progress=False)\n")
    p = subprocess.Popen([sys.executable, str(script)])
    children = []
    deadline = time.time() + 60
    while time.time() < deadline and len(children) < 2:
        try:
            with open(f"/proc/{p.pid}/task/{p.pid}/children") as f:
                children = [int(x) for x in f.read().split()]
        except FileNotFoundError:
            break
        time.sleep(0.05)
    assert len(children) >= 2, "the sweep did not start its workers"
    time.sleep(0.5)   # the workers are running points (of about a minute each)
    p.send_signal(signal.SIGKILL)
    p.wait()
    deadline = time.time() + 10
    while time.time() < deadline and any(_alive(c) for c in children):
        time.sleep(0.05)
    assert not any(_alive(c) for c in children), "workers outlived the killed sweep"


def test_many_processes_open_a_new_store_at_once(tmp_path):
    # two sweeps started together once failed with "database is locked": switching a new file to WAL is not
    # covered by SQLite's busy timeout, and the store now retries it. 12 processes open 30 new stores each at the
    # same instants (before the fix: about 8 of the 360 opens failed)
    code = ("import sys, time, cmswitch\n"
            "d, t0 = sys.argv[1], float(sys.argv[2])\n"
            "fails = 0\n"
            "for k in range(30):\n"
            "    while time.time() < t0 + k * 0.05:\n"
            "        pass\n"
            "    try:\n"
            "        s = cmswitch.ResultStore(f'{d}/s{k}.sqlite')\n"
            "        s.put(str(k), 'incast', 'v', {}, {'x': 1})\n"
            "        s.close()\n"
            "    except ValueError as e:\n"
            "        fails += 1\n"
            "        print(e, file=sys.stderr)\n"
            "print(fails)\n")
    t0 = time.time() + 4   # every process has imported cmswitch by then
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path), repr(t0)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(12)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [e for _, e in outs if e]
    assert sum(int(o) for o, _ in outs) == 0, [e for _, e in outs if e][:2]
