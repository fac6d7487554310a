// SPDX-License-Identifier: Apache-2.0
// Datacenter flow workloads and their completion times: hosts on one switch (star) or a two-tier
// leaf-spine (ECMP over the spines), every host sending TCP flows with Poisson arrivals at a target load and sizes
// from an empirical CDF (web-search, data-mining, fb-hadoop) to random other hosts, plus optional periodic incasts.
// Reports flow completion time and slowdown (FCT / the ideal FCT of the flow alone on the network) by size bucket,
// incast completion times, drops, marks, queues and the shared buffer's peak.
#ifndef CMSWITCH_PLATFORM_SCENARIOS_WORKLOAD_H
#define CMSWITCH_PLATFORM_SCENARIOS_WORKLOAD_H

#include "model/units.h"
#include "platform/scenario.h"
#include "platform/settings.h"
#include "traffic/flow_workload.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cmswitch {

struct workload_config : buffer_settings, run_settings, tcp_settings {
    workload_config() {
        buffer_policy = "shared";
        pool_kb = 4096;
        alpha = 1;
        duration_s = 0.1;
        tcp.min_rto_ps = ms_to_ps(10);
        host_profile = "linux";
    }
    std::string topology = "leaf-spine";
    int64_t hosts = 16;
    int64_t leaves = 4, hosts_per_leaf = 8, spines = 2;
    int64_t fat_tree_k = 4;
    double link_gbps = 10, fabric_gbps = 40;
    double delay_us = 1;
    double load = 0.5;
    std::string flow_sizes = "web-search";
    double drain_ms = 50;
    double warmup_ms = 0;
    int64_t uplinks = 0;
    double uplink_gbps = 100;
    double uplink_load = 0;
    int64_t flow_prio = 0;
    std::vector<double> flow_destinations;
    int64_t bulk_flows = 0;
    int64_t incast_fanin = 0;
    double incast_kb = 64;
    double incast_period_ms = 1;
    int64_t incast_receivers = 1;
    std::string incast_from = "any";
    int64_t incast_prio = 0;
    bool flow_table = false;
    bool queue_cdfs = false;
};

class workload_scenario final : public configured_scenario<workload_config> {
public:
    workload_scenario();
    const char* name() const override { return "workload"; }
    const char* description() const override {
        return "datacenter flows: Poisson arrivals at a target load, sizes from an empirical CDF, all-to-all over a "
               "switch or a leaf-spine, optional incasts; flow completion times and slowdowns by size";
    }
    void estimate_cost(run_cost& c) const override;

private:
    struct planned;
    struct run_state;
    scenario_plan plan(result& r) override;
    std::unique_ptr<scenario_run> build(network& net, result& r) override;
    void report(network& net, scenario_run& run, result& r) override;
    flow_workload_config workload_settings(int hosts) const;
    void report_class_drops(const scenario_run& run, result& r) const;
    std::shared_ptr<const planned> m_plan;   // (shared: planned is complete only in the .cpp)
};

}   // namespace cmswitch
#endif
