// SPDX-License-Identifier: Apache-2.0
// TCP incast (Devkota & Reddy 2010 section IV): one client, `flows` servers on one switch, all links at link_gbps; the
// switch port toward the client is the bottleneck whose static buffer is buffer_kb. Optional background traffic to
// the same client from hosts of their own: long-lived bulk TCP flows and elephant flows of random size. Schemes:
// marking (step, red), cm (qcn), pause (pause, pfc), as registered.
#ifndef CMSWITCH_PLATFORM_SCENARIOS_INCAST_H
#define CMSWITCH_PLATFORM_SCENARIOS_INCAST_H

#include "platform/scenario.h"
#include "platform/settings.h"

#include <cstdint>
#include <memory>
#include <string>

namespace cmswitch {

struct incast_config : buffer_settings, run_settings, tcp_settings {
    incast_config() {
        buffer_kb = 128;
        duration_s = 20;
    }
    int64_t flows = 8;
    double sru_kb = 256;
    double link_gbps = 1;
    double server_link_gbps = 0;
    double server_uplink_gbps = 0;
    double delay_us = 25;
    double delay_skew_ns = 0;
    std::string request_timing = "simultaneous";
    double request_spread_us = 0;
    int64_t bulk_flows = 0;
    int64_t elephant_flows = 0;
    double elephant_min_mb = 100;
    double elephant_max_mb = 512;
    double udp_cbr_mbps = 0;
    double rate_sample_us = 1000;
    double sample_us = 1000;
    bool series = false;
    bool trace = false;
    bool trace_acks = false;
};

class incast_scenario : public configured_scenario<incast_config> {
public:
    incast_scenario();
    const char* name() const override { return "incast"; }
    const char* description() const override {
        return "barrier-synchronized TCP incast: a client fetches one SRU from each of N servers per round";
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

// The incast of Wang et al. 2015 (DC-Vegas, section 2): 47 hosts on one 1 Gb/s switch, a subset of the 46 senders
// repeatedly sends 128 KB blocks to one receiver; the incast scenario with those defaults and transport vegas
// (newreno, dctcp with marking, dc-vegas to compare).
class vegas_incast_scenario final : public incast_scenario {
public:
    vegas_incast_scenario();
    const char* name() const override { return "vegas-incast"; }
    const char* description() const override {
        return "the incast of Wang et al. 2015 (DC-Vegas): up to 46 senders repeatedly send 128 KB blocks to one "
               "receiver at 1 Gb/s (Vegas, "
               "DC-Vegas, Reno, DCTCP)";
    }
};

}   // namespace cmswitch
#endif
