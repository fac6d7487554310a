# SPDX-License-Identifier: Apache-2.0
"""What each summary key counts. Every scenario reports the same keys whatever its config (a key that belongs to
a choice that is off is 0, or "none" for a name), so a script over a sweep can read every key of every row.
``describe(key)`` gives one key's meaning; docs/metrics.md is this table with the scenarios that report each key
(scripts/gen_metrics_doc.py writes it).

Units are in the name: _bytes, _kb (1024 B), _mbps / _gbps, _us / _ms / _s, _frames; a name without one is a
count, a fraction (0-1) or a name."""
from __future__ import annotations

import re
from typing import Dict, List, Tuple

# (pattern, meaning), the first match wins; \1 in a meaning is the pattern's first group
MEANINGS: List[Tuple[str, str]] = [
    # the run
    (r"scenario", "the scenario that ran"),
    (r"wall_s", "wall-clock seconds the run took on this machine (the only key that is not deterministic)"),
    (r"simulated_s", "simulated seconds"),
    (r"events", "model events dispatched (see events_kind)"),
    (r"events_kind", "what `events` counts"),
    (r"conservation_ok", "offered = delivered + dropped + queued + in flight held, to the byte"),
    (r"(offered|delivered|queued|in_flight|dropped)_bytes",
     r"bytes on the wire \1 in the conservation account (every host and switch)"),
    # configuration echoed
    (r"flows", "the run's flows: TCP connections, or queue pairs (senders x qps)"),
    (r"(senders|load|link_gbps|buffer_kb|buffer_policy|min_rto_ms|transport|marking|cm|pause|uplinks|"
     r"flow_sizes|baseline|sctp_cc)",
     "the config's field of that name, as run"),
    (r"host_(profile|qdisc|pacing|small_queues|bql|nic_ring_kb|tx_coalesce_us|tx_coalesce_frames|latency_us|rx_coalesce_us|"
     r"rx_coalesce_frames|gro_max_kb)",
     r"the hosts' \1 (host_profile and what it decided)"),
    (r"tcp_(init_cwnd|sack|dsack|rack_tlp|timestamps|delayed_ack|quickacks|cwnd_validation|abc|rto_rule|ecn_reduction|hystart|gso_max_kb)",
     r"the TCP hosts' \1 setting, as the host profile decided it"),
    (r"flow_size_mean_bytes", "mean of the flow-size distribution (bytes)"),
    (r"offered_load_measured", "payload the completed Poisson flows carried over the measured time, as a share of "
     "the capacity of the hosts that offer load"),
    (r"cell_bytes", "the buffer's accounting cell (0: bytes)"),
    (r"qcn_(cp|rp)", r"QCN's \1 variant (\"none\" without QCN)"),
    (r"pause_(xoff|xon)_bytes", r"PAUSE/PFC's per-input \1 threshold as installed (0 without PAUSE, or where the "
     r"buffer's own profiles decide)"),
    (r"fct_buckets", "the flow-size buckets of the fct_by_size table, in KB and MB of 1024"),
    # drops
    (r"drops", "frames dropped, every switch and NIC, every reason"),
    (r"network_drops", "frames the switches dropped (drops less the NICs')"),
    (r"drops_prio(\d)", r"frames the switches dropped carrying priority \1, every reason"),
    (r"drops_incast_prio", "switch drops of frames on the incasts' priority, whatever traffic carries it (0 "
     "without incasts)"),
    (r"drops_flow_prio", "switch drops of frames on the Poisson flows' priority, whatever traffic carries it"),
    (r"drops_incast", "switch drops of frames of the incasts' connections (data and ACKs), whatever priority"),
    (r"drops_flows", "switch drops of frames of the Poisson flows' connections, whatever priority"),
    (r"drops_after_warmup", "frames dropped at the bottleneck after warmup_s (no warm-up: the whole run)"),
    (r"tail_drops", "frames the bottleneck dropped for a full queue"),
    (r"drops_(\w+)", r"frames dropped for the reason \1 (every switch and NIC)"),
    (r"dbl_(drops|marks)(_switch)?", r"DBL's \1 (0 without DBL)"),
    # queues and buffer
    (r"(bottleneck_)?(mean|max)_queue_(bytes|kb)", r"the bottleneck port's \2 queue (\3, time-weighted mean)"),
    (r"mean_queue_bytes_after_warmup", "the bottleneck's mean queue after warmup_s (no warm-up: the whole run)"),
    (r"(bottleneck_)?queue_p(\d+)_kb", r"the bottleneck queue's time-weighted p\2 (KB)"),
    (r"bottleneck_(mean|max)_wait_us", r"the bottleneck's \1 queueing wait of a frame (us)"),
    (r"bottleneck_throughput_mbps", "what the bottleneck port sent (Mb/s, over the run)"),
    (r"bottleneck_tx_frames", "frames the bottleneck port sent"),
    (r"bottleneck_utilization", "the bottleneck link's busy share of the run"),
    (r"queue_p(\d+)_kb_second_half", r"the bottleneck queue's p\1 over the run's second half (KB)"),
    (r"queue_empty_fraction_second_half", "the share of the second half the bottleneck queue was empty"),
    (r"queue_last_fifth_kb", "the bottleneck's mean queue over the run's last fifth (KB)"),
    (r"queue_cdf_(port|queue|switch)", r"the \1 whose queue the queue_cdf table describes"),
    (r"pool_p(\d+)_kb", r"the busiest switch's shared pool, time-weighted p\1 (KB)"),
    (r"pool_p99_kb_max_switch", "the largest p99 of any switch's shared pool (KB)"),
    (r"pool_cdf_switch", "the switch the pool_cdf table describes (the busiest)"),
    (r"pool_max_cells_max_switch", "the shared pool's size in cells, the largest switch's"),
    (r"shared_peak_kb_max_switch", "the shared pool's peak occupancy, the largest of any switch (KB)"),
    (r"headroom_pool_peak_kb", "the PFC headroom pool's peak, the largest of any switch (KB; 0 without one)"),
    (r"headroom_p99_kb_max_switch", "the PFC headroom pool's time-weighted p99, the largest of any switch (KB)"),
    (r"ingress_reserved_peak_kb", "PFC's ingress reserves' peak (pause_reserved_kb; 0 without them)"),
    (r"cut_through_(frames|stored)", r"frames that went cut-through / were stored instead (\1)"),
    (r"frames_forwarded|switch_frames_sent", "frames the switches sent"),
    (r"data_frames_to_(client|receiver)", r"data frames the switch sent to the \1"),
    (r"host_queue_max_kb", "the most any host held below TCP (qdisc and NIC queue, KB; 0 where the hosts do not "
     "account below TCP)"),
    (r"host_socket_queue_max_kb", "the most one socket held below TCP in any host (KB of skb truesize, as TCP "
     "small queues count; 0 as host_queue_max_kb)"),
    (r"host_bql_limit_max_kb", "the largest byte queue limit any host's NIC queue reached (BQL, KB; 0 without BQL)"),
    (r"host_rx_polls", "receive polls the hosts' NICs ran, one per receive interrupt (0 without interrupt moderation)"),
    (r"host_gro_aggregates", "GRO skbs of more than one frame the hosts' receive polls delivered (0 without GRO)"),
    (r"host_gro_merged_frames", "the frames those GRO skbs carried"),
    (r"host_codel_marks", "frames the hosts' fq_codel (CoDel) marked CE (its drops: drops_qdisc_codel)"),
    (r"small_queue_excess_max_bytes", "the most a socket went over its small-queue limit (TSQ; 0 without one)"),
    # PAUSE
    (r"pause_frames", "PAUSE/PFC frames the switches sent (XOFF and refreshes)"),
    (r"paused_ms_max_port", "the longest any switch port's transmitter was held by PAUSE it received (ms)"),
    (r"pausing_ms_max_port", "the longest any switch port held the transmitter at the far end of its link (a "
     "host's NIC, another switch's port) with PAUSE it sent (ms)"),
    (r"paused_ms_max_nic", "the longest any host's NIC was held by PAUSE (ms)"),
    (r"pause_episodes", "pause episodes of every transmitter and class (a run of consecutive paused time)"),
    (r"pause_episode_(p50|p99|max)_us", r"the \1 length of a pause episode (us)"),
    (r"cnms", "QCN congestion notifications the switches sent"),
    # TCP
    (r"timeouts", "TCP retransmission timeouts, every flow"),
    (r"timeouts_per_flow_mean", "TCP timeouts per flow, mean"),
    (r"timeouts_max_flow", "the most TCP timeouts of one flow"),
    (r"background_timeouts", "TCP timeouts of the background flows"),
    (r"(fast_retransmits|limited_transmits|idle_restarts|ecn_reductions|ecn_window_cuts|ecn_in_window_cuts)",
     r"TCP events: \1, every flow"),
    (r"retransmitted_bytes(_total)?", "payload bytes sent again"),
    (r"retransmitted_bytes_loss", "of those, sent for data found lost (a timeout, duplicate ACKs, RACK)"),
    (r"retransmitted_bytes_probe", "of those, sent by tail loss probes"),
    (r"retransmitted_bytes_spurious", "payload the receivers got twice: retransmissions that were not needed, of "
     "either cause"),
    (r"(retransmitted_segments|loss_probes|loss_probe_recoveries|rack_losses|dsacks)",
     r"Linux's nstat counter of the same name (\1; 0 without RACK-TLP)"),
    (r"marks", "frames the switches marked CE"),
    (r"mean_rtt_ms", "mean smoothed RTT of the flows (ms)"),
    # goodput
    (r"goodput_(mbps|gbps)", r"payload delivered in order over the run (\1)"),
    (r"goodput_gbps_after_warmup", "payload through the bottleneck after warmup_ms (Gb/s; no warm-up: the whole run)"),
    (r"goodput_gbps_second_half", "payload delivered over the second half (Gb/s)"),
    (r"payload_delivered_bytes", "payload delivered in order (bytes)"),
    (r"(offered|delivered)_mbps", r"what the senders \1 (Mb/s)"),
    (r"(bulk|elephant|udp)_goodput_mbps", r"goodput of the \1 traffic (Mb/s)"),
    (r"(innocent|hotspot)_gbps(_congested|_uncongested)?", r"goodput of the \1 traffic (Gb/s)\2"),
    (r"ideal_(innocent|hotspot)_gbps(_congested|_uncongested)?", r"the \1 traffic's goodput by hand (Gb/s)"),
    (r"jain_fairness", "Jain's fairness index of the flows' rates (1: equal)"),
    (r"rate_(min|max)_mbps", r"the \1 flow rate (Mb/s)"),
    (r"avg_minrate_mbps", "QCN: the slowest flow's rate, averaged over the samples (Mb/s; line rate without "
     "rate limiters)"),
    (r"avg_minrate_x_flows_mbps", "avg_minrate_mbps x the flows"),
    # delays
    (r"delay_(p50|p99|max)_us", r"the bottleneck's queueing delay of a data frame, \1 (us)"),
    (r"delay_(p50|p99|max)_us_after_warmup", r"the same after warmup_ms (no warm-up: the whole run)"),
    # flows and FCT
    (r"flows_(started|completed)", r"Poisson flows \1 (after the warm-up)"),
    (r"flows_in_warmup", "flows left out: started before the warm-up ended"),
    (r"slowdown_(p50|p99)", r"FCT slowdown (FCT / the flow alone on an idle network with its hosts' latency and receive "
     r"interrupt), \1 over every "
     "flow"),
    (r"slowdown_p99_small", "p99 FCT slowdown of flows up to 10 KB (10,240 B)"),
    (r"slowdown_p99_large", "p99 FCT slowdown of flows of 1-10 MB"),
    (r"host_wait_(p50|p99)_small_us", r"\1 of the small flows' longest wait in their host (us; 0 where the hosts "
     r"do not account below TCP)"),
    (r"net_queue_p99_small_us", "p99 of the small flows' mean network queueing (us)"),
    (r"timed_out_share_small", "share of the small flows that waited out a retransmission timeout"),
    (r"incasts(_completed)?", "incasts started (completed)"),
    (r"bulk_flows", "long-lived flows (bulk_flows per sending host), left out of the completion times"),
    (r"incast_time_(p50|p99)_ms", r"incast completion time, \1 (first request to last byte, ms)"),
    (r"incast_completed", "1 if every queue pair's message was acknowledged by the end"),
    (r"incast_time_ms", "the incast's completion time (0 unless incast_completed)"),
    (r"incast_(rounds|requests|incidents|incidents_per_minute)", r"the incast's \1"),
    (r"(round|request)_(time_)?(p50|p90|p99|max)_ms", r"\1 time, \3 (ms)"),
    (r"rounds_completed|rounds_over_300ms", "incast rounds completed (over 300 ms)"),
    (r"elephant\w*", "the elephant flows' transfers (see the name)"),
    # RDMA
    (r"qps_done", "message queue pairs whose last byte was acknowledged"),
    (r"qps_unfinished", "message queue pairs not done by the end (0 without messages)"),
    (r"qps_unfinished_names", "up to 16 of them by name, sender and QP (\"s3.qp1\")"),
    (r"message_time_(p50|p99|max)_ms", r"a message's completion, \1 (ms; 0 without messages)"),
    (r"cnps_(sent|received)", r"DCQCN CNPs \1"),
    (r"converged", "the bottleneck queue settled under converge_kb for converge_window_ms"),
    (r"convergence_ms", "when it settled (ms)"),
    (r"above_threshold_after_convergence", "share of the time after settling the queue was above converge_kb"),
    # SCTP
    (r"(t1|t3)_timeouts(_\w+)?", r"SCTP \1 timer expiries\2"),
    (r"retransmitted_chunks", "SCTP chunks sent again"),
]
_COMPILED = [(re.compile(p + "$"), m) for p, m in MEANINGS]


# one short run of each scenario (its defaults otherwise): what the table is made from
SHORT_RUNS = {"overload": dict(duration_s=0.005), "incast": dict(duration_s=0.02), "baseline": dict(duration_s=0.005),
              "rdma-incast": dict(duration_s=0.002), "vegas-incast": dict(duration_s=0.01),
              "sctp-incast": dict(duration_s=0.02), "workload": dict(duration_s=0.003)}


def scenario_keys() -> Dict[str, List[str]]:
    """Every summary key -> the scenarios that report it, from one short run of each."""
    from .config import config_class
    from .runner import run
    where: Dict[str, List[str]] = {}
    for name, fields in SHORT_RUNS.items():
        for key in run(config_class(name)(**fields), progress=False).summary:
            where.setdefault(key, []).append(name)
    return where


def metrics_table() -> str:
    """docs/metrics.md: the keys in order, each with its meaning and its scenarios."""
    where = scenario_keys()
    every = len(SHORT_RUNS)
    lines = ["# Summary metrics", "",
             "Every scenario's summary has the same keys whatever its config: a key that belongs to a choice that",
             "is off (a scheme, a host profile, a warm-up) is there at its value when off, 0 or \"none\" for a name.",
             "Units are in the name (_bytes, _kb of 1024 B, _mbps, _gbps, _us, _ms, _s); a name without one is a",
             "count, a share (0-1) or a name. `cmswitch.metrics.describe(key)` gives the same text. This file is",
             "written by `scripts/gen_metrics_doc.py`.", "",
             "| key | scenarios | what it counts |", "|---|---|---|"]
    for key in sorted(where):
        names = "every scenario" if len(where[key]) == every else ", ".join(where[key])
        lines.append(f"| `{key}` | {names} | {describe(key)} |")
    return "\n".join(lines) + "\n"


def describe(key: str) -> str:
    """What a summary key counts; ValueError for a key no scenario reports."""
    for pat, meaning in _COMPILED:
        m = pat.match(key)
        if m:
            return m.expand(meaning)
    raise ValueError(f"{key!r}: not a summary key of any scenario (docs/metrics.md lists them)")


__all__ = ["describe", "metrics_table", "scenario_keys", "MEANINGS", "SHORT_RUNS"]
