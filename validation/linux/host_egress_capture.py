#!/usr/bin/env python3
"""One repetition of host_egress.py's rpc-behind-bulk experiment on the kernel with packet captures, to find where
the model's response tail differs from the kernel's.

tcpdump (headers only) runs on the sender's eth0 (every skb the sender hands down, retransmissions included, and
the receiver's ACKs coming back) and on the bridge port toward the receiver (the frames the bottleneck let through,
taken after its qdisc). From them the script prints:
  - the responses that retransmitted anything, and which of their segments were sent more than once (a pattern
    of 1448-byte units: x = sent again);
  - the bulk flow's skb sizes at the sender and the bytes each of the receiver's ACKs newly acknowledges;
  - the bottleneck's occupancy at 4,000 random instants (each frame's time in the queue is from its skb's send at
    the sender to its departure behind the bottleneck; a frame counted as bfifo counts it, 1514 B when full) and
    the time from a response's first send to its last frame's departure (its network time without either host).

Usage: sudo python3 validation/linux/host_egress_capture.py [--buffer-kb 64] [--pacing 1] [--seconds 10]
"""

import argparse
import bisect
import collections
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import host_egress as he  # noqa: E402
from differential import kernel_tools  # noqa: E402

SENDER, RECEIVER = he.Testbed.addr(1), he.Testbed.addr(0)


def packets(pcap, src, pattern):
    out = subprocess.run(
        ["tcpdump", "-r", pcap, "-tt", "-nn", "-S", f"src host {src} and tcp[tcpflags] & tcp-syn == 0"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    per = collections.defaultdict(list)
    rx = re.compile(pattern)
    for ln in out.splitlines():
        m = rx.match(ln)
        if m:
            per[int(m[2])].append((float(m[1]), *(int(x) for x in m.groups()[2:])))
    return per


def quantiles(xs, qs=(0.1, 0.5, 0.9)):
    xs = sorted(xs)
    return [xs[min(len(xs) - 1, int(q * len(xs)))] for q in qs]


def analyse(send_pcap, recv_pcap):
    data = r"^(\d+\.\d+) IP " + re.escape(SENDER) + r"\.(\d+) > .*?seq (\d+):(\d+)"
    sent, passed = packets(send_pcap, SENDER, data), packets(recv_pcap, SENDER, data)
    bulk = max(sent, key=lambda p: len(sent[p]))
    responses = [p for p in sent if p != bulk]

    patterns, retransmitting = collections.Counter(), 0
    for p in responses:
        isn, end = min(s for _, s, _ in sent[p]), max(e for _, _, e in sent[p])
        units = range(isn, end, 1448)
        times = {u: sum(1 for _, s, e in sent[p] if s <= u < e) for u in units}
        if any(n > 1 for n in times.values()):
            retransmitting += 1
            patterns["".join("x" if times[u] > 1 else "." for u in units)] += 1
    print(
        f"responses: {len(responses)}, of which retransmitted anything: {retransmitting} "
        f"({retransmitting / len(responses):.1%})"
    )
    for pat, n in patterns.most_common(6):
        print(f"  {n:4d}  {pat}")

    skb = [e - s for _, s, e in sent[bulk]]
    print(f"bulk skbs at the sender: {len(skb)}, bytes p10/p50/p90 {quantiles(skb)}, mean {statistics.mean(skb):.0f}")
    acks = packets(
        send_pcap, RECEIVER, r"^(\d+\.\d+) IP " + re.escape(RECEIVER) + r"\.\d+ > [\d.]+\.(\d+): .*?ack (\d+)"
    )
    a = [x[1] for x in acks[bulk]]
    newly = [y - x for x, y in zip(a, a[1:]) if y > x]
    print(
        f"the receiver's ACKs of the bulk flow: {len(a)}, bytes newly acknowledged p10/p50/p90 "
        f"{quantiles(newly)}, mean {statistics.mean(newly):.0f} ({statistics.mean(newly) / 1448:.1f} segments)"
    )

    stays = []  # (arrival at the bottleneck, departure, frames)
    for p, frames in passed.items():
        sends = sorted(sent.get(p, []))
        starts = [t for t, _, _ in sends]
        for t, s, e in frames:
            k = bisect.bisect_right(starts, t)
            cand = [ts for ts, a0, b0 in sends[:k] if a0 <= s < b0]
            if cand:
                stays.append((max(cand), t, (e - s + 1447) // 1448))
    lo = min(a for a, _, _ in stays) + 1.0
    hi = max(d for _, d, _ in stays) - 0.5
    events = sorted([(a, 1514 * n) for a, _, n in stays] + [(d, -1514 * n) for _, d, n in stays])
    rnd = random.Random(1)
    occ, q, j = [], 0, 0
    for t in sorted(rnd.uniform(lo, hi) for _ in range(4000)):
        while j < len(events) and events[j][0] <= t:
            q += events[j][1]
            j += 1
        occ.append(q / 1024)
    print(f"bottleneck occupancy KB p10/p50/p90: {[round(x, 1) for x in quantiles(occ)]}")
    net = [(max(t for t, _, _ in passed[p]) - min(t for t, _, _ in sent[p])) * 1e3 for p in responses if p in passed]
    print(
        f"responses' first send to last departure, ms p50/p90/p99: "
        f"{[round(x, 3) for x in quantiles(net, (0.5, 0.9, 0.99))]}"
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--buffer-kb", type=float, default=64)
    ap.add_argument("--pacing", type=int, default=1, choices=[0, 1])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--rate-mbit", type=float, default=300)
    ap.add_argument("--rpc-per-s", type=float, default=100)
    a = ap.parse_args()
    node = kernel_tools(hint="")
    flow = os.path.join(os.path.dirname(node), "flow_node")
    subprocess.run(["gcc", "-O2", "-o", flow, os.path.join(HERE, "flow_node.c")], check=True)
    tb = he.Testbed(2, a.rate_mbit, node, flow, False)
    tb.set_buffer(a.buffer_kb)
    tmp = tempfile.mkdtemp()
    send_pcap, recv_pcap = os.path.join(tmp, "send.pcap"), os.path.join(tmp, "recv.pcap")
    caps = [
        subprocess.Popen(
            ["ip", "netns", "exec", ns, "tcpdump", "-i", dev, "-s", "96", "-w", out, "-n", f"tcp port {he.FLOW_PORT}"],
            stderr=subprocess.DEVNULL,
        )
        for ns, dev, out in ((tb.hosts[1], "eth0", send_pcap), (tb.sw, "p0", recv_pcap))
    ]
    time.sleep(1)
    res = he.kernel_rpc_point(tb, a.seconds, a.rpc_per_s, a.pacing, 1000)
    time.sleep(0.5)
    for c in caps:
        c.terminate()
        c.wait()
    tb.teardown()
    print(
        f"kernel run: p50 {res['fct_p50_us']:.0f} us, p99 {res['fct_p99_us']:.0f} us, drops {res['drops']}, "
        f"timeouts {res['timeouts']}, bulk {res['bulk_mbps']:.0f} Mbit/s"
    )
    analyse(send_pcap, recv_pcap)


if __name__ == "__main__":
    main()
