#!/usr/bin/env python3
"""Differential check of cmswitch's TCP incast against ns-2 2.35 on the Devkota & Reddy 2010 grid.

Grid: flows {1, 2, 4, 8, 16, 32, 64} x buffer {32, 64, 128, 256} KB x minRTO {200, 10} ms, 20 s simulated, 1 Gbps,
25 us per link, SRU 256 KB, unlimited advertised window, one ACK per segment, no jitter, simultaneous requests.
ns-2's one-way TCP has no partial segments: it sends a 256 KB SRU as 180 full 1460-byte segments (262800 bytes).
cmswitch is given that same SRU (--sru-kb 256.640625) so that both send the same frames; --model-sru-kb 256 runs
the model with the exact SRU instead (a short last segment, as real stacks send it).
ns-2 runs validation/ns2/incast.tcl (installs the Debian package ns2 if `ns` is missing); cmswitch runs
build/cmswitch-sim with the same settings. Both are deterministic, so one run per point each.

Writes validation/ns2/differential.csv (every point, both simulators) and prints the markdown tables and the
summary that docs/validation.md carries. ns-2 results are cached in validation/ns2/ns2_cache.csv, keyed by the
point and a hash of incast.tcl, so a model change re-runs only the model.

With --jitter-ns J --seeds N both simulators add a random delay in [0, J] before each send from the window
(ns-2: the TCP agent's overhead_; cmswitch: --jitter-ns with --jitter-scope window_sends, which like overhead_
leaves fast retransmits, partial-ACK retransmissions and limited transmit undelayed) and every point is the mean
of N seeds: ties between perfectly synchronized senders, which the two simulators break differently (ns-2 by
double-precision rounding of its clock, cmswitch in scheduling order on an integer picosecond clock), then stop
deciding the outcome.

Usage: python3 validation/ns2/differential.py [--quick] [--jitter-ns J --seeds N] [--model-arg=--sack ...]
       [--tag NAME] [--no-ns2-cache]
"""
import argparse
import csv
import hashlib
import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TCL = os.path.join(HERE, "incast.tcl")
CACHE = os.path.join(HERE, "ns2_cache.csv")
FLOWS = [1, 2, 4, 8, 16, 32, 64]
BUFFERS = [32, 64, 128, 256]
MIN_RTO = [200, 10]
DELAY_US = 25
NS2_SRU_KB = 180 * 1460 / 1024   # 256 KB as ns-2 sends it: 180 full segments
KEYS = ["goodput_mbps", "rounds_completed", "timeouts", "fast_retransmits", "idle_restarts"]


def ensure_ns2():
    if shutil.which("ns"):
        return
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    print("installing the Debian package ns2 ...", file=sys.stderr)
    subprocess.run(sudo + ["apt-get", "update", "-qq"], check=True)
    subprocess.run(sudo + ["apt-get", "install", "-y", "-qq", "ns2"], check=True,
                   env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))


def tcl_hash():
    with open(TCL, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:12]


def run_ns2(point, duration, jitter_ns=0, seed=1):
    flows, buf, rto = point
    out = subprocess.run(["ns", TCL, f"flows={flows}", f"buffer_kb={buf}", f"min_rto_ms={rto}",
                          f"duration_s={duration}", f"delay_us={DELAY_US}", f"overhead_us={jitter_ns / 1000}",
                          f"seed={seed}"],
                         check=True, capture_output=True, text=True).stdout
    kv = dict(x.split("=") for x in out.split())
    return {k: float(kv[k]) for k in KEYS}


def run_model(sim, point, duration, extra, jitter_ns=0, seed=1, sru_kb=NS2_SRU_KB):
    flows, buf, rto = point
    args = [sim, "incast", "--flows", str(flows), "--buffer-kb", str(buf), "--min-rto-ms", str(rto), "--sru-kb", str(sru_kb),
            "--duration-s", str(duration), "--delay-us", str(DELAY_US), "--sample-us", "0",
            "--seed", str(seed)] + (["--jitter-ns", str(jitter_ns), "--jitter-scope", "window_sends"] if jitter_ns else []) \
        + extra
    out = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    return {k: float(out.get(k, float("nan"))) for k in KEYS}   # an older build may lack a key


def load_cache():
    cache = {}
    if os.path.exists(CACHE):
        with open(CACHE) as f:
            for row in csv.DictReader(f):
                cache[(row["tcl"], int(row["flows"]), int(row["buffer_kb"]), int(row["min_rto_ms"]),
                       float(row["duration_s"]), float(row["jitter_ns"]), int(row["seed"]))] = \
                    {k: float(row[k]) for k in KEYS}
    return cache


def save_cache(cache):
    with open(CACHE, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["tcl", "flows", "buffer_kb", "min_rto_ms", "duration_s", "jitter_ns", "seed"] + KEYS)
        for key in sorted(cache):
            w.writerow(list(key) + [cache[key][k] for k in KEYS])


def collapse_onset(rows, buf, rto, key):
    """First flow count whose goodput is below 500 Mbps (None: never)."""
    for flows in FLOWS:
        r = rows[(flows, buf, rto)]
        if r[key] < 500:
            return flows
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="2 s instead of 20 s")
    ap.add_argument("--model-arg", action="append", default=[])
    ap.add_argument("--tag", default="", help="suffix of the CSV name (for variants such as --sack)")
    ap.add_argument("--no-ns2-cache", action="store_true")
    ap.add_argument("--jitter-ns", type=float, default=0)
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--model-sru-kb", type=float, default=NS2_SRU_KB)
    ap.add_argument("--sim", default=os.path.join(ROOT, "build", "cmswitch-sim"),
                    help="the cmswitch-sim to check (e.g. one built from an older commit)")
    a = ap.parse_args()
    duration = 2.0 if a.quick else 20.0
    ensure_ns2()
    sim = os.path.join(tempfile.mkdtemp(), "cmswitch-sim")   # a private copy: rebuilding cannot disturb the run
    shutil.copy2(a.sim, sim)
    points = list(itertools.product(FLOWS, BUFFERS, MIN_RTO))
    seeds = list(range(1, a.seeds + 1))
    h = tcl_hash()
    cache = {} if a.no_ns2_cache else load_cache()
    key = lambda p, seed: (h,) + p + (duration, float(a.jitter_ns), seed)   # noqa: E731
    runs = [(p, seed) for p in points for seed in seeds]
    todo = [r for r in runs if key(*r) not in cache]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for r, res in zip(todo, pool.map(lambda r: run_ns2(r[0], duration, a.jitter_ns, r[1]), todo)):
            cache[key(*r)] = res
        save_cache(cache)
        model_runs = dict(zip(runs, pool.map(
            lambda r: run_model(sim, r[0], duration, a.model_arg, a.jitter_ns, r[1], a.model_sru_kb), runs)))

    def mean(rs):
        return {k: statistics.mean(r[k] for r in rs) for k in KEYS}

    rows = {}
    for p in points:
        n = mean([cache[key(p, seed)] for seed in seeds])
        m = mean([model_runs[(p, seed)] for seed in seeds])
        rows[p] = {"ns2_" + k: n[k] for k in KEYS} | {"model_" + k: m[k] for k in KEYS}
        rows[p]["ratio"] = m["goodput_mbps"] / n["goodput_mbps"]
        for who, res in (("ns2", [cache[key(p, seed)] for seed in seeds]),
                         ("model", [model_runs[(p, seed)] for seed in seeds])):
            rows[p][who + "_goodput_min"] = min(r["goodput_mbps"] for r in res)
            rows[p][who + "_goodput_max"] = max(r["goodput_mbps"] for r in res)
    name = "differential" + (("_" + a.tag) if a.tag else "") + \
        ("" if a.model_sru_kb == NS2_SRU_KB else f"_sru{a.model_sru_kb:g}") + (f"_jitter{a.jitter_ns:g}ns" if a.jitter_ns else "") + \
        ("_quick" if a.quick else "") + ".csv"
    with open(os.path.join(HERE, name), "w", newline="") as f:
        w = csv.writer(f)
        cols = list(next(iter(rows.values())).keys())
        w.writerow(["flows", "buffer_kb", "min_rto_ms"] + cols)
        for p in points:
            w.writerow(list(p) + [round(rows[p][c], 4) for c in cols])

    print(f"model args: {' '.join(a.model_arg) or '(defaults)'}; {duration:g} s per point; send jitter "
          f"{a.jitter_ns:g} ns; mean of {len(seeds)} seed(s); model SRU {a.model_sru_kb:g} KB\n")

    def grid(title, cell, rto):
        """One table: a row per buffer, a column per flow count, cell(row of the point, flows) in each."""
        print(f"#### {title}\n")
        print("| buffer \\ flows | " + " | ".join(str(x) for x in FLOWS) + " |")
        print("|---" * (len(FLOWS) + 1) + "|")
        for buf in BUFFERS:
            print(f"| {buf} KB | " + " | ".join(cell(rows[(flows, buf, rto)], flows) for flows in FLOWS) + " |")
        print()

    for rto in MIN_RTO:
        grid(f"Goodput (Mbps), minRTO {rto} ms: ns-2 / cmswitch (ratio)",
             lambda r, _: f"{r['ns2_goodput_mbps']:.0f} / {r['model_goodput_mbps']:.0f} ({r['ratio']:.2f})", rto)
        if len(seeds) > 1:
            grid(f"Goodput over the {len(seeds)} seeds (min-max, Mbps), minRTO {rto} ms: ns-2 / cmswitch",
                 lambda r, _: f"{r['ns2_goodput_min']:.0f}-{r['ns2_goodput_max']:.0f} / "
                              f"{r['model_goodput_min']:.0f}-{r['model_goodput_max']:.0f}", rto)
        grid(f"Timeouts per flow, minRTO {rto} ms: ns-2 / cmswitch",
             lambda r, flows: f"{r['ns2_timeouts'] / flows:.1f} / {r['model_timeouts'] / flows:.1f}", rto)

    big = [p for p in points if p[0] >= 4]
    errs = [abs(rows[p]["ratio"] - 1) for p in big]
    within = sum(e <= 0.25 for e in errs)
    print(f"Points with flows >= 4: {len(big)}; within +-25 % of ns-2: {within} ({100 * within / len(big):.0f} %); "
          f"median |relative error| {100 * statistics.median(errs):.1f} %; "
          f"mean {100 * statistics.mean(errs):.1f} %; worst {100 * max(errs):.0f} % at "
          f"{max(big, key=lambda p: abs(rows[p]['ratio'] - 1))}")
    print("\n| buffer | minRTO | collapse onset ns-2 | collapse onset cmswitch | within one step? |")
    print("|---|---|---|---|---|")
    ok_all = True
    for rto in MIN_RTO:
        for buf in BUFFERS:
            x = collapse_onset(rows, buf, rto, "ns2_goodput_mbps")
            y = collapse_onset(rows, buf, rto, "model_goodput_mbps")
            ix = FLOWS.index(x) if x else len(FLOWS)
            iy = FLOWS.index(y) if y else len(FLOWS)
            ok = abs(ix - iy) <= 1
            ok_all &= ok
            print(f"| {buf} KB | {rto} ms | {x or 'none'} | {y or 'none'} | {'yes' if ok else 'no'} |")
    print(f"\nacceptance: >= 80 % within 25 %: {'yes' if within >= 0.8 * len(big) else 'no'}; median < 15 %: "
          f"{'yes' if statistics.median(errs) < 0.15 else 'no'}; every onset within one step: "
          f"{'yes' if ok_all else 'no'}")


if __name__ == "__main__":
    sys.exit(main())
