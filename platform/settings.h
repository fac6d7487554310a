// SPDX-License-Identifier: Apache-2.0
// The parameter blocks scenarios share, each parameter declared once, here: a scenario's settings struct derives
// from the blocks it offers (and sets its own defaults in its constructor), its constructor declares them.
//   run:    duration_s, seed
//   links:  link_gbps, delay_us (each on its own: some scenarios give link rates another way)
//   host:   the host's profile and its TCP stack: host_profile (ns2: the set-up validated against ns-2 2.35;
//           linux: a Linux server's defaults), transport (any registered congestion control) and every
//           algorithm's own parameters (declared by the algorithm, traffic/tcp/congestion_control.h), ecn,
//           min_rto_ms, init_cwnd, limited_transmit, slow_start_after_idle, ssthresh_rule, sack, dsack,
//           timestamps, rack_tlp, cwnd_validation, pacing ratios, rwnd_segments, delayed_ack, quickacks,
//           jitter_ns, jitter_scope; and its egress below TCP (host_qdisc, small_queues, pacing, nic_ring_kb,
//           fq quanta, small-queue limit). The settings marked "profile" take the host profile's value unless set.
//   buffer: the switch buffer and its class handling (scenario.h: declare_buffer)
#ifndef CMSWITCH_PLATFORM_SETTINGS_H
#define CMSWITCH_PLATFORM_SETTINGS_H

#include "config/params.h"
#include "model/nic/host_qdisc.h"
#include "traffic/tcp/tcp_config.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cmswitch {

struct run_settings {
    double duration_s = 1;
    int64_t seed = 1;
};
// duration_s in (0, max_duration_s], at least 1 us; seed in [0, 2^53).
void declare_run(param_table& t, run_settings& s, double max_duration_s, const std::string& duration_help = "");

void declare_link_rate(param_table& t, double& link_gbps, const std::string& help = "");
void declare_link_delay(param_table& t, double& delay_us);

// The host profiles: what the settings marked "profile" default to.
//   ns2:   the set-up validated against ns-2 2.35 (validation/ns2): IW 2, no SACK or timestamps, no RACK-TLP, an
//          ACK per segment, cwnd grows on every ACK, a FIFO NIC queue, no small queues, no pacing.
//   linux: a Linux server (6.x defaults): IW 10, SACK, DSACK and timestamps, RACK-TLP, delayed ACKs with quick-ACK,
//          cwnd grows only while cwnd-limited, fq with pacing, TCP small queues.
struct host_profile_values {
    int64_t init_cwnd, quickacks;
    bool sack, dsack, timestamps, rack_tlp, delayed_ack, abc, cwnd_validation, small_queues, pacing;
    std::string qdisc;
};
const host_profile_values& host_profile(const std::string& name);   // config_error for an unknown name
std::vector<std::string> host_profile_names();

struct tcp_settings {
    std::string host_profile = "ns2";
    std::string transport = "newreno";
    tcp_config algorithms;   // the congestion controls' own parameters (dctcp_g, vegas_*, dcvegas_*) land here
    bool ecn = false;
    double min_rto_ms = 200;
    profiled<int64_t> init_cwnd;
    bool limited_transmit = true;
    bool slow_start_after_idle = true;
    std::string ssthresh_rule = "cwnd";
    profiled<bool> sack, dsack, timestamps, rack_tlp, delayed_ack, abc, cwnd_validation;
    double tlp_min_ms = 2;   // Linux TCP_TIMEOUT_MIN_US
    profiled<int64_t> quickacks;
    double delack_ms = 40;   // Linux TCP_DELACK_MIN
    double pacing_ss_ratio = 200, pacing_ca_ratio = 120;   // percent (Linux tcp_pacing_ss_ratio, _ca_ratio)
    int64_t rwnd_segments = 0;
    double jitter_ns = 0;
    std::string jitter_scope = "all";
    // the host's egress below TCP (model/nic/host_qdisc.h)
    profiled<std::string> host_qdisc;
    profiled<bool> small_queues, pacing;
    double nic_ring_kb = 3;
    double tsq_us = 976.5625;   // 2^-10 s
    double tsq_max_kb = 4096;
    int64_t fq_quantum_bytes = 3028, fq_initial_quantum_bytes = 15140;
};
void declare_tcp(param_table& t, tcp_settings& s);
// The tcp_config of the settings (the priority left at 0), profile values filled in.
tcp_config make_tcp_config(const tcp_settings& s);
// The hosts' egress of the settings, profile values filled in.
host_egress_config make_host_egress(const tcp_settings& s);
// What a report says of the hosts: the profile and every setting it decided (the resolved values).
struct result;
void report_host(result& r, const tcp_settings& s);

}   // namespace cmswitch
#endif
