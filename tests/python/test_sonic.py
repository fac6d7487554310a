# SPDX-License-Identifier: Apache-2.0
"""SONiC buffer configurations from Python and the command line: load_sonic, write_sonic, --sonic-config."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

import cmswitch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARISTA = os.path.join(ROOT, "examples", "sonic", "arista-7060cx-32s-c32.json")
NVIDIA = os.path.join(ROOT, "examples", "sonic", "nvidia-acs-msn2700.json")


def test_load_sonic_gives_the_tables_fields():
    f = cmswitch.load_sonic(ARISTA, topology="star")
    assert f["buffer_policy"] == "pools"
    assert f["cell_bytes"] == 208
    assert f["headroom_pool_kb"] == 4194112 / 1024     # the lossless pool's xoff
    assert f["xoff_kb"] == (177632 / 1024,)
    assert f["pfc_priorities"] == (3.0, 4.0)
    assert f["topology"] == "star"                      # the override


@pytest.mark.parametrize("path", [ARISTA, NVIDIA])
def test_read_write_read_is_the_same_switch(tmp_path, path):
    cfg = cmswitch.WorkloadConfig(**cmswitch.load_sonic(path, topology="star", hosts=16))
    out = tmp_path / "written.json"
    text = cmswitch.write_sonic(cfg, out)
    assert json.loads(out.read_text()) == json.loads(text)
    again = cmswitch.WorkloadConfig(**cmswitch.load_sonic(out, topology="star", hosts=16))
    assert again == cfg


def test_refusals_name_the_table_and_key(tmp_path):
    bad = json.loads(pathlib.Path(ARISTA).read_text())
    bad["BUFFER_PROFILE"]["ingress_lossy_profile"]["packet_discard_action"] = "trim"
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(bad))
    with pytest.raises(ValueError, match=r"BUFFER_PROFILE\|ingress_lossy_profile\.packet_discard_action"):
        cmswitch.load_sonic(p)
    with pytest.raises(ValueError, match="buffer_policy"):
        cmswitch.write_sonic(cmswitch.WorkloadConfig(buffer_policy="dynamic"))


def test_the_command_lines_read_it(tmp_path):
    out = subprocess.run([sys.executable, "-m", "cmswitch", "run", "workload", "--sonic-config", NVIDIA,
                          "--topology", "star", "--hosts", "8", "--flow-prio", "3", "--load", "0.2",
                          "--duration-s", "0.002", "--drain-ms", "2"],
                         capture_output=True, text=True, check=True)
    summary = json.loads(out.stdout)
    assert summary["cell_bytes"] == 96
    assert summary["drops"] == 0
