#!/usr/bin/env python3
"""Seed-002 baselines: every scheme on the three scenarios, 1 s each; writes validation/baseline.csv and the
time-series plots docs/img/baseline_<scenario>_<scheme>.png. Usage: .venv/bin/python validation/baseline_sweep.py"""
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

import cmswitch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIOS = ["og-hotspot", "periodic-hotspot", "pause-spreading"]
SCHEMES = ["tcp", "tcp-pause", "tcp-qcn", "tcp-qcn-pause", "udp-qcn-pause"]


def plot(res, path, title):
    s = res.tables["series"].set_index("t_ms")
    fig, (a, b) = plt.subplots(2, 1, figsize=(7.5, 5.4), sharex=True)
    a.plot(s.index, s["innocent_gbps"], label="innocent", lw=1)
    a.plot(s.index, s["hotspot_gbps"], label="hot spot", lw=1)
    a.set_ylabel("throughput (Gb/s)")
    a.legend(fontsize=8, loc="upper right")
    a.grid(alpha=0.3)
    a.set_title(title, fontsize=10)
    for c in [c for c in s.columns if c.startswith("queue_kb_switch")]:
        b.plot(s.index, s[c], label=c.replace("queue_kb_", ""), lw=1)
    b.set_ylabel("queue (KB, all ports)")
    b.set_xlabel("time (ms)")
    b.legend(fontsize=7, ncol=2, loc="upper right")
    b.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main():
    rows = []
    for sc in SCENARIOS:
        for cm in SCHEMES:
            res = cmswitch.run(cmswitch.BaselineConfig(baseline=sc, cm=cm, duration_s=1.0))
            keep = {k: res[k] for k in ("innocent_gbps_congested", "hotspot_gbps_congested",
                                        "innocent_gbps_uncongested", "hotspot_gbps_uncongested", "ideal_innocent_gbps",
                                        "ideal_hotspot_gbps_congested", "drops", "network_drops", "pause_frames", "paused_ms_max_port",
                                        "cnms", "wall_s")}
            rows.append(dict(scenario=sc, scheme=cm, **keep))
            plot(res, os.path.join(ROOT, "docs", "img", f"baseline_{sc}_{cm}.png"), f"{sc}, {cm}")
            print(sc, cm, round(keep["innocent_gbps_congested"], 2), round(keep["hotspot_gbps_congested"], 2),
                  keep["drops"], keep["pause_frames"], round(keep["wall_s"], 2), flush=True)
    pd.DataFrame(rows).to_csv(os.path.join(ROOT, "validation", "baseline.csv"), index=False)


if __name__ == "__main__":
    main()
