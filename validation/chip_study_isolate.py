# SPDX-License-Identifier: Apache-2.0
"""Which of the chip's features moves DCTCP's answer (docs/chip-study.md): DCTCP on web search at 40 % + the
31:1 incast, 0.25 MB of buffer, 5 seeds, on the chip (examples/switches/th3_32x100.json), on the chip with one
slice, and on the chip without cells. Prints the p99 small-flow slowdown (mean, 95 % interval) and drops."""
from __future__ import annotations

import math
import statistics

import cmswitch
from cmswitch.shared_buffer_study import base_config, point

CASES = [("chip", {}), ("chip, one slice", dict(slices=1, pipes=1, slice_map="single")),
         ("chip, no cells", dict(cell_bytes=0))]

for label, changes in CASES:
    base = base_config(switch="examples/switches/th3_32x100.json", load=0.4, duration_s=0.02, drain_ms=10,
                       **changes)
    vals, drops = [], []
    for seed in (1, 2, 3, 4, 5):
        r = cmswitch.run(base.replace(**point(base, "dctcp", 256, 1.0, seed)))
        vals.append(r.summary["slowdown_p99_small"])
        drops.append(r.summary["drops"])
    half = 2.776 * statistics.stdev(vals) / math.sqrt(len(vals))   # Student t, 4 degrees of freedom
    print(f"| {label} | {statistics.mean(vals):.2f} [{max(1.0, statistics.mean(vals) - half):.2f}, "
          f"{statistics.mean(vals) + half:.2f}] | {statistics.mean(drops):.0f} |")
