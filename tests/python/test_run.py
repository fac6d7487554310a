# SPDX-License-Identifier: Apache-2.0
"""run(): the same numbers as cmswitch-sim, bit-identical across processes, tables as DataFrames, Ctrl-C."""
import json
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

import cmswitch
from conftest import strip_wall


def cli_summary(sim_binary, cfg):
    args = [sim_binary, cfg.scenario]
    for k, v in cfg.to_params().items():
        args.append(f"--{k}={v}")   # flags take --name=false
    out = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    out.pop("tables", None)
    return out


@pytest.mark.parametrize("cfg", [
    cmswitch.IncastConfig(flows=16, buffer_kb=64, min_rto_ms=10, duration_s=0.5, jitter_ns=300, seed=7),
    cmswitch.IncastConfig(flows=8, buffer_kb=128, transport="dctcp", marking="step", duration_s=0.3),
    cmswitch.OverloadConfig(senders=6, traffic="bernoulli", txn_bytes=9000, load=1.4, duration_s=0.2, seed=3),
])
def test_run_gives_the_same_summary_as_the_command_line(sim_binary, cfg):
    py = strip_wall(cmswitch.run(cfg).summary)
    cli = strip_wall(cli_summary(sim_binary, cfg))
    assert py == cli


def test_same_seed_is_bit_identical_across_processes():
    code = ("import cmswitch, json; r = cmswitch.run(cmswitch.IncastConfig(flows=12, buffer_kb=48, min_rto_ms=5,"
            " duration_s=0.4, jitter_ns=700, seed=11)); s = dict(r.summary); s.pop('wall_s');"
            " print(json.dumps(s, sort_keys=True)); print(r.flows.to_json())")
    outs = [subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
            for _ in range(2)]
    assert outs[0] == outs[1]
    here = cmswitch.run(cmswitch.IncastConfig(flows=12, buffer_kb=48, min_rto_ms=5, duration_s=0.4, jitter_ns=700,
                                              seed=11))
    s = strip_wall(here.summary)
    assert json.dumps(s, sort_keys=True) == outs[0].splitlines()[0]


def test_tables_are_dataframes_and_series_add_up():
    r = cmswitch.run(cmswitch.IncastConfig(flows=4, buffer_kb=64, min_rto_ms=10, duration_s=0.2, series=True,
                                           sample_us=1000))
    assert isinstance(r.flows, pd.DataFrame) and len(r.flows) == 4
    assert r.flows["timeouts"].dtype.kind == "i"
    s = r.series
    assert list(s.index[:3]) == [1.0, 2.0, 3.0]
    assert (s["queue_bytes"] <= 64 * 1024).all()
    # the cumulative per-flow counters at the last sample never exceed what the flows delivered in the run
    last = s.iloc[-1]
    for i, row in r.flows.iterrows():
        assert last[f"delivered_bytes_flow{i}"] <= row["delivered_bytes"]
    rates = r.flow_rates_mbps()
    assert rates.shape == (len(s), 4)
    # rates integrate back to the counters (1 ms samples), and over the whole run the flows together stay
    # below the 1 Gbps bottleneck (a single interval may exceed it: filling a hole releases in-order bytes)
    for i in range(4):
        assert abs(rates[str(i)].sum() * 1e6 / 8 * 1e-3 - last[f"delivered_bytes_flow{i}"]) < 1e-3
    assert rates.sum(axis=1).mean() <= 1000 * 1460 / 1500


def test_ctrl_c_stops_a_run_with_keyboard_interrupt_and_the_next_run_works(tmp_path):
    script = tmp_path / "long_run.py"
    script.write_text(
        "import faulthandler, time, cmswitch\n"
        "faulthandler.dump_traceback_later(90, exit=True)\n"   # a hang shows where it is, then ends the process
        "print('ready', flush=True)\n"
        "t = time.time()\n"
        "try:\n"
        "    cmswitch.run(cmswitch.IncastConfig(flows=16, buffer_kb=256, min_rto_ms=10, duration_s=10000))\n"
        "    print('not interrupted')\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted after', round(time.time() - t, 2), flush=True)\n"
        "r = cmswitch.run(cmswitch.IncastConfig(flows=4, duration_s=0.2))\n"
        "print('next', r['conservation_ok'])\n")
    # the child starts with SIGINT at its default: a suite launched in the background (nohup cmd &) ignores SIGINT,
    # and a Python started with it ignored never raises KeyboardInterrupt
    p = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert p.stdout.readline().strip() == "ready"
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("interrupted after"), out
    assert float(lines[0].split()[-1]) < 5.0
    assert lines[1] == "next True"


def test_run_refuses_what_is_not_a_config():
    with pytest.raises(TypeError):
        cmswitch.run({"flows": 4})


def test_baseline_series_is_a_data_frame_over_time():
    # Result.series was None for baseline runs (its table is called "series"); bins of sample_us (100 us) over
    # 10 ms, each reported at its end: 0.1 ... 9.9 ms (the bin ending at the run's end is not sampled), 99 rows
    r = cmswitch.run(cmswitch.BaselineConfig(duration_s=0.01, sample_us=100))
    s = r.series
    assert s is not None and s.index.name == "t_ms"
    assert len(s) == 99 and abs(s.index[0] - 0.1) < 1e-9
    assert {"innocent_gbps", "hotspot_gbps"} <= set(s.columns)
