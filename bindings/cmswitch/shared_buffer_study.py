# SPDX-License-Identifier: Apache-2.0
"""The shared-buffer sizing study: how much shared buffer does an N-port switch need for a workload mix (web
search at a load plus periodic incasts), with drop-tail TCP, DCTCP or PFC (dynamic XOFF, shared headroom pool)?

`cmswitch study shared-buffer --out DIR` sweeps scheme x total buffer x alpha x seed over the `workload`
scenario and writes points.csv, the figures, report.md and index.html. The total buffer B is what each switch ASIC
has: for PFC it holds the headroom pool (the sum of the pause formula's headroom over the switch's ports, for the
switch that needs most) and the shared pool gets the rest; a B that cannot hold the headroom is recorded as
infeasible with the reason, never run, never fatal.

The switch and the network are any the workload scenario builds: one switch (star, with uplinks at their own
speed), a leaf-spine or a fat-tree, from keyword fields or a switch description (`switch="leaf.toml"`, `cmswitch
study shared-buffer --switch leaf.toml`; see cmswitch.switch). The incast goes to one host of the network from
all the others by default.
"""
from __future__ import annotations

import math
import os
import time
from typing import Any, Dict, List, Optional, Sequence

import pandas as pd

from .config import config_class
from .study import PROFILE_TEXT, pause_split, write_html
from .files import write_csv
from .sweep import sweep

SCHEMES = ("droptail", "dctcp", "pfc")
SCHEME_TEXT = {
    "droptail": "TCP NewReno, drop-tail on the shared buffer's dynamic thresholds",
    "dctcp": "DCTCP, step marking at K = 65 packets x (link / 10 Gb/s) (the DCTCP paper's K at 10 Gb/s, scaled)",
    "pfc": "TCP NewReno over PFC with dynamic XOFF (the same alpha) and a shared headroom pool",
}
# colour-blind-safe cycle (Okabe-Ito) and markers, one per scheme
STYLE = {"droptail": ("#E69F00", "o"), "dctcp": ("#0072B2", "s"), "pfc": ("#009E73", "^")}


def network_hosts(cfg) -> int:
    """Hosts on downlinks of the network a workload config builds (the incast's candidates)."""
    if cfg.topology == "star":
        return cfg.hosts
    if cfg.topology == "leaf-spine":
        return cfg.leaves * cfg.hosts_per_leaf
    return cfg.fat_tree_k ** 3 // 4


def base_config(switch: Any = None, **changes: Any):
    """The study's workload config: 32 x 25 Gb/s on one switch, web search at 60 % plus an incast from every
    other host every ms, unless a switch description (a path or a dict, cmswitch.load_switch) or `changes` say
    otherwise (changes win)."""
    from .switch import load_switch
    cls = config_class("workload")
    fields: Dict[str, Any] = dict(topology="star", hosts=32, link_gbps=25.0, load=0.6, flow_sizes="web-search",
                                  incast_kb=64.0, incast_period_ms=1.0, duration_s=0.05, drain_ms=20.0,
                                  buffer_policy="shared")
    if switch is not None:
        fields.update(load_switch(switch, "workload"))
    fields.update(changes)
    if "incast_fanin" not in fields:
        fields["incast_fanin"] = network_hosts(cls(**fields)) - 1
    return cls(**fields)


def headroom_pool_kb(base) -> float:
    """PFC's headroom pool: every port of a switch paused at once, each the pause formula's headroom for its link
    (cable both ways, 2 MTU, the 802.3 response time; from the core); the switch that needs most (one pool size
    for every switch of the network)."""
    def h(gbps: float) -> float:
        return pause_split(1 << 20, 1, gbps, base.delay_us).headroom_bytes
    if base.topology == "star":
        need = [base.hosts * h(base.link_gbps) + base.uplinks * h(base.uplink_gbps)]
    elif base.topology == "leaf-spine":
        need = [base.hosts_per_leaf * h(base.link_gbps) + base.spines * h(base.fabric_gbps),
                base.leaves * h(base.fabric_gbps)]
    else:
        k = base.fat_tree_k
        need = [k // 2 * h(base.link_gbps) + k // 2 * h(base.fabric_gbps), k * h(base.fabric_gbps)]
    return max(need) / 1024


def describe_network(base) -> str:
    if base.topology == "star":
        up = f" + {base.uplinks} x {base.uplink_gbps:g} Gb/s uplinks" if base.uplinks else ""
        return f"one switch, {base.hosts} x {base.link_gbps:g} Gb/s{up}"
    if base.topology == "leaf-spine":
        over = base.hosts_per_leaf * base.link_gbps / (base.spines * base.fabric_gbps)
        return (f"leaf-spine, {base.leaves} leaves x {base.hosts_per_leaf} hosts at {base.link_gbps:g} Gb/s, "
                f"{base.spines} spines at {base.fabric_gbps:g} Gb/s (oversubscription {over:g}:1)")
    return (f"{base.fat_tree_k}-ary fat-tree, {network_hosts(base)} hosts at {base.link_gbps:g} Gb/s, fabric "
            f"{base.fabric_gbps:g} Gb/s")


def point(base, scheme: str, buffer_kb: float, alpha: float, seed: int) -> Dict[str, Any]:
    """The config fields of one point, or {"infeasible": reason}."""
    p: Dict[str, Any] = dict(alpha=float(alpha), seed=int(seed), pool_kb=float(buffer_kb))
    if scheme == "droptail":
        p.update(transport="newreno", marking="none", pause="none")
    elif scheme == "dctcp":
        k_kb = 65 * 1500 / 1024 * base.link_gbps / 10
        p.update(transport="dctcp", marking="step", pause="none", ecn_k_kb=min(k_kb, buffer_kb / 4))
    elif scheme == "pfc":
        h = headroom_pool_kb(base)
        shared = buffer_kb - h
        ports = {"star": base.hosts + base.uplinks, "leaf-spine": max(base.hosts_per_leaf + base.spines, base.leaves),
                 "fat-tree": base.fat_tree_k}[base.topology]
        min_shared = ports * 3 * 1500 / 1024   # 3 frames per port
        if shared < min_shared:
            return {"infeasible": f"headroom pool {h:.0f} KB ({ports} ports x the pause headroom) leaves "
                                  f"{shared:.0f} KB of {buffer_kb:g} KB, less than 3 frames per port "
                                  f"({min_shared:.0f} KB)"}
        p.update(transport="newreno", marking="none", pause="pfc", pause_xoff_alpha=float(alpha),
                 pause_headroom_pool_kb=h, pool_kb=shared)
    else:
        raise ValueError(f"scheme = {scheme!r}: known schemes are {', '.join(SCHEMES)}")
    return p


def smallest_meeting(df: pd.DataFrame, target: float, metric: str = "slowdown_p99_small",
                     higher_is_better: bool = False) -> pd.DataFrame:
    """Per scheme: the smallest total buffer from which every larger buffer tested also meets the target (the
    best alpha per buffer, mean of seeds), and the smallest that meets it at all (they differ when the curve is not
    monotone). The metric is a slowdown (lower is better) or, with higher_is_better, a goodput."""
    rows = []
    ok = df[df["feasible"]]
    for s, g in ok.groupby("scheme", sort=False):
        by = g.groupby(["buffer_kb", "alpha"])[metric].mean().groupby("buffer_kb")
        best = (by.max() if higher_is_better else by.min()).sort_index()
        meets = best >= target if higher_is_better else best <= target
        first = next((b for b, m in meets.items() if m), None)
        robust = None
        for b in reversed(list(meets.index)):
            if not meets[b]:
                break
            robust = b
        rows.append({"scheme": s, "smallest_meeting_kb": first, "smallest_from_which_all_meet_kb": robust,
                     "best": float(best.max() if higher_is_better else best.min()) if len(best) else math.nan,
                     "best_p99_small_slowdown": float(g.groupby(["buffer_kb", "alpha"])["slowdown_p99_small"]
                                                      .mean().min())})
    return pd.DataFrame(rows)


def shared_buffer(out: str, schemes: Sequence[str] = SCHEMES,
                  buffers_kb: Sequence[float] = (1024, 2048, 4096, 8192, 16384),
                  alphas: Sequence[float] = (0.25, 1.0, 4.0), seeds: Sequence[int] = (1, 2),
                  target_slowdown: float = 500.0, target_goodput_gbps: Optional[float] = None,
                  workers: Optional[int] = None, store=None, progress: bool = True,
                  base=None, switch: Any = None, cdfs: bool = True, memory_budget_mb: Optional[float] = None,
                  **base_changes: Any) -> pd.DataFrame:
    """Sweeps scheme x buffer x alpha x seed (see the module doc) and writes the report to `out`. Returns every
    point, infeasible ones included (feasible False, reason given). target_goodput_gbps: also find the smallest
    buffer whose incast goodput (the incast's bytes over its p50 completion time) reaches it. cdfs: rerun one point
    per scheme for the occupancy CDFs of its busiest switch (the shared pool, and PFC's headroom pool)."""
    for s in schemes:
        if s not in SCHEMES:
            raise ValueError(f"scheme = {s!r}: known schemes are {', '.join(SCHEMES)}")
    base = base or base_config(switch=switch, **base_changes)
    rows: List[Dict[str, Any]] = []
    todo: List[Dict[str, Any]] = []
    meta: List[Dict[str, Any]] = []
    for s in schemes:
        for b in buffers_kb:
            for a in alphas:
                for seed in seeds:
                    p = point(base, s, b, a, seed)
                    tag = dict(scheme=s, buffer_kb=float(b), alpha=float(a), seed=int(seed))
                    if "infeasible" in p:
                        rows.append(dict(tag, feasible=False, reason=p["infeasible"]))
                    else:
                        todo.append(p)
                        meta.append(tag)
    os.makedirs(out, exist_ok=True)
    t0 = time.time()
    if todo:
        res = sweep(base, points=todo, workers=workers, store=store, progress=progress, errors="raise",
                    memory_budget_mb=memory_budget_mb)
        for tag, (_, r) in zip(meta, res.iterrows()):
            why = str(r.get("infeasible", "") or "") if "infeasible" in res else ""
            if why and why != "nan":   # refused by the core's whole-config check (sweep): recorded, not run
                rows.append(dict(tag, feasible=False, reason=why))
                continue
            fan_bytes = base.incast_fanin * base.incast_kb * 1024
            t = r["incast_time_p50_ms"]
            rows.append(dict(tag, feasible=True, reason="", slowdown_p50=r["slowdown_p50"],
                             slowdown_p99=r["slowdown_p99"], slowdown_p99_small=r["slowdown_p99_small"],
                             slowdown_p99_large=r["slowdown_p99_large"], incast_time_p50_ms=t,
                             incast_time_p99_ms=r["incast_time_p99_ms"],
                             incast_goodput_gbps=fan_bytes * 8 / (t * 1e-3) / 1e9 if t > 0 else 0.0,
                             drops=r["drops"], timeouts=r["timeouts"], pause_frames=r["pause_frames"],
                             shared_peak_kb=r["shared_peak_kb_max_switch"],
                             headroom_peak_kb=r.get("headroom_pool_peak_kb", math.nan),
                             flows_completed=r["flows_completed"], flows_started=r["flows_started"]))
    elapsed = time.time() - t0
    df = pd.DataFrame(rows)
    write_csv(df, os.path.join(out, "points.csv"))
    minbuf = smallest_meeting(df, target_slowdown)
    mingood = smallest_meeting(df, target_goodput_gbps, "incast_goodput_gbps", True) \
        if target_goodput_gbps is not None and "incast_goodput_gbps" in df else None
    figures = _figures(df, out, base, target_slowdown, target_goodput_gbps)
    if cdfs and len(df[df["feasible"]]):
        figures += _occupancy_cdfs(df, minbuf, base, out)
    _report(out, base, df, minbuf, figures, target_slowdown, elapsed, mingood, target_goodput_gbps)
    return df


def _occupancy_cdfs(df: pd.DataFrame, minbuf: pd.DataFrame, base, out: str) -> List[tuple]:
    """One run per scheme at its answer (the smallest buffer from which every larger one meets the target, else
    the largest feasible buffer), its best alpha, the first seed: the time-weighted CDF of the busiest switch's
    shared-pool occupancy and, for PFC, its headroom pool's p99 and peak."""
    from .plots import _plt
    from .runner import run
    plt = _plt()
    ok = df[df["feasible"]]
    fig, ax = plt.subplots(figsize=(7.4, 4.2))
    notes = []
    for s, g in ok.groupby("scheme", sort=False):
        row = minbuf[minbuf["scheme"] == s]
        b = row["smallest_from_which_all_meet_kb"].iloc[0] if len(row) else None
        if b is None or (isinstance(b, float) and math.isnan(b)):
            b = g["buffer_kb"].max()
        at = g[g["buffer_kb"] == b]
        alpha = at.groupby("alpha")["slowdown_p99_small"].mean().idxmin()
        p = point(base, s, b, alpha, int(at["seed"].min()))
        res = run(base.replace(**p))
        cdf = res.tables.get("pool_cdf", {})
        colour, marker = STYLE.get(s, ("k", "x"))
        if len(cdf.get("bytes", [])):
            ax.step([x / 1024 for x in cdf["bytes"]], cdf["fraction"], where="post", color=colour,
                    label=f"{s}: {b:g} KB, alpha {alpha:g}")
        sm = res.summary
        notes.append(f"{s} at {b:g} KB (alpha {alpha:g}): shared pool p50 / p99 / p99.9 {sm['pool_p50_kb']:.0f} / "
                     f"{sm['pool_p99_kb']:.0f} / {sm['pool_p999_kb']:.0f} KB"
                     + (f", headroom pool p99 {sm['headroom_p99_kb_max_switch']:.0f} KB, peak "
                        f"{sm.get('headroom_pool_peak_kb', 0):.0f} KB" if s == "pfc" else ""))
    ax.set_xlabel("shared-pool occupancy of the busiest switch (KB)")
    ax.set_ylabel("fraction of time at or below")
    ax.set_ylim(0, 1.01)
    ax.grid(alpha=0.3)
    ax.set_title("How full does the shared pool get? (each scheme at its answer)", fontsize=9)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout()
    fig.savefig(os.path.join(out, "occupancy_cdf.png"), dpi=110)
    plt.close("all")
    with open(os.path.join(out, "occupancy.md"), "w") as fh:
        fh.write("\n".join(f"- {n}" for n in notes) + "\n")
    return [("occupancy_cdf.png", "time-weighted CDF of the shared pool's occupancy, each scheme at its answer "
                                  "(" + "; ".join(notes) + ")")]


def _figures(df: pd.DataFrame, out: str, base, target_slowdown: Optional[float] = None,
             target_goodput_gbps: Optional[float] = None) -> List[tuple]:
    import textwrap
    from matplotlib.ticker import FuncFormatter
    from .plots import _plt
    plt = _plt()
    targets = {"slowdown_p99_small": target_slowdown, "incast_goodput_gbps": target_goodput_gbps}
    figs = []
    ok = df[df["feasible"]]
    for y, label, name, higher in (
            ("slowdown_p99_small", "p99 FCT slowdown, flows <= 10 KB", "slowdown_small.png", False),
            ("incast_goodput_gbps", "incast goodput (Gb/s, its bytes / p50 completion)", "incast_goodput.png", True),
            ("incast_time_p99_ms", "incast completion p99 (ms)", "incast_time.png", False)):
        fig, ax = plt.subplots(figsize=(7.4, 4.2))
        for s, g in ok.groupby("scheme", sort=False):
            by = g.groupby(["buffer_kb", "alpha"])[y].mean().groupby("buffer_kb")
            best = (by.max() if higher else by.min()).sort_index()
            colour, marker = STYLE.get(s, ("k", "x"))
            ax.plot(best.index, best.values, marker=marker, color=colour, label=f"{s} (best alpha)")
        for s, g in df[~df["feasible"]].groupby("scheme", sort=False):   # infeasible points marked on the axis
            colour, _ = STYLE.get(s, ("k", "x"))
            xs = sorted(g["buffer_kb"].unique())
            ax.scatter(xs, [0] * len(xs), marker="x", color=colour, clip_on=False, label=f"{s}: infeasible")
        if targets.get(y) is not None:
            ax.axhline(targets[y], color="grey", linestyle="--", linewidth=1, label=f"target {targets[y]:g}")
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.set_yscale("log" if (ok[y] > 0).all() and len(ok) else "linear")
        ax.set_xlabel("total buffer per switch (KB)")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        ax.set_title("\n".join(textwrap.wrap(f"{describe_network(base)}: {base.flow_sizes} at {base.load:.0%} + "
                                             f"{base.incast_fanin}:1 incast every {base.incast_period_ms:g} ms", 80)),
                     fontsize=8)
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))   # outside the data
        fig.tight_layout()
        fig.savefig(os.path.join(out, name), dpi=110)
        figs.append((name, f"{label} against the total buffer, per scheme (the best alpha at each buffer; x on the "
                           f"axis: infeasible)"))
    plt.close("all")
    return figs


def _report(out, base, df, minbuf, figures, target, elapsed, mingood=None, target_goodput=None):
    intro = (f"workload on {describe_network(base)}: {base.flow_sizes} flows at "
             f"{base.load:.0%} load on every host plus a {base.incast_fanin}:1 incast of {base.incast_kb:g} KB every "
             f"{base.incast_period_ms:g} ms, {base.duration_s * 1e3:g} ms of arrivals; shared buffer with dynamic "
             f"thresholds (alpha per point; the buffer is per switch); {len(df)} points "
             f"({int((~df['feasible']).sum())} infeasible) in {elapsed:.0f} s. Target: p99 FCT slowdown of flows up "
             f"to 10 KB <= {target:g}" + (f"; incast goodput >= {target_goodput:g} Gb/s" if target_goodput else "")
             + f". Hosts: the `{base.host_profile}` profile ({PROFILE_TEXT.get(base.host_profile, '')}), minRTO "
             f"{base.min_rto_ms:g} ms.")
    reading = []
    for r in minbuf.itertuples():
        if r.smallest_from_which_all_meet_kb is None or (isinstance(r.smallest_from_which_all_meet_kb, float) and math.isnan(r.smallest_from_which_all_meet_kb)):
            reading.append(f"{r.scheme}: no buffer tested meets the target (best p99 small-flow slowdown "
                           f"{r.best_p99_small_slowdown:.1f}).")
        else:
            extra = "" if r.smallest_meeting_kb == r.smallest_from_which_all_meet_kb else \
                f" (a smaller one, {r.smallest_meeting_kb:g} KB, meets it too, but a larger one does not: not monotone)"
            reading.append(f"{r.scheme}: {r.smallest_from_which_all_meet_kb:g} KB and every larger buffer tested meet "
                           f"the target{extra}.")
    if mingood is not None:
        for r in mingood.itertuples():
            b = r.smallest_from_which_all_meet_kb
            if b is None or (isinstance(b, float) and math.isnan(b)):
                reading.append(f"{r.scheme}: no buffer tested reaches {target_goodput:g} Gb/s of incast goodput "
                               f"(best {r.best:.2f} Gb/s).")
            else:
                extra = "" if r.smallest_meeting_kb == b else \
                    f" (also {r.smallest_meeting_kb:g} KB, but not every buffer between: not monotone)"
                reading.append(f"{r.scheme}: incast goodput >= {target_goodput:g} Gb/s from {b:g} KB on{extra}.")
    for r in df[~df["feasible"]].drop_duplicates(["scheme", "buffer_kb"]).itertuples():
        reading.append(f"{r.scheme} at {r.buffer_kb:g} KB is infeasible: {r.reason}.")
    lossy = df[df["feasible"] & (df["scheme"] == "pfc")]
    if len(lossy):
        reading.append(f"PFC runs dropped {int(lossy['drops'].sum())} frames in all (lossless when 0).")
    agg = df[df["feasible"]].groupby(["scheme", "buffer_kb", "alpha"]).agg(
        p99_small=("slowdown_p99_small", "mean"), p99_all=("slowdown_p99", "mean"),
        incast_p99_ms=("incast_time_p99_ms", "mean"), incast_gbps=("incast_goodput_gbps", "mean"),
        drops=("drops", "mean"), timeouts=("timeouts", "mean"),
        pause_frames=("pause_frames", "mean")).reset_index()
    md = ["# Shared-buffer sizing", "", intro, "", "Schemes: " + "; ".join(f"{s}: {SCHEME_TEXT[s]}" for s in
                                                                         df["scheme"].unique()), "",
          "## Reading", ""] + [f"- {line}" for line in reading] + ["", "## Every feasible point (mean of seeds)", "",
          "| scheme | buffer (KB) | alpha | p99 slowdown <= 10 KB | p99 slowdown all | incast p99 (ms) | incast goodput (Gb/s) | drops | timeouts | pause frames |",
          "|---|---|---|---|---|---|---|---|---|---|"]
    for r in agg.itertuples():
        md.append(f"| {r.scheme} | {r.buffer_kb:g} | {r.alpha:g} | {r.p99_small:.1f} | {r.p99_all:.1f} | "
                  f"{r.incast_p99_ms:.2f} | {r.incast_gbps:.2f} | {r.drops:.0f} | {r.timeouts:.0f} | "
                  f"{r.pause_frames:.0f} |")
    md += ["", "## Figures", ""]
    for name, caption in figures:
        md += [f"### {caption}", "", f"![{caption}]({name})", ""]
    with open(os.path.join(out, "report.md"), "w") as fh:
        fh.write("\n".join(md))
    write_html(os.path.join(out, "index.html"), "Shared-buffer sizing", intro, reading,
               "Every feasible point (mean of seeds)", agg.to_html(index=False, float_format=lambda v: f"{v:g}"),
               figures)
