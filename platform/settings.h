// SPDX-License-Identifier: Apache-2.0
// The parameter blocks scenarios share, each parameter declared once, here: a scenario's settings struct derives
// from the blocks it offers (and sets its own defaults in its constructor), its constructor declares them.
//   run:    duration_s, seed
//   links:  link_gbps, delay_us (each on its own: some scenarios give link rates another way)
//   TCP:    the host's TCP stack: transport (any registered congestion control) and every algorithm's own
//           parameters (declared by the algorithm, traffic/tcp/congestion_control.h), ecn, min_rto_ms, init_cwnd,
//           limited_transmit, slow_start_after_idle, ssthresh_rule, sack, timestamps, rwnd_segments, delayed_ack,
//           jitter_ns, jitter_scope
//   buffer: the switch buffer and its class handling (scenario.h: declare_buffer)
#ifndef CMSWITCH_PLATFORM_SETTINGS_H
#define CMSWITCH_PLATFORM_SETTINGS_H

#include "config/params.h"
#include "traffic/tcp/tcp_config.h"

#include <cstdint>
#include <string>

namespace cmswitch {

struct run_settings {
    double duration_s = 1;
    int64_t seed = 1;
};
// duration_s in (0, max_duration_s], at least 1 us; seed in [0, 2^53).
void declare_run(param_table& t, run_settings& s, double max_duration_s, const std::string& duration_help = "");

void declare_link_rate(param_table& t, double& link_gbps, const std::string& help = "");
void declare_link_delay(param_table& t, double& delay_us);

struct tcp_settings {
    std::string transport = "newreno";
    tcp_config algorithms;   // the congestion controls' own parameters (dctcp_g, vegas_*, dcvegas_*) land here
    bool ecn = false;
    double min_rto_ms = 200;
    int64_t init_cwnd = 2;
    bool limited_transmit = true;
    bool slow_start_after_idle = true;
    std::string ssthresh_rule = "cwnd";
    bool sack = false;
    bool timestamps = false;
    int64_t rwnd_segments = 0;
    bool delayed_ack = false;
    double jitter_ns = 0;
    std::string jitter_scope = "all";
};
void declare_tcp(param_table& t, tcp_settings& s);
// The tcp_config of the settings (the priority left at 0).
tcp_config make_tcp_config(const tcp_settings& s);

}   // namespace cmswitch
#endif
