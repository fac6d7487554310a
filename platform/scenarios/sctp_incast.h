// SPDX-License-Identifier: Apache-2.0
// The testbed of Stewart, Tuexen and Neville-Neil 2011: eleven FreeBSD hosts bsd1..bsd11 (hosts 0..10) on one
// Catalyst 4500, bsd3, bsd4 and bsd8 on 1 Gb/s ports with 1920-frame transmit queues, the others on 100 Mb/s
// ports with 240; DBL on every transmit queue. Every host runs an incast server and an elephant sink; bsd8 runs the
// incast client (a new SCTP association to each of its 10 peers per round, 2 x 1448 bytes from each); bsd3 and
// bsd4 run elephant sources (random 100-512 MB to each peer in turn, bsd4's list reversed). SCTP plain, with ECN,
// DCCC or dynamic DCCC. Outputs: incast incidents (requests over 300 ms), the request completion time
// distribution, elephant bandwidth (transfers to the 100 Mb/s hosts, as the paper counts), DBL drops and marks,
// tail drops, T3 timeouts, mean RTT.
#ifndef CMSWITCH_PLATFORM_SCENARIOS_TESTBED_001_H
#define CMSWITCH_PLATFORM_SCENARIOS_TESTBED_001_H

#include "platform/scenario.h"
#include "platform/settings.h"

#include <cstdint>
#include <memory>
#include <string>

namespace cmswitch {

struct sctp_incast_config : run_settings {
    sctp_incast_config() { duration_s = 60; }
    std::string sctp_cc = "ecn";
    double slow_mbps = 100, fast_mbps = 1000;
    int64_t slow_queue_packets = 240, fast_queue_packets = 1920;
    double delay_us = 5;
    double rto_min_ms = 300, rto_max_ms = 60000, rto_initial_ms = 3000;
    bool delayed_sack = true;
    double sack_delay_ms = 200;
    double lan_rtt_ms = 1.1;
    int64_t abc_l = 1;
    int64_t incast_sends = 2;
    int64_t incast_send_bytes = 1448;
    double incident_ms = 300;
    bool elephants = true;
    double elephant_min_mb = 100000000.0 / 1048576.0;   // the paper's 100,000,000 bytes
    double elephant_max_mb = 512;   // 536,870,912 bytes
    double bin_s = 1;
    bool trace_nic_drops = false;
};

class sctp_incast_scenario final : public configured_scenario<sctp_incast_config> {
public:
    sctp_incast_scenario();
    const char* name() const override { return "sctp-incast"; }
    const char* description() const override {
        return "the SCTP testbed of Stewart et al. 2011: incast client and two elephant sources among 11 hosts on a "
               "DBL switch "
               "(8 x 100 Mb/s, 3 x 1 Gb/s)";
    }
    void estimate_cost(run_cost& c) const override;

private:
    struct run_state;
    scenario_plan plan(result& r) override;
    std::unique_ptr<scenario_run> build(network& net, result& r) override;
    void report(network& net, scenario_run& run, result& r) override;
    void report_incast(const run_state& st, result& r) const;
    void report_nic_drops(network& net, const run_state& st, result& r) const;
    void report_elephants(const run_state& st, result& r) const;
    void report_switch(network& net, result& r) const;
    uint64_t m_end_ps = 0;
};

}   // namespace cmswitch
#endif
