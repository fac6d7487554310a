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
    assert "the equivalent grid" in out and "512 runs (64.0 x the search)" in out
    assert (tmp_path / "t.csv").exists()
