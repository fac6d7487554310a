// SPDX-License-Identifier: Apache-2.0
// Datacenter flow workloads over TCP: at every host, flows arrive as a Poisson process whose rate gives the host's
// link a target load (load x rate / mean flow size, in application bytes), with sizes from a flow_size_distribution
// and destinations uniform over the other hosts (all-to-all); optionally, periodic incasts: every period a random
// host receives `incast_bytes` from each of `fanin` random other hosts at once. Each flow is a TCP connection of
// its own (sender and receiver made when it starts, kept to the end of the run); its completion time runs from its
// arrival to its last byte's arrival at the receiver. Optionally, long-lived (bulk) flows: each host that offers
// Poisson flows keeps `bulk_flows` connections sending without end from time 0, the elephants short flows wait
// behind.
#ifndef CMSWITCH_TRAFFIC_FLOW_WORKLOAD_H
#define CMSWITCH_TRAFFIC_FLOW_WORKLOAD_H

#include "traffic/flow_size_distribution.h"
#include "traffic/tcp/tcp_receiver.h"
#include "traffic/tcp/tcp_sender.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

namespace cmswitch {

struct flow_workload_config {
    double load = 0.5;   // of each host's link rate, in application bytes; 0: no Poisson flows
    uint64_t host_rate_bps = 0;
    // Per host (size = hosts, or empty: load and host_rate_bps for every host): the load each host offers and
    // its link rate (uplink hosts of a switch description offer another load, or none).
    std::vector<double> load_by_host;
    std::vector<uint64_t> rate_by_host;
    uint64_t stop_ps = 0;   // no arrivals from then on
    int incast_fanin = 0;   // 0: no incasts
    uint64_t incast_bytes = 0;
    uint64_t incast_period_ps = 0;
    int incast_receivers = 1;   // incasts started together each period, to distinct receivers
    std::vector<int> incast_senders;   // the hosts incast senders are drawn from (empty: every host)
    std::vector<int> incast_targets;   // the hosts incast receivers are drawn from (empty: every host)
    uint8_t incast_prio = 0;   // 802.1p priority of the incast flows (Poisson flows: the tcp_config's)
    // The hosts Poisson flows go to, uniformly (empty: every other host); a host that is the only one listed
    // offers no Poisson flows (it would have to send to itself).
    std::vector<int> destinations;
    // Long-lived flows per host that offers Poisson flows, from time 0 to the end of the run: host h's k-th to
    // the ((h + k) mod n)-th of its destinations (the listed ones or every other host, itself left out).
    int bulk_flows = 0;
    uint64_t seed = 1;
};

class flow_workload final : public tcp_receiver::listener, public timer_client {
public:
    struct flow_record {
        uint32_t flow;
        int src, dst;
        uint64_t bytes;
        uint64_t start_ps;
        uint64_t end_ps;   // 0: not complete
        int64_t incast;   // the incast it belongs to, or poisson, or bulk
        uint64_t delivered = 0;   // a bulk flow's bytes in order at the receiver (others: 0)
    };
    static constexpr int64_t poisson = -1, bulk = -2;
    static constexpr uint64_t bulk_bytes = uint64_t{1} << 50;   // what a bulk flow writes: more than any run sends

    // hosts[i]: host i's stack (every host of the network, by id).
    flow_workload(std::vector<host_stack*> hosts, const tcp_config& tcp, const flow_size_distribution& sizes,
                  const flow_workload_config& cfg);
    void on_timer(uint32_t tag) override;
    void on_delivered(uint32_t flow, uint64_t in_order_bytes, uint64_t now_ps) override;

    const std::vector<flow_record>& flows() const { return m_flows; }
    const std::deque<tcp_stats>& stats() const { return m_stats; }
    // The 802.1p priority a flow's frames carry (an incast's or a Poisson flow's).
    uint8_t prio_of(const flow_record& f) const { return f.incast >= 0 ? m_incast_tcp->prio : m_tcp->prio; }
    // Mean time between two arrivals at one host (ps).

private:
    void start_flow(int src, int dst, uint64_t bytes, uint64_t now, int64_t incast);
    void start_bulk_flows(uint64_t now);
    shared_tcp_config m_incast_tcp;   // every incast flow's connections share it, every Poisson flow's m_tcp
    std::vector<host_stack*> m_hosts;
    shared_tcp_config m_tcp;
    flow_size_distribution m_sizes;
    flow_workload_config m_cfg;
    std::vector<double> m_gap_ps;   // per host: mean time between arrivals (0: no Poisson flows)
    std::vector<rng> m_host_rng;   // one stream per host: arrivals, sizes, destinations
    rng m_incast_rng;
    std::vector<flow_record> m_flows;   // by flow id
    std::deque<tcp_stats> m_stats;   // stable addresses for the connections
    std::vector<std::unique_ptr<tcp_sender>> m_senders;
    std::vector<std::unique_ptr<tcp_receiver>> m_receivers;
    int64_t m_incasts = 0;
};

}   // namespace cmswitch
#endif
