# SPDX-License-Identifier: Apache-2.0
"""The cmswitch command line: run, sweep from TOML/YAML, scenarios, errors."""
import json
import subprocess
import sys

import pandas as pd
import pytest


def cli(*args, check=True):
    return subprocess.run([sys.executable, "-m", "cmswitch", *args], capture_output=True, text=True, check=check)


def test_run_prints_the_summary():
    out = json.loads(cli("run", "incast", "--flows", "4", "--duration-s", "0.2", "--buffer-kb", "64").stdout)
    assert out["flows"] == 4 and out["conservation_ok"] is True and out["goodput_mbps"] > 0


def test_bad_field_gives_exit_code_2_and_names_it():
    r = cli("run", "incast", "--buffer-kb", "-3", check=False)
    assert r.returncode == 2
    assert "IncastConfig.buffer_kb = -3.0 is out of range" in r.stderr
    r = cli("run", "incast", "--bufer-kb", "3", check=False)
    assert r.returncode == 2 and "scenario incast has no field bufer_kb (did you mean buffer_kb?)" in r.stderr


def test_sweep_from_toml_and_yaml(tmp_path):
    toml = tmp_path / "spec.toml"
    toml.write_text('scenario = "incast"\n[base]\nduration_s = 0.2\nmin_rto_ms = 10\n'
                    '[grid]\nflows = [2, 4]\nbuffer_kb = [32, 64]\n')
    r = cli("sweep", str(toml), "--workers", "2", "--store", str(tmp_path / "s.sqlite"))
    df = pd.read_csv(tmp_path / "spec.csv")
    assert len(df) == 4 and set(df["flows"]) == {2, 4}
    assert "4 computed" in r.stderr
    yaml = tmp_path / "spec.yaml"
    yaml.write_text("scenario: incast\nbase: {duration_s: 0.2, min_rto_ms: 10}\n"
                    "grid: {flows: [2, 4], buffer_kb: [32, 64]}\n")
    r = cli("sweep", str(yaml), "--store", str(tmp_path / "s.sqlite"), "--csv", str(tmp_path / "y.csv"))
    assert "0 computed, 4 from the store" in r.stderr
    assert pd.read_csv(tmp_path / "y.csv").drop(columns="wall_s").equals(df.drop(columns="wall_s"))


def test_sweep_spec_errors_name_the_problem(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('scenario = "incast"\n[grid]\nflows = [0]\n')
    r = cli("sweep", str(bad), check=False)
    assert r.returncode == 2 and "IncastConfig.flows = 0" in r.stderr
    bad.write_text('scenario = "nosuch"\n')
    r = cli("sweep", str(bad), check=False)
    assert r.returncode == 2 and "known scenarios are" in r.stderr


def test_scenarios_lists_fields_with_units():
    out = cli("scenarios", "incast").stdout
    assert "buffer_kb" in out and "KB (1024 B)" in out and "min_rto_ms" in out


def test_integers_are_parsed_exactly_and_the_seed_range_is_what_a_double_holds():
    # 2^53 + 1 went through a float and ran seed 2^53 silently; now the range ends at 2^53 - 1 and is refused
    # beyond, and the largest seed runs
    r = cli("run", "overload", "--seed", "9007199254740993", "--duration-s", "0.001", check=False)
    assert r.returncode == 2 and "seed" in r.stderr
    r = cli("run", "overload", "--seed", "9007199254740991", "--duration-s", "0.001", "--sample-us", "0")
    assert json.loads(r.stdout)["conservation_ok"] is True


@pytest.mark.parametrize("name,text,words", [
    ("a.yaml", "scenario: incast\ngrid: [1, 2\n", "not valid YAML"),
    ("b.toml", "scenario = \n", "not valid TOML"),
    ("c.yaml", "- 1\n- 2\n", "must hold sections"),
    ("d.toml", 'scenario = "incast"\ngrid = 3\n', "[grid] must be"),
    ("e.toml", 'scenario = "incast"\n[grid]\nflows = []\n', "grid 'flows' is empty"),
    ("f.toml", 'scenario = "incast"\n[output]\ncvs = "x.csv"\n', "unknown [output] key(s) cvs"),
    ("g.toml", 'scenario = "incast"\n[output]\nworkers = 0\n', "workers = 0"),
    ("h.toml", 'scenario = "incast"\n[output]\ncsv = "/no/such/folder/x.csv"\n', "does not exist"),
])
def test_spec_file_problems_name_the_file_and_key_before_anything_runs(tmp_path, name, text, words):
    spec = tmp_path / name
    spec.write_text(text)
    r = cli("sweep", str(spec), check=False)
    assert r.returncode == 2, r.stderr
    assert words in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert not list(tmp_path.glob("*.csv"))


def test_baseline_is_chosen_by_its_field_or_its_core_name():
    # `cmswitch run baseline --scenario X` said "BaselineConfig has no field scenario" and `--baseline X`
    # "unknown field": both name the same parameter
    for flag in ("--baseline", "--scenario"):
        out = json.loads(cli("run", "baseline", flag, "pause-spreading", "--duration-s", "0.002").stdout)
        assert out["baseline"] == "pause-spreading", flag
