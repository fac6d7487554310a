// SPDX-License-Identifier: Apache-2.0
// N-to-1 overload: `senders` hosts send UDP (CBR, Poisson or Bernoulli transactions) through one switch to one
// receiving host; the switch port toward the receiver is the bottleneck whose queue, drops and delay we report.
// Scheme: cm (qcn), as registered.
#ifndef CMSWITCH_PLATFORM_SCENARIOS_OVERLOAD_H
#define CMSWITCH_PLATFORM_SCENARIOS_OVERLOAD_H

#include "platform/scenario.h"
#include "platform/settings.h"

#include <cstdint>
#include <string>

namespace cmswitch {

struct overload_config : buffer_settings, run_settings {
    int64_t senders = 4;
    double link_gbps = 1.0;
    double delay_us = 1.0;
    double load = 1.25;
    std::string traffic = "cbr";
    int64_t frame_bytes = 1500;
    int64_t txn_bytes = 1500;
    double nic_queue_kb = 1024;
    double sample_us = 1000;
    bool series = false;
    std::string event_domains = "shared";
    bool no_decoupling = false;
    double warmup_s = 0;
};

class overload_scenario final : public configured_scenario<overload_config> {
public:
    overload_scenario();
    const char* name() const override { return "overload"; }
    const char* description() const override {
        return "N UDP senders into one receiver through one switch: the receiver's port is the bottleneck";
    }
    void estimate_cost(run_cost& c) const override;

private:
    struct run_state;
    scenario_plan plan(result& r) override;
    std::unique_ptr<scenario_run> build(network& net, result& r) override;
    void report(network& net, scenario_run& run, result& r) override;
    uint64_t m_end_ps = 0, m_src_rate = 0;
};

}   // namespace cmswitch
#endif
