#!/usr/bin/env python3
"""Atikoglu & Prabhakar 2008 baselines: every scheme on the three scenarios, 1 s each, 5 seeds; writes validation/baseline.csv (one
row per seed), prints the table of docs/validation.md (mean and min-max over seeds) and draws the time-series plots
docs/img/baseline_<scenario>_<scheme>.png (seed 1). Usage: .venv/bin/python validation/baseline_sweep.py [--seeds 5]"""
import argparse
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

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


KEEP = ["innocent_gbps_congested", "hotspot_gbps_congested", "innocent_gbps_uncongested", "hotspot_gbps_uncongested",
        "innocent_gbps", "hotspot_gbps", "ideal_innocent_gbps", "ideal_hotspot_gbps_congested", "drops",
        "network_drops", "pause_frames", "paused_ms_max_port", "cnms", "wall_s"]


def spread(s, fmt="{:.2f}"):
    return f"{fmt.format(s.mean())} ({fmt.format(s.min())}-{fmt.format(s.max())})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    a = ap.parse_args()
    df = cmswitch.sweep(cmswitch.BaselineConfig(duration_s=1.0),
                        grid={"baseline": SCENARIOS, "cm": SCHEMES, "seed": list(range(1, a.seeds + 1))},
                        progress=False, errors="raise")
    df = df.drop(columns=["scenario"]).rename(columns={"baseline": "scenario", "cm": "scheme"})
    df[["scenario", "scheme", "seed"] + KEEP].to_csv(os.path.join(ROOT, "validation", "baseline.csv"), index=False)
    print("| scenario | scheme | innocent Gb/s, congested (ideal) | hot-spot Gb/s, congested (ideal) | innocent Gb/s, "
          "not congested | hot-spot Gb/s, whole run | network drops | PAUSE frames | longest pause of a port (ms) "
          "| CNMs |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for (sc, cm), p in df.groupby(["scenario", "scheme"], sort=False):
        print(f"| {sc} | {cm} | {spread(p['innocent_gbps_congested'])} ({p['ideal_innocent_gbps'].iloc[0]:g}) | "
              f"{spread(p['hotspot_gbps_congested'])} ({p['ideal_hotspot_gbps_congested'].iloc[0]:g}) | "
              f"{spread(p['innocent_gbps_uncongested'])} | {spread(p['hotspot_gbps'])} | "
              f"{spread(p['network_drops'], '{:.0f}')} | {spread(p['pause_frames'], '{:.0f}')} | "
              f"{spread(p['paused_ms_max_port'], '{:.0f}')} | {spread(p['cnms'], '{:.0f}')} |")
    # the figures: seed 1 of each point
    for sc in SCENARIOS:
        for cm in SCHEMES:
            res = cmswitch.run(cmswitch.BaselineConfig(baseline=sc, cm=cm, duration_s=1.0, seed=1))
            plot(res, os.path.join(ROOT, "docs", "img", f"baseline_{sc}_{cm}.png"), f"{sc}, {cm} (seed 1)")


if __name__ == "__main__":
    main()
