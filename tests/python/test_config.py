# SPDX-License-Identifier: Apache-2.0
"""Configs: every field type refuses bad values with a ValueError naming the field; Python and C++ agree."""
import dataclasses
import os
import re

import pytest

import cmswitch
from cmswitch import _core
from conftest import ROOT


def test_every_scenario_of_the_core_has_a_config_class():
    assert set(cmswitch.CONFIG_CLASSES) == set(_core.scenario_names())
    assert cmswitch.config_class("baseline") is cmswitch.BaselineConfig
    assert cmswitch.config.class_name("rdma-incast") == "RdmaIncastConfig"


@pytest.mark.parametrize("cls", list(cmswitch.CONFIG_CLASSES.values()))
def test_fields_are_the_core_parameter_tables_in_order(cls):
    # generated from _core.describe, so this holds by construction; it guards the generator (renames, order,
    # types, defaults) rather than a hand copy
    spec = _core.describe(cls.scenario)["params"]
    fields = dataclasses.fields(cls)
    assert [f.metadata["core_name"] for f in fields] == [p["name"] for p in spec]
    types = {"int": int, "float": float, "choice": str, "bool": bool, "list": tuple}
    for f, p in zip(fields, spec):
        if p.get("profile"):   # a setting the host profile decides: None (the profile's value) by default
            assert f.default is None and p["default"] is None, f.name
        else:
            assert f.default == p["default"] and type(f.default) is types[p["type"]], f.name
        assert f.name == (cls.scenario if p["name"] == "scenario" else p["name"])
        assert f.metadata["unit"] == p["unit"] and f.metadata["group"] == p["group"]
        assert f.name in cls.__doc__


def test_scheme_parameters_are_fields_of_every_scenario_that_offers_the_scheme():
    # declared once in model/cm/qcn (group "qcn"); the three scenarios offer QCN, so all three have them
    qcn = [p["name"] for p in _core.describe("incast")["params"] if p["group"] == "qcn"]
    assert "qcn_qeq_kb" in qcn and len(qcn) > 10
    for cls in (cmswitch.IncastConfig, cmswitch.OverloadConfig, cmswitch.BaselineConfig):
        assert {f.name for f in dataclasses.fields(cls)} >= set(qcn), cls.__name__
        assert cls.field_info("qcn_qeq_kb")["default"] == 26000 / 1024   # Q_eq = 26 000 bytes (802.1Qau)
    assert cmswitch.IncastConfig.field_info("pause_xoff_kb")["group"] == "pause"


def test_host_profile_settings_are_none_until_given_and_the_profile_decides_them():
    # the workload's hosts are Linux servers by default: SACK, IW 10, fq; the incast's the ns-2 stack; a setting
    # given wins over the profile, None gives it back, and the run reports what was decided
    cfg = cmswitch.WorkloadConfig(topology="star", hosts=4, duration_s=0.002)
    assert cfg.host_profile == "linux" and cfg.sack is None and cfg.init_cwnd is None
    assert cfg.to_params()["sack"] == "profile"
    s = cmswitch.run(cfg).summary
    assert (s["tcp_sack"], s["tcp_init_cwnd"], s["host_qdisc"], s["tcp_rack_tlp"]) == (True, 10, "fq", True)
    s = cmswitch.run(cfg.replace(sack=False)).summary   # no SACK: the profile's RACK-TLP gives way
    assert (s["tcp_sack"], s["tcp_rack_tlp"], s["host_qdisc"]) == (False, False, "fq")
    s = cmswitch.run(cfg.replace(host_profile="ns2", init_cwnd=4)).summary
    assert (s["tcp_sack"], s["tcp_init_cwnd"], s["host_qdisc"]) == (False, 4, "fifo")
    assert cfg.replace(sack=False).replace(sack=None) == cfg
    assert cmswitch.IncastConfig().host_profile == "ns2"
    with pytest.raises(ValueError, match="rack_tlp = true needs sack = true"):
        cmswitch.run(cfg.replace(sack=False, rack_tlp=True))
    with pytest.raises(ValueError, match="WorkloadConfig.sack = 'yes': must be True or False"):
        cfg.replace(sack="yes")


def test_baseline_workload_field_is_the_core_scenario_parameter():
    cfg = cmswitch.BaselineConfig(baseline="periodic-hotspot")
    assert cfg.to_params()["scenario"] == "periodic-hotspot" and "baseline" not in cfg.to_params()


def test_pause_split_is_the_core_rule_by_hand():
    # 1 Gbps, 25 us: headroom = 2 x 1e9 x 25e-6 / 8 = 6250 B of cable + 2 x 1500 B + 2 quanta x 64 B = 9378 B.
    # 128 KB over 8 inputs: share 16384 B, XOFF 16384 - 9378 = 7006 B, XON 2 MTU lower = 4006 B, lossless
    s = cmswitch.pause_split(128, 8, 1.0, 25.0)
    assert (s.share_bytes, s.headroom_bytes, s.xoff_bytes, s.xon_bytes, s.lossless) == (16384, 9378, 7006, 4006, True)
    # 64 KB over 8: share 8192 < headroom, no XOFF fits
    assert cmswitch.pause_split(64, 8, 1.0, 25.0).lossless is False
    # the boundary: XOFF exactly 3 MTU (4500 B) is lossless, one byte less is not
    assert cmswitch.pause_split((9378 + 4500) / 1024, 1, 1.0, 25.0).lossless is True
    assert cmswitch.pause_split((9378 + 4499) / 1024, 1, 1.0, 25.0).lossless is False
    with pytest.raises(ValueError, match="inputs"):
        cmswitch.pause_split(128, 0, 1.0, 25.0)


@pytest.mark.parametrize("field, value, words", [
    ("flows", 0, "IncastConfig.flows = 0 is out of range: allowed [1, 4000] servers"),   # int below range
    ("flows", 2.5, "IncastConfig.flows = 2.5: must be an integer"),                      # int not integral
    ("flows", "8", "IncastConfig.flows = '8': must be a number"),                        # wrong type
    ("flows", True, "IncastConfig.flows = True: must be a number"),                      # bool is not a number
    ("buffer_kb", -5, "IncastConfig.buffer_kb = -5 is out of range: allowed [1, 4194304] KB (1024 B)"),
    ("min_rto_ms", 0.0, "IncastConfig.min_rto_ms = 0.0 is out of range"),               # float below range
    ("link_gbps", 0.0, "IncastConfig.link_gbps = 0.0 is out of range: allowed (0, 1000] Gbps"),  # open bound
    ("duration_s", float("nan"), "IncastConfig.duration_s = nan is out of range"),       # not finite
    ("transport", "bbr", "IncastConfig.transport = 'bbr': allowed values are newreno, dctcp"),  # choice
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


def test_the_users_flow_size_csv_is_a_value_of_flow_sizes(tmp_path):
    # half the flows 1000 B, half uniform over 1000-3000 B: mean 1500 B by hand
    path = tmp_path / "sizes.csv"
    path.write_text("size_bytes,cdf_percent\n1000,0\n1000,50\n3000,100\n")
    cfg = cmswitch.WorkloadConfig(topology="star", hosts=4, load=0.3, flow_sizes=str(path), duration_s=0.003)
    res = cmswitch.run(cfg)
    assert res.summary["flow_size_mean_bytes"] == 1500
    assert "csv" in cmswitch.WorkloadConfig.field_info("flow_sizes")["help"]
    # the store's key follows the file's content, not only its path
    key = cfg.key("v")
    path.write_text("size_bytes,cdf_percent\n1000,0\n2000,100\n")
    assert cfg.key("v") != key
    with pytest.raises(ValueError, match="flow_sizes"):
        cmswitch.WorkloadConfig(flow_sizes=str(tmp_path / "missing.csv"))
    with pytest.raises(ValueError, match="flow_sizes"):
        cmswitch.WorkloadConfig(flow_sizes="zipf")


def test_values_below_the_models_resolution_are_value_errors():
    # 1e-7 Mb/s (0.1 bit/s) crashed the interpreter (SIGFPE); a 0.1 ps sampling period hung
    with pytest.raises(ValueError, match="udp_cbr_mbps"):
        cmswitch.IncastConfig(udp_cbr_mbps=1e-7)
    with pytest.raises(ValueError, match="sample_us"):
        cmswitch.OverloadConfig(sample_us=1e-7)
    with pytest.raises(ValueError, match="duration_s"):
        cmswitch.IncastConfig(duration_s=1e-13)
    assert cmswitch.IncastConfig(udp_cbr_mbps=1e-6).udp_cbr_mbps == 1e-6   # 1 bit/s: the resolution
