# SPDX-License-Identifier: Apache-2.0
"""The chip study's comparison (validation/chip_study.sh): for each workload and scheme, the smallest buffer
meeting the p99 small-flow slowdown target on the sliced, celled chip and on the ideal shared memory, with the
metric's 95 % interval over the seeds at each answer, and the peaks that explain the difference. Prints Markdown."""
from __future__ import annotations

import math
import os
import sys

import pandas as pd

from cmswitch.shared_buffer_study import seed_stats, smallest_meeting

TARGET = 10.0
WORKLOADS = {"websearch": "web search at 40 % + a 31:1 incast of 64 KB each every ms (20 ms of arrivals)",
             "websearch-small": "the same web search and incast, DCTCP below 2 MB",
             "rpc": "RPCs of 128-512 B at 20 % + the same incast (5 ms of arrivals)"}
SWITCHES = {"th3_32x100": "chip: 4 slices, 254 B cells, service pools",
            "th3_32x100_ideal": "ideal: one byte-exact shared memory"}


def mb(kb: float) -> str:
    return "none tested" if not math.isfinite(kb) else f"{kb / 1024:g} MB"


def main(out: str) -> None:
    print("# The shared-buffer study on a Tomahawk-3-class chip\n")
    print("`validation/chip_study.sh` runs `cmswitch study shared-buffer` on `examples/switches/th3_32x100.json`"
          " (32 x 100 Gb/s, 64 MB in 4 Tomahawk-style slices, 254-byte cells, one ingress and one egress service"
          " pool, PFC on priority 3 with a shared headroom pool, cut-through with a 500 ns pipeline) and on"
          " `th3_32x100_ideal.json`, the same switch whose buffer is one ideal byte-exact shared memory; alpha 1,"
          f" 5 seeds per point, target: p99 slowdown of flows <= 10 KB at most {TARGET:g}. The answer is the"
          " smallest total buffer from which every larger one tested meets the target with 95 % confidence."
          " Intervals are 95 % over the seeds.\n")
    for w, wtext in WORKLOADS.items():
        print(f"## {wtext}\n")
        print("| scheme | switch | smallest buffer meeting the target | p99 small-flow slowdown there | "
              "at the smallest buffer | drops at the smallest buffer |")
        print("|---|---|---|---|---|---|")
        answers = {}
        curves = {}
        for sw, stext in SWITCHES.items():
            path = os.path.join(out, f"{w}-{sw}", "points.csv")
            if not os.path.exists(path):
                print(f"| - | {stext} | not run ({path} missing) | | | |")
                continue
            df = pd.read_csv(path)
            df["feasible"] = df["feasible"].astype(bool)
            mins = smallest_meeting(df, TARGET)
            for s, g in df[df["feasible"]].groupby("scheme", sort=False):
                st = seed_stats(g, "slowdown_p99_small", bounds=(1.0, math.inf)).set_index("buffer_kb").sort_index()
                row = mins[mins["scheme"] == s]
                ans = float(row["smallest_from_which_all_meet_kb"].iloc[0]) if len(row) else math.nan
                answers[(s, sw)] = ans
                curves[(s, sw)] = st
                there = st.loc[ans] if math.isfinite(ans) else None
                low = st.iloc[0]
                drops = g[g["buffer_kb"] == st.index[0]]["drops"].mean()
                there_text = f"{there['mean']:.2f} [{there['lo']:.2f}, {there['hi']:.2f}]" if there is not None else "-"
                answer = ("<= " if ans == st.index[0] else "") + mb(ans)
                print(f"| {s} | {stext} | {answer} | {there_text} | {st.index[0] / 1024:g} MB: "
                      f"{low['mean']:.2f} [{low['lo']:.2f}, {low['hi']:.2f}] | {drops:.0f} |")
        print("\nThe p99 small-flow slowdown at every buffer tested, mean [95 % interval] over the seeds "
              "(chip / ideal):\n")
        buffers = sorted({b for st in curves.values() for b in st.index})
        print("| scheme | " + " | ".join(f"{b / 1024:g} MB" for b in buffers) + " |")
        print("|---|" + "---|" * len(buffers))
        for s in ("droptail", "dctcp", "pfc"):
            for sw in SWITCHES:
                st = curves.get((s, sw))
                if st is None:
                    continue
                cells = [f"{st.loc[b]['mean']:.2f} [{st.loc[b]['lo']:.2f}, {st.loc[b]['hi']:.2f}]" if b in st.index
                         else "infeasible" for b in buffers]
                print(f"| {s}, {'chip' if sw == 'th3_32x100' else 'ideal'} | " + " | ".join(cells) + " |")
        moved = []
        for s in ("droptail", "dctcp", "pfc"):
            a, b = answers.get((s, "th3_32x100"), math.nan), answers.get((s, "th3_32x100_ideal"), math.nan)
            if math.isfinite(a) and math.isfinite(b):
                moved.append(f"{s} {a / b:g}x ({mb(b)} -> {mb(a)})")
            elif (s, "th3_32x100") in answers:
                moved.append(f"{s}: chip {mb(a)}, ideal {mb(b)}")
        print(f"\nChip / ideal answer: {'; '.join(moved)}.\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "validation/chip_study")
