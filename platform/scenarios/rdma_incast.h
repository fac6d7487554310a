// SPDX-License-Identifier: Apache-2.0
// RDMA incast (Yang 2018): `senders` hosts with `qps` queue pairs each send to one receiver through one switch
// (RoCEv2 queue pairs, traffic/rdma/rdma_qp.h), all links at link_gbps; the switch port toward the receiver is
// the bottleneck. Schemes: marking (dcqcn: the DCQCN congestion point by default), cm (dcqcn, dcqcn+; none: QPs
// at line rate, scheduled by their NIC), pause (pfc by default: lossless). Reports the bottleneck queue over
// time, when it converged (first time it stays under converge_kb for converge_window_ms), per-flow rates over
// the second half and their Jain fairness, the queueing delay's p50/p99/max, PFC pause frames and paused time
// per port, and CNPs.
#ifndef CMSWITCH_PLATFORM_SCENARIOS_RDMA_INCAST_H
#define CMSWITCH_PLATFORM_SCENARIOS_RDMA_INCAST_H

#include "platform/scenario.h"
#include "platform/settings.h"

#include <cstdint>
#include <memory>
#include <string>

namespace cmswitch {

struct rdma_incast_config : buffer_settings, run_settings {
    rdma_incast_config() {
        buffer_kb = pool_kb = 5222;   // the paper's switch: 5.1 MB
        duration_s = 0.1;
    }
    int64_t senders = 8;
    int64_t qps = 10;
    double link_gbps = 10;
    double delay_us = 1;
    int64_t mtu_bytes = 1024;
    double message_kb = 0;
    int64_t ack_every = 64;
    double rto_us = 67108.864;   // perftest's default: 4.096 us x 2^14
    double start_spread_us = 10;
    double converge_kb = 1024;
    double converge_window_ms = 5;
    double sample_us = 10;
    double warmup_ms = 0;
    bool series = false;
};

class rdma_incast_scenario final : public configured_scenario<rdma_incast_config> {
public:
    rdma_incast_scenario();
    const char* name() const override { return "rdma-incast"; }
    const char* description() const override {
        return "RoCEv2 incast (Yang 2018): S senders x Q queue pairs into one receiver through one switch, DCQCN or "
               "DCQCN+ over PFC";
    }
    void estimate_cost(run_cost& c) const override;

private:
    struct planned;
    struct run_state;
    scenario_plan plan(result& r) override;
    std::unique_ptr<scenario_run> build(network& net, result& r) override;
    void report(network& net, scenario_run& run, result& r) override;
    std::shared_ptr<const planned> m_plan;   // (shared: planned is complete only in the .cpp)
};

}   // namespace cmswitch
#endif
