# SPDX-License-Identifier: Apache-2.0
"""The questions an architect asks: how much buffer does each congestion-management scheme need?"""
from __future__ import annotations

import html
import math
import os
import time
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple

import pandas as pd

from .config import IncastConfig
from .files import write_csv
from .sweep import sweep

PACKET_KB = 1500 / 1024
# what each host profile is (the core's host_profile: platform/settings.h)
PROFILE_TEXT = {
    "linux": "Linux 6.x servers: IW 10, SACK, D-SACK, timestamps, RACK-TLP, delayed ACKs with quick-ACK, byte "
             "counting, cwnd grows only while cwnd-limited, fq with pacing and TCP small queues",
    "ns2": "the TCP validated against ns-2 2.35: IW 2, no SACK or timestamps, an ACK per segment, one FIFO NIC queue",
}


def scheme_overrides(scheme: str, buffer_kb: float) -> Dict[str, Any]:
    """Config fields of a congestion-management scheme at a buffer size (marking thresholds scale with it)."""
    if scheme == "droptail":
        return dict(transport="newreno", ecn=False, marking="none")
    if scheme == "red-ecn":
        return dict(transport="newreno", ecn=True, marking="red", red_kmin_kb=buffer_kb / 4,
                    red_kmax_kb=buffer_kb * 3 / 4, red_pmax=0.1)
    if scheme == "dctcp":
        # K = 20 packets at 1 Gbps (DCTCP paper), at most half the buffer
        return dict(transport="dctcp", ecn=False, marking="step", ecn_k_kb=min(20 * PACKET_KB, buffer_kb / 2))
    if scheme == "pfc":
        return dict(transport="newreno", ecn=False, marking="none", pause="pfc")
    if scheme == "qcn":
        return dict(transport="newreno", ecn=False, marking="none", cm="qcn")
    if scheme == "qcn-mod":
        return dict(transport="newreno", ecn=False, marking="none", cm="qcn", qcn_cp="memory",
                    qcn_rp="adaptive-rai")
    raise ValueError(f"scheme = {scheme!r}: known schemes are {', '.join(SCHEMES)}")


SCHEMES = ("droptail", "red-ecn", "dctcp", "qcn", "qcn-mod", "pfc")
SCHEME_TEXT = {
    "droptail": "TCP NewReno, drop-tail",
    "red-ecn": "TCP NewReno with ECN, RED marking (Kmin = B/4, Kmax = 3B/4, Pmax 0.1)",
    "dctcp": "DCTCP, step marking at K = min(20 packets, B/2)",
    "qcn": "TCP NewReno over IEEE 802.1Qau QCN (standard)",
    "qcn-mod": "TCP NewReno over QCN with congestion-memory sampling and adaptive R_AI (Devkota & Reddy's V)",
    "pfc": "TCP NewReno over 802.1Qbb PFC, the buffer split into one XOFF + headroom per server",
}


class PauseSplit(NamedTuple):
    """PAUSE/PFC watermarks of one input when several share a port's buffer (bytes)."""
    share_bytes: int
    headroom_bytes: int
    xoff_bytes: int        # 0 when the headroom takes the whole share
    xon_bytes: int
    min_xoff_bytes: int    # the smallest XOFF the model accepts as lossless (3 MTU)
    lossless: bool


def pause_split(buffer_kb: float, inputs: int, link_gbps: float, delay_us: float, mtu_bytes: int = 1500) -> PauseSplit:
    """The XOFF/XON the pause scheme chooses when pause_xoff_kb is 0: the port's buffer split into one share per
    sending input, each its headroom (cable both ways, 2 MTU, the 802.3 response time) plus XOFF. Asks the core
    (model/cm/pause), so that the rule lives once."""
    from . import _core
    d = _core.pause_split(buffer_kb, inputs, link_gbps, delay_us, mtu_bytes)
    return PauseSplit(share_bytes=int(d["share_bytes"]), headroom_bytes=int(d["headroom_bytes"]),
                      xoff_bytes=int(d["xoff_bytes"]), xon_bytes=int(d["xon_bytes"]),
                      min_xoff_bytes=int(d["min_xoff_bytes"]), lossless=bool(d["lossless"]))


def pfc_feasible(base: IncastConfig, buffer_kb: float, flows: int) -> bool:
    """Whether the port's buffer can hold every server's XOFF (at least 3 frames) plus its headroom."""
    return pause_split(buffer_kb, flows, base.link_gbps, base.delay_us).lossless


@dataclass
class MinBuffer:
    buffer_kb: float                 # smallest buffer found that meets the target (a point of the search's grid)
    evaluations: pd.DataFrame        # every run made (buffer, seed, metrics)
    resolution_kb: float = 0.0       # the grid's step: the buffer one step below was run and missed the target
    seeds: int = 0

    def __repr__(self) -> str:   # not the evaluations frame (dozens of rows x 160 columns)
        runs = len(self.evaluations)
        below = f", {self.buffer_kb - self.resolution_kb:g} KB misses it" if self.resolution_kb and \
            (self.evaluations["buffer_kb"] == self.buffer_kb - self.resolution_kb).any() else ""
        return (f"MinBuffer(buffer_kb={self.buffer_kb:g}: meets the target (resolution {self.resolution_kb:g} KB"
                f"{below}); {runs} runs, {self.seeds} seed(s) each; .evaluations has them)")


def find_min_buffer(config: IncastConfig, target_goodput_mbps: Optional[float] = None, zero_drops: bool = False,
                    seeds: Sequence[int] = (1, 2, 3), lo_kb: float = 8.0, hi_kb: float = 4096.0,
                    tolerance_kb: float = 4.0, workers: Optional[int] = None, store=None,
                    progress: bool = False, memory_budget_mb: Optional[float] = None) -> MinBuffer:
    """Smallest buffer_kb for which `config` meets the target: mean goodput over `seeds` at least
    target_goodput_mbps, and/or no drop in any seed. Bisection over the grid lo_kb, lo_kb + tolerance_kb, ...,
    hi_kb (the answer is a buffer that was run, and the one a step below was run and missed), assuming the target,
    once met, stays met for larger buffers. Raises ValueError if hi_kb misses it."""
    if target_goodput_mbps is None and not zero_drops:
        raise ValueError("give target_goodput_mbps, zero_drops=True, or both")
    if not (0 < lo_kb < hi_kb):
        raise ValueError(f"lo_kb = {lo_kb}, hi_kb = {hi_kb}: need 0 < lo_kb < hi_kb")
    if tolerance_kb <= 0:
        raise ValueError(f"tolerance_kb = {tolerance_kb}: must be > 0")
    frames: List[pd.DataFrame] = []
    # the search runs on the grid lo_kb + k x tolerance_kb (hi_kb the last point): every answer is a buffer that
    # was run, to the grid's resolution (no "5673.23 KB")
    steps = math.ceil((hi_kb - lo_kb) / tolerance_kb - 1e-9)

    def at(k: int) -> float:
        return float(min(hi_kb, lo_kb + k * tolerance_kb))

    def meets(buffer_kb: float) -> bool:
        df = sweep(config.replace(buffer_kb=float(buffer_kb)), {"seed": list(seeds)}, workers=workers, store=store,
                   progress=progress, errors="raise", memory_budget_mb=memory_budget_mb)
        frames.append(df)
        ok = True
        if target_goodput_mbps is not None:
            ok = ok and df["goodput_mbps"].mean() >= target_goodput_mbps
        if zero_drops:
            ok = ok and int(df["drops"].sum()) == 0
        return ok

    if not meets(hi_kb):
        raise ValueError(f"hi_kb = {hi_kb} KB does not meet the target; raise hi_kb")
    lo, hi = 0, steps
    if meets(at(lo)):
        hi = lo
    else:
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if meets(at(mid)):
                hi = mid
            else:
                lo = mid
    return MinBuffer(buffer_kb=at(hi), evaluations=pd.concat(frames, ignore_index=True),
                     resolution_kb=float(tolerance_kb), seeds=len(seeds))


def min_buffers(df: pd.DataFrame, cases: Sequence[Tuple[str, float]], flows: Sequence[int], target: float,
                line_rate: float) -> pd.DataFrame:
    """Per (scheme, minRTO, flows): min_buffer_kb, the smallest buffer from which every larger buffer tested has
    its goodput's whole 95 % interval (over the seeds, cut to [0, line_rate]) at or above `target`;
    first_mean_meeting_kb, the smallest whose mean meets it; seeds; the best mean; where the scheme could run."""
    feasible = df[df["infeasible"].fillna("") == ""]
    from .plots import bounded_ci
    stats = []
    for key, g in feasible.groupby(["scheme", "min_rto_ms", "flows", "buffer_kb"]):
        m, _, n, lo, hi = bounded_ci(g["goodput_mbps"], (0.0, line_rate))
        stats.append(dict(zip(("scheme", "min_rto_ms", "flows", "buffer_kb"), key), goodput_mbps=m, lo=lo, hi=hi,
                          n=n))
    mean = pd.DataFrame(stats, columns=["scheme", "min_rto_ms", "flows", "buffer_kb", "goodput_mbps", "lo", "hi",
                                        "n"])
    rows = []
    for s_, r_ in cases:   # every (scheme, minRTO, flows) gets a row
        for f_ in flows:
            g = mean[(mean["scheme"] == s_) & (mean["min_rto_ms"] == r_) & (mean["flows"] == f_)]
            g = g.sort_values("buffer_kb")
            bad = df[(df["scheme"] == s_) & (df["min_rto_ms"] == r_) & (df["flows"] == f_) &
                     (df["infeasible"].fillna("") != "")]
            ok = g[g["goodput_mbps"] >= target]
            # the answer: the smallest buffer from which every larger one tested meets the target with 95 %
            # confidence (the interval's lower end at or above it; one seed: its value), so a non-monotone curve
            # or a mean that only grazes the target does not decide it
            robust = float("nan")
            for b, lo in zip(reversed(list(g["buffer_kb"])), reversed(list(g["lo"]))):
                if lo < target:
                    break
                robust = float(b)
            smallest_run = float(g["buffer_kb"].min()) if len(g) else float("nan")
            rows.append(dict(scheme=s_, min_rto_ms=r_, flows=f_,
                             min_buffer_kb=robust,
                             first_mean_meeting_kb=float(ok["buffer_kb"].iloc[0]) if len(ok) else float("nan"),
                             seeds=int(g["n"].min()) if len(g) else 0,
                             best_goodput_mbps=float(g["goodput_mbps"].max()) if len(g) else float("nan"),
                             # the smallest buffer the scheme could run at (PFC: where its split first fits)
                             smallest_feasible_kb=smallest_run,
                             infeasible_kb=" ".join(f"{b:g}" for b in sorted(bad["buffer_kb"].unique())),
                             infeasible_reason=str(bad["infeasible"].iloc[0]) if len(bad) else ""))
    return pd.DataFrame(rows)


def buffer_sizing(out: str, flows: Sequence[int] = (2, 4, 8, 16, 32, 64),
                  buffers_kb: Sequence[float] = (16, 32, 64, 128, 256, 512, 1024), schemes: Iterable[str] = SCHEMES,
                  seeds: Sequence[int] = (1, 2, 3, 4, 5), duration_s: float = 10.0,
                  min_rtos_ms: Sequence[float] = (200.0, 10.0), target_fraction: float = 0.9,
                  workers: Optional[int] = None, store=None, progress: bool = True,
                  base: Optional[IncastConfig] = None, memory_budget_mb: Optional[float] = None,
                  quick: bool = False) -> pd.DataFrame:
    """Incast over buffer sizes x flow counts for each scheme and TCP minimum RTO (Devkota & Reddy's set-up, 10 s per
    run, five seeds for 95 % confidence intervals: 2520 points, about 12 minutes on 2 cores); writes a report
    folder `out`: points.csv (every point; PFC points whose lossless split does not fit the buffer are
    recorded with the reason in `infeasible`, not run), min_buffer.csv, goodput_vs_flows_<scheme>_rto<ms>.png,
    goodput_vs_buffer_<n>flows.png, queue_vs_flows.png, report.md and index.html (the plots with a short
    reading). quick: the report is marked "quick: indicative". Returns the points."""
    schemes = list(schemes)
    for s in schemes:
        scheme_overrides(s, 64)   # unknown names fail before any run
    base = base or IncastConfig(duration_s=duration_s, jitter_ns=500.0, sample_us=0.0, host_profile="linux")
    cases = [(s, float(r)) for s in schemes for r in min_rtos_ms]
    # every point is in the sweep: those the core refuses (a PFC buffer too small for one XOFF + headroom per
    # server) come back with the reason in the "infeasible" column and are marked as such in plots and tables
    keep = [(s, r, b, f, seed) for s, r in cases for b in buffers_kb for f in flows for seed in seeds]
    points = [dict(scheme_overrides(s, b), min_rto_ms=r, buffer_kb=float(b), flows=int(f), seed=int(seed))
              for s, r, b, f, seed in keep]
    scheme_of = [s for s, *_ in keep]
    os.makedirs(out, exist_ok=True)
    t0 = time.time()
    df = sweep(base, points=points, workers=workers, store=store, progress=progress, errors="raise",
               memory_budget_mb=memory_budget_mb)
    elapsed = time.time() - t0
    df.insert(0, "scheme", scheme_of)
    if "infeasible" not in df:
        df["infeasible"] = ""
    write_csv(df, os.path.join(out, "points.csv"))

    if "tcp_timestamps" not in df:   # no point ran: nothing to report
        why = df["infeasible"].fillna("").astype(str)
        raise ValueError(f"buffer-sizing study: every point is infeasible (the first: {why.iloc[0]}); give larger "
                         f"buffers (--buffers-kb) or other schemes")
    mss = 1448 if bool(df["tcp_timestamps"].iloc[0]) else 1460   # (the hosts' timestamps take 12 payload bytes)
    line_rate = base.link_gbps * 1000 * mss / 1500   # payload share of the link
    target = target_fraction * line_rate
    minbuf = min_buffers(df, cases, flows, target, line_rate)
    write_csv(minbuf, os.path.join(out, "min_buffer.csv"))

    from . import plots
    figures = []
    ci = f"mean of {len(seeds)} seeds, bars: 95 % confidence interval" if len(seeds) > 1 else "one seed"
    # the hand values: what the link can carry in payload, and the target (a fraction of it)
    hand = [(line_rate, f"payload line rate {line_rate:.0f} Mbps"),
            (target, f"target {target:.0f} Mbps ({target / line_rate:.0%})")]
    several = len(set(flows)) > 1   # against flows: a curve needs two flow counts, one is a lone dot
    for s, r in (cases if several else []):
        fig = plots.goodput_vs_flows(df[(df["scheme"] == s) & (df["min_rto_ms"] == r)],
                                     title=f"How much buffer keeps {s} incast goodput up? (minRTO {r:g} ms; {ci})",
                                     hlines=hand)
        name = f"goodput_vs_flows_{s}_rto{r:g}ms.png"
        fig.savefig(os.path.join(out, name), dpi=110, bbox_inches="tight")
        figures.append((name, f"Goodput vs flows, {SCHEME_TEXT[s]}, minRTO {r:g} ms"))
    labelled = df.assign(case=df["scheme"] + ", minRTO " + df["min_rto_ms"].map(lambda v: f"{v:g} ms"))
    for f in sorted({min(flows, key=lambda x: abs(x - 16)), max(flows)}):
        fig = plots.goodput_vs_buffer(labelled, f, by="case",
                                      title=f"Which scheme needs the least buffer at {f} flows? ({ci})", hlines=hand)
        name = f"goodput_vs_buffer_{f}flows.png"
        fig.savefig(os.path.join(out, name), dpi=110, bbox_inches="tight")
        figures.append((name, f"Goodput vs buffer at {f} flows, every scheme and minRTO (x: infeasible, not run)"))
    biggest = max(buffers_kb)
    if several:
        fig = plots.goodput_vs_flows(labelled[labelled["buffer_kb"] == biggest].assign(
                                         mean_queue_kb=lambda d: d["mean_queue_bytes"] / 1024),
                                     title=f"How full does each scheme keep a {biggest:g} KB buffer? ({ci})",
                                     by="case", y="mean_queue_kb", ylabel="average queue (KB)")
        fig.savefig(os.path.join(out, "queue_vs_flows.png"), dpi=110, bbox_inches="tight")
        figures.append(("queue_vs_flows.png", f"Average bottleneck queue vs flows at {biggest:g} KB"))
    import matplotlib.pyplot as plt
    plt.close("all")

    reading = _reading(minbuf, cases, flows, buffers_kb, target, df, biggest)
    runs = (f"{len(df)} runs ({df.attrs['computed']} computed in {elapsed:.0f} s on this machine"
            + (f", {df.attrs['reused']} from the result store" if df.attrs["reused"] else "") + ")")
    _write_report(out, base, schemes, min_rtos_ms, flows, buffers_kb, seeds, target, minbuf, figures, reading, runs)
    if quick:
        mark_quick(out, f"{len(seeds)} seeds, {len(flows)} flow counts x {len(buffers_kb)} buffers, "
                        f"{base.duration_s:g} s per run")
    return df


def mark_quick(out: str, what: str) -> None:
    """Heads a study's report.md and index.html with the banner of a quick run: indicative, with what it ran."""
    text = (f"Quick run: indicative, not an answer ({what}). An answer here is decided on a 95 % interval over "
            f"few seeds and a small grid; run the study without --quick before using it.")
    md = os.path.join(out, "report.md")
    with open(md) as fh:
        lines = fh.read().split("\n")
    lines[0] = lines[0] + " (quick: indicative)"
    with open(md, "w") as fh:
        fh.write("\n".join(lines[:1] + ["", f"**{text}**"] + lines[1:]))
    page = os.path.join(out, "index.html")
    if os.path.exists(page):
        with open(page) as fh:
            body = fh.read()
        with open(page, "w") as fh:
            fh.write(body.replace("</h1>", f" (quick: indicative)</h1><p><strong>{html.escape(text)}</strong></p>", 1))


def _reading(minbuf: pd.DataFrame, cases, flows, buffers_kb, target, df, biggest) -> List[str]:
    lines = []
    for s, r in cases:
        m = minbuf[(minbuf["scheme"] == s) & (minbuf["min_rto_ms"] == r)].set_index("flows")
        covered = [f for f in flows if pd.notna(m["min_buffer_kb"].get(f))]
        head = f"{s}, minRTO {r:g} ms"
        if not covered:
            lines.append(f"{head}: no buffer up to {max(buffers_kb):g} KB keeps goodput above {target:.0f} Mbps "
                         f"with confidence at any flow count tested.")
            continue
        parts, at_limit = [], []
        for f in covered:
            need = m.at[f, "min_buffer_kb"]
            parts.append(f"{f} flows need {need:g} KB")
            if m.at[f, "infeasible_kb"] and need == m.at[f, "smallest_feasible_kb"]:
                at_limit.append(f)   # not a goodput result: smaller buffers could not run at all
        seeds = int(m["seeds"].min()) if "seeds" in m and len(m) else 0
        text = f"{head}: " + ", ".join(parts) + (f" (95 % confidence over {seeds} seeds)." if seeds > 1 else
                                                 " (one seed: no interval).")
        if at_limit:
            which = "each of these is" if at_limit == covered else \
                f"at {', '.join(str(f) for f in at_limit)} flows that is"
            text += (f" ({which} the smallest buffer where the scheme can run at all, smaller ones being "
                     f"infeasible: a feasibility limit, not a goodput one.)")
        missing = [f for f in flows if f not in covered]
        if missing:
            text += (f" Not reached with confidence up to {max(buffers_kb):g} KB at "
                     f"{', '.join(str(f) for f in missing)} flows.")
        lines.append(text)
    bad = minbuf[minbuf["infeasible_kb"] != ""]
    if len(bad):
        lines.append(f"Infeasible (not run) points: {len(df[df['infeasible'].fillna('') != ''])} runs; " + "; ".join(
            f"{row.scheme} at {row.flows} flows with {row.infeasible_kb.replace(' ', ', ')} KB"
            for row in bad.drop_duplicates(["scheme", "flows"]).itertuples()) +
            f". Reason, e.g.: {bad['infeasible_reason'].iloc[0]}")
    feasible = df[df["infeasible"].fillna("") == ""]
    q = feasible[feasible["buffer_kb"] == biggest].groupby(["scheme", "min_rto_ms"])["mean_queue_bytes"].mean() / 1024
    lines.append(f"Average queue at {biggest:g} KB over all flow counts: " +
                 ", ".join(f"{s} (minRTO {r:g} ms) {q[(s, r)]:.0f} KB" for s, r in cases if (s, r) in q) + ".")
    return lines


def _write_report(out, base, schemes, min_rtos_ms, flows, buffers_kb, seeds, target, minbuf, figures, reading, runs):
    def cell(row) -> str:   # the smallest buffer, "-" not reached, "x" infeasible at every buffer tested
        if pd.notna(row.min_buffer_kb):
            # where the mean met the target at a smaller buffer than the confident answer, that one too
            early = f" ({row.first_mean_meeting_kb:g})" if pd.notna(row.first_mean_meeting_kb) and \
                row.first_mean_meeting_kb < row.min_buffer_kb else ""
            return f"{row.min_buffer_kb:g}{early}"
        if pd.notna(row.first_mean_meeting_kb):
            return f"? ({row.first_mean_meeting_kb:g})"
        return "x" if pd.isna(row.smallest_feasible_kb) else "-"
    table = minbuf.assign(case=minbuf["scheme"] + ", " + minbuf["min_rto_ms"].map(lambda v: f"{v:g} ms"),
                          shown=[cell(r) for r in minbuf.itertuples()]).pivot(index="flows", columns="case",
                                                                               values="shown")
    md = ["# Buffer sizing for TCP incast", "",
          f"Incast as Devkota & Reddy 2010 set it up: 1 client, N servers, {base.link_gbps:g} Gbps links, SRU {base.sru_kb:g} KB, "
          f"TCP minRTO {', '.join(f'{r:g}' for r in min_rtos_ms)} ms, {base.duration_s:g} s simulated per run, "
          f"seeds {list(seeds)}, {runs}. Goodput is the mean over seeds; the servers add up "
          f"to {base.jitter_ns:g} ns of random delay per segment. Hosts: the `{base.host_profile}` profile "
          f"({PROFILE_TEXT.get(base.host_profile, base.host_profile)}).", "",
          "Schemes: " + "; ".join(f"**{s}**: {SCHEME_TEXT[s]}" for s in schemes) + ".", "",
          "## Reading", ""] + [f"- {line}" for line in reading] + [
          "", f"## Smallest buffer (KB) from which goodput >= {target:.0f} Mbps (90 % of the payload line rate) "
          f"with 95 % confidence", "",
          f"Columns: scheme, minRTO. Each point is the mean of {len(seeds)} seed(s); a buffer counts when its whole "
          f"95 % interval (Student t over the seeds, cut to the line rate) lies at or above the target, and the "
          f"answer is the smallest buffer from which every larger one tested counts. The answer's resolution is the "
          f"grid's ({', '.join(f'{b:g}' for b in sorted(buffers_kb))} KB): the truth lies between it and the buffer "
          f"below.", "",
          "| flows | " + " | ".join(table.columns) + " |", "|---" * (len(table.columns) + 1) + "|"]
    for f, row in table.iterrows():
        md.append(f"| {f} | " + " | ".join(row) + " |")
    md += ["", "`-`: not reached with the largest buffer tested; `x`: infeasible at every buffer tested (see below); "
           "`(N)`: the mean already met the target at N KB, but not with confidence at every larger buffer (noise, "
           "or a curve that is not monotone); `? (N)`: only the mean meets it, at N KB. "
           "Every run: `points.csv`; this table: `min_buffer.csv`."]
    bad = minbuf[minbuf["infeasible_kb"] != ""].drop_duplicates(["scheme", "flows"])
    if len(bad):
        md += ["", "## Infeasible points (recorded, not run)", "",
               "| scheme | flows | buffers (KB) | reason |", "|---|---|---|---|"]
        md += [f"| {r.scheme} | {r.flows} | {r.infeasible_kb.replace(' ', ', ')} | {r.infeasible_reason} |"
               for r in bad.itertuples()]
    md += ["", "## Figures", ""]
    for name, caption in figures:
        md += [f"### {caption}", "", f"![{caption}]({name})", ""]
    with open(os.path.join(out, "report.md"), "w") as fh:
        fh.write("\n".join(md))
    write_html(os.path.join(out, "index.html"), "Buffer sizing for TCP incast", md[2], reading,
               "Smallest buffer (KB)", table.to_html(), figures)


def write_html(path: str, title: str, intro: str, reading: Sequence[str], table_title: str, table_html: str,
               figures: Sequence[Tuple[str, str]]) -> None:
    """A study's index.html: title, the set-up, the reading as a list, one table, the figures with captions."""
    body = [f"<h1>{html.escape(title)}</h1>", f"<p>{html.escape(intro)}</p>", "<h2>Reading</h2><ul>"] + \
           [f"<li>{html.escape(line)}</li>" for line in reading] + ["</ul>", f"<h2>{html.escape(table_title)}</h2>",
            table_html, "<h2>Figures</h2>"] + \
           [f"<figure><img src='{n_}' alt='{html.escape(c)}'><figcaption>{html.escape(c)}</figcaption></figure>"
            for n_, c in figures]
    with open(path, "w") as fh:
        fh.write(f"<!doctype html><meta charset='utf-8'><title>cmswitch: {html.escape(title)}</title>"
                 "<style>body{font-family:sans-serif;max-width:980px;margin:2em auto}img{max-width:100%}"
                 "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px}</style>"
                 + "\n".join(body))
