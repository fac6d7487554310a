#!/usr/bin/env python3
"""Python-layer speed: sweep throughput on 1 vs 2 workers, and the per-run overhead of cmswitch.run over the
core's own wall time for a 1-second simulated incast run. Prints markdown."""
import statistics
import sys
import time

import cmswitch


def sweep_rate(workers, base, grid):
    t = time.perf_counter()
    df = cmswitch.sweep(base, grid, workers=workers, progress=False)
    wall = time.perf_counter() - t
    return len(df) / wall, wall


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    base = cmswitch.IncastConfig(flows=16, buffer_kb=256, min_rto_ms=10, duration_s=3, sample_us=0)
    grid = {"seed": list(range(1, 21)), "buffer_kb": [128, 256]}
    print("| workers | points | wall s (best of %d) | runs per wall s | speed-up |" % reps)
    print("|---|---|---|---|---|")
    best = {}
    for w in (1, 2):
        runs = [sweep_rate(w, base, grid) for _ in range(reps)]
        best[w] = max(runs)
        print(f"| {w} | 40 | {best[w][1]:.2f} | {best[w][0]:.2f} | {best[w][0] / best[1][0]:.2f}x |")
    print()
    cfg = cmswitch.IncastConfig(flows=16, buffer_kb=256, min_rto_ms=10, duration_s=1, sample_us=0)
    cmswitch.run(cfg)
    over = []
    for _ in range(10 * reps):
        t = time.perf_counter()
        r = cmswitch.run(cfg)
        outer = time.perf_counter() - t
        over.append((outer - r["wall_s"], r["wall_s"]))
    med_over = statistics.median(o for o, _ in over)
    med_core = statistics.median(c for _, c in over)
    print("| per-run overhead of the Python layer, 1 s simulated incast (16 flows) | median of %d runs |" % len(over))
    print("|---|---|")
    print(f"| core wall time | {med_core * 1e3:.1f} ms |")
    print(f"| cmswitch.run wall time minus core wall time | {med_over * 1e3:.2f} ms ({100 * med_over / med_core:.1f} %) |")


if __name__ == "__main__":
    main()
