#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Why a 10 Gb/s incast of 1,024 and of 4,000 flows delivers exactly the same bytes (bench/NOTES.md,
"Known behaviour").

Runs the incast of bench_scale (10 Gb/s, 256 KB, SRU 256 KB, minRTO 200 ms, ns2 hosts, 1 s) with its traces, for
1,024 and 4,000 flows, with perfectly symmetric servers and with 1 us of link-delay skew, and prints per run: the
bytes delivered, which flows got past their first window, whether flows 0-1,023 delivered the same bytes in both
runs, and the instants at which the timeouts fire. Usage: python3 bench/incast_lockstep.py [path/to/cmswitch-sim]
"""
import collections
import json
import subprocess
import sys

SIM = sys.argv[1] if len(sys.argv) > 1 else "build/cmswitch-sim"
TIMEOUT = 0   # tcp_events' event code of a retransmission timeout


def run(flows, extra):
    out = subprocess.run([SIM, "incast", "--flows", str(flows), "--link-gbps", "10", "--buffer-kb", "256",
                          "--duration-s", "1", "--sample-us", "0", "--trace", *extra],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def rows(table):
    if isinstance(table, list):
        return table
    return [dict(zip(table.keys(), v)) for v in zip(*table.values())]


def main():
    for extra in ((), ("--delay-skew-ns", "1000")):
        delivered = {}
        print("servers:", "identical links" if not extra else "link delays + U[0, 1 us]")
        for flows in (1024, 4000):
            res = run(flows, extra)
            per_flow = [r["delivered_bytes"] for r in rows(res["tables"]["flows"])]
            past_iw = [i for i, b in enumerate(per_flow) if b > 2 * 1460]
            timeouts = [r["t_ms"] for r in rows(res["tables"]["tcp_events"]) if r["event"] == TIMEOUT]
            groups = collections.Counter(round(t, 3) for t in timeouts).most_common(2)
            print(f"  {flows:5d} flows: delivered {res['delivered_bytes']:,} B, drops {res['drops']}, "
                  f"{len(past_iw)} flows past their first window (lowest {past_iw[:5]}, highest {past_iw[-1]}), "
                  f"timeouts {len(timeouts)}, the largest groups firing at one instant: "
                  + ", ".join(f"{n} at {t:g} ms" for t, n in groups))
            delivered[flows] = per_flow
        same = delivered[1024] == delivered[4000][:1024]
        print(f"  flows 0-1023 deliver the same bytes in both runs: {same}; flows 1024-3999 deliver "
              f"{sum(delivered[4000][1024:]):,} B")


if __name__ == "__main__":
    main()
