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
        cmswitch.WorkloadConfig(**{**cmswitch.load_switch(LEAF), "queue_map": (0, 0, 1, 1, 2, 2, 3, 7)}).check()


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
