#!/usr/bin/env python3
"""Turns validation/incast_sweep.csv into markdown tables (mean over seeds, with the spread)."""
import csv
import os
import statistics
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load():
    with open(os.path.join(ROOT, "validation", "incast_sweep.csv")) as f:
        return list(csv.DictReader(f))


def table(rows, rto, wnd, metric, fmt):
    cells = defaultdict(list)
    for r in rows:
        if float(r["min_rto_ms"]) == rto and int(r["rwnd_segments"]) == wnd:
            cells[(int(r["buffer_kb"]), int(r["flows"]))].append(float(r[metric]))
    flows = sorted({k[1] for k in cells})
    bufs = sorted({k[0] for k in cells})
    out = ["| buffer \\ flows | " + " | ".join(str(f) for f in flows) + " |",
           "|---" * (len(flows) + 1) + "|"]
    for b in bufs:
        line = [f"{b} KB"]
        for f in flows:
            v = cells[(b, f)]
            m = statistics.mean(v)
            line.append(fmt(m, min(v), max(v)) if len(v) > 1 else fmt(m, m, m))
        out.append("| " + " | ".join(line) + " |")
    return "\n".join(out)


if __name__ == "__main__":
    rows = load()
    for wnd in (0, 20):
        for rto in (200, 10):
            name = "unlimited advertised window" if wnd == 0 else "advertised window 20 segments (ns-2 default)"
            print(f"\n#### Goodput (Mbps), minRTO {rto} ms, {name}: mean of seeds (min-max)\n")
            print(table(rows, rto, wnd, "goodput_mbps", lambda m, lo, hi: f"{m:.0f} ({lo:.0f}-{hi:.0f})"))
            print(f"\n#### Timeouts per flow, minRTO {rto} ms, {name}: mean of seeds\n")
            print(table(rows, rto, wnd, "timeouts_per_flow_mean", lambda m, lo, hi: f"{m:.1f}"))
