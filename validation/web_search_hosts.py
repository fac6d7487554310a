#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The web-search star with Linux hosts as servers send and receive: 16 hosts at 10 Gb/s on one switch, 1 us links,
web search at 10 %, 30 % and 50 % load, DCTCP with step marking at the default K (20 packets), the `linux` host
profile (fq with pacing, TCP small queues, 64 KB TSO/GSO, BQL with mlx5's TX moderation, receive interrupt
moderation at mlx5's CQE-based defaults (3 us, 32 frames) with 64 KB GRO) and a host latency of 5 us each way.
1 s of arrivals per run, 10 seeds; every figure is the mean over the seeds with its 95 % interval (Student t).

Per run, the small flows (up to 10 KB): slowdown p50, p95, p99; and where the tail's time goes, over the small
flows at or above the run's p99 slowdown: their FCT, their ideal (line rate, propagation, the host latency at both
ends and one receive-interrupt period), their longest wait in the sending host (qdisc, BQL ring: host_wait_max_us),
their frames' mean wait in the receiving NIC's ring (rx_ring_wait_mean_us, which holds the ideal's receive period),
their frames' mean queueing in the switch (net_queue_mean_us), and what is left (round trips, timeouts; slightly
negative where the longest host wait and the mean queueing of a flow's frames overlap in time).

Second, M/G/1-PS: the one-bottleneck check of tests/test_workload.cpp (16 hosts into host 0, sizes uniform over
100 KB - 1 MB, DCTCP, load rho on host 0's link), the mean slowdown of flows of 500 KB and more against
1 / (1 - rho), at rho 0.3, 0.5, 0.7, as a function of the receivers' interrupt moderation: the profile's
32 frames, 8 frames, and none (each frame taken up as it arrives); 5 seeds each.

Writes validation/web_search_hosts.csv and validation/web_search_ps.csv and prints the tables docs/validation.md
carries.

    .venv/bin/python validation/web_search_hosts.py [--duration-s 1] [--seeds 10] [--ps-seeds 5] [--jobs 2]
"""
import argparse
import concurrent.futures as cf
import os
import statistics
import tempfile

import pandas as pd

import cmswitch
from cmswitch.config import WorkloadConfig

HERE = os.path.dirname(os.path.abspath(__file__))
T95 = {2: 12.71, 3: 4.30, 4: 3.18, 5: 2.78, 6: 2.57, 8: 2.36, 10: 2.26}
SMALL = 10 * 1024
RX_PERIOD_US = 3.0   # the linux profile's receive moderation period (rx_coalesce_us)


def ci(xs):
    xs = list(xs)
    m = statistics.mean(xs)
    h = T95.get(len(xs), 2.0) * statistics.stdev(xs) / len(xs) ** 0.5 if len(xs) > 1 else 0.0
    return m, h


def fmt(xs, digits=1):
    m, h = ci(xs)
    return f"{m:.{digits}f} +- {h:.{digits}f}"


def star_run(load: float, seed: int, duration_s: float) -> dict:
    cfg = WorkloadConfig(topology="star", hosts=16, link_gbps=10, delay_us=1, load=load, flow_sizes="web-search",
                         transport="dctcp", marking="step", host_profile="linux", host_latency_us=5,
                         duration_s=duration_s, flow_table=True, seed=seed)
    r = cmswitch.run(cfg)
    f = r.flows
    small = f[f["size_bytes"] <= SMALL]
    p99 = small["slowdown"].quantile(0.99)
    tail = small[small["slowdown"] >= p99]
    fct = tail["fct_us"].mean()
    ideal = (tail["fct_us"] / tail["slowdown"]).mean()
    host = tail["host_wait_max_us"].mean()
    nic = tail["rx_ring_wait_mean_us"].mean()
    switch = tail["net_queue_mean_us"].mean()
    s = r.summary
    return dict(load=load, seed=seed, small_flows=len(small), p50=small["slowdown"].quantile(0.5),
                p95=small["slowdown"].quantile(0.95), p99=p99, tail_flows=len(tail), tail_fct_us=fct,
                tail_ideal_us=ideal, tail_host_wait_us=host, tail_rx_ring_us=nic, tail_switch_queue_us=switch,
                # (the ideal holds one receive period, RX_PERIOD_US, which the ring's wait counts too)
                tail_other_us=fct - (ideal - RX_PERIOD_US) - host - nic - switch,
                tail_timeouts=int(tail["timeouts"].sum()),
                drops=s["drops"], timeouts=s["timeouts"], retransmitted_bytes=s["retransmitted_bytes"],
                spurious_bytes=s["retransmitted_bytes_spurious"], slowdown_p99_large=s["slowdown_p99_large"])


def ps_run(rho: float, frames: int | None, seed: int, sizes: str) -> dict:
    extra = dict(rx_coalesce_us=0) if frames is None else dict(rx_coalesce_frames=frames)
    cfg = WorkloadConfig(topology="star", hosts=17, flow_destinations=(0,), load=rho / 16, flow_sizes=sizes,
                         transport="dctcp", marking="step", host_profile="linux", host_latency_us=5, duration_s=0.5,
                         drain_ms=100, flow_table=True, seed=seed, **extra)
    f = cmswitch.run(cfg).flows
    big = f[f["size_bytes"] >= 500000]
    return dict(rho=rho, moderation=("none" if frames is None else f"{frames} frames"), seed=seed, flows=len(big),
                mean_slowdown=big["slowdown"].mean(), ps=1 / (1 - rho))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--duration-s", type=float, default=1.0)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--ps-seeds", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    sizes = os.path.join(tempfile.mkdtemp(), "ps_sizes.csv")
    with open(sizes, "w") as fh:
        fh.write("100000,0\n1000000,100\n")
    loads = (0.1, 0.3, 0.5)
    with cf.ProcessPoolExecutor(a.jobs) as pool:
        star = [pool.submit(star_run, load, s, a.duration_s) for load in loads for s in range(1, a.seeds + 1)]
        ps = [pool.submit(ps_run, rho, frames, s, sizes) for rho in (0.3, 0.5, 0.7) for frames in (32, 8, None)
              for s in range(1, a.ps_seeds + 1)]
        df = pd.DataFrame([x.result() for x in star])
        pf = pd.DataFrame([x.result() for x in ps])
    df.to_csv(os.path.join(HERE, "web_search_hosts.csv"), index=False)
    pf.to_csv(os.path.join(HERE, "web_search_ps.csv"), index=False)
    print("| load | small flows per run | slowdown p50 | p95 | p99 | drops | timeouts | spurious retransmissions (B) |")
    print("|---|---|---|---|---|---|---|---|")
    for load in loads:
        g = df[df.load == load]
        print(f"| {load} | {g.small_flows.mean():.0f} | {fmt(g.p50, 2)} | {fmt(g.p95, 2)} | {fmt(g.p99, 2)} | "
              f"{fmt(g.drops, 0)} | {fmt(g.timeouts, 1)} | {fmt(g.spurious_bytes, 0)} |")
    print()
    print("| load | tail flows per run | FCT (us) | ideal | host wait | receive ring | switch queue | the rest |")
    print("|---|---|---|---|---|---|---|---|")
    for load in loads:
        g = df[df.load == load]
        print(f"| {load} | {g.tail_flows.mean():.0f} | {fmt(g.tail_fct_us)} | {fmt(g.tail_ideal_us)} | "
              f"{fmt(g.tail_host_wait_us)} | {fmt(g.tail_rx_ring_us)} | {fmt(g.tail_switch_queue_us)} | "
              f"{fmt(g.tail_other_us)} |")
    print()
    print("| rho | receive moderation | flows >= 500 KB per run | mean slowdown | 1 / (1 - rho) | off by | within 20 %? |")
    print("|---|---|---|---|---|---|---|")
    for rho in (0.3, 0.5, 0.7):
        for mod in ("32 frames", "8 frames", "none"):
            g = pf[(pf.rho == rho) & (pf.moderation == mod)]
            m, h = ci(g.mean_slowdown)
            off = m * (1 - rho) - 1
            print(f"| {rho} | {mod} | {g.flows.mean():.0f} | {m:.2f} +- {h:.2f} | {1 / (1 - rho):.2f} | "
                  f"{off * 100:+.0f} % | {'yes' if abs(off) <= 0.2 else 'no'} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
