#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Stewart et al.'s incast incidents in the model, followed packet by packet: every request over 300 ms on the testbed
default (DBL keyed on the association), matched with the frames of its own association that a host NIC dropped
while it ran (`--trace-nic-drops`). 4 SCTP variants x 5 seeds x 600 s; prints one row per variant and the first
seed's incidents one by one; the numbers go into docs/validation.md, section 9.

    python3 validation/sctp_incast_incident_trace.py [--sim build/cmswitch-sim] [--seeds 5] [--duration-s 600]
"""
import argparse
import json
import os
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
VARIANTS = ["plain", "ecn", "dccc", "dynamic-dccc"]
CHUNKS = {1: "DATA", 2: "SACK", 4: "ECNE", 8: "CWR", 16: "INIT", 32: "INIT-ACK", 64: "COOKIE-ECHO", 128: "COOKIE-ACK"}


def chunk_name(flags: int) -> str:
    return "+".join(name for bit, name in CHUNKS.items() if flags & bit) or "none"


def run(sim: str, variant: str, seed: int, duration_s: float) -> dict:
    out = subprocess.run([sim, "sctp-incast", "--sctp-cc", variant, "--seed", str(seed), "--duration-s",
                          str(duration_s), "--trace-nic-drops"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def match(res: dict) -> list:
    """Per incident: (start s, peer host, ms, the drops of its association while it ran: (after s, host, chunk, tsn))."""
    inc, nd = res["tables"]["incidents"], res["tables"]["nic_drops"]
    rows = []
    for j in range(len(inc["start_s"])):
        s, ms, flow = inc["start_s"][j], inc["time_ms"][j], inc["flow"][j]
        hits = [(nd["time_s"][i] - s, int(nd["host"][i]), chunk_name(int(nd["chunks"][i])), int(nd["tsn"][i]))
                for i in range(len(nd["time_s"])) if nd["flow"][i] == flow and s <= nd["time_s"][i] <= s + ms / 1e3]
        rows.append((s, int(inc["peer_host"][j]), ms, hits))
    return rows


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sim", default=os.path.join(ROOT, "build", "cmswitch-sim"))
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--duration-s", type=float, default=600)
    a = ap.parse_args()
    jobs = [(v, s) for v in VARIANTS for s in range(1, a.seeds + 1)]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = dict(zip(jobs, pool.map(lambda j: run(a.sim, j[0], j[1], a.duration_s), jobs)))
    print(f"{a.seeds} seeds x {a.duration_s:g} s per variant, DBL keyed on the association (the default)\n")
    print("| variant | incidents | with a NIC drop of their own association | the dropped frame (count) | at host | "
          "without one | NIC drops in all, per run | of them the incast's |")
    print("|---|---|---|---|---|---|---|---|")
    for v in VARIANTS:
        n = explained = 0
        what: Counter = Counter()
        hosts: Counter = Counter()
        drops = incast_drops = 0
        for s in range(1, a.seeds + 1):
            res = results[(v, s)]
            nd = res["tables"]["nic_drops"]
            drops += len(nd["time_s"])
            incast_drops += int(sum(nd["incast"]))
            for _, _, _, hits in match(res):
                n += 1
                if hits:
                    explained += 1
                    what[hits[0][2]] += 1
                    hosts[f"bsd{hits[0][1]}"] += 1
        print(f"| {v} | {n} | {explained} | {', '.join(f'{k} {c}' for k, c in what.most_common()) or '-'} | "
              f"{', '.join(f'{k} {c}' for k, c in hosts.most_common()) or '-'} | {n - explained} | "
              f"{drops / a.seeds:.0f} | {incast_drops / a.seeds:.1f} |")
    print("\nSeed 1, plain, incident by incident: start, peer, time; the frames of its association dropped at a NIC "
          "while it ran (seconds after the start, host, chunk, TSN)\n")
    for s, peer, ms, hits in match(results[("plain", 1)]):
        print(f"- {s:.6f} s, peer bsd{peer}, {ms:.1f} ms: " +
              ("; ".join(f"+{dt * 1e3:.3f} ms at bsd{h}: {c} (TSN {tsn})" for dt, h, c, tsn in hits) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
