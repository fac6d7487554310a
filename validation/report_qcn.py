#!/usr/bin/env python3
"""Markdown tables from validation/qcn_sweep.csv, beside Devkota & Reddy's Tables I-III."""
import os

import pandas as pd

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
df = pd.read_csv(os.path.join(ROOT, "validation", "qcn_sweep.csv"))
tcp_only = df[df["udp_cbr_mbps"] == 0]
mixed = df[df["udp_cbr_mbps"] > 0]
by = tcp_only.groupby(["case", "min_rto_ms", "buffer_kb", "flows"])
mean = by.mean(numeric_only=True)
lo = by.min(numeric_only=True)
hi = by.max(numeric_only=True)
N = tcp_only["seed"].nunique()


def spread(key, col, fmt="{:.0f}", scale=1.0):
    """mean (min-max) over seeds"""
    return (f"{fmt.format(mean.loc[key][col] / scale)} ({fmt.format(lo.loc[key][col] / scale)}-"
            f"{fmt.format(hi.loc[key][col] / scale)})")

PAPER_T1 = {2: (512.19, 1024.37, 966.61, 0), 4: (208.74, 834.94, 835.29, 0), 8: (59.31, 474.46, 484.77, 0),
            16: (36.21, 579.312, 613.37, 0.063), 32: (29.4, 940.77, 325.01, 8.94), 64: (32.03, 2049.8, 408.4, 22.75)}
PAPER_T2 = {2: [4740, 7282, 11716, 3357, 3337, 8905], 4: [5535, 10514, 10299, 4454, 5920, 4853],
            8: [6530, 10613, 15386, 7879, 8762, 8687], 16: [8844, 15494, 19894, 10840, 12150, 13444],
            32: [14551, 30779, 42621, 21912, 20146, 28112], 64: [21846, 156161, 121382, 54405, 36076, 62553]}
PAPER_T3 = {16: [0.12, 0, 0, 0.06, 0, 0], 32: [0.44, 0, 0, 0.96, 0, 0], 64: [9.28, 0.22, 0.28, 4.31, 0.21, 0.22]}
CASES = ["I", "II", "III", "IV", "V", "VI"]


def t1():
    print(f"\n#### Table I: unmodified QCN, 128 KB, minRTO 200 ms (paper | model, mean of {N} seeds)\n")
    print("| flows | avg minrate Mbps | avg minrate x flows | goodput Mbps | timeouts per flow | "
          "minrate x flows / goodput (model) |")
    print("|---|---|---|---|---|---|")
    for f, (mr, mrx, gp, to) in PAPER_T1.items():
        m = mean.loc[("I", 200.0, 128.0, f)]
        ratio = m["avg_minrate_x_flows_mbps"] / m["goodput_mbps"]
        print(f"| {f} | {mr:g} \\| {m['avg_minrate_mbps']:.1f} | {mrx:g} \\| {m['avg_minrate_x_flows_mbps']:.0f} | "
              f"{gp:g} \\| {m['goodput_mbps']:.0f} | {to:g} \\| {m['timeouts_per_flow_mean']:.2f} | {ratio:.2f} |")


def t2():
    print(f"\n#### Table II: CNMs sent, 128 KB, minRTO 200 ms, 20 s (paper \\| model, mean of {N} seeds)\n")
    print("| flows | " + " | ".join(CASES) + " |")
    print("|---" * 7 + "|")
    for f, row in PAPER_T2.items():
        cells = [f"{p} \\| {mean.loc[(c, 200.0, 128.0, f)]['cnms']:.0f}" for c, p in zip(CASES, row)]
        print(f"| {f} | " + " | ".join(cells) + " |")


def t3():
    for rto in (10.0, 200.0):
        print(f"\n#### Table III: timeouts per flow, 128 KB (paper, with 10 ms minRTO for I \\| model, minRTO "
              f"{rto:g} ms, mean of {N} seeds)\n")
        print("| flows | " + " | ".join(CASES) + " |")
        print("|---" * 7 + "|")
        for f, row in PAPER_T3.items():
            cells = [f"{p:g} \\| {mean.loc[(c, rto, 128.0, f)]['timeouts_per_flow_mean']:.2f}" for c, p in zip(CASES, row)]
            print(f"| {f} | " + " | ".join(cells) + " |")


def goodput():
    for rto in (200.0, 10.0):
        for buf in (128.0, 256.0):
            print(f"\n#### Goodput (Mbps), {buf:g} KB, minRTO {rto:g} ms: TCP only and QCN cases I-VI (mean of {N} seeds, min-max)\n")
            cols = ["tcp"] + CASES
            print("| flows | " + " | ".join(cols) + " |")
            print("|---" * (len(cols) + 1) + "|")
            for f in sorted(tcp_only["flows"].unique()):
                print(f"| {f} | " + " | ".join(spread((c, rto, buf, f), "goodput_mbps") for c in cols) + " |")


def queue():
    print(f"\n#### Average queue (KB), 256 KB buffer (mean of {N} seeds, min-max)\n")
    cols = [("tcp", 10.0), ("tcp", 200.0), ("I", 200.0), ("V", 200.0), ("VI", 200.0)]
    print("| flows | " + " | ".join(f"{c} minRTO {r:g}" for c, r in cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    for f in sorted(tcp_only["flows"].unique()):
        print(f"| {f} | " + " | ".join(spread((c, r, 256.0, f), "mean_queue_bytes", "{:.1f}", 1024) for c, r in cols) + " |")


def mixed_table():
    g = mixed.groupby(["case", "min_rto_ms", "buffer_kb", "flows"])
    m, mlo, mhi = g.mean(numeric_only=True), g.min(numeric_only=True), g.max(numeric_only=True)
    n = mixed["seed"].nunique()
    for cases, title in ((((("tcp", 200.0), ("tcp", 10.0)), "TCP alone, minRTO 200 ms and 10 ms")),
                         ((("I", 200.0), ("V", 200.0)), "QCN I and V under TCP with minRTO 200 ms")):
        print(f"\n#### Mixed protocol, {title}: incast goodput (min-max) / UDP 400 Mbps CBR goodput (Mbps, mean of {n} seeds)\n")
        cols = [(c, r, b) for c, r in cases for b in (32.0, 64.0, 128.0, 256.0)]
        print("| flows | " + " | ".join(f"{c} {r:g} ms {b:g} KB" for c, r, b in cols) + " |")
        print("|---" * (len(cols) + 1) + "|")
        for f in sorted(mixed["flows"].unique()):
            cells = []
            for c, r, b in cols:
                x = m.loc[(c, r, b, f)]
                cells.append(f"{x['goodput_mbps']:.0f} ({mlo.loc[(c, r, b, f)]['goodput_mbps']:.0f}-"
                             f"{mhi.loc[(c, r, b, f)]['goodput_mbps']:.0f}) / {x['udp_goodput_mbps']:.0f}")
            print(f"| {f} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    t1()
    t2()
    t3()
    goodput()
    queue()
    mixed_table()
