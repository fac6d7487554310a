#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Stewart, Tuexen and Neville-Neil 2011: the incast incidents of the four SCTP variants as a function of what
DBL calls a flow (`dbl_flow_key`: the association, every frame between two hosts, or the whole transmit queue; the
paper could not tell which its Catalyst used, footnotes 33 and 35), 5 seeds x 600 s each. Writes
validation/sctp_incast_flow_keys.csv and prints the table of docs/validation.md.

    .venv/bin/python validation/sctp_incast_flow_keys.py [--duration-s 600] [--seeds 5]
"""
import argparse
import os
import sys

import cmswitch
from cmswitch.config import SctpIncastConfig

HERE = os.path.dirname(os.path.abspath(__file__))
VARIANTS = ["plain", "ecn", "dccc", "dynamic-dccc"]
KEYS = ["flow", "hosts", "queue"]
COLS = ["incast_incidents", "t1_timeouts", "t3_timeouts_incast", "t3_timeouts", "dbl_drops", "dbl_marks",
        "tail_drops", "drops_nic_queue_full", "elephant_goodput_mbps"]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--duration-s", type=float, default=600)
    ap.add_argument("--seeds", type=int, default=5)
    a = ap.parse_args()
    base = SctpIncastConfig(duration_s=a.duration_s)
    df = cmswitch.sweep(base, grid={"dbl_flow_key": KEYS, "sctp_cc": VARIANTS,
                                    "seed": list(range(1, a.seeds + 1))}, progress=False, errors="raise")
    df[["dbl_flow_key", "sctp_cc", "seed"] + COLS].to_csv(os.path.join(HERE, "sctp_incast_flow_keys.csv"),
                                                           index=False)
    print("| DBL flow | variant | incidents in 600 s, mean (min-max) | T1 timeouts | T3 timeouts (incast) | "
          "DBL drops | DBL marks | NIC queue drops | elephant goodput Mb/s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (k, v), p in df.groupby(["dbl_flow_key", "sctp_cc"], sort=False):
        i = p["incast_incidents"]
        print(f"| {k} | {v} | {i.mean():.1f} ({i.min()}-{i.max()}) | {p['t1_timeouts'].mean():.1f} | "
              f"{p['t3_timeouts_incast'].mean():.1f} | {p['dbl_drops'].mean():.0f} | {p['dbl_marks'].mean():.0f} | "
              f"{p['drops_nic_queue_full'].mean():.0f} | {p['elephant_goodput_mbps'].mean():.2f} |")
    for k in KEYS:
        g = df[df["dbl_flow_key"] == k].groupby("sctp_cc")["incast_incidents"].mean()
        print(f"{k}: plain / ecn incidents = {g['plain'] / max(g['ecn'], 1e-9):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
