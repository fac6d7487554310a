#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Retransmissions without loss: a 32 x 100G star with web search at 40 % and a 31:1 incast of 64 KB every ms, DCTCP
with step marking, `linux` hosts, 50 ms of arrivals, 5 seeds. Per run: drops, TCP timeouts, the retransmitted bytes
by cause (found lost, tail loss probes) and the bytes the receivers got twice (spurious), and how many flows
retransmitted at all. Each with the profile's receive path (interrupt moderation and GRO) and without it (every
frame taken up as it arrives, as the hosts were before the receive path was modelled).

A write's last segment that is shorter than a full one used to wait at the receiver for the 40 ms delayed-ACK
timer; the sender's tail loss probe (2 SRTT + the 10 ms minimum RTO with one segment out, capped by the RTO) sent
it again first. Linux acknowledges such a segment once the application has read it (tcp_cleanup_rbuf), which the
receiver now does (validation/linux/delayed_ack_capture.py shows this machine's kernel acknowledging it at once).

    .venv/bin/python validation/retransmissions_without_loss.py [--seeds 5] [--jobs 2]
"""
import argparse
import concurrent.futures as cf
import os
import statistics

import cmswitch
from cmswitch.config import WorkloadConfig

T95 = {2: 12.71, 3: 4.30, 4: 3.18, 5: 2.78, 10: 2.26}


def one(seed: int, receive_path: bool) -> dict:
    extra = {} if receive_path else dict(rx_coalesce_us=0)
    cfg = WorkloadConfig(topology="star", hosts=32, link_gbps=100, load=0.4, flow_sizes="web-search",
                         incast_fanin=31, incast_kb=64, incast_period_ms=1, transport="dctcp", marking="step",
                         host_profile="linux", duration_s=0.05, flow_table=True, seed=seed, **extra)
    r = cmswitch.run(cfg)
    s, f = r.summary, r.flows
    return dict(seed=seed, receive_path=receive_path, flows=len(f), flows_retransmitting=int((f.retransmitted_bytes > 0).sum()),
                drops=s["drops"], timeouts=s["timeouts"], loss=s["retransmitted_bytes_loss"],
                probe=s["retransmitted_bytes_probe"], spurious=s["retransmitted_bytes_spurious"])


def fmt(xs):
    xs = list(xs)
    m = statistics.mean(xs)
    h = T95.get(len(xs), 2.0) * statistics.stdev(xs) / len(xs) ** 0.5 if len(xs) > 1 else 0.0
    return f"{m:,.0f} +- {h:,.0f}"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    with cf.ProcessPoolExecutor(a.jobs) as pool:
        runs = [pool.submit(one, s, rp) for rp in (True, False) for s in range(1, a.seeds + 1)]
        rows = [x.result() for x in runs]
    print("| receive path | flows | flows retransmitting | drops | timeouts | retransmitted, found lost (B) "
          "| retransmitted by probes (B) | received twice (B) |")
    print("|---|---|---|---|---|---|---|---|")
    for rp in (True, False):
        g = [r for r in rows if r["receive_path"] == rp]
        cols = [fmt(r[k] for r in g) for k in ("flows", "flows_retransmitting", "drops", "timeouts", "loss", "probe",
                                                "spurious")]
        print(f"| {'moderation + GRO (profile)' if rp else 'every frame up at once'} | " + " | ".join(cols) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
