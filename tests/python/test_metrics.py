# SPDX-License-Identifier: Apache-2.0
"""What the summaries count: every scenario reports the same keys whatever its config (a script over a sweep
reads every key of every row; docs/metrics.md lists them), PAUSE time from both ends of a link and drops by
priority checked by hand on a 2:1 RoCE incast, FCT buckets in the units their labels say, and the lossless
set-up whose ACKs and CNPs have no room refused by check()."""
import os

import pytest

import cmswitch
from conftest import ROOT

SHORT = {"overload": dict(duration_s=0.005), "incast": dict(duration_s=0.02), "baseline": dict(duration_s=0.005),
         "rdma-incast": dict(duration_s=0.002), "vegas-incast": dict(duration_s=0.01),
         "sctp-incast": dict(duration_s=0.02), "workload": dict(duration_s=0.003)}
# per scenario: its default, a lossless config and the other choices that used to add or drop keys
VARIANTS = {
    "overload": [dict(cm="qcn"), dict(buffer_policy="shared"), dict(warmup_s=0.001), dict(traffic="poisson")],
    "incast": [dict(pause="pfc", buffer_kb=512), dict(host_profile="linux"), dict(transport="dctcp", marking="step"),
               dict(cm="qcn"), dict(bulk_flows=1)],
    "baseline": [dict(cm="tcp"), dict(cm="udp-pause"), dict(host_profile="linux")],
    "rdma-incast": [dict(pause="none"), dict(message_kb=64), dict(warmup_ms=1), dict(cm="none", marking="none")],
    "vegas-incast": [dict(pause="pfc", buffer_kb=512), dict(host_profile="linux")],
    "sctp-incast": [dict(marking="step")],
    "workload": [dict(pause="pfc", pause_xoff_alpha=1, pause_headroom_pool_kb=1000), dict(incast_fanin=0),
                 dict(host_profile="ns2"), dict(warmup_ms=1), dict(buffer_policy="shared"),
                 dict(topology="leaf-spine")],
}


def _keys(name, **fields):
    cls = cmswitch.config.config_class(name)
    return set(cmswitch.run(cls(**SHORT[name], **fields), progress=False).summary)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_a_scenario_reports_the_same_keys_whatever_its_config(name):
    base = _keys(name)
    for v in VARIANTS[name]:
        got = _keys(name, **v)
        assert got == base, (v, sorted(base - got), sorted(got - base))


def test_the_metrics_table_is_every_key_with_its_meaning():
    from cmswitch.metrics import describe, metrics_table
    with open(os.path.join(ROOT, "docs", "metrics.md")) as fh:
        assert fh.read() == metrics_table(), "docs/metrics.md is stale: run scripts/gen_metrics_doc.py"
    assert describe("drops_prio3") == "frames the switches dropped carrying priority 3, every reason"
    with pytest.raises(ValueError, match="not a summary key"):
        describe("no_such_metric")


def test_paused_time_from_both_ends_and_drops_by_priority_by_hand():
    # two RoCE senders at line rate (no congestion control) into one 10 Gb/s receiver through one switch, PFC on
    # the data's priority 3: the receiver's link carries at most C, so each sender transmits at most half the
    # time and PFC holds it the rest. By hand, a sender's paused time is the run less its time on the wire
    # (its frames: delivered, plus at most what the switch still holds), plus up to one frame per pause episode
    # (PAUSE does not stop a frame already on the wire).
    T, C = 0.02, 10e9
    cfg = cmswitch.RdmaIncastConfig(senders=2, qps=1, link_gbps=10, duration_s=T, cm="none", marking="none",
                                    start_spread_us=0, buffer_kb=64)
    r = cmswitch.run(cfg, progress=False)
    s, hosts, flows = r.summary, r.tables["hosts"], r.tables["flows"]
    frame_s = (1024 + 62) * 8 / C
    episodes = r.tables["pause_episodes"]
    held = s["queued_bytes"] + s["in_flight_bytes"]
    for h in (0, 1):
        wire = flows["delivered_bytes"][h] * 1086 / 1024
        n = sum(e for node, host, e in zip(episodes["node"], episodes["node_is_host"], episodes["episodes"])
                if host and node == h)
        lo = (T - (wire + held) * 8 / C) * 1e3
        hi = (T - wire * 8 / C + n * frame_s) * 1e3
        assert lo <= hosts["paused_ms"][h] <= hi, (h, lo, hosts["paused_ms"][h], hi)
        assert 0.4 * T * 1e3 < hosts["paused_ms"][h] < 0.6 * T * 1e3   # about half the run
    assert s["paused_ms_max_nic"] == max(hosts["paused_ms"])
    # the switch's ports facing the senders sent every PAUSE; the far end they held is those senders' NICs; the
    # receiver never pauses the switch
    assert s["pausing_ms_max_port"] == s["paused_ms_max_nic"]
    assert s["paused_ms_max_port"] == 0 and hosts["paused_ms"][2] == 0
    assert s["drops"] == 0 and all(s[f"drops_prio{p}"] == 0 for p in range(8))
    # lossy: every drop is a data frame of priority 3, and the dropped bytes close the account
    lossy = cmswitch.run(cfg.replace(pause="none"), progress=False).summary
    assert lossy["drops"] > 0 and lossy["drops_prio3"] == lossy["drops"]
    assert sum(lossy[f"drops_prio{p}"] for p in range(8)) == lossy["drops"]
    assert lossy["dropped_bytes"] == lossy["drops_prio3"] * 1086
    assert lossy["offered_bytes"] == lossy["delivered_bytes"] + lossy["dropped_bytes"] + lossy["queued_bytes"] + \
        lossy["in_flight_bytes"]
    assert lossy["paused_ms_max_nic"] == lossy["pausing_ms_max_port"] == 0


def test_drops_by_traffic_and_by_priority_differ_when_incasts_share_the_flows_priority():
    cfg = cmswitch.WorkloadConfig(duration_s=0.005, hosts=16, load=0.6, incast_fanin=15, incast_kb=64,
                                  incast_period_ms=0.5, pool_kb=256, flow_prio=0, incast_prio=0)
    s = cmswitch.run(cfg, progress=False).summary
    assert s["drops"] == s["drops_flows"] + s["drops_incast"]   # every switch drop is one flow's or an incast's
    assert s["drops_incast"] > 0 and s["drops_flows"] > 0
    # one priority for both: its counter counts both, the traffic counters split it
    assert s["drops_incast_prio"] == s["drops_flow_prio"] == s["drops_prio0"] == s["drops"]
    apart = cmswitch.run(cfg.replace(incast_prio=1), progress=False).summary
    assert apart["drops_incast_prio"] == apart["drops_prio1"] == apart["drops_incast"]
    assert apart["drops_flow_prio"] == apart["drops_prio0"] == apart["drops_flows"]


def test_fct_buckets_are_in_the_units_their_labels_say():
    r = cmswitch.run(cmswitch.WorkloadConfig(duration_s=0.003), progress=False)
    assert list(r.tables["fct_by_size"]["upper_bytes"]) == [10 * 1024, 100 * 1024, 1024 ** 2, 10 * 1024 ** 2, 0]
    assert r.summary["fct_buckets"] == "<=10KB, 10KB-100KB, 100KB-1MB, 1MB-10MB, >10MB"


ROCE = cmswitch.RdmaIncastConfig(senders=16, qps=4, message_kb=256, duration_s=0.02, buffer_policy="shared",
                                 pool_kb=512, pause_headroom_pool_kb=300, pause_xoff_alpha=8)


def test_a_lossless_pool_without_room_for_acks_and_cnps_is_refused_naming_the_fields():
    with pytest.raises(ValueError, match="pause_headroom_pool_kb = 300 with reserved_kb = 0.*ACKs, CNPs.*"
                                         "pause_unreserved_control"):
        ROCE.check()
    # run anyway: the control frames are dropped and queue pairs never finish, named in the summary
    s = cmswitch.run(ROCE.replace(pause_unreserved_control=True), progress=False).summary
    assert s["drops_pool_full"] > 0 and s["drops_prio7"] == s["drops"]   # every drop a control frame
    assert s["qps_unfinished"] > 0 and s["incast_completed"] == 0
    assert s["qps_unfinished_names"].split()[0].startswith("s") and ".qp" in s["qps_unfinished_names"]
    # with a reserve for every queue, every queue pair finishes
    ok = cmswitch.run(ROCE.replace(reserved_kb=1), progress=False).summary
    assert ok["drops"] == 0 and ok["qps_unfinished"] == 0 and ok["qps_done"] == 64 and ok["incast_completed"] == 1
    assert ok["qps_unfinished_names"] == ""
