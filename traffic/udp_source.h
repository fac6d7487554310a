// SPDX-License-Identifier: Apache-2.0
// UDP traffic sources (open loop: they do not react to the network).
//  - cbr_source: constant bit rate, one frame every frame_bytes*8/rate, exact to the picosecond without drift
//    (frame k leaves at start + k*bits/rate, computed in integers).
//  - transaction_source: fixed-size transactions (e.g. 9 KB split into 1500-byte frames, IEEE QCN baselines)
//    arriving as a Poisson process or per slot with a Bernoulli trial, to a destination drawn uniformly from a
//    list. The frames of one transaction are handed to the NIC back to back.
#ifndef CMSWITCH_TRAFFIC_UDP_SOURCE_H
#define CMSWITCH_TRAFFIC_UDP_SOURCE_H

#include "model/rng.h"
#include "traffic/flow_stats.h"
#include "traffic/host_stack.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cmswitch {

constexpr uint32_t udp_ip_header_bytes = 28;   // IPv4 20 + UDP 8; frame sizes are IP packet sizes (ns-2 style)

struct cbr_params {
    uint64_t rate_bps = 1000000000;
    uint32_t frame_bytes = 1500;
    uint8_t prio = 0;
    uint64_t start_ps = 0;
    uint64_t stop_ps = UINT64_MAX;
};

class cbr_source final : public timer_client {
public:
    cbr_source(host_stack& host, flow_stats& stats, const cbr_params& p);
    void on_timer(uint32_t tag) override;

private:
    uint64_t time_of(uint64_t k) const;
    host_stack& m_host;
    flow_stats& m_stats;
    cbr_params m_p;
    uint64_t m_k = 0;
};

enum class arrival_process { poisson, bernoulli };
arrival_process parse_arrival_process(const std::string& name);   // throws config_error

struct transaction_params {
    arrival_process arrivals = arrival_process::poisson;
    uint64_t rate_bps = 100000000;   // mean offered load of this source
    uint32_t txn_bytes = 9000;   // bytes per transaction, split into frames of at most frame_bytes
    uint32_t frame_bytes = 1500;
    uint64_t slot_ps = 0;   // bernoulli: slot length (> 0)
    uint8_t prio = 0;
    uint64_t start_ps = 0;
    uint64_t stop_ps = UINT64_MAX;
};

// Gaps between transaction arrivals: exponential (Poisson) or a geometric number of slots (Bernoulli), with
// mean txn_bytes x 8 / rate_bps.
class arrival_clock {
public:
    arrival_clock(const transaction_params& p, rng r) : m_p(p), m_rng(r) {}
    uint64_t next_gap_ps();
    rng& random() { return m_rng; }

private:
    transaction_params m_p;
    rng m_rng;
};

class transaction_source final : public timer_client {
public:
    // flows[i] is the flow (stats) toward destination flows[i]->dst; a destination is drawn uniformly per
    // transaction. r is this source's own random stream.
    transaction_source(host_stack& host, std::vector<flow_stats*> flows, const transaction_params& p, rng r);
    void on_timer(uint32_t tag) override;

private:
    host_stack& m_host;
    std::vector<flow_stats*> m_flows;
    transaction_params m_p;
    arrival_clock m_clock;
    uint64_t m_next_ps = 0;
};

}   // namespace cmswitch
#endif
