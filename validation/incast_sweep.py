#!/usr/bin/env python3
"""Devkota & Reddy 2010 incast sweep with cmswitch's defaults: goodput vs flows x buffer x minRTO for three TCP stacks, 20 s,
5 seeds.

Stacks: NewReno (the default: limited transmit, the careful recover check, slow start after idle), NewReno with
timestamps (RFC 7323), and SACK (RFC 6675) with timestamps, as datacenter hosts run. Defaults otherwise: 1 Gbps,
25 us per link, SRU 256 KB (a short last segment, as real stacks send it), unlimited advertised window, one ACK per
segment, simultaneous requests; a random delay of up to 500 ns before each server segment (--jitter-ns 500) so
that seeds differ and perfectly clocked servers do not decide every tie the same way.

Runs build/cmswitch-sim in parallel processes and writes validation/incast_sweep.csv. Long: not a test.
Usage: python3 validation/incast_sweep.py [--quick]
"""
import csv
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# a private copy, so that rebuilding the project while the sweep runs cannot disturb it
SIM = os.path.join(tempfile.mkdtemp(), "cmswitch-sim")
shutil.copy2(os.path.join(ROOT, "build", "cmswitch-sim"), SIM)
FLOWS = [1, 2, 4, 8, 16, 32, 64]
BUFFERS = [32, 64, 128, 256]
MIN_RTO = [200, 10]
STACKS = {"newreno": [], "newreno+ts": ["--timestamps"], "sack+ts": ["--sack", "--timestamps"]}
SEEDS = [1, 2, 3, 4, 5]
JITTER_NS = 500


def run(point):
    flows, buf, rto, stack, seed = point
    args = [SIM, "incast", "--flows", str(flows), "--buffer-kb", str(buf), "--min-rto-ms", str(rto),
            "--seed", str(seed), "--jitter-ns", str(JITTER_NS), "--duration-s", str(DURATION),
            "--sample-us", "0"] + STACKS[stack]
    out = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    keys = ["goodput_mbps", "rounds_completed", "timeouts_per_flow_mean", "timeouts_max_flow", "fast_retransmits",
            "drops", "mean_queue_bytes", "max_queue_bytes", "round_time_p99_ms", "rounds_over_300ms", "wall_s"]
    return dict(flows=flows, buffer_kb=buf, min_rto_ms=rto, stack=stack, seed=seed, **{k: out[k] for k in keys})


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    DURATION = 2 if quick else 20
    points = list(itertools.product(FLOWS, BUFFERS, MIN_RTO, STACKS, SEEDS[:1] if quick else SEEDS))
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        rows = list(pool.map(run, points))
    path = os.path.join(ROOT, "validation", "incast_sweep.csv")
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {len(rows)} runs to {path}")
