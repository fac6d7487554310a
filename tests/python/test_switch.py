# SPDX-License-Identifier: Apache-2.0
"""Switch descriptions: list fields, description files in JSON/TOML/YAML, the same switch from
Python, the Python command line and cmswitch-sim."""
import json
import subprocess
import sys

import pytest

import cmswitch

LEAF = {
    "ports": {"topology": "star", "hosts": 8, "link_gbps": 10, "uplinks": 2, "uplink_gbps": 40},
    "classes": {"queue_map": [0, 0, 1, 3, 1, 2, 2, 7], "pg_map": [0, 0, 0, 3, 0, 0, 0, 7]},
    "scheduler": {"scheduler": "dwrr", "dwrr_weights": [1, 2, 4, 0, 0, 0, 0, 0]},
    "mmu": {"buffer_policy": "shared", "pool_kb": 2048, "alpha_by_queue": [1, 1, 0.5, 8, 1, 1, 1, 1],
            "pfc": {"pause": "pfc", "pfc_priorities": [3], "pause_xoff_alpha": 1, "pause_headroom_pool_kb": 256,
                    "pause_reserved_kb": 2}},
}
RUN = {"load": 0.3, "incast_fanin": 4, "incast_prio": 3, "incast_kb": 64, "duration_s": 0.004, "drain_ms": 5}


def _toml(tree, prefix=""):
    out, tables = [], []
    for k, v in tree.items():
        if isinstance(v, dict):
            tables.append((k, v))
        else:
            out.append(f"{k} = {json.dumps(v)}")
    for k, v in tables:
        name = f"{prefix}.{k}" if prefix else k
        out.append(f"[{name}]")
        out.extend(_toml(v, name).splitlines())
    return "\n".join(out) + "\n"


def test_list_fields_are_validated_and_normalized():
    c = cmswitch.WorkloadConfig(queue_map=[0, 0, 1, 3, 1, 2, 2, 7], alpha_by_queue=(1, 2, 0.5, 1, 1, 1, 1, 1),
                                buffer_policy="shared")
    assert c.queue_map == (0, 0, 1, 3, 1, 2, 2, 7) and all(type(x) is int for x in c.queue_map)
    assert c.alpha_by_queue == (1.0, 2.0, 0.5, 1.0, 1.0, 1.0, 1.0, 1.0)
    assert c.to_params()["queue_map"] == "0,0,1,3,1,2,2,7"
    assert cmswitch.WorkloadConfig().queue_map == ()   # none: queue = priority
    for bad, what in (({"queue_map": [0, 1]}, "needs exactly 8"), ({"queue_map": [0, 1, 2, 3, 4, 5, 6, 8]}, "queue_map[7]"),
                      ({"queue_map": [0, 1.5, 2, 3, 4, 5, 6, 7]}, "an integer"), ({"queue_map": "0,1"}, "list"),
                      ({"pfc_priorities": [7]}, "pfc_priorities[0]")):
        with pytest.raises(ValueError, match=what.replace("[", r"\[").replace("]", r"\]")):
            cmswitch.WorkloadConfig(**bad)
    # cross-field rules come from the core, before any run
    with pytest.raises(ValueError, match="queue_map"):
        cmswitch.WorkloadConfig(queue_map=[0, 1, 2, 3, 4, 5, 6, 5]).check()
    with pytest.raises(ValueError, match="lossless and a lossy priority in one egress queue"):
        cmswitch.WorkloadConfig(**cmswitch.load_switch(LEAF, queue_map=(0, 0, 1, 1, 2, 2, 3, 7), **RUN)).check()


@pytest.mark.parametrize("fmt", ["json", "toml", "yaml"])
def test_a_description_file_gives_the_same_switch_in_every_format(tmp_path, fmt):
    if fmt == "yaml":
        yaml = pytest.importorskip("yaml")
        text = yaml.safe_dump(LEAF)
    else:
        text = json.dumps(LEAF) if fmt == "json" else _toml(LEAF)
    path = tmp_path / f"leaf.{fmt}"
    path.write_text(text)
    fields = cmswitch.load_switch(str(path))
    assert fields == cmswitch.load_switch(LEAF)
    assert fields["queue_map"] == (0, 0, 1, 3, 1, 2, 2, 7) and fields["pause"] == "pfc"
    cfg = cmswitch.WorkloadConfig(**fields, **RUN)
    cfg.check()


def test_the_described_switch_runs_alike_from_python_the_cli_and_cmswitch_sim(tmp_path, sim_binary):
    path = tmp_path / "leaf.json"
    path.write_text(json.dumps(LEAF))
    cfg = cmswitch.WorkloadConfig(**cmswitch.load_switch(str(path)), **RUN)
    res = cmswitch.run(cfg)
    s = res.summary
    assert s["conservation_ok"] and s["uplinks"] == 2 and s["incasts_completed"] == s["incasts"] > 0
    assert s["drops_incast_prio"] == 0   # priority 3 is the lossless one
    q = res.tables["queues"]
    assert set(q["queue"]) <= {0, 1, 2, 3}   # priorities 0-2 -> queues 0, 1; 3 -> 3
    assert 3 in set(q["queue"]) and 0 in set(q["queue"])
    flags = [f"--{k.replace('_', '-')}={v}" for k, v in RUN.items()]
    cli = subprocess.run([sys.executable, "-m", "cmswitch", "run", "workload", "--switch", str(path), *flags],
                         capture_output=True, text=True, check=True)
    sim = subprocess.run([sim_binary, "workload", "--switch", str(path), *flags], capture_output=True, text=True,
                         check=True)
    for other in (json.loads(cli.stdout), json.loads(sim.stdout)):
        for k in ("flows_completed", "slowdown_p99", "drops", "pause_frames", "switch_frames_sent", "events"):
            assert other[k] == s[k], k
    # a field after --switch overrides the file's
    over = subprocess.run([sim_binary, "workload", "--switch", str(path), *flags, "--uplinks", "1"],
                          capture_output=True, text=True, check=True)
    assert json.loads(over.stdout)["uplinks"] == 1


def test_bad_descriptions_name_the_file_and_the_key(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("[mmu]\npool_kbb = 1\n")
    with pytest.raises(ValueError, match=r"bad.toml: unknown key 'pool_kbb'"):
        cmswitch.load_switch(str(path))
    path.write_text("[a]\npool_kb = 1\n[b]\npool_kb = 2\n")
    with pytest.raises(ValueError, match="'pool_kb' is given twice"):
        cmswitch.load_switch(str(path))
    path.write_text("[mmu\n")
    with pytest.raises(ValueError, match="not valid TOML"):
        cmswitch.load_switch(str(path))
    with pytest.raises(ValueError, match="cannot be read"):
        cmswitch.load_switch(str(tmp_path / "missing.json"))
    r = subprocess.run([sys.executable, "-m", "cmswitch", "run", "workload", "--switch", str(tmp_path / "x.json")],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "cannot be read" in r.stderr


def test_a_sweep_over_scheduler_weights(tmp_path):
    # DWRR weights of the background queue against the incast queue: a sweep field like any other; the incast's
    # queue served more often finishes its incasts sooner
    base = cmswitch.WorkloadConfig(topology="star", hosts=8, load=0.7, flow_prio=0, incast_prio=1, incast_fanin=7,
                                   incast_kb=128, incast_period_ms=1, duration_s=0.01, drain_ms=10,
                                   scheduler="dwrr", buffer_policy="shared", pool_kb=4096)
    grid = {"dwrr_weights": [(8, 1, 0, 0, 0, 0, 0, 0), (1, 8, 0, 0, 0, 0, 0, 0)]}
    df = cmswitch.sweep(base, grid, workers=1, progress=False)
    assert len(df) == 2
    slow, fast = df["incast_time_p50_ms"].tolist()
    assert fast < slow


TOR = str(__import__("pathlib").Path(__file__).resolve().parents[2] / "examples" / "switches" / "tor_32x25_8x100.json")


def test_a_scalar_and_the_list_that_replaces_it_cannot_both_be_set():
    # the shipped ToR gives every queue its alpha: alpha 4 beside it would change nothing, so it is refused
    tor = cmswitch.load_switch(TOR)
    assert tor["alpha_by_queue"] == (1, 1, 0.5, 1, 1, 1, 1, 1) and "alpha" not in tor
    cmswitch.WorkloadConfig(**tor).check()   # alpha at its default: nothing is overridden
    with pytest.raises(ValueError, match=r"alpha = 4 and alpha_by_queue = 1,1,0.5,1,1,1,1,1 are both set"):
        cmswitch.WorkloadConfig(**cmswitch.load_switch(TOR, alpha=4)).check()
    with pytest.raises(ValueError, match=r"pause_xoff_alpha = 2 and pause_xoff_alpha_by_pg = .* are both set"):
        cmswitch.WorkloadConfig(**cmswitch.load_switch(TOR, pause_xoff_alpha_by_pg=(1,) * 8,
                                                       pause_xoff_alpha=2)).check()
    # every list takes its documented none: Python (None, "none"), the core's own parser, the command line
    for none in (None, "none", ()):
        assert cmswitch.WorkloadConfig(**cmswitch.load_switch(TOR, alpha_by_queue=none)).alpha_by_queue == ()
    cmswitch.WorkloadConfig(**cmswitch.load_switch(TOR, alpha_by_queue=None, alpha=4)).check()
    params = cmswitch.WorkloadConfig(**cmswitch.load_switch(TOR, alpha=4)).to_params()
    cmswitch._core.check("workload", {**params, "alpha_by_queue": "none"}, build=False, memory_budget_mb=0.0)
    with pytest.raises(ValueError, match="are both set"):
        cmswitch._core.check("workload", params, build=False, memory_budget_mb=0.0)
    info = cmswitch.WorkloadConfig.field_info("alpha")
    assert info["overridden_by"] == "alpha_by_queue" and "cannot both be set" in info["help"]


def test_a_sweep_of_an_overridden_field_is_refused_before_it_runs(tmp_path):
    base = cmswitch.WorkloadConfig(**cmswitch.load_switch(TOR, duration_s=0.001))
    with pytest.raises(ValueError, match=r"the sweep varies alpha \(0.25, 1, 4\), but alpha_by_queue = .* replaces "
                                         r"it in 3 of its 3 points"):
        cmswitch.sweep(base, {"alpha": [0.25, 1, 4]}, store=str(tmp_path / "s.sqlite"), progress=False)
    assert not (tmp_path / "s.sqlite").exists()   # refused before the store was opened
    # the shared-buffer study on the shipped ToR: its alpha list is refused, naming both fields
    from cmswitch.shared_buffer_study import shared_buffer
    with pytest.raises(ValueError, match=r"alphas \(0.25, 1.0, 4.0\) are swept, but the switch sets alpha_by_queue"):
        shared_buffer(str(tmp_path / "study"), switch=TOR, progress=False)
    assert not (tmp_path / "study").exists()


def test_pfc_on_priorities_no_traffic_uses_is_refused():
    # the ToR makes only priority 3 lossless; TCP on priority 0 would see no PAUSE and drop like drop-tail
    lossy = cmswitch.WorkloadConfig(**cmswitch.load_switch(TOR, flow_prio=0, incast_prio=0, incast_fanin=4))
    with pytest.raises(ValueError, match=r"pfc_priorities = 3: no traffic of this run uses this priority \(it sends "
                                         r"on priority 0\)"):
        lossy.check()
    lossy.replace(incast_prio=3).check()   # the incast on the lossless class: a mixed switch, allowed
    lossy.replace(pfc_priorities=None).check()   # none: every data priority lossless
    cmswitch.RdmaIncastConfig(pause="pfc", pfc_priorities=(3,)).check()   # RoCE sends on 3
    with pytest.raises(ValueError, match=r"pfc_priorities = 4, 5: no traffic of this run uses these priorities "
                                         r"\(it sends on priority 3\)"):
        cmswitch.RdmaIncastConfig(pause="pfc", pfc_priorities=(4, 5)).check()
    from cmswitch.shared_buffer_study import shared_buffer
    with pytest.raises(ValueError, match=r"scheme pfc would measure drop-tail: pfc_priorities = 3"):
        shared_buffer("unused", switch=TOR, alphas=(1.0,), flow_prio=0, incast_prio=0, progress=False)


def test_load_switch_overrides_merge_with_the_file():
    tor = cmswitch.load_switch(TOR, load=0.3, hosts=8)
    assert tor["load"] == 0.3 and tor["hosts"] == 8 and tor["pool_kb"] == 16384
    with_load = dict(LEAF, traffic={"load": 0.9})
    assert cmswitch.WorkloadConfig(**cmswitch.load_switch(with_load, load=0.2)).load == 0.2


def test_a_misspelled_field_gets_the_nearest_names():
    with pytest.raises(ValueError, match=r"has no field alpa \(did you mean alpha\?\)$"):
        cmswitch.WorkloadConfig().replace(alpa=2)
    with pytest.raises(ValueError, match=r"did you mean pool_kb"):
        cmswitch.WorkloadConfig.from_dict({"poolkb": 2})
    with pytest.raises(ValueError, match="fields are"):   # nothing near: the whole list
        cmswitch.WorkloadConfig().replace(zzzzzz=2)
    from cmswitch.cli import main
    assert main(["run", "workload", "--alpa", "2"]) == 2


def test_a_list_takes_none_in_a_switch_file_too(tmp_path):
    desc = tmp_path / "s.json"
    desc.write_text('{"switch": {"buffer_policy": "shared", "pool_kb": 1024, "alpha_by_queue": "none"}}')
    assert cmswitch.load_switch(str(desc), "workload")["alpha_by_queue"] in ((), "none")
    assert cmswitch.WorkloadConfig(**cmswitch.load_switch(str(desc), "workload")).alpha_by_queue == ()


def test_a_queue_of_lossless_and_lossy_priorities_is_refused_with_a_static_xoff_too():
    cfg = cmswitch.WorkloadConfig(pause="pfc", pfc_priorities=(3,), flow_prio=3, incast_prio=3, pool_kb=4096,
                                  pause_xoff_kb=32, queue_map=(0, 0, 1, 1, 2, 2, 3, 7), duration_s=0.002)
    with pytest.raises(ValueError, match="lossless and a lossy priority in one egress queue \\(pfc_priorities 3\\)"):
        cfg.check()
    cfg.replace(queue_map=(0, 1, 2, 3, 4, 5, 6, 7)).check()   # each priority its own queue: fine
