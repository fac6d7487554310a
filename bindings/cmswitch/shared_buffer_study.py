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
    "dctcp": "DCTCP, step marking at K (dctcp_k_kb; default the DCTCP paper's rule K > C x RTT / 7, at least two "
             "full frames)",
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


def base_rtt_s(base) -> float:
    """The unloaded RTT between two hosts of one switch: 4 x the cable delay and one full frame's serialization
    each way."""
    return 4 * base.delay_us * 1e-6 + 2 * 1500 * 8 / (base.link_gbps * 1e9)


def default_dctcp_k_kb(base) -> float:
    """DCTCP's marking threshold by the DCTCP paper's rule K > C x RTT / 7 (C the host link, RTT the unloaded
    one), at least two full frames (a smaller K marks every frame of a window of two)."""
    return max(base.link_gbps * 1e9 * base_rtt_s(base) / 8 / 7, 2 * 1500) / 1024


def slice_headroom_factor(base) -> float:
    """How many times the switch's ports' headroom a sliced buffer's headroom pool must hold so that every slice
    covers every ingress port whose frames it stores (each slice holds 1 / slices of every pool): slices x the
    most ingress ports one slice serves / ports. One slice, or Tomahawk-4-style slices by ingress half: 1;
    Tomahawk-style (each slice one half of the ingress x one half of the egress pipes): 2."""
    if base.buffer_policy != "pools" or base.slices <= 1:
        return 1.0
    n = base.pipes
    if base.slice_map_list:
        table = [int(x) for x in base.slice_map_list]
    elif base.slice_map == "tomahawk":
        table = [(i // (n // 2)) * 2 + o // (n // 2) for i in range(n) for o in range(n)]
    elif base.slice_map == "tomahawk4":
        table = [i // (n // 2) for i in range(n) for o in range(n)]
    else:
        table = [0] * (n * n)
    served = [len({i for i in range(n) for o in range(n) if table[i * n + o] == sl}) for sl in range(base.slices)]
    return base.slices * max(served) / n


def _pools_point(base, scheme: str, buffer_kb: float, alpha: float, h: float) -> Dict[str, Any]:
    """A chip's service pools (buffer_policy pools) at a total buffer B: every pool of the description scaled by
    B / pool_kb, the ingress pools to B less the headroom pool h (PFC) in the same proportions; PFC's XOFF is the
    lossless group's dynamic threshold, log2 alpha (SAI's dynamic_th)."""
    f = buffer_kb / base.pool_kb
    egress = tuple(x * f for x in (base.egress_pools_kb or (base.pool_kb,)))
    ingress = tuple(base.ingress_pools_kb or (base.pool_kb,))
    scale = (buffer_kb - h) / sum(ingress)
    p: Dict[str, Any] = dict(egress_pools_kb=egress, ingress_pools_kb=tuple(x * scale for x in ingress),
                             headroom_pool_kb=h)
    if scheme == "pfc":
        th = round(math.log2(alpha))
        if 2.0 ** th != alpha:
            raise ValueError(f"alpha = {alpha:g}: on a chip's service pools PFC's XOFF is a group's dynamic_th, "
                             f"alpha = 2^n; give alphas that are powers of two")
        p.update(pg_dynamic_th=tuple([th] * 8))
    return p


def point(base, scheme: str, buffer_kb: float, alpha: float, seed: int,
          dctcp_k_kb: Optional[float] = None) -> Dict[str, Any]:
    """The config fields of one point, or {"infeasible": reason}. dctcp_k_kb: DCTCP's K (None: the rule). On a
    chip's service pools (buffer_policy pools) the pools are scaled to the total buffer (_pools_point)."""
    p: Dict[str, Any] = dict(alpha=float(alpha), seed=int(seed), pool_kb=float(buffer_kb))
    pools = base.buffer_policy == "pools"
    if pools:
        p.update(_pools_point(base, "none", buffer_kb, alpha, 0.0))
    if scheme == "droptail":
        p.update(transport="newreno", marking="none", pause="none")
    elif scheme == "dctcp":
        k_kb = default_dctcp_k_kb(base) if dctcp_k_kb is None else dctcp_k_kb
        p.update(transport="dctcp", marking="step", pause="none", ecn_k_kb=min(k_kb, buffer_kb / 4))
    elif scheme == "pfc":
        h = headroom_pool_kb(base) * slice_headroom_factor(base)
        shared = buffer_kb - h
        ports = {"star": base.hosts + base.uplinks, "leaf-spine": max(base.hosts_per_leaf + base.spines, base.leaves),
                 "fat-tree": base.fat_tree_k}[base.topology]
        min_shared = ports * 3 * 1500 / 1024   # 3 frames per port
        if shared < min_shared:
            return {"infeasible": f"headroom pool {h:.0f} KB ({ports} ports x the pause headroom) leaves "
                                  f"{shared:.0f} KB of {buffer_kb:g} KB, less than 3 frames per port "
                                  f"({min_shared:.0f} KB)"}
        if pools:   # the chip's own books: the lossless groups' headroom from the shared headroom pool
            p.update(transport="newreno", marking="none", pause="pfc", **_pools_point(base, "pfc", buffer_kb, alpha, h))
        else:
            p.update(transport="newreno", marking="none", pause="pfc", pause_xoff_alpha=float(alpha),
                     pause_headroom_pool_kb=h, pool_kb=shared)
    else:
        raise ValueError(f"scheme = {scheme!r}: known schemes are {', '.join(SCHEMES)}")
    return p


# what a metric can be at all: an interval is cut to it (a slowdown is at least 1; incast goodput at most the
# receiver's line rate, set per study)
_PHYSICAL = {"slowdown_p99_small": (1.0, math.inf), "slowdown_p99": (1.0, math.inf), "slowdown_p50": (1.0, math.inf),
             "incast_time_p50_ms": (0.0, math.inf), "incast_time_p99_ms": (0.0, math.inf)}


def seed_stats(g: pd.DataFrame, metric: str, by: Sequence[str] = ("buffer_kb", "alpha"),
               bounds: "tuple[float, float]" = (-math.inf, math.inf)) -> pd.DataFrame:
    """Per group of `by`: the mean of `metric` over the seeds, its 95 % interval (Student t; none for one seed)
    cut to what is physically possible (`bounds`), and the number of seeds."""
    from .plots import bounded_ci
    rows = []
    for key, gg in g.groupby(list(by)):
        m, h, n, lo, hi = bounded_ci(gg[metric], bounds)
        rows.append(dict(zip(by, key if isinstance(key, tuple) else (key,)), mean=m, ci=h, n=n, lo=lo, hi=hi))
    return pd.DataFrame(rows)


def best_alpha(g: pd.DataFrame, metric: str, higher_is_better: bool = False,
               bounds: "tuple[float, float]" = (-math.inf, math.inf)) -> pd.DataFrame:
    """Per buffer (sorted): the alpha whose mean over the seeds is best, with that mean, its interval and n."""
    st = seed_stats(g, metric, bounds=bounds)
    if not len(st):
        return pd.DataFrame(columns=["alpha", "mean", "ci", "n", "lo", "hi"])
    pick = st.loc[st.groupby("buffer_kb")["mean"].idxmax() if higher_is_better else st.groupby("buffer_kb")["mean"].idxmin()]
    return pick.set_index("buffer_kb").sort_index()


def smallest_meeting(df: pd.DataFrame, target: float, metric: str = "slowdown_p99_small",
                     higher_is_better: bool = False, bounds: Optional["tuple[float, float]"] = None) -> pd.DataFrame:
    """Per scheme, with the best alpha at each buffer (by its mean over the seeds):
    - smallest_from_which_all_meet_kb: the answer, the smallest buffer from which every larger buffer tested meets
      the target with 95 % confidence (the whole interval on the good side; with one seed, its value);
    - smallest_meeting_kb: the smallest whose mean meets it at all (they differ when the curve is not monotone or
      an interval straddles the target);
    - seeds: the fewest seeds behind any point of the scheme; straddling: buffers whose interval holds the target;
    - meeting_kb: every buffer that meets it with confidence (a scheme whose tail grows with the buffer meets it at
      small buffers and has no answer "from B on").
    The metric is a slowdown (lower is better) or, with higher_is_better, a goodput."""
    bounds = bounds or _PHYSICAL.get(metric, (-math.inf, math.inf))
    rows = []
    ok = df[df["feasible"]]
    for s, g in ok.groupby("scheme", sort=False):
        best = best_alpha(g, metric, higher_is_better, bounds)
        if higher_is_better:
            mean_meets, sure = best["mean"] >= target, best["lo"] >= target
        else:
            mean_meets, sure = best["mean"] <= target, best["hi"] <= target
        first = next((b for b, m in mean_meets.items() if m), None)
        robust = None
        for b in reversed(list(sure.index)):
            if not sure[b]:
                break
            robust = b
        straddling = [b for b in best.index if mean_meets[b] != sure[b] or
                      (best.loc[b, "lo"] <= target <= best.loc[b, "hi"] and best.loc[b, "ci"] > 0)]
        at = best.loc[robust] if robust is not None else None
        small = seed_stats(g, "slowdown_p99_small", bounds=_PHYSICAL["slowdown_p99_small"])
        rows.append({"scheme": s, "smallest_meeting_kb": first, "smallest_from_which_all_meet_kb": robust,
                     "alpha_at_answer": float(at["alpha"]) if at is not None else math.nan,
                     "mean_at_answer": float(at["mean"]) if at is not None else math.nan,
                     "ci_at_answer": float(at["ci"]) if at is not None else math.nan,
                     "seeds": int(best["n"].min()) if len(best) else 0,
                     "straddling_kb": ", ".join(f"{b:g}" for b in straddling),
                     "meeting_kb": ", ".join(f"{b:g}" for b in sure.index if sure[b]),
                     "best": float(best["mean"].max() if higher_is_better else best["mean"].min()) if len(best)
                     else math.nan,
                     "best_p99_small_slowdown": float(small["mean"].min()) if len(small) else math.nan})
    return pd.DataFrame(rows)


def shared_buffer(out: str, schemes: Sequence[str] = SCHEMES,
                  buffers_kb: Sequence[float] = (1024, 2048, 4096, 8192, 16384),
                  alphas: Sequence[float] = (0.25, 1.0, 4.0), seeds: Sequence[int] = (1, 2, 3, 4, 5),
                  target_slowdown: float = 500.0, target_goodput_gbps: Optional[float] = None,
                  workers: Optional[int] = None, store=None, progress: bool = True,
                  base=None, switch: Any = None, cdfs: bool = True, memory_budget_mb: Optional[float] = None,
                  dctcp_k_kb: Optional[float] = None, quick: bool = False, **base_changes: Any) -> pd.DataFrame:
    """Sweeps scheme x buffer x alpha x seed (see the module doc) and writes the report to `out`. Returns every
    point, infeasible ones included (feasible False, reason given). target_goodput_gbps: also find the smallest
    buffer whose incast goodput (the incast's bytes over its p50 completion time) reaches it. cdfs: rerun one point
    per scheme for the occupancy CDFs of its busiest switch (the shared pool, and PFC's headroom pool). dctcp_k_kb:
    DCTCP's marking threshold (None: C x RTT / 7, at least two frames; capped at a quarter of each buffer). Every
    point is the mean of `seeds` (five by default) with a 95 % interval; answers are decided on the interval.
    quick: the report is marked "quick: indicative" (a small grid; its reading says where the interval does not
    decide)."""
    for s in schemes:
        if s not in SCHEMES:
            raise ValueError(f"scheme = {s!r}: known schemes are {', '.join(SCHEMES)}")
    for name, v in (("target_slowdown", target_slowdown), ("target_goodput_gbps", target_goodput_gbps)):
        if v is not None and not (isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v < math.inf):
            raise ValueError(f"{name} = {v!r}: a finite number above 0")
    if dctcp_k_kb is not None and not (isinstance(dctcp_k_kb, (int, float)) and 0 < dctcp_k_kb < math.inf):
        raise ValueError(f"dctcp_k_kb = {dctcp_k_kb!r}: DCTCP's marking threshold in KB, a number > 0 (None: the "
                         f"C x RTT / 7 rule)")
    base = base or base_config(switch=switch, **base_changes)
    if base.load <= 0:
        raise ValueError(f"load = {base.load:g}: the study measures the flows' completion times (its target is the "
                         f"small flows' p99 slowdown); give a load above 0 (e.g. --load 0.3)")
    _refuse_unrunnable(base, schemes, buffers_kb, alphas, seeds, dctcp_k_kb)
    rows: List[Dict[str, Any]] = []
    todo: List[Dict[str, Any]] = []
    meta: List[Dict[str, Any]] = []
    for s in schemes:
        for b in buffers_kb:
            for a in alphas:
                for seed in seeds:
                    p = point(base, s, b, a, seed, dctcp_k_kb)
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
    if not df["feasible"].any():   # nothing ran: no curve, no answer (points.csv says why for each)
        raise ValueError(f"shared-buffer study: every point is infeasible (the first: {df['reason'].iloc[0]}); give "
                         f"larger buffers (--buffers-kb) or other schemes")
    minbuf = smallest_meeting(df, target_slowdown)
    mingood = smallest_meeting(df, target_goodput_gbps, "incast_goodput_gbps", True, (0.0, float(base.link_gbps))) \
        if target_goodput_gbps is not None and "incast_goodput_gbps" in df else None
    figures = _figures(df, out, base, target_slowdown, target_goodput_gbps)
    if cdfs and len(df[df["feasible"]]):
        figures += _occupancy_cdfs(df, minbuf, base, out, dctcp_k_kb)
    _report(out, base, df, minbuf, figures, target_slowdown, elapsed, mingood, target_goodput_gbps, dctcp_k_kb, quick)
    if quick:
        from .study import mark_quick
        mark_quick(out, f"{len(seeds)} seeds, {len(buffers_kb)} buffers x {len(alphas)} alpha(s), "
                        f"{base.duration_s * 1e3:g} ms of arrivals per run")
    return df


def _refuse_unrunnable(base, schemes: Sequence[str], buffers_kb: Sequence[float], alphas: Sequence[float],
                       seeds: Sequence[int], dctcp_k_kb: Optional[float]) -> None:
    """ValueError before anything runs for a study whose answer would be wrong, not merely infeasible: alpha swept
    under a switch's alpha_by_queue (the rows would be identical), and PFC that the core refuses at the largest
    buffer (PFC on priorities none of the traffic uses sends no PAUSE and drops like drop-tail: the core's check
    refuses it with a message starting "pfc_priorities = ")."""
    if len(set(alphas)) > 1 and base.alpha_by_queue:
        raise ValueError(f"shared-buffer study: alphas {tuple(alphas)} are swept, but the switch sets alpha_by_queue "
                         f"= {base.alpha_by_queue}, which replaces alpha: every alpha would give the same rows. Give "
                         f"one alpha, or alpha_by_queue=None (the CLI: --alpha-by-queue none) to sweep alpha")
    if "pfc" in schemes:   # (other refusals make points infeasible, recorded with their reason)
        p = point(base, "pfc", max(buffers_kb), alphas[0], seeds[0], dctcp_k_kb)
        try:
            if "infeasible" not in p:
                base.replace(**p).check()
        except ValueError as e:
            if str(e).startswith("pfc_priorities = "):
                raise ValueError(f"shared-buffer study: scheme pfc would measure drop-tail: {e}") from None


def _occupancy_cdfs(df: pd.DataFrame, minbuf: pd.DataFrame, base, out: str,
                    dctcp_k_kb: Optional[float] = None) -> List[tuple]:
    """One run per scheme at its answer (the smallest buffer from which every larger one meets the target, else
    the largest feasible buffer), its best alpha, the first seed: the time-weighted CDF of the busiest switch's
    shared-pool occupancy and, for PFC, its headroom pool's p99 and peak."""
    from .plots import _plt
    from .runner import run
    plt = _plt()
    ok = df[df["feasible"]]
    fig, ax = plt.subplots(figsize=(7.4, 4.2))
    notes = []
    answered = 0
    for s, g in ok.groupby("scheme", sort=False):
        row = minbuf[minbuf["scheme"] == s]
        b = row["smallest_from_which_all_meet_kb"].iloc[0] if len(row) else None
        where = "its answer"
        if b is None or (isinstance(b, float) and math.isnan(b)):
            b = g["buffer_kb"].max()
            where = "the largest buffer (no answer)"
        else:
            answered += 1
        at = g[g["buffer_kb"] == b]
        alpha = at.groupby("alpha")["slowdown_p99_small"].mean().idxmin()
        p = point(base, s, b, alpha, int(at["seed"].min()), dctcp_k_kb)
        res = run(base.replace(**p))
        cdf = res.tables.get("pool_cdf", {})
        colour, marker = STYLE.get(s, ("k", "x"))
        if len(cdf.get("bytes", [])):
            ax.step([x / 1024 for x in cdf["bytes"]], cdf["fraction"], where="post", color=colour,
                    label=f"{s}: {b:g} KB, alpha {alpha:g}")
        sm = res.summary
        notes.append(f"{s} at {b:g} KB, {where} (alpha {alpha:g}): shared pool p50 / p99 / p99.9 {sm['pool_p50_kb']:.0f} / "
                     f"{sm['pool_p99_kb']:.0f} / {sm['pool_p999_kb']:.0f} KB"
                     + (f", headroom pool p99 {sm['headroom_p99_kb_max_switch']:.0f} KB, peak "
                        f"{sm.get('headroom_pool_peak_kb', 0):.0f} KB" if s == "pfc" else ""))
    ax.set_xlabel("shared-pool occupancy of the busiest switch (KB)")
    ax.set_ylabel("fraction of time at or below")
    ax.set_ylim(0, 1.01)
    ax.grid(alpha=0.3)
    which = "each scheme at its answer" if answered == len(notes) else \
        "no scheme met the target: each at the largest buffer" if answered == 0 else \
        "each scheme at its answer, or at the largest buffer where it has none"
    ax.set_title(f"How full does the shared pool get? ({which})", fontsize=9)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout()
    fig.savefig(os.path.join(out, "occupancy_cdf.png"), dpi=110)
    plt.close("all")
    with open(os.path.join(out, "occupancy.md"), "w") as fh:
        fh.write("\n".join(f"- {n}" for n in notes) + "\n")
    return [("occupancy_cdf.png", f"time-weighted CDF of the shared pool's occupancy, {which} "
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
    seeds = int(ok.groupby(["scheme", "buffer_kb", "alpha"]).size().min()) if len(ok) else 0
    bars = f"mean of {seeds} seeds, bars: 95 % interval" if seeds > 1 else "one seed: no interval"
    for y, label, name, higher, log in (
            ("slowdown_p99_small", "p99 FCT slowdown, flows <= 10 KB", "slowdown_small.png", False, True),
            ("incast_goodput_gbps", "incast goodput (Gb/s, its bytes / p50 completion)", "incast_goodput.png", True,
             False),
            ("incast_time_p99_ms", "incast completion p99 (ms)", "incast_time.png", False, True)):
        bounds = (0.0, float(base.link_gbps)) if y == "incast_goodput_gbps" else _PHYSICAL.get(y, (-math.inf, math.inf))
        fig, ax = plt.subplots(figsize=(7.4, 4.2))
        for s, g in ok.groupby("scheme", sort=False):
            best = best_alpha(g, y, higher, bounds)
            colour, marker = STYLE.get(s, ("k", "x"))
            ax.errorbar(best.index, best["mean"], yerr=[best["mean"] - best["lo"], best["hi"] - best["mean"]],
                        marker=marker, color=colour, capsize=3, label=f"{s} (best alpha)")
        for s, g in df[~df["feasible"]].groupby("scheme", sort=False):   # infeasible: an x on the x axis itself
            colour, _ = STYLE.get(s, ("k", "x"))
            xs = sorted(g["buffer_kb"].unique())
            ax.scatter(xs, [0] * len(xs), marker="x", color=colour, clip_on=False, zorder=5,
                       transform=ax.get_xaxis_transform(), label=f"{s}: infeasible (not run)")
        if targets.get(y) is not None:
            ax.axhline(targets[y], color="grey", linestyle="--", linewidth=1, label=f"target {targets[y]:g}")
        if y == "incast_goodput_gbps":   # the hand bound: the receiver's line rate
            ax.axhline(base.link_gbps, color="k", linestyle=":", linewidth=1,
                       label=f"line rate {base.link_gbps:g} Gb/s")
            ax.set_ylim(0, base.link_gbps * 1.08)
        ax.set_xscale("log", base=2)
        buffers = sorted(df["buffer_kb"].unique())
        ax.set_xticks(buffers)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.minorticks_off()
        if len(buffers) > 6:   # labels of a dense grid would overlap
            plt.setp(ax.get_xticklabels(), rotation=45, ha="right")
        ax.set_yscale("log" if log and len(ok) and (ok[y] > 0).all() else "linear")
        ax.set_xlabel("total buffer per switch (KB)")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        ax.set_title("\n".join(textwrap.wrap(f"{describe_network(base)}: {base.flow_sizes} at {base.load:.0%} + "
                                             f"{base.incast_fanin}:1 incast every {base.incast_period_ms:g} ms "
                                             f"({bars})", 80)), fontsize=8)
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))   # outside the data
        fig.tight_layout()
        fig.savefig(os.path.join(out, name), dpi=110)
        figs.append((name, f"{label} against the total buffer, per scheme (the best alpha at each buffer, {bars}; "
                           f"x on the axis: infeasible)"))
    plt.close("all")
    return figs


def hand_formulas(base, df: pd.DataFrame, dctcp_k_kb: Optional[float] = None) -> List[str]:
    """The textbook numbers an architect checks a curve against, each with the simulated value beside it where
    the study has one: the receiver's line rate (the incast goodput's ceiling), the bandwidth-delay product and
    DCTCP's K rule (C x RTT / 7), PFC's headroom, and the dynamic threshold's steady state alpha B / (1 + N alpha)
    (N queues congested at once; one for the incast's port) against the shared pool's simulated peak."""
    rtt_s = base_rtt_s(base)
    bdp_kb = base.link_gbps * 1e9 * rtt_s / 8 / 1024
    ok = df[df["feasible"]]
    lines = []
    if "incast_goodput_gbps" in ok and len(ok):
        lines.append(f"incast goodput cannot exceed the receiver's line rate, {base.link_gbps:g} Gb/s; the best "
                     f"simulated mean is {ok.groupby(['scheme', 'buffer_kb', 'alpha'])['incast_goodput_gbps'].mean().max():.2f} Gb/s.")
    lines.append(f"base RTT {rtt_s * 1e6:.1f} us (4 x {base.delay_us:g} us of cable, a frame each way), BDP C x RTT = "
                 f"{bdp_kb:.1f} KB at {base.link_gbps:g} Gb/s; DCTCP's rule K > C x RTT / 7 = {bdp_kb / 7:.1f} KB "
                 f"(the study's dctcp scheme uses K = "
                 f"{default_dctcp_k_kb(base) if dctcp_k_kb is None else dctcp_k_kb:.1f} KB"
                 f"{' (the rule, at least two frames)' if dctcp_k_kb is None else ' (given)'}, capped at a quarter "
                 f"of the buffer).")
    lines.append(f"PFC headroom pool (every port paused at once, the pause formula per link): "
                 f"{headroom_pool_kb(base):.0f} KB, taken from each buffer before the shared pool.")
    dt = ok[ok["scheme"] == "droptail"] if "scheme" in ok else ok
    for (b, a), g in dt.groupby(["buffer_kb", "alpha"]):
        peak = g["shared_peak_kb"].mean()
        one = a * b / (1 + a)
        lines.append(f"drop-tail, B = {b:g} KB, alpha {a:g}: one congested queue holds at most alpha B / (1 + alpha) = "
                     f"{one:.0f} KB, two {2 * a * b / (1 + 2 * a):.0f} KB in all; simulated shared-pool peak "
                     f"{peak:.0f} KB (mean of {len(g)} seed(s)).")
    return lines


def _reading(base, df, minbuf, target, mingood=None, target_goodput=None, quick=False) -> List[str]:
    """The report's reading: per scheme its answer (or why it has none), where an interval holds the target, the
    incast completion tail beside the small-flow tail, a tail that grows with the buffer, infeasible points."""
    def missing(b) -> bool:
        return b is None or (isinstance(b, float) and math.isnan(b))

    def sure(r) -> str:
        return (f"{r.seeds} seeds, the whole 95 % interval on the good side" if r.seeds > 1 else
                "one seed: no interval, run more seeds before trusting it")

    reading = []
    for r in minbuf.itertuples():
        if missing(r.smallest_from_which_all_meet_kb):
            near = f"; the mean meets it at {r.smallest_meeting_kb:g} KB but not with confidence" \
                if not missing(r.smallest_meeting_kb) else ""
            if r.meeting_kb:
                reading.append(f"{r.scheme}: meets the target with confidence at {r.meeting_kb} KB but not at every "
                               f"larger buffer tested, so there is no answer \"from this buffer on\" (best mean p99 "
                               f"small-flow slowdown {r.best_p99_small_slowdown:.1f}; {sure(r)}).")
            else:
                reading.append(f"{r.scheme}: no buffer tested meets the target with confidence (best mean p99 "
                               f"small-flow slowdown {r.best_p99_small_slowdown:.1f}{near}; {r.seeds} seed(s)).")
        else:
            extra = "" if r.smallest_meeting_kb == r.smallest_from_which_all_meet_kb else \
                f" (the mean meets it already at {r.smallest_meeting_kb:g} KB, but not every larger buffer does " \
                f"with confidence: not monotone, or an interval holds the target)"
            reading.append(f"{r.scheme}: {r.smallest_from_which_all_meet_kb:g} KB and every larger buffer tested meet "
                           f"the target (at it: alpha {r.alpha_at_answer:g}, {r.mean_at_answer:.1f} +- "
                           f"{r.ci_at_answer:.1f}; {sure(r)}){extra}. The grid's resolution is the answer's: the "
                           f"truth lies between the buffer below it and it.")
        if r.straddling_kb:
            reading.append(f"{r.scheme}: the target lies inside the interval at {r.straddling_kb} KB (undecided there"
                           + ("; this quick run does not decide: run the full study or more seeds)." if quick else ")."))
    reading += _tail_readings(df, minbuf, base)
    if mingood is not None:
        for r in mingood.itertuples():
            b = r.smallest_from_which_all_meet_kb
            if missing(b):
                reading.append(f"{r.scheme}: no buffer tested reaches {target_goodput:g} Gb/s of incast goodput "
                               f"with confidence (best mean {r.best:.2f} Gb/s; {r.seeds} seed(s)).")
            else:
                extra = "" if r.smallest_meeting_kb == b else \
                    f" (the mean reaches it at {r.smallest_meeting_kb:g} KB, not with confidence at every larger one)"
                reading.append(f"{r.scheme}: incast goodput >= {target_goodput:g} Gb/s from {b:g} KB on ({sure(r)})"
                               f"{extra}.")
    for r in df[~df["feasible"]].drop_duplicates(["scheme", "buffer_kb"]).itertuples():
        reading.append(f"{r.scheme} at {r.buffer_kb:g} KB is infeasible: {r.reason}.")
    lossy = df[df["feasible"] & (df["scheme"] == "pfc")]
    if len(lossy):
        reading.append(f"PFC runs sent {int(lossy['pause_frames'].sum())} PAUSE frames and dropped "
                       f"{int(lossy['drops'].sum())} frames in all (lossless when 0; lossless priorities: "
                       f"{base.pfc_priorities or 'all'} carry flows on priority {base.flow_prio}, incasts on "
                       f"{base.incast_prio}).")
    return reading


def _tail_readings(df: pd.DataFrame, minbuf: pd.DataFrame, base) -> List[str]:
    """Per scheme, with the alpha the small-flow answer picks at each buffer: the incast completion p99 at the
    answer (or the largest buffer) against its best over the buffers, and each tail (small-flow slowdown, incast
    completion) whose interval at the largest buffer lies wholly above its interval at the smallest: it grows
    with the buffer."""
    out = []
    ok = df[df["feasible"]]
    for s, g in ok.groupby("scheme", sort=False):
        pick = best_alpha(g, "slowdown_p99_small", bounds=_PHYSICAL["slowdown_p99_small"])
        inc = seed_stats(g, "incast_time_p99_ms", bounds=_PHYSICAL["incast_time_p99_ms"]).set_index(
            ["buffer_kb", "alpha"])
        rows = [inc.loc[(b, a)] for b, a in pick["alpha"].items()]
        if not rows:
            continue
        tail = pd.DataFrame(rows, index=pick.index)
        row = minbuf[minbuf["scheme"] == s]
        ans = row["smallest_from_which_all_meet_kb"].iloc[0] if len(row) else None
        answered = ans is not None and not (isinstance(ans, float) and math.isnan(ans))
        at = ans if answered else tail.index.max()
        where = "at its answer" if answered else "at the largest buffer"
        best_b = tail["mean"].idxmin()
        m, lo, hi = tail.loc[at, "mean"], tail.loc[at, "lo"], tail.loc[at, "hi"]
        ratio = m / tail.loc[best_b, "mean"] if tail.loc[best_b, "mean"] > 0 else 1.0
        line = (f"{s}: incast completion p99 {where} ({at:g} KB) {m:.2f} ms [{lo:.2f}, {hi:.2f}]"
                if tail.loc[at, "n"] > 1 else f"{s}: incast completion p99 {where} ({at:g} KB) {m:.2f} ms")
        if ratio >= 1.5 and best_b != at:
            line += (f", {ratio:.1f}x its best ({tail.loc[best_b, 'mean']:.2f} ms at {best_b:g} KB): the small-flow "
                     f"target does not cover the incast")
        out.append(line + ".")
        for what, st in (("p99 small-flow slowdown", pick), ("incast completion p99", tail)):
            first, last = st.index.min(), st.index.max()
            if first != last and st.loc[first, "n"] > 1 and st.loc[last, "lo"] > st.loc[first, "hi"]:
                out.append(f"{s}: its {what} grows with the buffer ({st.loc[first, 'mean']:.3g} at {first:g} KB to "
                           f"{st.loc[last, 'mean']:.3g} at {last:g} KB, the intervals apart): more buffer makes "
                           f"it worse.")
    return out


def _report(out, base, df, minbuf, figures, target, elapsed, mingood=None, target_goodput=None, dctcp_k_kb=None,
            quick=False):
    intro = (f"workload on {describe_network(base)}: {base.flow_sizes} flows at "
             f"{base.load:.0%} load on every host plus a {base.incast_fanin}:1 incast of {base.incast_kb:g} KB every "
             f"{base.incast_period_ms:g} ms, {base.duration_s * 1e3:g} ms of arrivals and {base.drain_ms:g} ms to "
             f"drain per run; shared buffer with dynamic thresholds (alpha per point; the buffer is per switch); "
             f"{len(df)} points ({int((~df['feasible']).sum())} infeasible) in {elapsed:.0f} s. Target: p99 FCT "
             f"slowdown of flows up to 10 KB <= {target:g}" + (f"; incast goodput >= {target_goodput:g} Gb/s"
                                                              if target_goodput else "")
             + f". Hosts: the `{base.host_profile}` profile ({PROFILE_TEXT.get(base.host_profile, '')}), minRTO "
             f"{base.min_rto_ms:g} ms.")
    reading = _reading(base, df, minbuf, target, mingood, target_goodput, quick)
    feasible = df[df["feasible"]]
    keys = ["scheme", "buffer_kb", "alpha"]
    agg = feasible.groupby(keys).size().rename("seeds").reset_index()
    for col, name, bounds in (("slowdown_p99_small", "p99_small", _PHYSICAL["slowdown_p99_small"]),
                              ("slowdown_p99", "p99_all", _PHYSICAL["slowdown_p99"]),
                              ("incast_time_p99_ms", "incast_p99_ms", _PHYSICAL["incast_time_p99_ms"]),
                              ("incast_goodput_gbps", "incast_gbps", (0.0, float(base.link_gbps)))):
        st = seed_stats(feasible, col, keys, bounds) if len(feasible) else pd.DataFrame(columns=keys + ["mean", "lo",
                                                                                                      "hi"])
        agg = agg.merge(st[keys + ["mean", "lo", "hi"]].rename(columns={"mean": name, "lo": name + "_lo",
                                                                       "hi": name + "_hi"}), on=keys, how="left")
    for col in ("drops", "timeouts", "pause_frames"):
        agg = agg.merge(feasible.groupby(keys)[col].mean().rename(col).reset_index(), on=keys, how="left")

    def iv(r, name: str, fmt: str) -> str:
        m, lo, hi = getattr(r, name), getattr(r, name + "_lo"), getattr(r, name + "_hi")
        return f"{m:{fmt}}" if r.seeds < 2 else f"{m:{fmt}} [{lo:{fmt}}, {hi:{fmt}}]"

    title = "Shared-buffer sizing"
    md = [f"# {title}", "", intro, "", "Schemes: " + "; ".join(f"{s}: {SCHEME_TEXT[s]}" for s in
                                                                         df["scheme"].unique()), "",
          "## Reading", ""] + [f"- {line}" for line in reading] + [
          "", "## Every feasible point (mean of seeds [95 % interval, cut to what is possible])", "",
          "| scheme | buffer (KB) | alpha | seeds | p99 slowdown <= 10 KB | p99 slowdown all | incast p99 (ms) | "
          "incast goodput (Gb/s) | drops | timeouts | pause frames |",
          "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in agg.itertuples():
        md.append(f"| {r.scheme} | {r.buffer_kb:g} | {r.alpha:g} | {r.seeds} | {iv(r, 'p99_small', '.1f')} | "
                  f"{iv(r, 'p99_all', '.1f')} | {iv(r, 'incast_p99_ms', '.2f')} | {iv(r, 'incast_gbps', '.2f')} | "
                  f"{r.drops:.0f} | {r.timeouts:.0f} | {r.pause_frames:.0f} |")
    md += ["", "## Hand formulas beside the simulation", ""] + [f"- {line}" for line in
                                                                hand_formulas(base, df, dctcp_k_kb)]
    md += ["", "## Figures", ""]
    for name, caption in figures:
        md += [f"### {caption}", "", f"![{caption}]({name})", ""]
    with open(os.path.join(out, "report.md"), "w") as fh:
        fh.write("\n".join(md))
    write_html(os.path.join(out, "index.html"), title, intro, reading,
               "Every feasible point (mean of seeds, 95 % interval)",
               agg.to_html(index=False, float_format=lambda v: f"{v:.4g}"),
               figures)
