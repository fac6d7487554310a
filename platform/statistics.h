// SPDX-License-Identifier: Apache-2.0
// Turns the model's counters into result entries, the same way for every scenario.
#ifndef CMSWITCH_PLATFORM_STATISTICS_H
#define CMSWITCH_PLATFORM_STATISTICS_H

#include "config/result.h"
#include "platform/network.h"
#include "traffic/flow_stats.h"
#include "traffic/tcp/tcp_config.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cmswitch {

// <prefix>throughput_mbps, utilization, mean/max queue bytes and KB, mean/max wait (us), frames sent, and a
// table <prefix>histogram with the time fraction per occupancy band. duration_ps: the run length.
void report_port(result& r, const std::string& prefix, const egress_port& port, uint64_t rate_bps, uint64_t now_ps);
// TCP's retransmissions by cause, over every flow: retransmitted_bytes, of them retransmitted_bytes_loss (sent for
// data found lost: timeout, duplicate ACKs, RACK) and retransmitted_bytes_probe (tail loss probes), and
// retransmitted_bytes_spurious (payload the receivers got twice: retransmissions that were not needed, of either
// cause).
template <typename TcpStats>   // a container of tcp_stats
void report_retransmissions(result& r, const TcpStats& stats) {
    uint64_t all = 0, probe = 0, spurious = 0;
    for (const tcp_stats& st : stats) {
        all += st.retransmitted_bytes;
        probe += st.probe_retransmitted_bytes;
        spurious += st.duplicate_bytes_received;
    }
    r.set("retransmitted_bytes", static_cast<int64_t>(all));
    r.set("retransmitted_bytes_loss", static_cast<int64_t>(all - probe));
    r.set("retransmitted_bytes_probe", static_cast<int64_t>(probe));
    r.set("retransmitted_bytes_spurious", static_cast<int64_t>(spurious));
}
// drops (total frames), drops_<reason> per reason, dropped_bytes; over all switches and NICs.
void report_drops(result& r, const network& net);
// Frames dropped inside the network (by the switches, every reason).
uint64_t switch_drops(const network& net);
// Transmitters (switch egress ports and host NICs) held by a PAUSE/PFC now: the pause state of a series.
int paused_transmitters(const network& net);
// offered/delivered/dropped/queued/in-flight bytes and conservation_ok; throws model_error if it fails.
void report_conservation(result& r, const network& net);
// Tables "ports" (per switch port: PAUSE/PFC sent, XON sent, time paused, queue peak, drops), "hosts" (time
// paused, NIC queue peak) and "priorities" (report_drops_by_priority); in the summary pause_frames, cnms and the
// longest time PAUSE held a transmitter: paused_ms_max_port (a switch port's, PAUSE it received),
// pausing_ms_max_port (the far end of a switch port's link, PAUSE that port sent) and paused_ms_max_nic (a host's).
void report_switch_ports(result& r, const network& net, uint64_t end_ps);
// Table "priorities" (priority, switch_drops) and drops_prio0 .. drops_prio7: the switches' drops by the frame's
// priority, every reason.
void report_drops_by_priority(result& r, const network& net);
// Time-weighted occupancy of a gauge: <prefix>p50_kb, p90, p99, p999 (level_histogram's resolution, 0.8 %) and,
// with cdf, a table <prefix>cdf (bytes: a bucket's lower edge, fraction: of the time at or below it). unit_bytes:
// the bytes of one unit of the gauge (a buffer's cell size; 1 for bytes).
void report_occupancy(result& r, const std::string& prefix, const occupancy_stats& occ, uint64_t now_ps, bool cdf,
                      uint32_t unit_bytes = 1);
// Pause episodes of every transmitter (switch ports and NICs) per class: table "pause_episodes" (node_is_host,
// node, port, class, episodes, p50_us, p99_us, max_us, paused_ms) with a row per transmitter and class that was
// paused; summary pause_episodes, pause_episode_p50_us, pause_episode_p99_us, pause_episode_max_us. An episode
// still running at end_ps counts with its length so far.
void report_pause_episodes(result& r, const network& net, uint64_t end_ps);
// Table "flows": flow, src, dst, sent/received frames and bytes, sent_mbps and received_mbps over duration.
void report_flows(result& r, const std::vector<flow_stats>& flows, uint64_t duration_ps);

// The nearest-rank p-quantile (0 < p <= 1) of v; 0 for none.
double percentile(std::vector<double> v, double p);

inline double mbps(uint64_t bytes, uint64_t duration_ps) {
    return duration_ps ? static_cast<double>(bytes) * 8.0 / (static_cast<double>(duration_ps) * 1e-12) / 1e6 : 0.0;
}

}   // namespace cmswitch
#endif
