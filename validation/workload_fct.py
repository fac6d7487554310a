#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""FCT slowdown of DCTCP against drop-tail NewReno on the web-search workload at 30-70 % load on a leaf-spine
(4 leaves x 8 hosts at 10 Gb/s, 2 spines at 40 Gb/s, shared buffer 4 MB per switch), through cmswitch.sweep.
Writes validation/workload_fct.csv and docs/img/workload/fct_slowdown.png; the numbers go into docs/validation.md.

    .venv/bin/python validation/workload_fct.py [--duration-s 0.1] [--seeds 5]

Prints the p99 (p50) slowdown per flow size, mean of the seeds with the p99's min-max over seeds, as the doc's table.
"""
import argparse
import os
import sys

import pandas as pd

import cmswitch
from cmswitch.config import WorkloadConfig
from cmswitch.plots import _plt
from mdtable import markdown

HERE = os.path.dirname(os.path.abspath(__file__))
BUCKETS = ["<=10KB", "10KB-100KB", "100KB-1MB", "1MB-10MB", ">10MB"]


def fmt(x: float) -> str:
    return f"{x:.3g}" if x < 1000 else f"{x:.0f}"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--duration-s", type=float, default=0.1)
    ap.add_argument("--seeds", type=int, default=5)
    a = ap.parse_args()
    base = WorkloadConfig(duration_s=a.duration_s)
    schemes = [{"transport": "newreno", "marking": "none"},
               {"transport": "dctcp", "marking": "step", "ecn_k_kb": 95.2}]   # K = 65 x 1500 B (DCTCP at 10 Gb/s)
    rows = []
    for load in (0.3, 0.5, 0.7):
        for s in schemes:
            for seed in range(1, a.seeds + 1):
                res = cmswitch.run(base.replace(load=load, seed=seed, **s))
                t = res.tables["fct_by_size"]
                for b, name in enumerate(BUCKETS):
                    rows.append({"load": load, "transport": s["transport"], "seed": seed, "bucket": name,
                                 "flows": int(t["flows"][b]), "slowdown_p50": t["slowdown_p50"][b],
                                 "slowdown_p99": t["slowdown_p99"][b], "drops": res.summary["drops"],
                                 "timeouts": res.summary["timeouts"]})
    df = pd.DataFrame(rows)
    df.to_csv(os.path.join(HERE, "workload_fct.csv"), index=False)
    g = df.groupby(["bucket", "load", "transport"], sort=False)[["flows", "slowdown_p50", "slowdown_p99", "drops",
                                                                  "timeouts"]].mean()
    print(g.round(2).to_string())
    print(f"\np99 slowdown mean [min-max over {a.seeds} seeds] (p50 mean)\n")
    cols = [(load, s["transport"]) for load in (0.3, 0.5, 0.7) for s in schemes]
    table = []
    for name in BUCKETS:
        row = {"flow size": name}
        for load, tr in cols:
            d = df[(df.bucket == name) & (df.load == load) & (df.transport == tr)]
            row[f"{load:.0%} {tr}"] = (f"{fmt(d.slowdown_p99.mean())} [{fmt(d.slowdown_p99.min())}-"
                                       f"{fmt(d.slowdown_p99.max())}] ({fmt(d.slowdown_p50.mean())})")
        table.append(row)
    print(markdown(pd.DataFrame(table)))
    per_run = df.groupby(["load", "transport", "seed"])[["drops", "timeouts"]].first().groupby(
        ["load", "transport"]).agg(["mean", "min", "max"])
    print("\ndrops and timeouts per run (mean, min, max over seeds)\n")
    print(per_run.to_string())
    plt = _plt()
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.6), sharey=True)
    for ax, load in zip(axes, (0.3, 0.5, 0.7)):
        for tr, mk in (("newreno", "o"), ("dctcp", "s")):
            d = df[(df.load == load) & (df.transport == tr)].groupby("bucket", sort=False)["slowdown_p99"].mean()
            d = d.reindex(BUCKETS)
            ax.plot(range(len(BUCKETS)), d.values, marker=mk, label=f"{tr} p99")
        ax.set_xticks(range(len(BUCKETS)))
        ax.set_xticklabels(BUCKETS, rotation=30, fontsize=7)
        ax.set_yscale("log")
        ax.set_title(f"web search, load {load:.0%}", fontsize=9)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("FCT slowdown, p99 (mean of seeds)")
    axes[0].legend(fontsize=8)
    fig.suptitle("DCTCP vs drop-tail NewReno: 4 x 8 x 10 Gb/s leaf-spine, 2 x 40 Gb/s spines, 4 MB shared buffer")
    fig.tight_layout()
    fig.savefig(os.path.join(HERE, "..", "docs", "img", "workload", "fct_slowdown.png"), dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
