#!/usr/bin/env python3
"""One kernel point of the differential (differential.py's testbed) with a packet capture at the client: how the
servers' segments interleave at the start of a round and how the kernel recovers the losses of its first window.

At each round's start every server sends its first window at once. Captured at the client (after the bottleneck,
whose queue is FIFO, so the order is the order the queue admitted them), per round:
  - the runs of one server's segments among the round's first 200 original arrivals (1 = perfectly interleaved);
  - for each (server, round): whether the round's first segment arrived more than 100 ms after the round's first
    arrival (only a timeout waits that long), and how many of its first 20 segments came only as retransmissions
    (each one a drop at the bottleneck).
The model's side of the same point: `cmswitch-sim incast ... --trace` (the tables drops and tcp_events).

Usage: sudo python3 validation/linux/round_starts.py FLOWS BUFFER_KB MIN_RTO_MS [--cc cubic] [--rate-mbit 300]
       [--seconds 5]   (needs tcpdump; a few seconds a run; the namespaces are deleted on exit)
"""
import argparse
import collections
import json
import os
import shutil
import statistics
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import differential as d  # noqa: E402

SRU = 256 * 1024
FIRST = 20   # segments of a round counted as its first window


def read_pcap(path):
    """(time s, server index, sequence number, payload bytes) of every data segment in an Ethernet pcap."""
    data = open(path, "rb").read()
    off, out = 24, []
    while off + 16 <= len(data):
        ts, tu, incl, _ = struct.unpack_from("<IIII", data, off)
        p = data[off + 16: off + 16 + incl]
        off += 16 + incl
        if len(p) < 54 or p[12:14] != b"\x08\x00":
            continue
        ihl = (p[14] & 15) * 4
        total = struct.unpack_from(">H", p, 16)[0]
        tcp = 14 + ihl
        payload = total - ihl - (p[tcp + 12] >> 4) * 4
        if payload > 0:
            out.append((ts + tu / 1e6, p[29] - 10, struct.unpack_from(">I", p, tcp + 4)[0], payload))
    return out


def analyse(segments, flows):
    first_seq, seen = {}, collections.defaultdict(int)
    first = collections.defaultdict(dict)   # round -> server -> time of its first arrival in the round
    order = collections.defaultdict(list)   # round -> servers of its first 200 original arrivals
    retrans = collections.Counter()   # (server, round) -> retransmissions among its first FIRST segments
    for t, s, seq, n in segments:
        first_seq.setdefault(s, seq)
        o = (seq - first_seq[s]) % (1 << 32)
        r = o // SRU
        again = o < seen[s]
        seen[s] = max(seen[s], o + n)
        first[r].setdefault(s, t)
        if again and o % SRU < FIRST * 1448:
            retrans[(s, r)] += 1
        if not again and len(order[r]) < 200:
            order[r].append(s)
    rounds = sorted(r for r in first if len(first[r]) == flows)[1:-1]   # whole rounds only
    late = sum(1 for r in rounds for t in first[r].values() if t - min(first[r].values()) > 0.1)
    runs = []
    for r in rounds:
        length = 1
        for a, b in zip(order[r], order[r][1:]):
            if a == b:
                length += 1
            else:
                runs.append(length)
                length = 1
        runs.append(length)
    hit = [v for (s, r), v in retrans.items() if r in set(rounds)]
    return {"rounds": len(rounds), "server_rounds": len(rounds) * flows, "late_first_segments": late,
            "run_mean": statistics.mean(runs), "run_median": statistics.median(runs), "run_max": max(runs),
            "server_rounds_with_first_window_losses": len(hit),
            "first_window_losses_mean": statistics.mean(hit) if hit else 0.0,
            "server_rounds_with_8_or_more": sum(v >= 8 for v in hit)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("flows", type=int)
    ap.add_argument("buffer_kb", type=int)
    ap.add_argument("min_rto_ms", type=int)
    ap.add_argument("--cc", choices=["reno", "cubic"], default="cubic")
    ap.add_argument("--rate-mbit", type=float, default=300)
    ap.add_argument("--seconds", type=float, default=5)
    a = ap.parse_args()
    if not 1 <= a.flows <= 64:
        ap.error(f"flows = {a.flows}: give 1 to 64 (the testbed's servers)")
    if a.buffer_kb <= 0 or a.min_rto_ms <= 0 or a.rate_mbit <= 0 or a.seconds <= 0:
        ap.error("buffer_kb, min_rto_ms, --rate-mbit and --seconds must be positive")
    node = d.kernel_tools(extra=("tcpdump",))
    tmp = os.path.dirname(node)
    tb = d.Testbed(a.flows, a.cc, node, a.rate_mbit)
    tb.set_min_rto(a.min_rto_ms)
    tb.set_buffer(a.buffer_kb)
    pcap = os.path.join(tmp, "client.pcap")
    cap = subprocess.Popen(["ip", "netns", "exec", tb.cl, "tcpdump", "-q", "-n", "-i", "eth0", "-s", "80", "-B",
                            "65536", "-w", pcap, f"tcp src port {d.PORT}"], stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    res = d.run_kernel_point(tb, node, a.flows, a.seconds)
    time.sleep(0.5)
    cap.terminate()
    cap.wait()
    tb.teardown()
    out = {k: res[k] for k in ("goodput_mbps", "timeouts", "loss_probes", "drops", "rounds")}
    out.update(analyse(read_pcap(pcap), a.flows))
    print(json.dumps(out))
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
