#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The shared-buffer study on a leaf-spine: the fabric of examples/switches/leaf_spine_25g.toml (4 leaves
x 8 hosts at 25 Gb/s, 2 spines at 100 Gb/s), web search at 60 % plus a 31:1 incast of 64 KB every ms across the
fabric, drop-tail / DCTCP / PFC x 1-16 MB per switch x alpha 0.25, 1, 4 x the study's 5 seeds; and the same
workload on one 32 x 25 Gb/s switch for comparison. Writes validation/shared_buffer_<fabric>.csv and the reports
under docs/img/shared_buffer/; the numbers go into docs/validation.md.

    .venv/bin/python validation/shared_buffer_leaf_spine.py [--duration-s 0.05] [--fabrics leaf_spine,star]
"""
import argparse
import os
import shutil
import sys

from cmswitch.shared_buffer_study import shared_buffer

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--duration-s", type=float, default=0.05)
    ap.add_argument("--out", default="/tmp/cmswitch_shared_buffer")
    ap.add_argument("--fabrics", default="leaf_spine,star", help="which of leaf_spine, star to run")
    a = ap.parse_args()
    fabrics = a.fabrics.split(",")
    for f in fabrics:
        if f not in ("leaf_spine", "star"):
            raise ValueError(f"--fabrics: {f!r} is not one of leaf_spine, star")
    img = os.path.join(ROOT, "docs", "img", "shared_buffer")
    os.makedirs(img, exist_ok=True)
    for name, kw in (("leaf_spine", dict(switch=os.path.join(ROOT, "examples", "switches", "leaf_spine_25g.toml"))),
                     ("star", dict())):
        if name not in fabrics:
            continue
        out = os.path.join(a.out, name)
        df = shared_buffer(out, duration_s=a.duration_s, target_goodput_gbps=10.0, progress=False, **kw)
        # (one switch: the same run as `cmswitch study shared-buffer` with its defaults, kept as
        # shared_buffer_star_5seeds.csv)
        df.to_csv(os.path.join(HERE, f"shared_buffer_{name}.csv" if name != "star" else "shared_buffer_star_5seeds.csv"),
                  index=False)
        for f in ("slowdown_small.png", "incast_goodput.png", "occupancy_cdf.png"):
            shutil.copy(os.path.join(out, f), os.path.join(img, f"{name}_{f}"))
        print(f"== {name}")
        print(open(os.path.join(out, "report.md")).read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
