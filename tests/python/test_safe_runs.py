# SPDX-License-Identifier: Apache-2.0
"""Safe runs: one simulation at a time per process (threads, thread-pool and Dask-thread sweeps give the process
sweep's numbers), sweeps that never lose a finished point (a failing point, a crashing worker, an unwritable CSV,
a damaged store row), the memory budget, Ctrl-C while a large fabric builds, progress lines, and the one
switch-description reader."""
import json
import os
import resource
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor

import pandas as pd
import pytest

import cmswitch
from conftest import ROOT

BASE = cmswitch.IncastConfig(duration_s=0.1, min_rto_ms=10, jitter_ns=400)
GRID = {"flows": [2, 4], "buffer_kb": [32, 64], "seed": [1, 2]}


def _solo(cfg):
    s = dict(cmswitch.run(cfg, progress=False).summary)
    s.pop("wall_s")
    return s


def _same(a, b):
    a = a.drop(columns="wall_s").reset_index(drop=True)
    b = b.drop(columns="wall_s").reset_index(drop=True)
    return a.equals(b)


def _default_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)   # see test_run.py: a background suite may ignore SIGINT


def test_runs_from_two_threads_each_give_their_solo_result():
    # two threads x cmswitch.run failed 8 of 8 trials (E554, E109) and, carrying on, gave 9 silently wrong
    # results in 300; every run must now equal its solo run
    cfgs = [cmswitch.IncastConfig(flows=4, duration_s=0.05, min_rto_ms=10, seed=3),
            cmswitch.OverloadConfig(senders=3, duration_s=0.004, traffic="poisson", seed=5),
            cmswitch.RdmaIncastConfig(senders=2, qps=2, duration_s=0.0004),
            cmswitch.WorkloadConfig(topology="star", hosts=6, duration_s=0.002, drain_ms=1),
            cmswitch.SctpIncastConfig(duration_s=0.05),
            cmswitch.BaselineConfig(duration_s=0.002, cm="tcp-pause")]
    solo = [_solo(c) for c in cfgs]
    wrong, errors = [], []

    def worker(t):
        for i in range(30):
            k = (i + t) % len(cfgs)
            try:
                if _solo(cfgs[k]) != solo[k]:
                    wrong.append(cfgs[k].scenario)
            except Exception as e:   # noqa: BLE001
                errors.append(repr(e))

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and wrong == []


def test_a_thread_pool_sweep_equals_the_process_sweep_and_says_it_gains_nothing():
    want = cmswitch.sweep(BASE, GRID, workers=2, progress=False)
    for trial in range(10):
        with ThreadPoolExecutor(2) as ex, warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            got = cmswitch.sweep(BASE, GRID, executor=ex, progress=False)
        assert _same(want, got), f"trial {trial}"
        notes = [x for x in w if "one simulation at a time" in str(x.message)]
        assert len(notes) == 1, [str(x.message) for x in w]


def test_a_dask_worker_with_two_threads_equals_the_process_sweep():
    distributed = pytest.importorskip("distributed")
    want = cmswitch.sweep(BASE, GRID, workers=2, progress=False)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cl, \
            distributed.Client(cl) as client:
        for trial in range(10):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                got = cmswitch.sweep(BASE, GRID, executor=client, progress=False)
            assert _same(want, got), f"trial {trial}"
            assert any("one simulation at a time per process" in str(x.message) for x in w)


def test_workers_are_capped_at_the_cores_with_a_message(tmp_path):
    with pytest.warns(RuntimeWarning, match=r"workers = 100000 lowered to \d+"):
        df = cmswitch.sweep(BASE, {"flows": [2, 4]}, workers=100000, progress=False)
    assert len(df) == 2
    spec = tmp_path / "spec.toml"
    spec.write_text('scenario = "incast"\n[base]\nduration_s = 0.05\n[grid]\nflows = [2, 4]\n'
                    '[output]\nworkers = 100000\n')
    r = subprocess.run([sys.executable, "-m", "cmswitch", "sweep", str(spec)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "workers = 100000 lowered to" in r.stderr


def _limited(as_gb=None, fsize=None):
    def setup():
        _default_sigint()
        if as_gb is not None:
            resource.setrlimit(resource.RLIMIT_AS, (int(as_gb * 2 ** 30),) * 2)
        if fsize is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # a write past the limit fails with EFBIG instead
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    return setup


def test_a_point_that_fails_while_it_runs_is_recorded_and_the_sweep_goes_on(tmp_path):
    # the middle point runs out of memory (bin_s = 1 ns grows the elephant bandwidth series by a GB per 0.1 s of
    # simulated time; the budget is raised past it and the process limited to 3 GB). It used to lose every
    # finished point: a traceback, exit 1, no CSV. Now: exit 1, and the CSV has all three rows
    spec = tmp_path / "spec.toml"
    spec.write_text('scenario = "sctp-incast"\n[base]\nduration_s = 1\n[grid]\nbin_s = [1, 1e-9, 0.5]\n'
                    '[output]\nworkers = 1\n')
    r = subprocess.run([sys.executable, "-m", "cmswitch", "sweep", str(spec), "--memory-budget-mb", "1000000"],
                       capture_output=True, text=True, preexec_fn=_limited(as_gb=3), timeout=600)
    assert r.returncode == 1, r.stderr
    assert "1 of 3 points failed (rows 1" in r.stderr, r.stderr
    df = pd.read_csv(tmp_path / "spec.csv")
    df["error"] = df["error"].fillna("")
    assert list(df["bin_s"]) == [1, 1e-9, 0.5]
    assert df["error"][0] == "" and df["error"][2] == ""
    assert "Memory" in df["error"][1] or "bad_alloc" in df["error"][1], df["error"][1]
    assert df["incast_requests"][0] > 0 and df["incast_requests"][2] > 0
    # in Python: recorded the same way with a warning; errors="raise" stops there carrying the finished rows
    code = ("import cmswitch, warnings\n"
            "base = cmswitch.SctpIncastConfig(duration_s=1)\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    df = cmswitch.sweep(base, {'bin_s': [1, 1e-9, 0.5]}, workers=1, progress=False,"
            " memory_budget_mb=1e6)\n"
            "assert df.attrs['failed'] == 1 and df['error'].tolist()[0] == '', df.attrs\n"
            "assert any('1 of 3 sweep points failed' in str(x.message) for x in w)\n"
            "try:\n"
            "    cmswitch.sweep(base, {'bin_s': [1, 1e-9, 0.5]}, workers=1, progress=False, memory_budget_mb=1e6,"
            " errors='raise')\n"
            "except cmswitch.SweepFailed as e:\n"
            "    assert e.point == 1 and len(e.partial) == 2 and e.partial['error'].tolist() == ['', e.error]\n"
            "    print('raised', e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, preexec_fn=_limited(as_gb=3),
                       timeout=600)
    assert r.returncode == 0, r.stderr
    assert "raised sweep point 1 (bin_s=1e-09) failed" in r.stdout


def test_a_point_that_kills_its_worker_is_found_and_recorded_alone(tmp_path):
    # a worker process that dies (here: over its CPU-time limit, SIGXCPU) breaks the whole process pool; the
    # points that were in flight run again one at a time in a fresh pool, and only the one that kills its worker
    # alone gets the error
    code = ("import resource, cmswitch\n"
            "resource.setrlimit(resource.RLIMIT_CPU, (4, 30))\n"
            "base = cmswitch.IncastConfig(flows=8, min_rto_ms=10)\n"
            "df = cmswitch.sweep(base, {'duration_s': [0.05, 0.1, 600, 0.2, 0.3]}, workers=2, progress=False)\n"
            "print(df[['duration_s', 'error']].to_json(orient='records'))\n")
    r = subprocess.run([sys.executable, "-W", "ignore", "-c", code], capture_output=True, text=True, timeout=600,
                       preexec_fn=_default_sigint)
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout.strip().splitlines()[-1])
    assert [x["duration_s"] for x in rows] == [0.05, 0.1, 600, 0.2, 0.3]
    assert [bool(x["error"]) for x in rows] == [False, False, True, False, False], rows
    assert "worker process running this point died (killed by SIGXCPU" in rows[2]["error"]


def test_a_dead_worker_is_named_even_when_the_pools_thread_reaps_it_first(monkeypatch):
    # the pool's own thread may take a dead worker's status with waitpid an instant before the sweep asks: the
    # sweep's join then finds no child and returns at once with no exit code, which appears a moment later (the
    # cause was once lost this way on a loaded machine: "it ended without a result"). Workers that show their
    # code only on the third and fifth asking are still named; SIGTERM (the pool's, to the survivors) only alone.
    import importlib
    sweep_module = importlib.import_module("cmswitch.sweep")

    class reaped_elsewhere:
        def __init__(self, code, after):
            self.code, self.after, self.asked = code, after, 0

        @property
        def exitcode(self):
            self.asked += 1
            return self.code if self.asked >= self.after else None

        def join(self, timeout=None):
            pass   # (no child left to wait for: it returns at once)

    assert sweep_module._exit_codes([reaped_elsewhere(-signal.SIGXCPU, 3), reaped_elsewhere(-signal.SIGTERM, 5)]) \
        == "killed by SIGXCPU"
    assert sweep_module._exit_codes([reaped_elsewhere(-signal.SIGTERM, 2)]) == "killed by SIGTERM"
    assert sweep_module._exit_codes([reaped_elsewhere(3, 4)]) == "exit code 3"
    monkeypatch.setattr(sweep_module, "_REAP_S", 0.5)   # one that never shows a code: named by nothing, after
    t0 = time.monotonic()   # the sweep's bounded wait
    assert sweep_module._exit_codes([reaped_elsewhere(-9, 10**9)]) == "it ended without a result"
    assert 0.5 <= time.monotonic() - t0 < 2.5


def test_a_csv_that_cannot_be_written_names_the_file_and_keeps_the_rows(tmp_path):
    # a full disk (here: a file-size limit of 1000 bytes) lost the whole sweep; now the CSV is never half
    # written, and the rows go to a fallback file or, failing that, to stdout
    spec = tmp_path / "spec.toml"
    spec.write_text('scenario = "incast"\n[base]\nduration_s = 0.05\n[grid]\nflows = [2, 4, 8]\n'
                    '[output]\nworkers = 1\n')
    r = subprocess.run([sys.executable, "-m", "cmswitch", "sweep", str(spec)], capture_output=True, text=True,
                       preexec_fn=_limited(fsize=1000), timeout=300)
    assert r.returncode == 1, r.stderr
    assert f"cannot write {tmp_path / 'spec.csv'}" in r.stderr and "its 3 rows are in stdout" in r.stderr, r.stderr
    assert not (tmp_path / "spec.csv").exists(), "a half-written CSV was left"
    assert [p.name for p in tmp_path.iterdir() if "spec.csv" in p.name] == []   # nor a temporary file
    rows = pd.read_csv(pd.io.common.StringIO(r.stdout))
    assert list(rows["flows"]) == [2, 4, 8] and (rows["goodput_mbps"] > 0).all()
    # the fallback file, when it can be written
    from cmswitch.files import save_rows
    with pytest.raises(OSError, match="its 3 rows are in /") as e:
        save_rows(rows, str(tmp_path / "gone" / "x.csv"))
    fallback = str(e.value).split("rows are in ")[1]
    assert pd.read_csv(fallback).equals(rows)
    os.unlink(fallback)


def test_a_damaged_store_row_is_reported_and_computed_again(tmp_path):
    store = tmp_path / "s.sqlite"
    grid = {"flows": [2, 4]}
    first = cmswitch.sweep(BASE, grid, workers=1, store=str(store), progress=False)
    with sqlite3.connect(str(store)) as db:
        key = db.execute("SELECT key FROM runs").fetchone()[0]
        db.execute("UPDATE runs SET summary = ? WHERE key = ?", ("{not json", key))
    with pytest.warns(RuntimeWarning, match=r"the row of point [0-9a-f]{16}\.\.\. is damaged \(not valid JSON"):
        again = cmswitch.sweep(BASE, grid, workers=1, store=str(store), progress=False)
    assert again.attrs == {"computed": 1, "reused": 1, "failed": 0}
    assert _same(first, again)
    with sqlite3.connect(str(store)) as db:   # the row was replaced
        json.loads(db.execute("SELECT summary FROM runs WHERE key = ?", (key,)).fetchone()[0])


def test_out_of_budget_configs_are_refused_at_once_naming_the_field():
    cases = [(cmswitch.SctpIncastConfig(bin_s=1e-9), "bin_s"),
             (cmswitch.WorkloadConfig(duration_s=1e4), "duration_s"),
             (cmswitch.BaselineConfig(duration_s=1e4, sample_us=1), "sample_us"),
             (cmswitch.RdmaIncastConfig(duration_s=1e4, link_gbps=100), "duration_s"),
             (cmswitch.OverloadConfig(senders=4000, duration_s=1e5), "sample_us"),
             (cmswitch.WorkloadConfig(topology="fat-tree", fat_tree_k=64, duration_s=1e-6), "fat_tree_k")]
    for cfg, field in cases:
        # (a k = 64 fat-tree, 65,536 hosts, holds about 1.1 GB: refused under a 512 MB budget)
        budget = 512 if field == "fat_tree_k" else 4096
        t0 = time.monotonic()
        with pytest.raises(ValueError, match=rf"^{field}: .*over the run's memory budget of {budget} MB"):
            cmswitch.run(cfg, memory_budget_mb=budget)
        assert time.monotonic() - t0 < 1.0, cfg
        with pytest.raises(ValueError, match=rf"^{field}: "):
            cfg.check(memory_budget_mb=budget)
    # cost() says what a run would hold, item by item
    c = cmswitch.WorkloadConfig(topology="fat-tree", fat_tree_k=64, duration_s=1e-6).cost(memory_budget_mb=512)
    assert c["budget_mb"] == 512 and c["items"][0]["field"] == "fat_tree_k" and c["memory_mb"] > 512
    with pytest.raises(ValueError, match="memory_budget_mb"):
        cmswitch.run(BASE, memory_budget_mb=-1)


def _peak_rss_mb(args):
    code = ("import resource, subprocess, sys\n"
            "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)\n"
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)\n")
    sim = os.path.join(os.path.dirname(sys.executable), "cmswitch-sim")
    if not os.path.exists(sim):
        sim = os.path.join(ROOT, "build", "cmswitch-sim")
    out = subprocess.run([sys.executable, "-c", code, sim, *args, "--quiet"], capture_output=True, text=True,
                         check=True)
    return float(out.stdout)


@pytest.mark.parametrize("cfg,args", [
    (cmswitch.IncastConfig(flows=2000, duration_s=0.001),
     ["incast", "--flows", "2000", "--duration-s", "0.001"]),
    (cmswitch.WorkloadConfig(topology="fat-tree", fat_tree_k=16, duration_s=1e-6, drain_ms=0, load=0),
     ["workload", "--topology", "fat-tree", "--fat-tree-k", "16", "--duration-s", "1e-6", "--drain-ms", "0",
      "--load", "0"]),
    (cmswitch.RdmaIncastConfig(senders=50, qps=400, duration_s=1e-5),
     ["rdma-incast", "--senders", "50", "--qps", "400", "--duration-s", "1e-5"]),
    (cmswitch.SctpIncastConfig(bin_s=1e-6, duration_s=0.3),
     ["sctp-incast", "--bin-s", "1e-6", "--duration-s", "0.3"]),
    (cmswitch.IncastConfig(flows=64, series=True, sample_us=10, duration_s=1),
     ["incast", "--flows", "64", "--series", "--sample-us", "10", "--duration-s", "1"]),
    (cmswitch.OverloadConfig(senders=200, sample_us=10, duration_s=0.5),
     ["overload", "--senders", "200", "--sample-us", "10", "--duration-s", "0.5"]),
    (cmswitch.WorkloadConfig(topology="star", hosts=16, load=0.5, duration_s=0.4),
     ["workload", "--topology", "star", "--hosts", "16", "--load", "0.5", "--duration-s", "0.4"]),
    # fat-trees carrying traffic: their switch buffers fill, and the frames they hold are most of the peak
    (cmswitch.WorkloadConfig(topology="fat-tree", fat_tree_k=8, duration_s=0.01),
     ["workload", "--topology", "fat-tree", "--fat-tree-k", "8", "--duration-s", "0.01"]),
    (cmswitch.WorkloadConfig(topology="fat-tree", fat_tree_k=16, duration_s=0.001),
     ["workload", "--topology", "fat-tree", "--fat-tree-k", "16", "--duration-s", "0.001"]),
], ids=["incast-2000-flows", "fat-tree-k16", "rdma-20000-qps", "testbed-bins", "incast-series", "overload-series",
        "workload-flows", "fat-tree-k8-traffic", "fat-tree-k16-traffic"])
def test_the_memory_estimate_is_within_a_factor_of_two_of_the_peak(cfg, args):
    # the budget refuses on the estimate; it must be near what a run really holds: its peak resident memory above
    # that of the smallest run of the scenario
    base = _peak_rss_mb(["overload", "--duration-s", "1e-6", "--sample-us", "0"])
    grown = _peak_rss_mb(args) - base
    estimate = cfg.cost()["memory_mb"]
    assert 0.5 < grown / estimate < 2.0, f"peak +{grown:.0f} MB, estimate {estimate:.0f} MB"


def test_ctrl_c_while_a_k64_fat_tree_builds_stops_within_a_second(tmp_path):
    # building the k = 64 fat-tree (65,536 hosts) ignored Ctrl-C for more than a minute; the build now asks
    # between blocks, KeyboardInterrupt comes at once, and the half-built model's teardown finishes in the
    # simulation's own thread (the command line exits without waiting for it)
    code = ("import sys, time, cmswitch\n"
            "cfg = cmswitch.WorkloadConfig(topology='fat-tree', fat_tree_k=64, duration_s=1e-6)\n"
            "print('ready', flush=True)\n"
            "try:\n"
            "    cmswitch.run(cfg, memory_budget_mb=30000, progress=False)\n"
            "except KeyboardInterrupt:\n"
            "    print('interrupted', time.time(), flush=True)\n"
            "    sys.exit(3)\n")
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, preexec_fn=_default_sigint)
    assert p.stdout.readline().strip() == "ready"
    time.sleep(3)   # well into the build (its whole build takes minutes)
    sent = time.time()
    p.send_signal(signal.SIGINT)
    line = p.stdout.readline().split()
    p.wait(timeout=120)
    p.stdout.close()
    assert line and line[0] == "interrupted" and p.returncode == 3
    assert float(line[1]) - sent < 1.0, f"KeyboardInterrupt {float(line[1]) - sent:.2f} s after Ctrl-C"
    # the command line: the process is gone within a second
    p = subprocess.Popen([sys.executable, "-m", "cmswitch", "run", "workload", "--topology", "fat-tree",
                          "--fat-tree-k", "64", "--duration-s", "1e-6", "--memory-budget-mb", "30000"],
                         stderr=subprocess.PIPE, text=True, preexec_fn=_default_sigint)
    time.sleep(4)
    sent = time.time()
    p.send_signal(signal.SIGINT)
    p.wait(timeout=120)
    took, err = time.time() - sent, p.stderr.read()
    p.stderr.close()
    assert took < 1.0 and p.returncode == 130, err


def test_a_long_run_prints_progress_lines():
    # a run of hours used to start without a word; a run over 5 s prints where it is every few seconds (400 s
    # simulated: about 13 s here; 150 s took 5.0 s once the model got faster, and printed nothing)
    r = subprocess.run([sys.executable, "-m", "cmswitch", "run", "incast", "--flows", "64", "--duration-s", "400",
                        "--min-rto-ms", "10"], capture_output=True, text=True, timeout=600, preexec_fn=_default_sigint)
    assert r.returncode == 0, r.stderr
    lines = [x for x in r.stderr.splitlines() if x.startswith("cmswitch: incast: ")]
    assert lines, f"no progress line in a run of {json.loads(r.stdout)['wall_s']:.1f} s: {r.stderr}"
    assert " of 400 s simulated (" in lines[0] and "M events/s" in lines[0] and " left" in lines[0], lines[0]
    assert json.loads(r.stdout)["conservation_ok"]
    # a callable gets the reports as dicts; one that raises stops the run with its error
    seen = []

    def report(p):
        seen.append(p)
        raise RuntimeError("enough")
    cfg = cmswitch.IncastConfig(flows=64, duration_s=600, min_rto_ms=10)
    with pytest.raises(RuntimeError, match="enough"):   # (the first report at once rather than after 5 s)
        cmswitch._core.run(cfg.scenario, cfg.to_params(), progress=report, progress_after_s=0.0)
    assert seen[0]["phase"] == "running" and 0 < seen[0]["simulated_s"] < 600 and seen[0]["events"] > 0
    assert seen[0]["line"].startswith("incast: ")


@pytest.mark.parametrize("text,fmt,why", [
    ('{"a":' * 50000 + "1" + "}" * 50000, "json", "nested more than 32 deep"),
    ('{"mmu": {"pool_kb": 1024, "pool_kb": 2048}}', "json", "'pool_kb' is given twice in one section"),
    ('{"a": {"pool_kb": 1024}, "b": {"pool_kb": 2048}}', "json", r"'pool_kb' is given twice \(a.pool_kb and b.pool_kb\)"),
    ("[a]\npool_kb = 1\n[b]\npool_kb = 2\n", "toml", r"'pool_kb' is given twice \(a.pool_kb and b.pool_kb\)"),
    ("mmu:\n  pool_kb: 1024\n  pool_kb: 2048\n", "yaml", "'pool_kb' is given twice in one section"),
    ('{"queue_map": ["0", 0, 1, 3, 1, 2, 2, 7]}', "json", r"queue_map\[0\] \(line 1\): each entry must be a number"),
    ('queue_map = ["0", 0, 1, 3, 1, 2, 2, 7]\n', "toml", r"queue_map\[0\]: each entry must be a number"),
    ("hosts: 010\n", "yaml", "010 is ambiguous"),
    ("queue_cdfs: yes\n", "yaml", "queue_cdfs: must be true or false, not a string"),
    ('{"link_gbps": "25"}', "json", "link_gbps .*must be a number, not a string"),
    ('{"pool_kbb": 1}', "json", "did you mean 'pool_kb'"),
])
def test_one_switch_description_reader_refuses_what_would_mislead(tmp_path, text, fmt, why):
    if fmt == "yaml":
        pytest.importorskip("yaml")
    path = tmp_path / f"d.{fmt}"
    path.write_text(text)
    with pytest.raises(ValueError, match=why):
        cmswitch.load_switch(str(path))
    if fmt == "json":   # the same message from cmswitch-sim: one reader
        sim = os.path.join(os.path.dirname(sys.executable), "cmswitch-sim")
        if not os.path.exists(sim):
            sim = os.path.join(ROOT, "build", "cmswitch-sim")
        r = subprocess.run([sim, "workload", "--switch", str(path)], capture_output=True, text=True)
        assert r.returncode == 2
        import re
        assert re.search(why, r.stderr), r.stderr


def test_yaml_reads_as_its_1_2_core_schema(tmp_path):
    pytest.importorskip("yaml")
    path = tmp_path / "d.yaml"
    path.write_text("hosts: 0o10\nflow_table: true\nlink_gbps: 2.5e1\n")
    assert cmswitch.load_switch(str(path)) == {"hosts": 8, "flow_table": True, "link_gbps": 25.0}


def test_a_pool_found_broken_as_a_point_is_handed_to_it_costs_no_point(monkeypatch):
    # a worker that dies between two results (the OOM killer) breaks the pool before the sweep has seen a failed
    # future: the next submit raises. That point did not start: it goes again in a fresh pool, with the ones in
    # flight (run again one at a time), and no point is marked failed
    from concurrent.futures.process import BrokenProcessPool
    sweep_module = sys.modules["cmswitch.sweep"]
    real = sweep_module.ProcessPoolExecutor
    calls = {"n": 0}

    class BreaksOnce(real):
        def submit(self, *a, **k):
            calls["n"] += 1
            if calls["n"] == 3:
                raise BrokenProcessPool("A process in the process pool was terminated abruptly")
            return super().submit(*a, **k)
    monkeypatch.setattr(sweep_module, "ProcessPoolExecutor", BreaksOnce)
    df = cmswitch.sweep(BASE, GRID, workers=2, progress=False)
    assert df.attrs["failed"] == 0 and ("error" not in df or (df["error"] == "").all())
    assert df.attrs["computed"] == 8
    assert _same(df, cmswitch.sweep(BASE, GRID, workers=1, progress=False))


def test_a_sweep_started_beside_a_running_thread_works():
    # another thread is inside a run when the sweep forks its workers: they start with no simulation of their own
    # (the parent's belongs to a thread they do not have) and give the solo results
    long_run = threading.Thread(target=cmswitch.run,
                                args=(cmswitch.RdmaIncastConfig(senders=32, link_gbps=100, duration_s=0.5),),
                                kwargs=dict(progress=False), daemon=True)   # a few seconds of wall time
    long_run.start()
    time.sleep(0.5)
    try:
        assert long_run.is_alive()   # (the sweep forks its workers while the other run goes on)
        df = cmswitch.sweep(BASE, {"flows": [2, 4], "seed": [1, 2]}, workers=2, progress=False)
    finally:
        long_run.join()
    assert df.attrs["failed"] == 0 and ("error" not in df or (df["error"] == "").all())
    assert _same(df, cmswitch.sweep(BASE, {"flows": [2, 4], "seed": [1, 2]}, workers=1, progress=False))


def test_interpreter_exit_with_a_run_in_a_daemon_thread_stops_it_and_exits_cleanly():
    code = ("import threading, time, cmswitch\n"
            "cfg = cmswitch.IncastConfig(flows=64, duration_s=100.0, min_rto_ms=10)\n"
            "threading.Thread(target=cmswitch.run, args=(cfg,), kwargs=dict(progress=False), daemon=True).start()\n"
            "time.sleep(1.0)\n"
            "print('main done', flush=True)\n")
    t0 = time.time()
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       preexec_fn=_default_sigint)
    took = time.time() - t0
    assert r.returncode == 0, (r.returncode, r.stderr)
    assert "terminate called" not in r.stderr and "main done" in r.stdout
    assert took < 1.0 + 5.0   # the second of the script, the interpreter's start, and the stop within a second


def test_a_grid_whose_bookkeeping_exceeds_the_budget_is_refused_before_it_is_prepared(monkeypatch):
    # 3.2 M points hold about 49 GB of the sweep's own (16 KB each): refused at once, before a config is made
    monkeypatch.setenv("CMSWITCH_MEMORY_BUDGET_MB", "12288")
    grid = {"buffer_kb": list(range(8, 8 + 1600)), "flows": list(range(1, 201)), "seed": [1, 2, 3, 4, 5, 6, 7, 8,
                                                                                         9, 10]}
    t0 = time.time()
    with pytest.raises(ValueError, match="a sweep of 3,200,000 points holds about 48.8 GB of its own.*split the grid"):
        cmswitch.sweep(BASE, grid, progress=False)
    assert time.time() - t0 < 1.0


def test_a_users_executor_shares_the_default_budget_among_its_workers(monkeypatch):
    from concurrent.futures import ProcessPoolExecutor
    sweep_module = sys.modules["cmswitch.sweep"]
    seen = []
    real = sweep_module._Sweep._submit

    def spy(self, i):
        seen.append(self.budget)
        return real(self, i)
    monkeypatch.setattr(sweep_module._Sweep, "_submit", spy)
    monkeypatch.setenv("CMSWITCH_MEMORY_BUDGET_MB", "1000")
    with ProcessPoolExecutor(2) as ex:
        df = cmswitch.sweep(BASE, {"flows": [2, 4]}, executor=ex, progress=False)
    assert df.attrs["failed"] == 0 and set(seen) == {500.0}   # 1,000 MB over its two workers


def test_two_sweeps_in_two_threads_on_one_store_compute_each_point_once(tmp_path):
    store = str(tmp_path / "s.sqlite")
    grid = {"flows": [2, 3, 4, 5, 6], "buffer_kb": [32, 64], "seed": [1, 2]}
    out = []
    threads = [threading.Thread(target=lambda: out.append(cmswitch.sweep(BASE, grid, workers=1, store=store,
                                                                        progress=False))) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(out) == 2 and sum(df.attrs["computed"] for df in out) == 20   # 20 points, each once
    assert _same(out[0], out[1])


def test_a_store_that_cannot_be_written_is_dropped_with_a_warning(tmp_path, monkeypatch):
    from cmswitch.store import ResultStore

    def full(self, *a, **k):
        raise sqlite3.OperationalError("database or disk is full")
    monkeypatch.setattr(ResultStore, "put", full)
    with pytest.warns(RuntimeWarning, match="the result store could not be written \\(database or disk is full\\)"):
        df = cmswitch.sweep(BASE, {"flows": [2, 4]}, workers=1, store=str(tmp_path / "s.sqlite"), progress=False)
    assert df.attrs["computed"] == 2 and df.attrs["failed"] == 0


def test_a_store_row_holding_nan_is_computed_again(tmp_path):
    path = str(tmp_path / "s.sqlite")
    first = cmswitch.sweep(BASE, {"flows": [2]}, workers=1, store=path, progress=False)
    db = sqlite3.connect(path)
    db.execute("UPDATE runs SET summary = ?", (json.dumps({"goodput_mbps": float("nan")}),))
    db.commit()
    db.close()
    with pytest.warns(RuntimeWarning, match="is damaged \\(not valid JSON \\(it holds NaN\\)\\)"):
        again = cmswitch.sweep(BASE, {"flows": [2]}, workers=1, store=path, progress=False)
    assert again.attrs["computed"] == 1 and again["goodput_mbps"][0] == first["goodput_mbps"][0]
