#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""DCTCP against drop-tail NewReno in the 1 Gb/s incast (256 KB buffer, minRTO 10 ms, 500 ns send jitter, 20 s,
K = 20 packets step marking), 8 and 16 flows, 5 seeds each. Writes validation/dctcp_droptail.csv and prints the
table of docs/validation.md (mean, min-max over seeds).

    .venv/bin/python validation/dctcp_droptail.py [--seeds 5]
"""
import argparse
import os
import sys

import cmswitch
from cmswitch.config import IncastConfig

HERE = os.path.dirname(os.path.abspath(__file__))
KEEP = ["goodput_mbps", "mean_queue_kb", "max_queue_bytes", "timeouts_per_flow_mean", "drops"]


def spread(s, fmt="{:.1f}"):
    return f"{fmt.format(s.mean())} ({fmt.format(s.min())}-{fmt.format(s.max())})"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    a = ap.parse_args()
    base = IncastConfig(buffer_kb=256, min_rto_ms=10, duration_s=20, jitter_ns=500)
    points = [dict(flows=f, seed=s, **t) for f in (8, 16) for t in (dict(transport="newreno"),
                                                                    dict(transport="dctcp", marking="step"))
              for s in range(1, a.seeds + 1)]
    df = cmswitch.sweep(base, points=points, progress=False, errors="raise")
    df[["flows", "transport", "seed"] + KEEP].to_csv(os.path.join(HERE, "dctcp_droptail.csv"), index=False)
    print("| flows | transport | goodput Mbps | mean queue KB | max queue KB | timeouts per flow | drops |")
    print("|---|---|---|---|---|---|---|")
    for (f, t), p in df.groupby(["flows", "transport"], sort=False):
        name = "NewReno, drop-tail" if t == "newreno" else "DCTCP"
        print(f"| {f} | {name} | {spread(p['goodput_mbps'])} | {spread(p['mean_queue_kb'])} | "
              f"{spread(p['max_queue_bytes'] / 1024, '{:.0f}')} | {spread(p['timeouts_per_flow_mean'])} | "
              f"{spread(p['drops'], '{:.0f}')} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
