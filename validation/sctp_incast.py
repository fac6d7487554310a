#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Stewart, Tuexen and Neville-Neil 2011: the sctp-incast scenario for SCTP plain, ECN, DCCC and dynamic DCCC,
several seeds, through the Python sweep. Writes validation/sctp_incast.csv and the figures in docs/img/sctp/; the
numbers go into docs/validation.md by hand.

    .venv/bin/python validation/sctp_incast.py [--duration-s 600] [--seeds 5]
"""
import argparse
import os
import sys

import cmswitch
from cmswitch import plots
from cmswitch.config import SctpIncastConfig

HERE = os.path.dirname(os.path.abspath(__file__))
IMG = os.path.join(HERE, "..", "docs", "img", "sctp")
VARIANTS = ["plain", "ecn", "dccc", "dynamic-dccc"]
KEYS = ["incast_incidents", "request_p50_ms", "request_p99_ms", "elephant_goodput_mbps",
        "elephant_transfer_mbps_mean", "elephant_transfers_completed", "t3_timeouts", "t3_timeouts_incast",
        "t3_timeouts_elephant", "t1_timeouts", "dbl_drops", "dbl_marks", "tail_drops", "mean_rtt_ms",
        "elephant_mean_rtt_ms", "ecn_window_cuts", "ecn_in_window_cuts", "wall_s"]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--duration-s", type=float, default=600)
    ap.add_argument("--seeds", type=int, default=5)
    a = ap.parse_args()
    base = SctpIncastConfig(duration_s=a.duration_s)
    # abc_l: slow start's increase per SACK (RFC 4960 1 MTU; some FreeBSD releases 2), a sensitivity
    df_all = cmswitch.sweep(base, grid={"abc_l": [1, 2], "sctp_cc": VARIANTS, "seed": list(range(1, a.seeds + 1))},
                            progress=False)
    df_all[["abc_l", "sctp_cc", "seed"] + KEYS].to_csv(os.path.join(HERE, "sctp_incast.csv"), index=False)
    print(df_all.groupby(["abc_l", "sctp_cc"], sort=False)[KEYS].mean().round(2).to_string())
    df = df_all[df_all["abc_l"] == 1]
    g = df.groupby("sctp_cc", sort=False)[KEYS].mean()
    plain = g.loc["plain", "elephant_goodput_mbps"]
    for v in VARIANTS:
        print(f"{v}: elephant goodput {g.loc[v, 'elephant_goodput_mbps']:.2f} Mb/s, "
              f"{100 * (g.loc[v, 'elephant_goodput_mbps'] / plain - 1):+.2f} % over plain")
    os.makedirs(IMG, exist_ok=True)
    plots.variant_comparison(df, "elephant_goodput_mbps", title="Stewart et al. 2011 Fig. 12: elephant goodput to the "
                             "100 Mb/s hosts", ylabel="aggregate goodput (Mbps)").savefig(
        os.path.join(IMG, "elephant_goodput.png"), dpi=110)
    plots.variant_comparison(df, "incast_incidents", title=f"incast requests over 300 ms in {a.duration_s:g} s",
                             ylabel="incidents").savefig(os.path.join(IMG, "incidents.png"), dpi=110)
    runs = {v: cmswitch.run(base.replace(sctp_cc=v, duration_s=min(a.duration_s, 300))) for v in VARIANTS}
    plots.elephant_bandwidth(runs, title="Stewart et al. 2011 Figs. 8-11: the two elephants, seed 1").savefig(
        os.path.join(IMG, "elephant_bandwidth.png"), dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
