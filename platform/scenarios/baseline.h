// SPDX-License-Identifier: Apache-2.0
// The IEEE 802.1Qau baseline scenarios of Atikoglu & Prabhakar 2008 (docs/spec/qcn-benchmarks.md), 10 Gb/s, 9 KB Bernoulli
// transactions of 1500-byte frames, over UDP or TCP NewReno, with PAUSE and/or QCN:
//  - og-hotspot: 10 nodes on a two-tier leaf-spine (2 leaves of 5 nodes, 2 spines: the slides' figure is lost,
//    so this wiring is ours), loop latency 16 us; nodes 1-6 offer 2.5 Gb/s, nodes 8-10 4 Gb/s, to destinations
//    drawn uniformly among the other nodes; node 7 drains at 500 Mb/s during [0, 500 ms].
//  - periodic-hotspot: the same, with node 7 at 500 Mb/s for 100 ms out of every 200 ms.
//  - pause-spreading: node 1 and node 2 on switch 1, node 3 and node 4 on switch 2, a center switch between,
//    loop latency 24 us; node 1 -> node 3 and node 2 -> node 4 at 10 Gb/s; node 3 drains at 1 Gb/s during
//    [250, 750 ms].
// Victim (hot-spot) traffic goes to the slowed node; the rest is innocent.
#ifndef CMSWITCH_PLATFORM_SCENARIOS_BASELINE_H
#define CMSWITCH_PLATFORM_SCENARIOS_BASELINE_H

#include "model/units.h"
#include "platform/scenario.h"
#include "platform/settings.h"

#include <cstdint>
#include <memory>
#include <string>

namespace cmswitch {

struct baseline_config : run_settings, tcp_settings {
    baseline_config() { tcp.min_rto_ps = ms_to_ps(10); }
    std::string scenario = "og-hotspot";
    std::string cm = "tcp-qcn-pause";   // transport and congestion management
    double link_gbps = 10;
    double hot_rate_gbps = 0;   // 0: the scenario's (0.5 og/periodic, 1 pause-spreading)
    double loop_latency_us = 0;   // 0: the scenario's (16 og/periodic, 24 pause-spreading)
    int64_t txn_bytes = 9000;
    double buffer_kb = 150000.0 / 1024;   // output queue limit without PAUSE (Atikoglu & Prabhakar 2008: 150 KB)
    std::string pause_mode = "pause";   // pause (802.3x) or pfc (802.1Qbb) when the scheme uses PAUSE
    double sample_us = 1000;
    bool series = true;
};

class baseline_scenario final : public configured_scenario<baseline_config> {
public:
    baseline_scenario();
    const char* name() const override { return "baseline"; }
    const char* description() const override {
        return "IEEE 802.1Qau baselines (Atikoglu & Prabhakar 2008): output-generated hotspot, periodic hotspot, PAUSE "
               "spreading";
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
