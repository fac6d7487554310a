#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Small flows' FCT tail on an idle-ish network with the old hosts (ns2 profile, a FIFO NIC queue without limit)
and with Linux hosts (fq, pacing, small queues, RACK-TLP): 16 hosts on one switch at 10 Gb/s, 1 us links, web
search at 10 % and 30 % load, DCTCP with step marking, 4 MB shared buffer; the marking threshold K at the default 20
packets (29.3 KB) and below (a small flow that meets a port held at K waits K / C: 23 us at 20 packets, against an
ideal of 4-10 us), and Linux's small-queue cap (tcp_limit_output_bytes) at 4 MB (its default) and below. 1 s of arrivals per run, 5 seeds; every figure is the mean over
the seeds with its 95 % interval (Student t). Writes validation/workload_hosts.csv and prints the table
docs/validation.md carries.

    .venv/bin/python validation/workload_hosts.py [--duration-s 1] [--seeds 5]
"""
import argparse
import os
import statistics

import pandas as pd

import cmswitch
from cmswitch.config import WorkloadConfig

HERE = os.path.dirname(os.path.abspath(__file__))
T95 = {2: 12.71, 3: 4.30, 4: 3.18, 5: 2.78, 6: 2.57, 8: 2.36, 10: 2.26}


def ci(xs):
    m = statistics.mean(xs)
    h = T95.get(len(xs), 2.0) * statistics.stdev(xs) / len(xs) ** 0.5 if len(xs) > 1 else 0.0
    return m, h


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--duration-s", type=float, default=1.0)
    ap.add_argument("--seeds", type=int, default=5)
    a = ap.parse_args()
    base = WorkloadConfig(topology="star", hosts=16, link_gbps=10, load=0.1, flow_sizes="web-search",
                          transport="dctcp", marking="step", duration_s=a.duration_s)
    seeds = list(range(1, a.seeds + 1))
    # the old hosts: the ns2 profile with the initial window the workload used before (10)
    cases = [("ns2 (FIFO NIC), K 20 pkts", dict(host_profile="ns2", init_cwnd=10))]
    for k in (20, 10, 6):
        cases.append((f"linux, K {k} pkts", dict(host_profile="linux", ecn_k_kb=k * 1500 / 1024)))
    # the small-queue cap (tcp_limit_output_bytes: 4 MB since Linux 6.6, 1 MB and 256 KB before): elephants in slow
    # start sit at it, and what sits in a host reaches the switch whatever DCTCP says
    for cap in (1024, 256):
        cases.append((f"linux, K 20 pkts, small-queue cap {cap} KB", dict(host_profile="linux", tsq_max_kb=cap)))
    points = [dict(c, load=load, seed=s) for _, c in cases for load in (0.1, 0.3) for s in seeds]
    df = cmswitch.sweep(base, points=points, progress=False)
    df["case"] = [name for name, _ in cases for _load in (0.1, 0.3) for _s in seeds]
    df.to_csv(os.path.join(HERE, "workload_hosts.csv"), index=False)
    print("| hosts, marking | load | p99 slowdown <= 10 KB | p99 host wait <= 10 KB (us) | p99 slowdown 1-10 MB "
          "| largest socket queue below TCP (KB) | over the small-queue limit (B, max) | drops | timeouts |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, _ in cases:
        for load in (0.1, 0.3):
            g = df[(df.case == name) & (df.load == load)]
            sm, sh = ci(list(g.slowdown_p99_small))
            lm, lh = ci(list(g.slowdown_p99_large))
            wait = f"{statistics.mean(g.host_wait_p99_small_us):.1f}" if "host_wait_p99_small_us" in g and \
                g.host_wait_p99_small_us.notna().all() else "-"
            sock = f"{statistics.mean(g.host_socket_queue_max_kb):.0f}" if "host_socket_queue_max_kb" in g and \
                g.host_socket_queue_max_kb.notna().all() else "-"
            over = f"{max(g.small_queue_excess_max_bytes):.0f}" if "small_queue_excess_max_bytes" in g and \
                g.small_queue_excess_max_bytes.notna().all() else "-"
            print(f"| {name} | {load:g} | {sm:.2f} +- {sh:.2f} | {wait} | {lm:.2f} +- {lh:.2f} | {sock} | {over} | "
                  f"{statistics.mean(g.drops):.0f} | {statistics.mean(g.timeouts):.1f} |")
    pd.set_option("display.width", 200)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
