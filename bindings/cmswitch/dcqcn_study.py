# SPDX-License-Identifier: Apache-2.0
"""The DCQCN scale study (Yang 2018): does the bottleneck queue drain after an RDMA incast's first burst, as the
flow count and the link speed grow, with DCQCN and with DCQCN+? Sweeps flows x link speed x scheme on the
rdma-incast scenario (8 senders, PFC on) and writes a report folder like the buffer-sizing study."""
from __future__ import annotations

import os
import time
from typing import Any, Dict, List, Optional, Sequence

import pandas as pd

from .config import config_class
from .runner import run
from .files import write_csv
from .sweep import sweep

SCHEMES = ("dcqcn", "dcqcn+")


def rdma_base(**changes: Any):
    """The study's base point: rdma-incast with 8 senders, PFC and the DCQCN congestion point (paper values),
    and MIN_RATE 10 Mb/s for both schemes (below the 400-flow fair share at 10 Gb/s, 23.6 Mb/s, so that the
    rate floor itself never decides convergence; the paper variant's 100 Mb/s would make 160 flows at 10 Gb/s
    unable to drain by arithmetic: 160 x 100 Mb/s > 10 Gb/s)."""
    cls = config_class("rdma-incast")
    fields: Dict[str, Any] = dict(senders=8, duration_s=0.2, dcqcn_min_rate_mbps=10.0, sample_us=100.0)
    fields.update(changes)
    return cls(**fields)


def dcqcn_scale(out: str, flows: Sequence[int] = (16, 80, 160, 400), link_gbps: Sequence[float] = (10, 40, 100),
                schemes: Sequence[str] = SCHEMES, seeds: Sequence[int] = (1, 2, 3, 4, 5), duration_s: float = 0.2,
                lambdas: Sequence[float] = (0.5, 1.0, 2.0, 4.0), workers: Optional[int] = None, store=None,
                progress: bool = True, base=None, memory_budget_mb: Optional[float] = None,
                quick: bool = False) -> pd.DataFrame:
    """Sweeps flows x link speed x scheme x seeds and writes `out`: points.csv, sensitivity.csv (DCQCN+'s lambda
    at the largest flow count and the smallest speed, every seed), queue_<scheme>_<speed>g.png (queue vs time for
    every flow count, the first seed), rates_<speed>g.png (per-flow rates over the second half, sorted, the first
    seed), report.md and index.html (means over the seeds with their min-max). Flow counts are rounded to a
    multiple of the senders. Returns the points."""
    if not seeds:
        raise ValueError("seeds = (): at least one seed")
    for s in schemes:
        if s not in SCHEMES:
            raise ValueError(f"scheme = {s!r}: known schemes are {', '.join(SCHEMES)}")
    base = base or rdma_base(duration_s=duration_s)
    for f in flows:
        if isinstance(f, bool) or not isinstance(f, int) or f < 1:
            raise ValueError(f"flows = {tuple(flows)}: each a whole number >= 1 (not {f!r})")
    qps = {f: max(1, round(f / base.senders)) for f in flows}
    points = [dict(cm=s, link_gbps=float(g), qps=int(qps[f]), seed=int(seed))
              for g in link_gbps for f in flows for s in schemes for seed in seeds]
    os.makedirs(out, exist_ok=True)
    t0 = time.time()
    # every point must run (the report compares all of them): a refused one stops the study before any run
    df = sweep(base, points=points, workers=workers, store=store, progress=progress, infeasible="raise",
               errors="raise", memory_budget_mb=memory_budget_mb)
    big, slow = max(flows), min(link_gbps)
    sens = sweep(base.replace(cm="dcqcn+", link_gbps=float(slow), qps=int(qps[big])),
                 {"dcqcnp_lambda": list(lambdas), "seed": [int(x) for x in seeds]}, workers=workers, store=store,
                 progress=progress, infeasible="raise", errors="raise", memory_budget_mb=memory_budget_mb)
    elapsed = time.time() - t0
    write_csv(df, os.path.join(out, "points.csv"))
    write_csv(sens, os.path.join(out, "sensitivity.csv"))

    from . import plots
    figures = []
    for g in link_gbps:
        by_scheme: Dict[str, Any] = {}
        for s in schemes:
            runs = {f"{qps[f] * base.senders} flows": run(base.replace(cm=s, link_gbps=float(g), qps=int(qps[f]),
                                                                       seed=int(seeds[0]), series=True))
                    for f in flows}
            by_scheme[s] = runs[f"{qps[big] * base.senders} flows"]
            fig = plots.queue_vs_time_by_case(runs, title=f"{s}, {g:g} Gb/s, 8 senders")
            name = f"queue_{s.replace('+', 'plus')}_{g:g}g.png"
            fig.savefig(os.path.join(out, name), dpi=110)
            figures.append((name, f"Bottleneck queue over time, {s} at {g:g} Gb/s, one line per flow count "
                                  f"(seed {seeds[0]})"))
        fig = plots.sorted_flow_rates(by_scheme, title=f"{qps[big] * base.senders} flows at {g:g} Gb/s")
        name = f"rates_{g:g}g.png"
        fig.savefig(os.path.join(out, name), dpi=110)
        figures.append((name, f"Per-flow rates over the second half at {qps[big] * base.senders} flows, {g:g} Gb/s "
                              f"(seed {seeds[0]})"))
    import matplotlib.pyplot as plt
    plt.close("all")
    reading = _reading(df, sens, schemes, link_gbps, base)
    runs_text = f"{len(df) + len(sens)} sweep runs in {elapsed:.0f} s on this machine"
    _write_report(out, base, df, sens, schemes, figures, reading, runs_text)
    if quick:
        from .study import mark_quick
        mark_quick(out, f"{len(seeds)} seeds, {len(flows)} flow counts x {len(link_gbps)} link speeds, "
                        f"{base.duration_s * 1e3:g} ms per run")
    return df


def _summary(df: pd.DataFrame) -> pd.DataFrame:
    df = df.assign(flows_total=df["senders"] * df["qps"])
    agg = df.groupby(["link_gbps", "flows_total", "cm"]).agg(
        converged=("converged", "all"), convergence_ms=("convergence_ms", "max"),
        above_after=("above_threshold_after_convergence", "max"),
        queue_end_kb=("queue_last_fifth_kb", "mean"), delay_p50_us=("delay_p50_us", "mean"),
        delay_p99_us=("delay_p99_us", "mean"), jain=("jain_fairness", "mean"),
        goodput_gbps=("goodput_gbps", "mean"), drops=("drops", "sum"),
        q50_late=("queue_p50_kb_second_half", "mean"), q50_late_min=("queue_p50_kb_second_half", "min"),
        q50_late_max=("queue_p50_kb_second_half", "max"), q99_late=("queue_p99_kb_second_half", "mean"),
        converged_seeds=("converged", "sum"), goodput_min=("goodput_gbps", "min"),
        goodput_max=("goodput_gbps", "max"),
        empty_late=("queue_empty_fraction_second_half", "mean"),
        goodput_late=("goodput_gbps_second_half", "mean"), seeds=("seed", "nunique")).reset_index()
    return agg


def _reading(df, sens, schemes, link_gbps, base) -> List[str]:
    agg = _summary(df)
    lines = []
    for g in link_gbps:
        for s in schemes:
            a = agg[(agg["link_gbps"] == g) & (agg["cm"] == s)]
            ok = [int(f) for f in a[a["converged"]]["flows_total"]]
            bad = [f"{int(r.flows_total)}" + (f" (drains on {r.converged_seeds} of {r.seeds} seeds)"
                                              if r.converged_seeds else "")
                   for r in a[~a["converged"]].itertuples()]
            back = [int(f) for f in a[a["converged"] & (a["above_after"] > 0.05)]["flows_total"]]
            idle = [f"{int(r.flows_total)} ({100 * r.empty_late:.0f} %)" for r in a.itertuples() if r.empty_late > 0.1]
            lines.append(f"{s} at {g:g} Gb/s: the queue drains after the burst at {', '.join(map(str, ok)) or 'no'} "
                         f"flows" + (f"; it stays high at {', '.join(map(str, bad))} flows" if bad else "") +
                         (f"; after draining it fills again (above the threshold > 5 % of the time) at "
                          f"{', '.join(map(str, back))} flows" if back else "") +
                         (f"; in the second half the queue is empty more than 10 % of the samples at "
                          f"{', '.join(idle)} flows: the rate cuts overshoot and the link idles (a drained queue is "
                          f"not a settled one; see the second-half percentiles)" if idle else "") + ".")
    drops = int(df["drops"].sum()) + int(sens["drops"].sum())
    lines.append(f"PFC kept every run lossless: {drops} drops in all." if drops == 0 else
                 f"{drops} frames were dropped although PFC was on: see points.csv.")
    first = sens.iloc[0]
    lines.append(f"DCQCN+ lambda at {int(first['senders'] * first['qps'])} flows, {first['link_gbps']:g} Gb/s: "
                 + ", ".join(f"{r.dcqcnp_lambda:g} -> converged on {r.converged_seeds} of {r.seeds} seeds"
                             + (f" (at {_range(r.conv_min, r.conv_max, '.1f')} ms)" if r.converged_seeds else "")
                             for r in _lambda_summary(sens).itertuples()) + ".")
    return lines


def _lambda_summary(sens: pd.DataFrame) -> pd.DataFrame:
    conv = sens["convergence_ms"].where(sens["converged"].astype(bool))
    return sens.assign(conv=conv).groupby("dcqcnp_lambda").agg(
        seeds=("seed", "nunique"), converged_seeds=("converged", "sum"), conv_min=("conv", "min"),
        conv_max=("conv", "max"), above_after=("above_threshold_after_convergence", "max"),
        queue_end_kb=("queue_last_fifth_kb", "mean"), queue_end_min=("queue_last_fifth_kb", "min"),
        queue_end_max=("queue_last_fifth_kb", "max"), jain=("jain_fairness", "mean"),
        goodput_gbps=("goodput_gbps", "mean"), goodput_min=("goodput_gbps", "min"),
        goodput_max=("goodput_gbps", "max")).reset_index()


def _range(lo: float, hi: float, f: str) -> str:
    """'lo-hi', or one number where both print the same."""
    a, b = format(lo, f), format(hi, f)
    return a if a == b else f"{a}-{b}"


def _spread(mean: float, lo: float, hi: float, f: str) -> str:
    """'mean [min-max]', or the mean alone where every seed gave the same (to the printed digits)."""
    m, a, b = format(mean, f), format(lo, f), format(hi, f)
    return m if a == b else f"{m} [{a}-{b}]"


def _write_report(out, base, df, sens, schemes, figures, reading, runs_text):
    agg = _summary(df)
    md = ["# DCQCN and DCQCN+ at scale (RDMA incast)", "",
          f"rdma-incast: {base.senders} senders x Q queue pairs into one receiver through one switch, PFC on, "
          f"{base.buffer_kb:g} KB per port, DCQCN congestion point Kmin {base.dcqcn_kmin_kb:g} KB / Kmax "
          f"{base.dcqcn_kmax_kb:g} KB / Pmax {base.dcqcn_pmax:g}, reaction point `{base.dcqcn_rp_variant}`, MIN_RATE "
          f"{base.dcqcn_min_rate_mbps:g} Mb/s, {base.duration_s * 1e3:g} ms per run; {runs_text}. Converged: the queue "
          f"stays under {base.converge_kb:g} KB for {base.converge_window_ms:g} ms after the burst (a threshold "
          f"crossing: the second half's queue percentiles and empty share show where it settled, and the second "
          f"half's goodput whether the link stayed busy).", "",
          "## Reading", ""] + [f"- {line}" for line in reading] + ["", "## Every point", "",
          "Means over the seeds, [min-max] where the seeds differ; converged: on how many seeds, at (ms): the latest "
          "of them; above threshold after: the most of any seed.", "",
          "| Gb/s | flows | scheme | converged (seeds) | at (ms) | above threshold after (%) | queue p50, 2nd half (KB) "
          "| queue p99, 2nd half (KB) | empty, 2nd half (%) | delay p50 / p99 (us) | Jain | goodput run (Gb/s) | "
          "goodput 2nd half (Gb/s) | drops |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in agg.itertuples():
        md.append(f"| {r.link_gbps:g} | {r.flows_total} | {r.cm} | {r.converged_seeds} of {r.seeds} | "
                  f"{r.convergence_ms:.1f} | {100 * r.above_after:.0f} | "
                  f"{_spread(r.q50_late, r.q50_late_min, r.q50_late_max, '.0f')} | {r.q99_late:.0f} | "
                  f"{100 * r.empty_late:.0f} | {r.delay_p50_us:.0f} / {r.delay_p99_us:.0f} | "
                  f"{r.jain:.3f} | {_spread(r.goodput_gbps, r.goodput_min, r.goodput_max, '.2f')} | "
                  f"{r.goodput_late:.2f} | {r.drops} |")
    md += ["", "## DCQCN+ lambda (rate timer K = lambda x max(tau, MTU / RC))", "",
           "| lambda | converged (seeds) | at (ms) | above threshold after (%) | queue, last fifth (KB) | Jain | "
           "goodput (Gb/s) |",
           "|---|---|---|---|---|---|---|"]
    for r in _lambda_summary(sens).itertuples():
        at = _range(r.conv_min, r.conv_max, ".1f") if r.converged_seeds else "-"
        md.append(f"| {r.dcqcnp_lambda:g} | {r.converged_seeds} of {r.seeds} | {at} | {100 * r.above_after:.0f} | "
                  f"{_spread(r.queue_end_kb, r.queue_end_min, r.queue_end_max, '.0f')} | {r.jain:.3f} | "
                  f"{_spread(r.goodput_gbps, r.goodput_min, r.goodput_max, '.2f')} |")
    md += ["", "## Figures", ""]
    for name, caption in figures:
        md += [f"### {caption}", "", f"![{caption}]({name})", ""]
    with open(os.path.join(out, "report.md"), "w") as fh:
        fh.write("\n".join(md))
    from .study import write_html
    write_html(os.path.join(out, "index.html"), "DCQCN and DCQCN+ at scale", md[2], reading, "Every point",
               agg.to_html(index=False, float_format=lambda v: f"{v:.3g}"), figures)
