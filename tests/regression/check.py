#!/usr/bin/env python3
"""Runs every case of tests/regression/cases.txt and compares its JSON with tests/regression/expected/<name>.json,
apart from wall_s (and keys listed in RENAMED, for a deliberate rename). A refactor must leave every case
bit-identical; a change of behaviour regenerates the set (--update) in its own commit, saying why.

Usage: check.py SIM [--update] [--only NAME]
"""
import json
import os
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# old key -> new key (summary keys and table columns), for renames a refactor makes on purpose; the
# hot-spot traffic of the baselines was called "victim", the usual name of the innocent flow PAUSE spreading hits
RENAMED = {"victim_gbps": "hotspot_gbps", "victim_gbps_congested": "hotspot_gbps_congested",
           "victim_gbps_uncongested": "hotspot_gbps_uncongested",
           "ideal_victim_gbps_congested": "ideal_hotspot_gbps_congested",
           "ideal_victim_gbps_uncongested": "ideal_hotspot_gbps_uncongested"}
# keys a refactor adds on purpose (NIC drops by reason; schemes report the same keys in every scenario:
# qcn_cp and qcn_rp with QCN in overload too, pause_xoff_bytes with PAUSE in baseline too), and keys whose meaning
# it narrows on purpose. An added key is compared only where the expected output has it.
# drop reasons of the packet-counted transmit queue and of DBL
ADDED = {"drops_rate_limiter_full", "qcn_cp", "qcn_rp", "pause_xoff_bytes", "pause_xon_bytes", "drops_port_packet_limit", "drops_aqm",
         # time-weighted occupancy percentiles and pause episodes
         "pause_episodes", "pause_episode_p50_us", "pause_episode_p99_us", "pause_episode_max_us",
         "queue_p50_kb", "queue_p90_kb", "queue_p99_kb", "queue_p999_kb",
         "bottleneck_queue_p50_kb", "bottleneck_queue_p90_kb", "bottleneck_queue_p99_kb", "bottleneck_queue_p999_kb",
         "paused_ms_max_port", "cnms",   # (incast now reports its switch ports as baseline does)
         "drops_qdisc_limit",   # the host qdisc's packet limits (fq)
         # the host profile and what it decided
         "host_profile", "host_qdisc", "host_small_queues", "host_pacing", "tcp_init_cwnd", "tcp_sack", "tcp_rack_tlp",
         "tcp_timestamps", "tcp_delayed_ack", "tcp_cwnd_validation", "tcp_abc", "tcp_dsack", "tcp_quickacks",
         "tcp_rto_rule", "tcp_ecn_reduction", "tcp_hystart", "tcp_gso_max_kb", "host_bql", "host_nic_ring_kb",
         "host_tx_coalesce_us", "host_tx_coalesce_frames", "host_bql_limit_max_kb", "host_latency_us",
         "host_rx_coalesce_us", "host_rx_coalesce_frames", "host_gro_max_kb", "host_rx_polls", "host_gro_aggregates",
         "host_gro_merged_frames", "retransmitted_bytes", "retransmitted_bytes_loss", "retransmitted_bytes_probe",
         "retransmitted_bytes_spurious", "drops_qdisc_codel", "host_codel_marks",
         # the buffer's accounting unit (cells) and its peaks in cells
         "cell_bytes", "pool_max_cells_max_switch", "shared_peak_cells",
         # the service-pool MMU's drop reasons (ingress side, egress static limit)
         "drops_ingress_threshold", "drops_ingress_pool_full", "drops_queue_limit",
         # cut-through switches' frames
         "cut_through_frames", "cut_through_stored",
         # every scenario's summary has the same keys whatever the config: drops by priority and by traffic, PAUSE
         # from both ends of a link, the measurement window and the messages in every rdma-incast run
         "drops_prio0", "drops_prio1", "drops_prio2", "drops_prio3", "drops_prio4", "drops_prio5", "drops_prio6",
         "drops_prio7", "drops_flows", "drops_incast", "drops_incast_prio", "pausing_ms_max_port", "paused_ms_max_nic",
         "delay_p50_us_after_warmup", "delay_p99_us_after_warmup", "delay_max_us_after_warmup",
         "goodput_gbps_after_warmup", "qps_unfinished", "qps_unfinished_names", "message_time_p50_ms",
         "message_time_p99_ms", "message_time_max_ms", "incast_completed", "incast_time_ms", "flows_in_warmup",
         "host_wait_p50_small_us", "host_wait_p99_small_us", "dbl_marks", "dbl_drops", "headroom_pool_peak_kb",
         "ingress_reserved_peak_kb", "host_queue_max_kb", "host_socket_queue_max_kb", "small_queue_excess_max_bytes",
         "retransmitted_segments", "loss_probes", "loss_probe_recoveries", "rack_losses", "dsacks",
         "avg_minrate_mbps", "avg_minrate_x_flows_mbps", "mean_queue_bytes_after_warmup", "drops_after_warmup",
         "transport", "marking", "marks"}
# tables and table columns added on purpose (compared only where the expected output has them)
ADDED_TABLES = {"pause_episodes", "queue_cdf", "bottleneck_queue_cdf", "ports", "hosts", "priorities"}
ADDED_COLUMNS = {"retransmitted_bytes_spurious", "rx_ring_wait_mean_us", "pool_max_cells", "cell_bytes", "queue_p99_kb", "queue_p50_kb", "paused_ports_switch0", "paused_ports_switch1", "paused_ports_switch2",
                 "paused_ports_switch3", "paused_transmitters",
                 "flow"}   # sctp-incast's incidents: the request's association
SPLIT = {"drops_nic_queue_full"}   # was every NIC drop; now the queue-limit ones (+ drops_rate_limiter_full)
# keys whose value changes on purpose, not compared (why)
CHANGED = {"trace_drop_reason_codes": "lists the new drop reasons rate_limiter_full, port_packet_limit, aqm"}


def cases():
    with open(os.path.join(HERE, "cases.txt")) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                name, *args = shlex.split(line)
                yield name, args


def normalize(text):
    d = json.loads(text)
    d.pop("wall_s", None)
    for old, new in RENAMED.items():
        if old in d:
            d[new] = d.pop(old)
        for t in (d.get("tables") or {}).values():
            if old in t:
                t[new] = t.pop(old)
    if "drops_rate_limiter_full" in d:   # compare the sum with the former single key
        d["drops_nic_queue_full"] += d.pop("drops_rate_limiter_full")
    for k in CHANGED:
        d.pop(k, None)
    return json.dumps(d, indent=1, sort_keys=False)


def main():
    sim = sys.argv[1]
    update = "--update" in sys.argv
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    os.makedirs(os.path.join(HERE, "expected"), exist_ok=True)
    failed = []
    for name, args in cases():
        if only and name != only:
            continue
        out = subprocess.run([sim] + args, capture_output=True, text=True)
        if out.returncode != 0:
            failed.append(f"{name}: exit {out.returncode}: {out.stderr.strip()}")
            continue
        got = normalize(out.stdout)
        path = os.path.join(HERE, "expected", name + ".json")
        if update:
            with open(path, "w") as f:
                f.write(got + "\n")
            continue
        with open(path) as f:
            want = normalize(f.read())
        w = json.loads(want)
        g = {k: v for k, v in json.loads(got).items() if k in w or k not in ADDED}
        if isinstance(g.get("tables"), dict):
            wt = w.get("tables", {})
            g["tables"] = {name: {c: v for c, v in cols.items() if c in wt.get(name, {}) or c not in ADDED_COLUMNS}
                           for name, cols in g["tables"].items() if name in wt or name not in ADDED_TABLES}
        if g != w:   # (key order aside: a renamed key moves)
            a, b = w, g
            diff = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
            failed.append(f"{name}: differs in {', '.join(diff[:8])}{' ...' if len(diff) > 8 else ''}")
    if update:
        print("expected results written")
        return 0
    for f in failed:
        print("FAIL", f)
    print(f"{len(list(cases())) - len(failed)} of {len(list(cases()))} cases identical")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
