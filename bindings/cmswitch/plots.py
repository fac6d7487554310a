# SPDX-License-Identifier: Apache-2.0
"""Matplotlib figures of results: goodput vs flows per buffer (seed 000's figures), queue and per-flow rate
over time, throughput of innocent vs victim flows. Each returns the Figure; save it with fig.savefig()."""
from __future__ import annotations

from typing import Optional, Sequence

import pandas as pd


def _plt():
    import matplotlib
    if matplotlib.get_backend().lower() not in ("agg", "module://matplotlib_inline.backend_inline"):
        try:
            matplotlib.use("Agg")
        except Exception:   # pragma: no cover
            pass
    import matplotlib.pyplot as plt
    return plt


def goodput_vs_flows(df: pd.DataFrame, title: str = "", by: str = "buffer_kb", y: str = "goodput_mbps"):
    """One line per value of `by` (mean over seeds, bars for min-max), like seed 000's Figs. 2-5."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for value, g in sorted(df.groupby(by), key=lambda kv: kv[0]):
        s = g.groupby("flows")[y].agg(["mean", "min", "max"]).sort_index()
        # clip: the mean of equal values can land a rounding error outside [min, max]
        ax.errorbar(s.index, s["mean"], yerr=[(s["mean"] - s["min"]).clip(lower=0), (s["max"] - s["mean"]).clip(lower=0)], marker="o",
                    capsize=3, label=f"{value:g} KB" if by == "buffer_kb" else str(value))
    ax.set_xscale("log", base=2)
    ax.set_xticks(sorted(df["flows"].unique()))
    ax.get_xaxis().set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_xlabel("flows (servers)")
    ax.set_ylabel("goodput (Mbps)" if y == "goodput_mbps" else y)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(title=by.replace("_kb", " (KB)"), fontsize=8)
    ax.set_title(title)
    fig.tight_layout()
    return fig


def goodput_vs_buffer(df: pd.DataFrame, flows: int, by: str = "scheme", title: str = ""):
    """Goodput against buffer size at one flow count, one line per scheme."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    d = df[df["flows"] == flows]
    for value, g in d.groupby(by):
        s = g.groupby("buffer_kb")["goodput_mbps"].mean().sort_index()
        ax.plot(s.index, s.values, marker="o", label=str(value))
    ax.set_xscale("log", base=2)
    ax.set_xticks(sorted(d["buffer_kb"].unique()))
    ax.get_xaxis().set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_xlabel("buffer per port (KB)")
    ax.set_ylabel("goodput (Mbps)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(title or f"{flows} flows")
    fig.tight_layout()
    return fig


def queue_over_time(result, column: Optional[str] = None, title: str = ""):
    """The sampled queue (KB) of a run made with series=True."""
    plt = _plt()
    s = result.series
    if s is None:
        raise ValueError("the run has no time series: run it with series=True")
    col = column or next(c for c in s.columns if c.endswith("bytes") and "_flow" not in c)
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    ax.plot(s.index, s[col] / 1024)
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("queue (KB)")
    ax.grid(alpha=0.3)
    ax.set_title(title)
    fig.tight_layout()
    return fig


def queue_vs_time_by_case(results, title: str = ""):
    """The bottleneck queue (KB) over time of several runs made with series=True, one line each: a mapping of
    label -> Result (e.g. one run per flow count)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    for label, result in results.items():
        s = result.series
        if s is None:
            raise ValueError(f"{label}: the run has no time series: run it with series=True")
        col = next(c for c in s.columns if c.endswith("bytes") and "_flow" not in c)
        ax.plot(s.index, s[col] / 1024, label=label, lw=1)
    return _finish(fig, ax, "time (ms)", "queue (KB)", title)


def _finish(fig, ax, xlabel: str, ylabel: str, title: str):
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(title)
    fig.tight_layout()
    return fig


def sorted_flow_rates(results, column: str = "second_half_mbps", title: str = ""):
    """Each run's per-flow rates (its flows table), sorted: flat lines are fair shares. A mapping label ->
    Result."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    for label, result in results.items():
        rates = result.flows[column].sort_values().to_numpy()
        ax.plot(range(len(rates)), rates, label=label, lw=1.2)
    ax.set_yscale("log")
    return _finish(fig, ax, "flows, by rate", "rate (Mbps)", title)


def flow_rates_over_time(result, flows: Optional[Sequence[str]] = None, title: str = ""):
    """Per-flow rate (Mbps) per sampling interval of a run made with series=True."""
    plt = _plt()
    rates = result.flow_rates_mbps()
    if rates is None:
        raise ValueError("the run has no time series: run it with series=True")
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for c in (flows or rates.columns):
        ax.plot(rates.index, rates[c], label=f"flow {c}", lw=1)
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("rate (Mbps)")
    ax.grid(alpha=0.3)
    if len(rates.columns) <= 10:
        ax.legend(fontsize=7)
    ax.set_title(title)
    fig.tight_layout()
    return fig


def innocent_vs_victim(rates: pd.DataFrame, victim: Sequence[str], title: str = ""):
    """Aggregate throughput over time of the victim (hot-spot) flows against the innocent ones."""
    plt = _plt()
    victim = [str(v) for v in victim]
    cols = [str(c) for c in rates.columns]
    r = rates.copy()
    r.columns = cols
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    ax.plot(r.index, r[[c for c in cols if c not in victim]].sum(axis=1), label="innocent")
    ax.plot(r.index, r[victim].sum(axis=1), label="victim")
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("throughput (Mbps)")
    ax.grid(alpha=0.3)
    ax.legend()
    ax.set_title(title)
    fig.tight_layout()
    return fig


def elephant_bandwidth(results, title: str = ""):
    """Seed 001's Figs. 8-11: each elephant source's bandwidth to the 100 Mb/s hosts over time, one panel per run
    (a mapping label -> Result of testbed-001)."""
    plt = _plt()
    n = len(results)
    fig, axes = plt.subplots(n, 1, figsize=(6.4, 1.9 * n + 0.6), sharex=True, squeeze=False)
    for ax, (label, result) in zip(axes[:, 0], results.items()):
        s = result.tables["elephant_series"]
        for col, style in (("bsd3_mbps", "-"), ("bsd4_mbps", "--")):
            ax.plot(s["t_s"], s[col], style, lw=1, label=col.split("_")[0])
        ax.set_ylabel("Mbps")
        ax.set_ylim(0, 110)
        ax.grid(alpha=0.3)
        ax.set_title(label, fontsize=9)
        ax.legend(fontsize=7, loc="lower right")
    axes[-1, 0].set_xlabel("time (s)")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def variant_comparison(df: pd.DataFrame, y: str, by: str = "sctp_cc", title: str = "", ylabel: str = ""):
    """A bar per variant: the mean of `y` over seeds with min-max bars (seed 001's Fig. 12 with
    y = elephant_goodput_mbps)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.6, 3.6))
    order = list(dict.fromkeys(df[by]))
    s = df.groupby(by)[y].agg(["mean", "min", "max"]).loc[order]
    ax.bar(range(len(order)), s["mean"], yerr=[s["mean"] - s["min"], s["max"] - s["mean"]], capsize=4,
           color="#4477aa")
    ax.set_xticks(range(len(order)))
    ax.set_xticklabels(order)
    ax.set_ylabel(ylabel or y)
    ax.grid(alpha=0.3, axis="y")
    ax.set_title(title)
    fig.tight_layout()
    return fig
