// SPDX-License-Identifier: Apache-2.0
// Recorder: flow completion times of a flow workload (traffic/flow_workload.h) against each flow's ideal, by size.
// Reports after the run:
//   fct_by_size   per size bucket (<= 10 KB, 10-100 KB, 100 KB-1 MB, 1-10 MB, > 10 MB; the split of DCTCP and
//                 HPCC): flows, FCT p50/p99 (ms), slowdown p50/p95/p99
//   flows         every completed Poisson flow (source, destination, start, size, FCT, slowdown, priority,
//                 timeouts, retransmissions, its longest and mean wait in its host, its frames' mean queueing in the
//                 network and its largest one-way delay beyond the ideal), with flow_table
//   summary       flows started and completed, slowdown p50/p99 overall, of small and large flows, the incasts
//                 (started, completed, completion time p50/p99); with hosts that account below TCP (a qdisc or
//                 small queues), the split of small flows' FCT: p50/p99 of their longest host wait
// A flow's host wait is how long one of its data frames spent in its sending host, from TCP's send to the start of
// its transmission (qdisc and NIC queue): the longest per flow, so that FCT - host wait is what the network took of
// a flow that fits in one window (fct_by_size: host_wait_p50_us, host_wait_p99_us per bucket).
// A flow's network queueing is its data frames' mean one-way delay (TCP's send to the last bit's arrival) less
// their ideal (frames_ideal_ps) and less their mean host wait: the time in switch queues, paused or not
// (fct_by_size: net_queue_p50_us, net_queue_p99_us of the flows' means; timed_out_share, the share of flows that
// waited out at least one retransmission timeout). Where the receivers moderate their interrupts, a frame's wait in
// the receiving NIC's ring is taken out of it too (flows: rx_ring_wait_mean_us).
// The ideal FCT is the flow alone on an idle network: its whole wire size at the slower of its two host links,
// one frame at the faster one and on every further link, the propagation of every link on its path, and what the
// hosts add (their software latency at both ends, the receive interrupt's wait for the last frame).
#ifndef CMSWITCH_PLATFORM_RECORDERS_FLOW_COMPLETION_H
#define CMSWITCH_PLATFORM_RECORDERS_FLOW_COMPLETION_H

#include "config/result.h"
#include "traffic/flow_workload.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace cmswitch {

// What the ideal of a flow from src to dst needs: every host's link rate, the fabric's, the links on each path.
struct flow_path_model {
    std::vector<uint64_t> host_rate_bps;   // by host id
    uint64_t fabric_rate_bps = 0;
    uint64_t link_delay_ps = 0;
    std::function<int(int src, int dst)> links;   // links on the path between two hosts
    uint32_t mss = 1460, header_bytes = 40;
    // the switches' forwarding: pipeline_ps at every switch; cut_through_bytes > 0: a switch sends a frame on once
    // that much of it is in, where its egress link is not slower than its ingress link
    uint64_t pipeline_ps = 0;
    uint32_t cut_through_bytes = 0;
    // the hosts' software latency, each way (host_latency_us): in every ideal twice, once at each end
    uint64_t host_latency_ps = 0;
    // the receiver NIC's interrupt moderation (rx_coalesce_us): in every ideal once, the wait of the last frame
    uint64_t rx_coalesce_ps = 0;
    // what the hosts add to an ideal: the latency at both ends and the last frame's receive interrupt
    double host_ps() const { return 2 * static_cast<double>(host_latency_ps) + static_cast<double>(rx_coalesce_ps); }
    double ideal_ps(int src, int dst, uint64_t bytes) const;
    // The one-way delays frames of `wire_bytes` in all (`frames` of them) would take alone from src to dst:
    // serialization on every link (store and forward; the first bytes only where a switch cuts through),
    // propagation and the switches' pipelines, summed.
    double frames_ideal_ps(int src, int dst, uint64_t frames, uint64_t wire_bytes) const;

private:
    // the path's link rates in order: the source's, the fabric's, the destination's
    std::vector<double> rates(int src, int dst) const;
};

class network;
class flow_completion_recorder {
public:
    // net: the hosts whose per-socket waits the report reads (their egress accounts below TCP, host_qdisc.h)
    // warmup_ps: flows (and incasts) that start before it are left out (counted as flows_in_warmup)
    flow_completion_recorder(const flow_workload& w, flow_path_model paths, bool flow_table, const network& net,
                             uint64_t warmup_ps = 0)
        : m_workload(w), m_paths(std::move(paths)), m_flow_table(flow_table), m_net(net), m_warmup_ps(warmup_ps) {}
    // Also gives the application bytes of the completed Poisson flows (the measured load).
    uint64_t report(result& r) const;

private:
    const flow_workload& m_workload;
    flow_path_model m_paths;
    bool m_flow_table;
    const network& m_net;
    uint64_t m_warmup_ps;
};

}   // namespace cmswitch
#endif
