#!/usr/bin/env python3
"""Trace-level comparison of one incast point in cmswitch and in ns-2 2.35.

Runs both for a short time with event traces and prints, side by side: totals, the round completion times, and
the first events where the two runs part (drops by flow and packet, timeouts, fast retransmits). Sequence numbers
are shown as (round, packet) because ns-2 counts packets and sends the SRU's last segment full size.

Usage: python3 validation/ns2/compare.py --flows 16 --buffer-kb 32 --min-rto-ms 10 [--duration-s 0.5]
       [--model-arg=--sack ...] [--show 40]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SIM = os.path.join(ROOT, "build", "cmswitch-sim")
MSS = 1460


def run_model(a, extra):
    args = [SIM, "incast", "--flows", str(a.flows), "--buffer-kb", str(a.buffer_kb), "--min-rto-ms",
            str(a.min_rto_ms), "--duration-s", str(a.duration_s), "--delay-us", str(a.delay_us), "--sru-kb",
            str(a.sru_kb), "--sample-us", "0", "--trace"] + extra
    return json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)


def run_ns2(a, prefix, extra):
    args = ["ns", os.path.join(HERE, "incast.tcl"), f"flows={a.flows}", f"buffer_kb={a.buffer_kb}",
            f"min_rto_ms={a.min_rto_ms}", f"duration_s={a.duration_s}", f"delay_us={a.delay_us}",
            f"sru_kb={a.sru_kb}", f"trace={prefix}"] + extra
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    summary = dict(kv.split("=") for kv in out.split())
    drops, rounds, timeouts, cuts = [], [], [], []
    with open(prefix + ".queue") as f:
        for line in f:
            p = line.split()
            if p[0] == "d" and p[4] == "tcp":
                drops.append((float(p[1]) * 1e3, int(p[7]), int(p[10])))
    with open(prefix + ".rounds") as f:
        for line in f:
            rounds.append(float(line.split()[1]) * 1e3)
    last = {}
    with open(prefix + ".tcp") as f:
        for line in f:
            p = line.split()
            t, flow, var, val = float(p[0]) * 1e3, int(p[1]) - 2, p[5], p[6]
            if var in ("nrexmit_", "ncwndcuts_"):
                v = int(val)
                if v > last.get((flow, var), 0):
                    (timeouts if var == "nrexmit_" else cuts).append((t, flow))
                last[(flow, var)] = v
    # a cwnd cut that is not a timeout at the same instant is a fast retransmit
    to_set = {(round(t, 6), f) for t, f in timeouts}
    frs = [(t, f) for t, f in cuts if (round(t, 6), f) not in to_set]
    return summary, drops, rounds, timeouts, frs


def pkt(seq_bytes, sru_bytes, sru_pkts):
    r, off = divmod(int(seq_bytes), sru_bytes)
    return r * sru_pkts + off // MSS


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--flows", type=int, required=True)
    ap.add_argument("--buffer-kb", type=float, required=True)
    ap.add_argument("--min-rto-ms", type=float, required=True)
    ap.add_argument("--duration-s", type=float, default=0.5)
    ap.add_argument("--delay-us", type=float, default=25)
    ap.add_argument("--sru-kb", type=float, default=256)
    ap.add_argument("--show", type=int, default=30)
    ap.add_argument("--model-arg", action="append", default=[])
    ap.add_argument("--ns2-arg", action="append", default=[])
    a = ap.parse_args()
    sru = int(a.sru_kb * 1024)
    sru_pkts = -(-sru // MSS)

    m = run_model(a, a.model_arg)
    with tempfile.TemporaryDirectory() as tmp:
        ns, ndrops, nrounds, nto, nfr = run_ns2(a, os.path.join(tmp, "t"), a.ns2_arg)

    d = m["tables"]["drops"]
    mdrops = [(t, int(f), pkt(s, sru, sru_pkts)) for t, f, s in zip(d["t_ms"], d["flow"], d["seq"])]
    e = m["tables"]["tcp_events"]
    mto = [(t, int(f)) for t, f, ev in zip(e["t_ms"], e["flow"], e["event"]) if ev == 0]
    mfr = [(t, int(f)) for t, f, ev in zip(e["t_ms"], e["flow"], e["event"]) if ev == 1]
    rt = m["tables"]["rounds"]["round_time_ms"]
    mrounds, acc = [], 0.0
    for x in rt:
        acc += x
        mrounds.append(acc)

    print(f"point: {a.flows} flows, {a.buffer_kb} KB, minRTO {a.min_rto_ms} ms, {a.duration_s} s; "
          f"model args {a.model_arg or '-'}; ns-2 args {a.ns2_arg or '-'}")
    print(f"{'':24}{'ns-2':>12}{'cmswitch':>12}")
    rows = [("goodput Mbps", float(ns["goodput_mbps"]), m["goodput_mbps"]),
            ("rounds", int(ns["rounds_completed"]), m["rounds_completed"]),
            ("drops", len(ndrops), len(mdrops)),
            ("timeouts", len(nto), len(mto)),
            ("fast retransmits", len(nfr), len(mfr))]
    for name, x, y in rows:
        print(f"{name:24}{x:>12.1f}{y:>12.1f}" if isinstance(x, float) else f"{name:24}{x:>12}{y:>12}")

    print("\nround ends (ms; ns-2 counts at the last server's last ACK, ~0.05 ms after the client):")
    for i in range(min(a.show, max(len(nrounds), len(mrounds)))):
        x = f"{nrounds[i]:.4f}" if i < len(nrounds) else "-"
        y = f"{mrounds[i]:.4f}" if i < len(mrounds) else "-"
        print(f"  round {i + 1:4}: ns-2 {x:>12}  cmswitch {y:>12}")

    def first_diff(xs, ys, key):
        for i, (p, q) in enumerate(zip(xs, ys)):
            if key(p) != key(q):
                return i
        return min(len(xs), len(ys))

    i = first_diff(ndrops, mdrops, lambda r: (r[1], r[2]))
    print(f"\ndrops: the first {i} agree in (flow, packet); from there (time ms, flow, packet):")
    for k in range(i, min(i + a.show, max(len(ndrops), len(mdrops)))):
        x = f"{ndrops[k][0]:9.4f} {ndrops[k][1]:3} {ndrops[k][2]:6}" if k < len(ndrops) else "-"
        y = f"{mdrops[k][0]:9.4f} {mdrops[k][1]:3} {mdrops[k][2]:6}" if k < len(mdrops) else "-"
        print(f"  {k:5}: ns-2 {x:28} cmswitch {y}")
    for name, xs, ys in (("timeouts", nto, mto), ("fast retransmits", nfr, mfr)):
        j = first_diff(xs, ys, lambda r: r[1])
        print(f"\n{name}: the first {j} agree in flow order; from there (time ms, flow):")
        for k in range(j, min(j + a.show // 2, max(len(xs), len(ys)))):
            x = f"{xs[k][0]:9.4f} {xs[k][1]:3}" if k < len(xs) else "-"
            y = f"{ys[k][0]:9.4f} {ys[k][1]:3}" if k < len(ys) else "-"
            print(f"  {k:5}: ns-2 {x:20} cmswitch {y}")


if __name__ == "__main__":
    sys.exit(main())
