# SPDX-License-Identifier: Apache-2.0
"""Matplotlib figures of results: goodput vs flows per buffer (Devkota & Reddy's figures), queue and per-flow rate
over time, throughput of innocent vs hot-spot traffic. Lines have distinct colour-blind-safe colours, markers
and dashes (up to 12), means carry 95 % confidence intervals over seeds, infeasible points are marked, legends
sit outside the data. Each returns the Figure; save it with fig.savefig(..., bbox_inches="tight")."""
from __future__ import annotations

import math

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


# Up to 12 lines told apart by colour, marker and dash together: Paul Tol's "muted" scheme (designed for
# colour-blind readers) plus black, grey and Okabe-Ito orange; dashed from the 9th line on.
_COLORS = ["#332288", "#88CCEE", "#44AA99", "#117733", "#999933", "#DDCC77", "#CC6677", "#882255", "#AA4499",
           "#000000", "#777777", "#E69F00"]
_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "h", "<", ">", "p"]


def line_style(i: int) -> dict:
    """Colour, marker and line style of the i-th line of a plot (distinct for i < 12)."""
    return dict(color=_COLORS[i % len(_COLORS)], marker=_MARKERS[i % len(_MARKERS)],
                linestyle="-" if i % 24 < 8 else "--")


# two-sided 95 % Student t quantiles t(0.975, n - 1) for n = 2 .. 30 samples; 1.96 above
_T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
         2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045]


def mean_ci(values) -> "tuple[float, float, int]":
    """Mean, half-width of its 95 % confidence interval (Student t over the seeds; 0 for one value) and n."""
    v = pd.Series(values, dtype=float).dropna()
    n = len(v)
    if n == 0:
        return float("nan"), float("nan"), 0
    if n == 1:
        return float(v.iloc[0]), 0.0, 1
    t = _T975[n - 2] if n - 2 < len(_T975) else 1.96
    return float(v.mean()), float(t * v.std(ddof=1) / n ** 0.5), n


def bounded_ci(values, bounds: "tuple[float, float]" = (-math.inf, math.inf)) \
        -> "tuple[float, float, int, float, float]":
    """mean_ci with the interval's ends cut to what the quantity can be: (mean, half-width, n, low end, high end)."""
    m, h, n = mean_ci(values)
    return m, h, n, max(bounds[0], m - h), min(bounds[1], m + h)


def physical_bounds(g: pd.DataFrame, y: str) -> "tuple[float, float]":
    """What y can be at all, for cutting an interval: at least 0 if it is never negative, and a goodput or
    throughput in Mbps at most the link's rate (the rows' link_gbps)."""
    lo = 0.0 if len(g) and (g[y].dropna() >= 0).all() else -math.inf
    hi = math.inf
    if y.endswith("_mbps") and ("goodput" in y or "throughput" in y) and "link_gbps" in g and len(g):
        hi = float(g["link_gbps"].max()) * 1000
    return lo, hi


def _summary(g: pd.DataFrame, x: str, y: str) -> pd.DataFrame:
    """Per x: mean and 95 % CI of y over the feasible rows (lo, hi: the interval cut to what y can be), and
    whether every row at that x was infeasible."""
    rows = []
    lo_b, hi_b = physical_bounds(g[_feasible(g)], y)
    for xv, gg in g.groupby(x):
        feasible = gg[_feasible(gg)]
        m, h, n, lo, hi = bounded_ci(feasible[y], (lo_b, hi_b))
        rows.append(dict(x=xv, mean=m, ci=h, n=n, lo=lo, hi=hi, infeasible=len(feasible) == 0))
    return pd.DataFrame(rows).sort_values("x").set_index("x")


def _feasible(df: pd.DataFrame) -> pd.Series:
    if "infeasible" not in df:
        return pd.Series(True, index=df.index)
    return df["infeasible"].fillna("").astype(str) == ""


def _legend_outside(ax, title: Optional[str] = None) -> None:
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False, title=title,
                  title_fontsize=8)


def _lines_with_ci(ax, df: pd.DataFrame, by: str, x: str, y: str, label_of) -> bool:
    """One line per value of `by`: mean over seeds with 95 % CI bars; x values where every run was infeasible
    are marked with an x at the bottom in the line's colour. Returns whether any was."""
    any_infeasible = False
    for i, (value, g) in enumerate(sorted(df.groupby(by), key=lambda kv: kv[0])):
        st = line_style(i)
        s = _summary(g, x, y)
        ok = s[~s["infeasible"] & s["mean"].notna()]
        ax.errorbar(ok.index, ok["mean"], yerr=[ok["mean"] - ok["lo"], ok["hi"] - ok["mean"]], capsize=3, ms=5,
                    lw=1.3, label=label_of(value), **st)
        bad = s[s["infeasible"]]
        if len(bad):
            any_infeasible = True
            # on the x axis itself (axes coordinates: y = 0 is not on a log axis)
            ax.plot(bad.index, [0] * len(bad), linestyle="none", marker="x", ms=8, mew=2, color=st["color"],
                    clip_on=False, zorder=5, transform=ax.get_xaxis_transform())
    if any_infeasible:
        ax.plot([], [], linestyle="none", marker="x", ms=8, mew=2, color="#444444", label="infeasible (not run)")
    return any_infeasible


def _log2_x(ax, plt, values) -> None:
    ax.set_xscale("log", base=2)
    ticks = sorted(float(v) for v in values)
    ax.set_xticks(ticks)
    ax.get_xaxis().set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.minorticks_off()
    # labels of close values (6144 and 8192) or of many would overlap: slanted
    if len(ticks) > 8 or any(b / a < 1.5 for a, b in zip(ticks, ticks[1:]) if a > 0):
        plt.setp(ax.get_xticklabels(), rotation=45, ha="right")


def _hlines(ax, hlines) -> None:
    """Hand values drawn across the plot: (y, label) pairs (the line rate, a target), labelled in the legend."""
    for k, (y, label) in enumerate(hlines or ()):
        ax.axhline(y, color="#555555", linestyle=(":", "--", "-.")[k % 3], linewidth=1, label=label)


def goodput_vs_flows(df: pd.DataFrame, title: str = "", by: str = "buffer_kb", y: str = "goodput_mbps",
                     ylabel: Optional[str] = None, hlines: Sequence = ()):
    """One line per value of `by` (Devkota & Reddy's Figs. 2-5): the mean over seeds with its 95 % confidence interval,
    infeasible points (an `infeasible` reason in the rows) marked x on the axis. The legend sits outside."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8.0, 4.2))
    _lines_with_ci(ax, df, by, "flows", y, lambda v: f"{v:g} KB" if by == "buffer_kb" else str(v))
    _hlines(ax, hlines)
    _log2_x(ax, plt, df["flows"].unique())
    ax.set_xlabel("flows (servers)")
    ax.set_ylabel(ylabel or ("goodput (Mbps)" if y == "goodput_mbps" else y))
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    _legend_outside(ax, "buffer per port" if by == "buffer_kb" else None)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def goodput_vs_buffer(df: pd.DataFrame, flows: int, by: str = "scheme", title: str = "", hlines: Sequence = ()):
    """Goodput against buffer size at one flow count, one line per value of `by`, with 95 % confidence intervals
    over seeds and infeasible points marked x on the axis."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8.0, 4.2))
    d = df[df["flows"] == flows]
    _lines_with_ci(ax, d, by, "buffer_kb", "goodput_mbps", str)
    _hlines(ax, hlines)
    _log2_x(ax, plt, d["buffer_kb"].unique())
    ax.set_xlabel("buffer per port (KB)")
    ax.set_ylabel("goodput (Mbps)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    _legend_outside(ax)
    ax.set_title(title or f"{flows} flows", fontsize=10)
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
    fig, ax = plt.subplots(figsize=(8.0, 3.8))
    for i, (label, result) in enumerate(results.items()):
        s = result.series
        if s is None:
            raise ValueError(f"{label}: the run has no time series: run it with series=True")
        col = next(c for c in s.columns if c.endswith("bytes") and "_flow" not in c)
        st = line_style(i)
        ax.plot(s.index, s[col] / 1024, label=label, lw=1, color=st["color"], linestyle=st["linestyle"])
    return _finish(fig, ax, "time (ms)", "queue (KB)", title)


def _finish(fig, ax, xlabel: str, ylabel: str, title: str):
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    _legend_outside(ax)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def sorted_flow_rates(results, column: str = "second_half_mbps", title: str = ""):
    """Each run's per-flow rates (its flows table), sorted: flat lines are fair shares. A mapping label ->
    Result."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8.0, 3.8))
    for i, (label, result) in enumerate(results.items()):
        rates = result.flows[column].sort_values().to_numpy()
        st = line_style(i)
        ax.plot(range(len(rates)), rates, label=label, lw=1.2, color=st["color"], linestyle=st["linestyle"])
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


def innocent_vs_hotspot(data, hotspot: Optional[Sequence[str]] = None, title: str = ""):
    """Throughput over time of the innocent traffic against the hot-spot traffic (the flows to the congested
    node; PAUSE spreading makes victims of the innocent ones). `data`: a baseline Result run with series=True
    (its series columns innocent_gbps and hotspot_gbps, Gb/s), or per-flow rates in Mbps (flow columns, e.g.
    Result.flow_rates_mbps()) with the hot-spot flows named in `hotspot`."""
    plt = _plt()
    if isinstance(data, pd.DataFrame):
        if hotspot is None:
            raise ValueError("per-flow rates need hotspot= (the hot-spot flows' columns)")
        hot = [str(v) for v in hotspot]
        r = data.copy()
        r.columns = [str(c) for c in r.columns]
        innocent, hot_rate, unit = r[[c for c in r.columns if c not in hot]].sum(axis=1), r[hot].sum(axis=1), "Mbps"
    else:
        s = data.series
        if s is None or "hotspot_gbps" not in s:
            raise ValueError("give a baseline run made with series=True, or per-flow rates with hotspot=")
        innocent, hot_rate, unit = s["innocent_gbps"], s["hotspot_gbps"], "Gb/s"
    fig, ax = plt.subplots(figsize=(8.0, 3.6))
    for i, (y, label) in enumerate(((innocent, "innocent traffic"), (hot_rate, "hot-spot traffic"))):
        st = line_style(i)
        ax.plot(y.index, y.values, label=label, lw=1.2, color=st["color"], linestyle=st["linestyle"])
    ax.set_ylim(bottom=0)
    return _finish(fig, ax, "time (ms)", f"throughput ({unit})", title)


def innocent_vs_victim(rates: pd.DataFrame, victim: Sequence[str], title: str = ""):
    """Deprecated name of innocent_vs_hotspot (the hot-spot flows were called victims)."""
    return innocent_vs_hotspot(rates, hotspot=victim, title=title)


def elephant_bandwidth(results, title: str = ""):
    """Stewart et al.'s Figs. 8-11: each elephant source's bandwidth to the 100 Mb/s hosts over time, one panel per run
    (a mapping label -> Result of sctp-incast)."""
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
    """A bar per variant: the mean of `y` over seeds with min-max bars (Stewart et al.'s Fig. 12 with
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
