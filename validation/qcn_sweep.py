#!/usr/bin/env python3
"""Devkota & Reddy 2010 QCN validation sweep (Tables I-III, section V queue lengths, section VIII mixed TCP + UDP).

Uses the cmswitch package (sweep with a result store, so a rerun only computes what is missing) and writes
validation/qcn_sweep.csv. Long: not a test. Usage: .venv/bin/python validation/qcn_sweep.py
"""
import os


import cmswitch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLOWS = [2, 4, 8, 16, 32, 64]
SEEDS = (1, 2, 3, 4, 5)
# Devkota & Reddy's configurations I-VI (Table II/III headings)
CASES = {
    "I": dict(cm="qcn"),
    "II": dict(cm="qcn", qcn_cp="memory"),
    "III": dict(cm="qcn", qcn_cp="detailed"),
    "IV": dict(cm="qcn", qcn_rp="adaptive-rai"),
    "V": dict(cm="qcn", qcn_cp="memory", qcn_rp="adaptive-rai"),
    "VI": dict(cm="qcn", qcn_cp="detailed", qcn_rp="adaptive-rai"),
    "tcp": dict(cm="none"),
}


def main():
    base = cmswitch.IncastConfig(duration_s=20.0, jitter_ns=500.0, sample_us=0.0)
    points = []
    for fields in CASES.values():
        for rto in (200.0, 10.0):
            for buf in (128.0, 256.0):
                for f in FLOWS:
                    for seed in SEEDS:
                        points.append(dict(fields, min_rto_ms=rto, buffer_kb=buf, flows=f, seed=seed))
    # mixed protocol (section VIII): one 400 Mbps UDP CBR flow to the client as well
    # (the paper's mixed-protocol statements are about TCP alone at 200 ms and at 10 ms, and QCN under TCP at 200)
    for case, rto in (("tcp", 200.0), ("tcp", 10.0), ("I", 200.0), ("V", 200.0)):
        for buf in (32.0, 64.0, 128.0, 256.0):
            for f in FLOWS:
                for seed in SEEDS:
                    points.append(dict(CASES[case], udp_cbr_mbps=400.0, min_rto_ms=rto, buffer_kb=buf, flows=f,
                                       seed=seed))
    df = cmswitch.sweep(base, points=points, store=os.path.join(ROOT, "validation", "qcn_sweep.sqlite"))
    case_of = []
    for p in points:
        name = next(k for k, v in CASES.items() if all(p.get(a) == b for a, b in v.items())
                    and all(p.get(a, d) == d for a, d in (("qcn_cp", "standard"), ("qcn_rp", "standard"))
                            if a not in v))
        case_of.append(name)
    df.insert(0, "case", case_of)
    keep = ["case", "udp_cbr_mbps", "min_rto_ms", "buffer_kb", "flows", "seed", "goodput_mbps", "udp_goodput_mbps",
            "avg_minrate_mbps", "avg_minrate_x_flows_mbps", "cnms", "timeouts_per_flow_mean", "drops",
            "mean_queue_bytes", "max_queue_bytes", "rounds_completed", "wall_s"]
    df = df[[c for c in keep if c in df.columns]]
    out = os.path.join(ROOT, "validation", "qcn_sweep.csv")
    df.to_csv(out, index=False)
    print(f"{len(df)} runs ({df.attrs.get('computed')} computed) -> {out}")


if __name__ == "__main__":
    main()
