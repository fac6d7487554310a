#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Wang et al. 2015 (DC-Vegas): every reading of DC-Vegas that the available text allows, in the paper's
incast (47 hosts on one 1 Gb/s switch, 128 KB blocks), with NewReno, Vegas and DCTCP beside them, 5 seeds each;
then the buffer per port as a sensitivity axis. Writes validation/dc_vegas_readings.csv and
validation/dc_vegas_buffers.csv and prints the tables of docs/validation.md (collapse point: the fewest senders
whose goodput, mean of the seeds, is under half the 1 Gb/s line).

    .venv/bin/python validation/dc_vegas_readings.py [--seeds 5]
"""
import argparse
import os
import sys

import pandas as pd

import cmswitch
from mdtable import markdown
from cmswitch import plots
from cmswitch.config import VegasIncastConfig

HERE = os.path.dirname(os.path.abspath(__file__))
SENDERS = [4, 8, 12, 16, 20, 24, 30, 38, 46]
UPDATES = ["dctcp", "rtt", "ack"]
K_SEGMENTS = [1, 2, 4, 8]
DELAY_US = [12, 24, 48, 96]   # 1, 2, 4, 8 full frames at 1 Gb/s
BUFFERS_KB = [32, 64, 128, 256, 512, 1024]
KEEP = ["goodput_mbps", "timeouts", "drops", "queue_p99_kb"]


def collapse(curve: pd.Series) -> str:
    """The fewest senders whose mean goodput is under 500 Mb/s, or '> 46'."""
    under = [n for n, g in curve.items() if g < 500]
    return str(min(under)) if under else f"> {max(curve.index)}"


def reading_name(row: pd.Series) -> str:
    if row["transport"] != "dc-vegas":
        return str(row["transport"])
    if row["dcvegas_signal"] == "flow":
        return f"flow K_v={row['dcvegas_k']:g} seg, {row['dcvegas_update']}"
    return f"path {row['dcvegas_delay_us']:g} us, {row['dcvegas_update']}"


def table(df: pd.DataFrame, by: list) -> pd.DataFrame:
    g = df.groupby(by + ["flows"], sort=False)["goodput_mbps"].agg(["mean", "min", "max"]).reset_index()
    rows = []
    for key, part in g.groupby(by, sort=False):
        curve = part.set_index("flows")["mean"]
        cells = {str(n): f"{m:.0f} ({lo:.0f}-{hi:.0f})" for n, m, lo, hi in
                 zip(part["flows"], part["mean"], part["min"], part["max"])}
        rows.append({**dict(zip(by, key if isinstance(key, tuple) else (key,))), "collapse at": collapse(curve),
                     **cells})
    return pd.DataFrame(rows)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    a = ap.parse_args()
    seeds = list(range(1, a.seeds + 1))
    base = VegasIncastConfig()
    points = []
    for t in ["newreno", "vegas"]:
        points += [dict(transport=t, flows=n, seed=s) for n in SENDERS for s in seeds]
    points += [dict(transport="dctcp", marking="step", flows=n, seed=s) for n in SENDERS for s in seeds]
    for u in UPDATES:
        for k in K_SEGMENTS:
            points += [dict(transport="dc-vegas", dcvegas_signal="flow", dcvegas_update=u, dcvegas_k=k, flows=n,
                            seed=s) for n in SENDERS for s in seeds]
        for d in DELAY_US:
            points += [dict(transport="dc-vegas", dcvegas_signal="path", dcvegas_update=u, dcvegas_delay_us=d,
                            flows=n, seed=s) for n in SENDERS for s in seeds]
    df = cmswitch.sweep(base, points=points, progress=False, errors="raise")
    df["reading"] = df.apply(reading_name, axis=1)
    cols = ["reading", "transport", "dcvegas_signal", "dcvegas_update", "dcvegas_k", "dcvegas_delay_us", "flows",
            "seed"] + KEEP
    df[cols].to_csv(os.path.join(HERE, "dc_vegas_readings.csv"), index=False)
    shown = df[df["reading"].isin(["newreno", "vegas", "dctcp", "flow K_v=4 seg, dctcp", "path 24 us, rtt"])]
    plots.goodput_vs_flows(shown, by="reading", title="Wang et al. 2015: incast of 128 KB blocks, 1 Gb/s, 128 KB per port, "
                           f"mean of {a.seeds} seeds with 95 % intervals").savefig(
        os.path.join(HERE, "..", "docs", "img", "vegas_incast_goodput.png"), dpi=110)
    print("goodput Mb/s, mean of seeds (min-max), by reading")
    print(markdown(table(df, ["reading"])))

    # the buffer per port: the default reading beside the three others
    bpoints = []
    for b in BUFFERS_KB:
        for t in ["newreno", "vegas", "dc-vegas", "dctcp"]:
            extra = {"marking": "step"} if t == "dctcp" else {}
            bpoints += [dict(transport=t, buffer_kb=b, flows=n, seed=s, **extra) for n in SENDERS for s in seeds]
    bdf = cmswitch.sweep(base, points=bpoints, progress=False, errors="raise")
    bdf[["transport", "buffer_kb", "flows", "seed"] + KEEP].to_csv(os.path.join(HERE, "dc_vegas_buffers.csv"),
                                                                   index=False)
    bt = table(bdf, ["transport", "buffer_kb"])
    print("\ncollapse point by buffer per port (KB)")
    print(markdown(bt.pivot(index="transport", columns="buffer_kb", values="collapse at"), index=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
