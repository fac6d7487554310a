#!/usr/bin/env python3
"""Turns validation/incast_sweep.csv into markdown tables: per minRTO, goodput of the three stacks side by side
(mean of seeds), timeouts per flow, and the collapse onsets."""
import csv
import os
import statistics
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STACKS = ["newreno", "newreno+ts", "sack+ts"]


def load():
    with open(os.path.join(ROOT, "validation", "incast_sweep.csv")) as f:
        return list(csv.DictReader(f))


def values(rows, metric):
    cells = defaultdict(list)
    for r in rows:
        cells[(r["stack"], int(r["min_rto_ms"]), int(r["buffer_kb"]), int(r["flows"]))].append(float(r[metric]))
    return cells


def means(rows, metric):
    return {k: statistics.mean(v) for k, v in values(rows, metric).items()}


def spreads(rows, metric):
    """mean (min-max) over seeds, as text"""
    return {k: f"{statistics.mean(v):.0f} ({min(v):.0f}-{max(v):.0f})" for k, v in values(rows, metric).items()}


def grid(m, rto, fmt):
    flows = sorted({k[3] for k in m})
    bufs = sorted({k[2] for k in m})
    out = ["| buffer \\ flows | " + " | ".join(str(f) for f in flows) + " |", "|---" * (len(flows) + 1) + "|"]
    for b in bufs:
        out.append(f"| {b} KB | " + " | ".join(" / ".join(fmt(m[(s, rto, b, f)]) for s in STACKS)
                                             for f in flows) + " |")
    return "\n".join(out)


if __name__ == "__main__":
    rows = load()
    seeds = len({r["seed"] for r in rows})
    g = means(rows, "goodput_mbps")
    gs = spreads(rows, "goodput_mbps")
    t = means(rows, "timeouts_per_flow_mean")
    for rto in (200, 10):
        print(f"\n#### Goodput (Mbps), minRTO {rto} ms: NewReno / NewReno + timestamps / SACK + timestamps "
              f"(mean of {seeds} seeds, min-max)\n")
        print(grid(gs, rto, str))
        print(f"\n#### Timeouts per flow, minRTO {rto} ms: NewReno / NewReno + timestamps / SACK + timestamps "
              f"(mean of {seeds} seeds)\n")
        print(grid(t, rto, lambda v: f"{v:.1f}"))
    print("\n#### Collapse onset (first flow count whose mean of seeds is below 500 Mbps): NewReno / NewReno + ts / "
          "SACK + ts\n")
    print("| buffer | minRTO 200 ms | minRTO 10 ms |\n|---|---|---|")
    flows = sorted({k[3] for k in g})
    for b in sorted({k[2] for k in g}):
        cells = []
        for rto in (200, 10):
            on = []
            for s in STACKS:
                f = next((f for f in flows if g[(s, rto, b, f)] < 500), None)
                on.append(str(f) if f else "none")
            cells.append(" / ".join(on))
        print(f"| {b} KB | " + " | ".join(cells) + " |")
