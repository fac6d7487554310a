# SPDX-License-Identifier: Apache-2.0
"""Plots fit for a design review: distinct styles, confidence intervals, infeasible points marked,
legends outside the data, units on the axes."""
import math

import pandas as pd
import pytest

import cmswitch
from cmswitch import plots


def test_twelve_lines_have_twelve_distinct_styles():
    styles = [plots.line_style(i) for i in range(12)]
    assert len({s["color"] for s in styles}) == 12
    assert len({s["marker"] for s in styles}) == 12


def test_mean_ci_is_the_student_t_interval():
    # 1, 2, 3: mean 2, s = 1, t(0.975, 2) = 4.303 -> half-width 4.303 / sqrt(3) = 2.4843
    m, h, n = plots.mean_ci([1.0, 2.0, 3.0])
    assert (m, n) == (2.0, 3) and h == pytest.approx(4.303 / math.sqrt(3), rel=1e-9)
    assert plots.mean_ci([5.0]) == (5.0, 0.0, 1)
    assert plots.mean_ci([float("nan"), 4.0, 6.0])[0] == 5.0   # infeasible (NaN) rows are not samples


def test_infeasible_points_are_marked_and_the_legend_is_outside():
    df = pd.DataFrame({"flows": [2, 2, 8, 8, 2, 8], "buffer_kb": [32, 32, 32, 32, 64, 64],
                       "seed": [1, 2, 1, 2, 1, 1], "goodput_mbps": [900, 920, None, None, 950, 940],
                       "infeasible": ["", "", "no room", "no room", "", ""]})
    fig = plots.goodput_vs_flows(df)
    ax = fig.axes[0]
    labels = ax.get_legend().get_texts()
    assert [t.get_text() for t in labels][0] == "infeasible (not run)"
    # an x at (8 flows, 0) in the 32 KB line's colour
    xs = [line for line in ax.get_lines() if line.get_marker() == "x" and len(line.get_xdata())]
    assert any(list(line.get_xdata()) == [8] and list(line.get_ydata()) == [0] for line in xs)
    # the legend is right of the axes, not on the data
    fig.canvas.draw()
    assert ax.get_legend().get_window_extent().x0 > ax.get_window_extent().x1
    assert ax.get_ylabel() == "goodput (Mbps)"


def test_innocent_vs_hotspot_of_a_baseline_run_is_in_gbps():
    r = cmswitch.run(cmswitch.BaselineConfig(duration_s=0.02, series=True, sample_us=1000))
    assert "hotspot_gbps" in r.series and "victim_gbps" not in r.series
    assert "paused_ports_switch0" in r.series
    fig = plots.innocent_vs_hotspot(r)
    assert fig.axes[0].get_ylabel() == "throughput (Gb/s)"
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["innocent traffic", "hot-spot traffic"]
    rates = pd.DataFrame({"0": [100.0, 200.0], "1": [50.0, 25.0]}, index=[1.0, 2.0])
    fig = plots.innocent_vs_hotspot(rates, hotspot=["1"])
    assert fig.axes[0].get_ylabel() == "throughput (Mbps)"
    assert list(fig.axes[0].get_lines()[1].get_ydata()) == [50.0, 25.0]


def test_pause_state_is_in_the_series():
    # transmitters held by a PAUSE/PFC at each sample, beside the queue
    r = cmswitch.run(cmswitch.IncastConfig(flows=8, pause="pause", buffer_kb=128, duration_s=0.02, series=True,
                                           sample_us=100))
    s = r.series
    assert "paused_transmitters" in s and s["paused_transmitters"].max() >= 1
    assert s["paused_transmitters"].max() <= 8 + 9   # the senders' NICs and the switch's 9 ports at most
    plain = cmswitch.run(cmswitch.IncastConfig(flows=8, buffer_kb=128, duration_s=0.02, series=True, sample_us=100))
    assert plain.series["paused_transmitters"].max() == 0
    rd = cmswitch.run(cmswitch.RdmaIncastConfig(senders=8, qps=20, duration_s=0.005, series=True, sample_us=1))
    assert rd.series["paused_transmitters"].max() >= 1   # PFC on by default in the RDMA incast


def test_every_scenario_reports_time_weighted_queue_percentiles_per_port():
    # percentiles in every scenario (the testbed's packet-counted ports had only the maximum)
    r = cmswitch.run(cmswitch.SctpIncastConfig(duration_s=0.05))
    ports = r.tables["ports"]
    for p50, p99, mx in zip(ports["queue_p50_kb"], ports["queue_p99_kb"], ports["max_queue_frames"]):
        assert 0 <= p50 <= p99 <= mx * 1500 / 1024 + 1e-9
    assert max(ports["queue_p99_kb"]) > 0
    for cfg in (cmswitch.IncastConfig(duration_s=0.02), cmswitch.RdmaIncastConfig(duration_s=0.002),
                cmswitch.BaselineConfig(duration_s=0.01), cmswitch.WorkloadConfig(duration_s=0.002)):
        assert "queue_p99_kb" in cmswitch.run(cfg).tables["ports"], type(cfg).__name__
