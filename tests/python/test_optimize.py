# SPDX-License-Identifier: Apache-2.0
"""cmswitch.optimize: a search on a case whose answer is known by another route, a Pareto front that is one,
resuming from the store, the command line, and refusals before any run."""
import pytest

import cmswitch

pytest.importorskip("optuna")

# 8 servers into one 1 Gb/s port for 50 ms: with a buffer larger than the queue ever gets, nothing drops and the
# run is the same whatever the buffer; the smallest buffer without a drop is that run's largest queue
BASE = cmswitch.IncastConfig(flows=8, duration_s=0.05, buffer_kb=4096)


def test_the_smallest_buffer_without_drops_is_the_largest_queue_of_an_unlimited_run(tmp_path):
    unlimited = cmswitch.run(BASE)
    assert unlimited.summary["drops"] == 0
    known_kb = unlimited.summary["max_queue_bytes"] / 1024   # about 1,842 KB
    res = cmswitch.optimize(BASE, {"buffer_kb": (64, 4096)}, ["drops == 0"], minimize="buffer_kb", trials=30,
                            seeds=(1,), workers=1, store=str(tmp_path / "s.sqlite"))
    t = res.trials
    # monotone: every buffer tried below the answer drops, every one above it does not (a frame's slack)
    assert (~t[t["buffer_kb"] < known_kb - 1.5]["feasible"]).all()
    assert t[t["buffer_kb"] > known_kb + 1.5]["feasible"].all()
    assert known_kb - 1.5 <= res.best["buffer_kb"] <= known_kb * 1.02
    assert res.runs == 30 and res.reused == 0 and "30 trials x 1 seed(s)" in repr(res)
    # the same search again: the same trials (seeded sampler), every run from the store
    again = cmswitch.optimize(BASE, {"buffer_kb": (64, 4096)}, ["drops == 0"], minimize="buffer_kb", trials=30,
                              seeds=(1,), workers=1, store=str(tmp_path / "s.sqlite"))
    assert again.runs == 0 and again.reused == 30 and again.best["buffer_kb"] == res.best["buffer_kb"]


def test_a_pareto_front_holds_only_trials_no_other_beats_on_both():
    res = cmswitch.optimize(BASE.replace(flows=16, duration_s=0.1), {"buffer_kb": (16, 1024, "log")},
                            objectives=["buffer_kb", "-goodput_mbps"], trials=16, seeds=(1,), workers=1)
    front, t = res.pareto, res.trials
    assert res.best is None and len(front) >= 1
    for _, a in front.iterrows():   # nothing in the trials dominates a front member
        assert not ((t["buffer_kb"] <= a["buffer_kb"]) & (t["goodput_mbps_mean"] >= a["goodput_mbps_mean"]) &
                    ((t["buffer_kb"] < a["buffer_kb"]) | (t["goodput_mbps_mean"] > a["goodput_mbps_mean"]))).any()
    assert front["buffer_kb"].is_monotonic_increasing
    assert front["goodput_mbps_mean"].is_monotonic_increasing   # more buffer is worth it only if it buys goodput


def test_bad_searches_are_refused_before_any_run():
    for kw, what in ((dict(space={"bufer_kb": (1, 2)}, minimize="buffer_kb"), "did you mean buffer_kb"),
                     (dict(space={"buffer_kb": (1, 1e9)}, minimize="buffer_kb"), "buffer_kb = 1000000000.0"),
                     (dict(space={"buffer_kb": (64, 8)}, minimize="buffer_kb"), "low must be below high"),
                     (dict(space={"buffer_kb": (8, 64)}), "give minimize"),
                     (dict(space={"buffer_kb": (8, 64)}, minimize="buffer_kb", objectives=["a", "b"]), "not both"),
                     (dict(space={"buffer_kb": (8, 64)}, minimize="buffer_kb", targets=["drops = 0"]),
                      "write 'metric op number'")):
        with pytest.raises(ValueError, match=what):
            cmswitch.optimize(BASE, trials=2, **kw)


def test_the_command_line_prints_the_answer_and_the_grid_it_saves(tmp_path, capsys):
    spec = tmp_path / "s.toml"
    spec.write_text('scenario = "incast"\ntrials = 8\nseeds = [1]\nminimize = "buffer_kb"\n'
                    'targets = ["drops == 0"]\n[base]\nflows = 4\nduration_s = 0.02\n'
                    '[space]\nbuffer_kb = [8, 4096]\n[grid_step]\nbuffer_kb = 8\n'
                    f'[output]\ncsv = "{tmp_path / "t.csv"}"\n')
    from cmswitch.cli import main
    assert main(["optimize", str(spec), "--quiet", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "best: trial = " in out and "runs: 8 for the search (8 trials x 1 seeds)" in out
    assert "a grid at the steps {'buffer_kb': 8}: 512 runs (64.0 x the search), placing a point only within " \
           "buffer_kb +-4 of the optimum" in out
    assert "convergence (trial: best so far): 0: " in out and "the search sampled within buffer_kb +-" in out
    assert (tmp_path / "t.csv").exists()


# DCQCN's marking thresholds: the model refuses Kmin > Kmax, so a search over both needs the constraint
RDMA = cmswitch.RdmaIncastConfig(senders=4, qps=1, link_gbps=10, duration_s=0.002)
K_SPACE = {"dcqcn_kmin_kb": (1, 100), "dcqcn_kmax_kb": (10, 400)}


def test_a_constrained_space_never_samples_a_trial_that_breaks_it():
    res = cmswitch.optimize(RDMA, K_SPACE, minimize="delay_p99_us", trials=12, seeds=(1,), workers=1,
                            constraints=["dcqcn_kmin_kb <= dcqcn_kmax_kb"])
    t = res.trials
    assert len(t) == 12 and (t["dcqcn_kmin_kb"] <= t["dcqcn_kmax_kb"]).all()
    assert (t["infeasible"] == "").all() and (t["error"] == "").all()   # none wasted
    assert t["dcqcn_kmin_kb"].between(1, 100).all() and t["dcqcn_kmax_kb"].between(10, 400).all()
    # best_so_far: the running minimum of the objective over the trials
    assert list(t["best_so_far"]) == list(t["delay_p99_us_mean"].cummin())
    assert res.convergence.startswith("best delay_p99_us ")


def test_constraints_that_cannot_hold_are_refused_before_any_run():
    for constraints, what in ((["dcqcn_kmin_kb < dcqcn_kmax_kb"], "write 'field <= field'"),
                              (["dcqcn_kmax_kb <= dcqcn_kmin_kb"], "below the lowest dcqcn_kmax_kb"),
                              (["dcqcn_kmin_kb <= dcqcn_kmaxx_kb"], "dcqcn_kmax_kb"),
                              (["dcqcn_pmax <= dcqcn_kmax_kb"], "must be searched")):
        with pytest.raises(ValueError, match=what):
            cmswitch.optimize(RDMA, K_SPACE, minimize="delay_p99_us", trials=2, seeds=(1,), constraints=constraints)
    for kw, what in ((dict(seeds=5), "seeds = 5: a non-empty list"), (dict(seeds=[]), "seeds = \\[\\]"),
                     (dict(trials=2.5), "trials = 2.5"), (dict(trials=True), "trials = True"),
                     (dict(space={"seed": (1, 9)}), "seeds are given by seeds"),
                     (dict(space={"flows": (1, float("inf"))}), "finite"),
                     (dict(space={"flows": (1.5, 9)}), "whole number"),
                     (dict(patience=0), "patience = 0"),
                     (dict(study_store="/nonexistent/dir/s.db"), "study_store")):
        args = dict(space={"buffer_kb": (8, 64)}, minimize="buffer_kb", trials=2, seeds=(1,))
        args.update(kw)
        with pytest.raises(ValueError, match=what):
            cmswitch.optimize(BASE, **args)


def test_a_failing_trial_is_recorded_and_the_search_goes_on(monkeypatch):
    import sys
    sweep_module = sys.modules["cmswitch.sweep"]
    real = sweep_module.sweep
    calls = {"n": 0}

    def flaky(cfg, *a, **k):
        calls["n"] += 1
        if calls["n"] == 2:   # the second trial's runs fail (the model breaks an invariant, a worker dies)
            raise sweep_module.SweepFailed(0, "buffer_kb", "RuntimeError: conservation broken", real(cfg, *a, **k), 1)
        return real(cfg, *a, **k)
    monkeypatch.setattr(sweep_module, "sweep", flaky)
    res = cmswitch.optimize(BASE.replace(duration_s=0.01), {"buffer_kb": (64, 4096)}, ["drops == 0"],
                            minimize="buffer_kb", trials=5, seeds=(1,), workers=1)
    t = res.trials
    assert len(t) == 5 and (t["error"] != "").sum() == 1
    assert "conservation broken" in t.loc[1, "error"] and not t.loc[1, "feasible"]
    assert "1 failed" in repr(res)


def test_patience_stops_a_search_that_has_stopped_improving():
    res = cmswitch.optimize(BASE.replace(duration_s=0.01), {"buffer_kb": (64, 4096)}, ["drops == 0"],
                            minimize="buffer_kb", trials=40, seeds=(1,), workers=1, patience=5)
    t = res.trials
    last = t.index[t["improved"]].max()
    assert len(t) == last + 1 + 5   # it stopped five trials after the last improvement
    assert res.converged and "converged: the last 5 trials did not improve the best" in res.convergence


def test_two_processes_start_one_new_study_store_together(tmp_path):
    import subprocess
    import sys
    code = ("import cmswitch\n"
            "r = cmswitch.optimize(cmswitch.IncastConfig(flows=2, duration_s=0.005), {'buffer_kb': (8, 64)}, "
            "minimize='buffer_kb', trials=2, seeds=(1,), workers=1, "
            f"study_store={str(tmp_path / 'study.db')!r}, study_name='shared')\n"
            "print(len(r.trials))\n")
    procs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(3)]
    outs = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
        assert out.strip() == "2"


@pytest.mark.parametrize("line, what", [
    ("trials = 2.5", "trials = 2.5: a whole number"), ("trials = true", "trials = True"),
    ("seeds = 5", "seeds = 5"), ("seeds = []", "seeds = \\[\\]"), ("patience = 0", "patience = 0"),
    ("[grid_step]\nbuffer_kb = 0", "grid_step buffer_kb = 0"), ("[grid_step]\nflows = 2", "grid_step 'flows'"),
    ("[output]\ncvs = 'x.csv'", "unknown \\[output\\] key"), ("[output]\nstudy_store = '/no/such/dir/s.db'",
                                                             "study_store"),
    ("[space]\nflows = [1, inf]", "finite"), ("[space]\nseed = [1, 5]", "seeds are given"),
    ("constraints = 'a <= b'", "constraints must be a list")])
def test_every_bad_spec_is_refused_naming_its_key(tmp_path, capsys, line, what):
    from cmswitch.cli import main
    spec = tmp_path / "s.toml"
    head = 'scenario = "incast"\nminimize = "buffer_kb"\n'
    body = '[space]\nbuffer_kb = [8, 64]\n'
    spec.write_text(head + line + "\n" + body if not line.startswith("[") else head + body + line + "\n")
    if line.startswith("[space]"):
        spec.write_text(head + line + "\nbuffer_kb = [8, 64]\n")
    assert main(["optimize", str(spec), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    import re
    assert re.search(what, err), err
