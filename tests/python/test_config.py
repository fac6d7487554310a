# SPDX-License-Identifier: Apache-2.0
"""Configs: every field type refuses bad values with a ValueError naming the field; Python and C++ agree."""
import dataclasses
import os
import re

import pytest

import cmswitch
from cmswitch import _core
from conftest import ROOT


@pytest.mark.parametrize("cls", list(cmswitch.CONFIG_CLASSES.values()))
def test_fields_match_the_core_parameter_tables(cls):
    spec = {p["name"]: p for p in _core.describe(cls.scenario)["params"]}
    renamed = {"baseline": "scenario"} if cls.scenario == "baseline" else {}
    fields = {renamed.get(f.name, f.name): f for f in dataclasses.fields(cls)}
    assert set(fields) == set(spec), "dataclass and C++ parameter table differ"
    for name, f in fields.items():
        assert f.default == spec[name]["default"], name


@pytest.mark.parametrize("field, value, words", [
    ("flows", 0, "IncastConfig.flows = 0 is out of range: allowed [1, 4000] servers"),   # int below range
    ("flows", 2.5, "IncastConfig.flows = 2.5: must be an integer"),                      # int not integral
    ("flows", "8", "IncastConfig.flows = '8': must be a number"),                        # wrong type
    ("flows", True, "IncastConfig.flows = True: must be a number"),                      # bool is not a number
    ("buffer_kb", -5, "IncastConfig.buffer_kb = -5 is out of range: allowed [1, 1048576] KB (1024 B)"),
    ("min_rto_ms", 0.0, "IncastConfig.min_rto_ms = 0.0 is out of range"),               # float below range
    ("link_gbps", 0.0, "IncastConfig.link_gbps = 0.0 is out of range: allowed (0, 1000] Gbps"),  # open bound
    ("duration_s", float("nan"), "IncastConfig.duration_s = nan is out of range"),       # not finite
    ("transport", "cubic", "IncastConfig.transport = 'cubic': allowed values are newreno, dctcp"),  # choice
    ("ecn", 1, "IncastConfig.ecn = 1: must be True or False"),                           # bool
])
def test_bad_values_raise_value_error_naming_the_field(field, value, words):
    with pytest.raises(ValueError) as e:
        cmswitch.IncastConfig(**{field: value})
    assert words in str(e.value)


def test_overload_fields_are_checked_too():
    with pytest.raises(ValueError, match=r"OverloadConfig.senders = 0 is out of range"):
        cmswitch.OverloadConfig(senders=0)
    with pytest.raises(ValueError, match=r"OverloadConfig.traffic = 'tcp': allowed values are cbr, poisson, bernoulli"):
        cmswitch.OverloadConfig(traffic="tcp")


def test_replace_validates_and_refuses_unknown_fields():
    base = cmswitch.IncastConfig()
    assert base.replace(flows=16).flows == 16
    with pytest.raises(ValueError, match="buffer_kb"):
        base.replace(buffer_kb=0)
    with pytest.raises(ValueError, match="has no field bufer_kb"):
        base.replace(bufer_kb=64)


def test_cross_field_errors_come_from_the_core_as_value_error():
    cfg = cmswitch.IncastConfig(marking="red", red_kmin_kb=50, red_kmax_kb=40, duration_s=0.01)
    with pytest.raises(ValueError, match="red_kmax"):
        cmswitch.run(cfg)
    with pytest.raises(ValueError, match="marking"):
        cmswitch.run(cmswitch.IncastConfig(transport="dctcp", duration_s=0.01))


def test_equal_configs_hash_equal_and_the_key_covers_every_field_and_the_version():
    a = cmswitch.IncastConfig(buffer_kb=64)
    b = cmswitch.IncastConfig(buffer_kb=64.0)
    assert a == b and a.key("1") == b.key("1")
    assert a.key("1") != a.replace(seed=2).key("1")
    assert a.key("1") != a.key("2")


def test_versions_agree():
    with open(os.path.join(ROOT, "pyproject.toml")) as f:
        py = re.search(r'^version = "([^"]+)"', f.read(), re.M).group(1)
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        cm = re.search(r"project\(cmswitch VERSION ([0-9.]+)", f.read()).group(1)
    assert cmswitch.__version__ == py == cm
