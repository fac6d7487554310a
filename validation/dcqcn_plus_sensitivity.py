#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Yang 2018 (DCQCN+): the headline results as functions of the constants the thesis does not give. DCQCN with each
reaction-point variant (paper, ns3-rdma, mlx); DCQCN+ over lambda (its timer K = lambda max(tau, MTU / R_C)) and
the per-flow CNP cost behind tau (tau = max(N, n x cost)); 16-400 flows at 10 and 40 Gb/s; 5 seeds each, on the
study's base point (cmswitch.dcqcn_study.rdma_base). "Drained" needs no single threshold: the queue's median and
99th percentile over the run's second half are reported, and the share of seeds whose median sits under 0.5, 1
and 2 MB. Writes validation/dcqcn_plus_sensitivity.csv and prints the tables of docs/validation.md.

    .venv/bin/python validation/dcqcn_plus_sensitivity.py [--seeds 5]
"""
import argparse
import os
import sys

import pandas as pd

import cmswitch
from mdtable import markdown
from cmswitch.dcqcn_study import rdma_base

HERE = os.path.dirname(os.path.abspath(__file__))
FLOWS = [16, 80, 160, 400]
LINKS = [10.0, 40.0]
RP = ["paper", "ns3-rdma", "mlx"]
LAMBDAS = [0.5, 1.0, 2.0, 4.0]
COSTS_US = [0.5, 1.0, 2.0, 5.0]
KEEP = ["queue_p50_kb_second_half", "queue_p99_kb_second_half", "delay_p50_us", "goodput_gbps_second_half",
        "jain_fairness", "drops"]


def spread(s: pd.Series, fmt: str = "{:.0f}") -> str:
    return f"{fmt.format(s.mean())} ({fmt.format(s.min())}-{fmt.format(s.max())})"


def summary(part: pd.DataFrame) -> dict:
    q50 = part["queue_p50_kb_second_half"]
    return {
        "queue p50 KB": spread(q50),
        "queue p99 KB": spread(part["queue_p99_kb_second_half"]),
        "delay p50 us": spread(part["delay_p50_us"]),
        "goodput Gb/s": spread(part["goodput_gbps_second_half"], "{:.2f}"),
        "Jain": spread(part["jain_fairness"], "{:.2f}"),
        "median under 0.5 / 1 / 2 MB": " / ".join(f"{(q50 < t * 1024).sum()}" for t in (0.5, 1, 2)) +
        f" of {len(part)}",
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    a = ap.parse_args()
    seeds = list(range(1, a.seeds + 1))
    base = rdma_base()
    qps = {f: max(1, round(f / base.senders)) for f in FLOWS}
    points = []
    for g in LINKS:
        for f in FLOWS:
            for s in seeds:
                points += [dict(cm="dcqcn", dcqcn_rp_variant=v, link_gbps=g, qps=qps[f], seed=s) for v in RP]
                points += [dict(cm="dcqcn+", dcqcnp_lambda=lam, dcqcnp_cnp_cost_us=c, link_gbps=g, qps=qps[f], seed=s)
                           for lam in LAMBDAS for c in COSTS_US]
    df = cmswitch.sweep(base, points=points, progress=False, infeasible="raise", errors="raise")
    df["flows"] = df["qps"] * base.senders
    cols = ["cm", "dcqcn_rp_variant", "dcqcnp_lambda", "dcqcnp_cnp_cost_us", "link_gbps", "flows", "seed"] + KEEP
    df[cols].to_csv(os.path.join(HERE, "dcqcn_plus_sensitivity.csv"), index=False)
    assert (df["drops"] == 0).all(), "PFC must keep every run lossless"

    rows = []
    for (g, f, v), part in df[df["cm"] == "dcqcn"].groupby(["link_gbps", "flows", "dcqcn_rp_variant"], sort=False):
        rows.append({"Gb/s": f"{g:g}", "flows": f, "RP": v, **summary(part)})
    print("DCQCN by reaction point (mean of seeds, min-max)")
    print(markdown(pd.DataFrame(rows)))

    plus = df[df["cm"] == "dcqcn+"]
    paper = df[(df["cm"] == "dcqcn") & (df["dcqcn_rp_variant"] == "paper")]
    for g in LINKS:
        for f in FLOWS:
            ref = paper[(paper["link_gbps"] == g) & (paper["flows"] == f)]
            rows = []
            for (lam, c), part in plus[(plus["link_gbps"] == g) & (plus["flows"] == f)].groupby(
                    ["dcqcnp_lambda", "dcqcnp_cnp_cost_us"]):
                ratio = ref["delay_p50_us"].mean() / part["delay_p50_us"].mean()
                rows.append({"lambda": f"{lam:g}", "CNP cost us": f"{c:g}", **summary(part),
                             "DCQCN (paper RP) / DCQCN+ median delay": f"{ratio:.1f}x"})
            print(f"\nDCQCN+ at {f} flows, {g:g} Gb/s (DCQCN, paper RP: queue p50 "
                  f"{spread(ref['queue_p50_kb_second_half'])} KB, delay p50 {spread(ref['delay_p50_us'])} us, "
                  f"goodput {spread(ref['goodput_gbps_second_half'], '{:.2f}')} Gb/s)")
            print(markdown(pd.DataFrame(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
