# SPDX-License-Identifier: Apache-2.0
"""The buffer-sizing study's report folder, and find_min_buffer's contract."""
import os

import pandas as pd
import pytest

import cmswitch


def test_buffer_sizing_report_has_every_promised_file(tmp_path):
    out = tmp_path / "report"
    df = cmswitch.buffer_sizing(str(out), flows=(2, 8), buffers_kb=(32, 128), seeds=(1,), duration_s=0.3,
                                min_rtos_ms=(200, 10), workers=2, progress=False)
    schemes = ("droptail", "red-ecn", "dctcp", "qcn", "qcn-mod", "pfc")
    expected = {"points.csv", "min_buffer.csv", "report.md", "index.html", "queue_vs_flows.png",
                "goodput_vs_buffer_8flows.png"} | {f"goodput_vs_flows_{s}_rto{r}ms.png"
                                                   for s in schemes for r in (200, 10)}
    assert expected <= set(os.listdir(out))
    for name in expected:
        assert (out / name).stat().st_size > 0, name
    points = pd.read_csv(out / "points.csv", keep_default_na=False, na_values=[""])
    # 6 schemes x 2 buffers x 2 flow counts x 2 minRTOs, every point recorded; PFC runs only where the 1 Gb/s
    # headroom (9378 B) + 3 frames fits in each server's share: 32 KB / 8 = 4096 B does not (those
    # points used to vanish from the report)
    assert len(points) == len(df) == 6 * 2 * 2 * 2
    assert set(points["scheme"]) == set(schemes)
    bad = points[points["infeasible"].fillna("") != ""]
    assert len(bad) == 2 and set(bad["scheme"]) == {"pfc"} and set(bad["buffer_kb"]) == {32} and set(bad["flows"]) == {8}
    assert bad["infeasible"].str.contains("headroom").all() and bad["goodput_mbps"].isna().all()
    assert (points[(points["scheme"] == "pfc") & (points["infeasible"].fillna("") == "")]["drops"] == 0).all()
    text = (out / "report.md").read_text()
    assert "## Reading" in text and "goodput_vs_flows_dctcp_rto10ms.png" in text
    assert "## Infeasible points (recorded, not run)" in text and "| pfc | 8 | 32 |" in text
    html = (out / "index.html").read_text()
    for name in expected:
        if name.endswith(".png"):
            assert name in html


def test_find_min_buffer_returns_a_buffer_that_meets_the_target_and_a_smaller_one_does_not():
    cfg = cmswitch.IncastConfig(flows=8, min_rto_ms=10, duration_s=0.4, jitter_ns=500)
    target = 850.0
    found = cmswitch.find_min_buffer(cfg, target_goodput_mbps=target, seeds=(1, 2), lo_kb=16, hi_kb=512,
                                     tolerance_kb=16, workers=2)
    assert 16 < found.buffer_kb <= 512

    # the bisection's guarantee: the found buffer meets the target, and one within tolerance_kb below it was
    # evaluated and missed it (goodput is not monotone in the buffer: nothing is claimed further below)
    means = found.evaluations.groupby("buffer_kb")["goodput_mbps"].mean()
    assert means[found.buffer_kb] >= target
    below = means[(means.index < found.buffer_kb) & (means.index >= found.buffer_kb - 16)]
    assert len(below) == 1 and below.iloc[0] < target
    assert len(found.evaluations) >= 4


def test_find_min_buffer_with_one_flow_needs_no_buffer_to_avoid_drops():
    # one server cannot congest its path: no drops with the smallest buffer allowed
    found = cmswitch.find_min_buffer(cmswitch.IncastConfig(flows=1, duration_s=0.2), zero_drops=True, seeds=(1,),
                                     lo_kb=2, hi_kb=64, workers=1)
    assert found.buffer_kb == 2


def test_find_min_buffer_explains_bad_requests():
    with pytest.raises(ValueError, match="target_goodput_mbps"):
        cmswitch.find_min_buffer(cmswitch.IncastConfig())
    with pytest.raises(ValueError, match="does not meet the target"):
        cmswitch.find_min_buffer(cmswitch.IncastConfig(flows=2, duration_s=0.1), target_goodput_mbps=2000,
                                 seeds=(1,), hi_kb=64, workers=1)


def test_dcqcn_scale_quick_report(tmp_path):
    # 16 and 80 flows at 10 Gb/s, 20 ms: both schemes drain the burst (the DCQCN paper's constants), PFC loses nothing
    df = cmswitch.dcqcn_scale(str(tmp_path), flows=(16, 80), link_gbps=(10,), duration_s=0.02, lambdas=(1.0,),
                              seeds=(1, 2), workers=1, progress=False)
    assert len(df) == 8 and set(df["cm"]) == {"dcqcn", "dcqcn+"} and set(df["seed"]) == {1, 2}
    assert (df["drops"] == 0).all() and df["conservation_ok"].all()
    assert df[df["cm"] == "dcqcn"]["converged"].all()
    for name in ("report.md", "index.html", "points.csv", "sensitivity.csv", "queue_dcqcn_10g.png",
                 "queue_dcqcnplus_10g.png", "rates_10g.png"):
        assert (tmp_path / name).exists(), name
    text = (tmp_path / "report.md").read_text()
    assert "| 10 | 80 | dcqcn | 2 of 2 |" in text and "PFC kept every run lossless" in text
    sens = pd.read_csv(tmp_path / "sensitivity.csv")
    assert sorted(sens["seed"]) == [1, 2]   # the lambda rows over the seeds too
    assert "| 1 | " in text.split("## DCQCN+ lambda")[1]
    # a point the core refuses stops the study before any run, naming it (it used to fail inside the report)
    with pytest.raises(ValueError, match="sweep point 0 .*needs marking"):
        cmswitch.dcqcn_scale(str(tmp_path / "bad"), flows=(16,), link_gbps=(10,), duration_s=0.02, lambdas=(1.0,),
                             workers=1, progress=False, base=cmswitch.RdmaIncastConfig(marking="none"))


def test_rdma_incast_config_is_generated_with_the_scheme_parameters():
    cls = cmswitch.config_class("rdma-incast")
    assert cls.__name__ == "RdmaIncastConfig"
    cfg = cls()
    assert (cfg.marking, cfg.cm, cfg.pause) == ("dcqcn", "dcqcn", "pfc")   # the scenario's defaults
    assert cls.field_info("dcqcn_kmax_kb")["group"] == "dcqcn"
    with pytest.raises(ValueError, match="dcqcn_rp_variant"):
        cls(dcqcn_rp_variant="cx7")


def test_vegas_incast_is_the_incast_with_wang_2015_defaults():
    cls = cmswitch.config_class("vegas-incast")
    cfg = cls()
    assert (cfg.sru_kb, cfg.transport, cfg.link_gbps) == (128.0, "vegas", 1.0)
    res = cmswitch.run(cfg.replace(flows=4, duration_s=0.5))
    assert res.summary["scenario"] == "vegas-incast"
    # 4 Vegas senders keep the 1 Gb/s port busy: goodput between 90 % and 100 % of the payload rate 1460/1500 Gb/s
    assert 0.9 * 973.3 < res.summary["goodput_mbps"] <= 973.4
    assert res.summary["timeouts"] == 0


def test_sctp_incast_runs_from_python_with_its_tables_and_figures(tmp_path):
    cfg = cmswitch.config_class("sctp-incast")(duration_s=3)
    assert (cfg.marking, cfg.sctp_cc, cfg.rto_min_ms) == ("dbl", "ecn", 300.0)
    runs = {cc: cmswitch.run(cfg.replace(sctp_cc=cc)) for cc in ("plain", "dynamic-dccc")}
    for res in runs.values():
        s = res.summary
        assert s["conservation_ok"]
        # two sources, each to one sink at a time: at most 2 x the payload rate of a 100 Mb/s port
        assert 0 < s["elephant_goodput_mbps"] <= 2 * 100 * 1452 / 1500
        assert s["incast_requests"] >= 10 * s["incast_rounds"]
        assert set(res.tables["ports"].columns) >= {"tail_drops", "dbl_drops", "marks"}
    assert runs["plain"].summary["dbl_marks"] == 0 and runs["plain"].summary["dbl_drops"] > 0
    from cmswitch import plots
    fig = plots.elephant_bandwidth(runs)
    fig.savefig(tmp_path / "bw.png")
    with pytest.raises(ValueError, match="sctp_cc"):
        cfg.replace(sctp_cc="cubic")


def test_shared_buffer_study_records_infeasible_points_and_copes_with_non_monotone_results(tmp_path):
    from cmswitch.shared_buffer_study import headroom_pool_kb, base_config, shared_buffer, smallest_meeting
    base = base_config(hosts=8, duration_s=0.005, drain_ms=5.0)
    # PFC's headroom pool: 8 ports x (2 x 25 Gb/s x 1 us + 2 x 1500 B + 80 quanta x 64 B) = 8 x 14370 B
    assert headroom_pool_kb(base) == pytest.approx(8 * 14370 / 1024)
    df = shared_buffer(str(tmp_path), buffers_kb=(64, 2048), alphas=(1.0,), seeds=(1,), base=base, progress=False,
                       workers=1)
    bad = df[~df["feasible"]]
    assert list(bad["scheme"]) == ["pfc"] and list(bad["buffer_kb"]) == [64.0]
    assert "headroom pool" in bad["reason"].iloc[0]
    assert (tmp_path / "index.html").exists() and (tmp_path / "slowdown_small.png").exists()
    assert df[df["feasible"] & (df["scheme"] == "pfc")]["drops"].sum() == 0   # lossless
    # the minimum search: meets at 1 MB, not at 2 MB, again from 4 MB -> robust answer 4 MB, first answer 1 MB
    synth = pd.DataFrame({"scheme": "x", "feasible": True, "buffer_kb": [512, 1024, 2048, 4096, 8192],
                          "alpha": 1.0, "slowdown_p99_small": [200, 50, 150, 40, 30]})
    m = smallest_meeting(synth, 100).iloc[0]
    assert (m["smallest_meeting_kb"], m["smallest_from_which_all_meet_kb"]) == (1024, 4096)
    assert m["meeting_kb"] == "1024, 4096, 8192"
    # a tail that grows with the buffer (PFC's on the leaf-spine): meets at the small buffers only, no answer "from
    # B on", and the list says where it does meet
    grows = smallest_meeting(synth.assign(slowdown_p99_small=[40, 60, 90, 300, 600]), 100).iloc[0]
    assert grows["smallest_from_which_all_meet_kb"] is None and grows["meeting_kb"] == "512, 1024, 2048"
    # a point the core refuses as a whole (the sweep's up-front check) is recorded as infeasible with the core's
    # reason, not as a run with empty metrics: PFC's headroom pool needs the shared buffer policy
    dyn = shared_buffer(str(tmp_path / "dyn"), schemes=("droptail", "pfc"), buffers_kb=(2048,), alphas=(1.0,),
                        seeds=(1,), base=base.replace(buffer_policy="dynamic"), progress=False, workers=1)
    assert list(dyn["feasible"]) == [True, False]
    assert "buffer_policy" in dyn["reason"].iloc[1]


def test_shared_buffer_study_on_a_leaf_spine_from_a_switch_description(tmp_path):
    # the leaf's headroom pool by hand: 8 host ports at 25 Gb/s (2 x 3125 B of cable + 2 MTU + 80 quanta x 64 B =
    # 14,370 B each) and 2 spine ports at 40 Gb/s (2 x 5000 + 3000 + 118 x 64 = 20,552 B each): 156,064 B; a spine
    # (4 x 20,552 = 82,208 B) needs less, so the leaf's size is every switch's
    from cmswitch.shared_buffer_study import headroom_pool_kb, base_config, shared_buffer
    desc = tmp_path / "fabric.toml"
    desc.write_text('[network]\ntopology = "leaf-spine"\nleaves = 4\nhosts_per_leaf = 8\nspines = 2\n'
                    'link_gbps = 25\nfabric_gbps = 40\n[workload]\nduration_s = 0.004\ndrain_ms = 4\n')
    base = base_config(switch=str(desc))
    assert base.topology == "leaf-spine" and base.incast_fanin == 31   # every other host of the fabric
    assert headroom_pool_kb(base) * 1024 == pytest.approx(156064)
    df = shared_buffer(str(tmp_path / "r"), buffers_kb=(128, 4096), alphas=(1.0,), seeds=(1,), switch=str(desc),
                       duration_s=0.004, drain_ms=4.0, target_goodput_gbps=1.0, progress=False, workers=1)
    bad = df[~df["feasible"]]
    assert list(bad["scheme"]) == ["pfc"] and list(bad["buffer_kb"]) == [128.0]   # 152 KB of headroom > 128 KB
    ok = df[df["feasible"]]
    assert len(ok) == 5 and (ok["flows_completed"] > 0).all()
    assert ok[ok["scheme"] == "pfc"]["drops"].sum() == 0
    report = (tmp_path / "r" / "report.md").read_text()
    assert "leaf-spine, 4 leaves x 8 hosts at 25 Gb/s, 2 spines at 40 Gb/s" in report
    assert "incast goodput >= 1 Gb/s" in report
    for f in ("occupancy_cdf.png", "incast_goodput.png", "slowdown_small.png"):
        assert (tmp_path / "r" / f).exists(), f
    occ = (tmp_path / "r" / "occupancy.md").read_text()
    assert occ.count("shared pool p50") == 3 and "headroom pool p99" in occ


def test_shared_buffer_study_command_line_takes_a_switch_description(tmp_path):
    import subprocess
    import sys
    desc = tmp_path / "fabric.json"
    desc.write_text('{"network": {"topology": "leaf-spine", "leaves": 2, "hosts_per_leaf": 4, "spines": 2, '
                    '"link_gbps": 25, "fabric_gbps": 100}, "workload": {"drain_ms": 2}}')
    out = tmp_path / "r"
    r = subprocess.run([sys.executable, "-m", "cmswitch", "study", "shared-buffer", "--switch", str(desc),
                        "--out", str(out), "--schemes", "dctcp,pfc", "--buffers-kb", "4096", "--seeds", "1",
                        "--duration-s", "0.002", "--target-goodput-gbps", "1", "--workers", "1"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    report = (out / "report.md").read_text()
    assert "leaf-spine, 2 leaves x 4 hosts at 25 Gb/s, 2 spines at 100 Gb/s" in report
    assert "7:1 incast" in report and "incast goodput >= 1 Gb/s" in report
    r = subprocess.run([sys.executable, "-m", "cmswitch", "study", "shared-buffer", "--switch",
                        str(tmp_path / "missing.toml"), "--out", str(out)], capture_output=True, text=True)
    assert r.returncode != 0 and "cannot be read" in r.stderr


def test_the_shared_buffer_study_scales_a_chips_service_pools():
    """On a chip's service pools (examples/switches/th3_32x100.json) a point's total buffer B is the egress pool,
    the ingress pool plus the headroom pool; the headroom pool is the ports' pause headroom x 2 on Tomahawk-style
    slices (each slice stores the frames of half the ingress ports and holds a quarter of the pool: 4 x 16 / 32)."""
    import os
    from cmswitch.shared_buffer_study import base_config, headroom_pool_kb, point, slice_headroom_factor
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    base = base_config(switch=os.path.join(root, "examples", "switches", "th3_32x100.json"))
    assert slice_headroom_factor(base) == 2.0
    lossy = point(base, "dctcp", 8192, 1.0, 1)
    assert lossy["egress_pools_kb"] == (8192.0,) and lossy["ingress_pools_kb"] == (8192.0,)
    assert lossy["headroom_pool_kb"] == 0.0
    pfc = point(base, "pfc", 8192, 0.5, 1)
    h = 2 * headroom_pool_kb(base)
    assert pfc["headroom_pool_kb"] == h
    assert abs(pfc["ingress_pools_kb"][0] + h - 8192) < 1e-9
    assert pfc["pg_dynamic_th"] == (-1,) * 8        # alpha 1/2 = 2^-1
    base.replace(**pfc).check()


def test_the_reading_gives_the_incast_tail_and_says_when_a_tail_grows_with_the_buffer():
    from cmswitch.shared_buffer_study import _tail_readings, smallest_meeting
    # three seeds per buffer: the small-flow tail meets 100 from 1 MB on; the incast completion p99 is best at
    # 4 MB (2 ms) and 4x that at the answer (8 ms); for scheme y both tails grow with the buffer, intervals apart
    rows = []
    for b, small, inc in ((1024, 50, 8.0), (4096, 40, 2.0), (16384, 30, 2.2)):
        for seed, d in ((1, -1), (2, 0), (3, 1)):
            rows.append(dict(scheme="x", feasible=True, buffer_kb=b, alpha=1.0, seed=seed,
                             slowdown_p99_small=small + d, incast_time_p99_ms=inc + 0.1 * d))
    for b, small, inc in ((1024, 20, 1.0), (4096, 60, 3.0), (16384, 400, 9.0)):
        for seed, d in ((1, -1), (2, 0), (3, 1)):
            rows.append(dict(scheme="y", feasible=True, buffer_kb=b, alpha=1.0, seed=seed,
                             slowdown_p99_small=small + d, incast_time_p99_ms=inc + 0.1 * d))
    df = pd.DataFrame(rows)
    lines = _tail_readings(df, smallest_meeting(df, 100), None)
    x = [line for line in lines if line.startswith("x:")]
    assert x[0].startswith("x: incast completion p99 at its answer (1024 KB) 8.00 ms [")
    assert "4.0x its best (2.00 ms at 4096 KB): the small-flow target does not cover the incast" in x[0]
    assert not any("grows" in line for line in x)   # x's tails fall with the buffer
    y = [line for line in lines if line.startswith("y:")]
    assert any("its p99 small-flow slowdown grows with the buffer (20 at 1024 KB to 400 at 16384 KB" in line
               for line in y)
    assert any("its incast completion p99 grows with the buffer (1 at 1024 KB to 9 at 16384 KB" in line for line in y)


def test_quick_study_reports_are_marked_indicative(tmp_path):
    from cmswitch.shared_buffer_study import base_config, shared_buffer
    base = base_config(hosts=8, duration_s=0.005, drain_ms=5.0)
    shared_buffer(str(tmp_path), schemes=("dctcp",), buffers_kb=(256, 2048), alphas=(1.0,), seeds=(1, 2, 3),
                  base=base, progress=False, workers=1, cdfs=False, quick=True)
    text = (tmp_path / "report.md").read_text()
    assert text.startswith("# Shared-buffer sizing (quick: indicative)")
    assert "Quick run: indicative, not an answer" in text and "dctcp: incast completion p99 at" in text
    assert "(quick: indicative)</h1>" in (tmp_path / "index.html").read_text()


@pytest.mark.parametrize("args, what", [
    (["--seeds", "1.5"], "--seeds '1.5': '1.5' must be a whole number >= 0"),
    (["--buffers-kb", "abc"], "--buffers-kb 'abc': 'abc' is not a number"),
    (["--target-slowdown", "nan"], "--target-slowdown nan: a finite number above 0"),
    (["--alphas", "1,-2"], "--alphas '1,-2': '-2' must be a number above 0"),
    (["--load", "0"], "load = 0: the study measures the flows' completion times"),
    (["--buffers-kb", "1"], "every point is infeasible"),
])
def test_bad_shared_buffer_study_input_is_refused_naming_the_flag(tmp_path, capsys, args, what):
    from cmswitch.cli import main
    extra = ["--schemes", "pfc", "--seeds", "1", "--duration-s", "0.002"] if args == ["--buffers-kb", "1"] else []
    assert main(["study", "shared-buffer", "--out", str(tmp_path / "r"), "--workers", "1"] + extra + args) == 2
    err = capsys.readouterr().err
    assert what in err and "Traceback" not in err


def test_study_out_must_be_a_writable_folder(tmp_path, capsys):
    from cmswitch.cli import main
    f = tmp_path / "a_file"
    f.write_text("x")
    assert main(["study", "dcqcn-scale", "--quick", "--out", str(f)]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        if not os.access(ro, os.W_OK):   # (root may write anywhere)
            assert main(["study", "dcqcn-scale", "--quick", "--out", str(ro)]) == 2
            assert "not writable" in capsys.readouterr().err
    finally:
        ro.chmod(0o700)
    assert main(["study", "dcqcn-scale", "--flows", "0", "--out", str(tmp_path / "z")]) == 2
    assert "--flows '0': '0' must be a whole number above 0" in capsys.readouterr().err


def test_a_buffer_sizing_study_whose_points_are_all_infeasible_says_so(tmp_path, capsys):
    from cmswitch.cli import main
    assert main(["study", "buffer-sizing", "--schemes", "pfc", "--buffers-kb", "1", "--flows", "64", "--seeds", "1",
                 "--duration-s", "0.01", "--min-rtos-ms", "10", "--out", str(tmp_path / "r"), "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert "buffer-sizing study: every point is infeasible (the first: pause: buffer_kb = 1" in err
    assert "Traceback" not in err
