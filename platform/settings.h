// SPDX-License-Identifier: Apache-2.0
// The parameter blocks scenarios share, each parameter declared once, here: a scenario's settings struct derives
// from the blocks it offers (and sets its own defaults in its constructor), its constructor declares them.
//   run:    duration_s, seed
//   links:  link_gbps, delay_us (each on its own: some scenarios give link rates another way)
//   host:   the host's profile and its TCP stack: host_profile (ns2: the set-up validated against ns-2 2.35;
//           linux: a Linux server's defaults), transport (any registered congestion control) and every
//           algorithm's own parameter block (declared by the algorithm, traffic/tcp/congestion_control.h), ecn,
//           min_rto_ms, init_cwnd, limited_transmit, slow_start_after_idle, ssthresh_rule, sack, dsack,
//           timestamps, rack_tlp, cwnd_validation, pacing ratios, rwnd_segments, delayed_ack, quickacks,
//           gso_max_kb, jitter_ns, jitter_scope; its egress below TCP (host_qdisc, small_queues, pacing,
//           nic_ring_kb, bql with tx_coalesce_us and tx_coalesce_frames, fq quanta, small-queue limit, the software
//           latency host_latency_us) and its receive path (rx_coalesce_us, rx_coalesce_frames, gro_max_kb). The
//           settings marked "profile" take the host profile's value unless set.
//   buffer: the switch buffer and its class handling (scenario.h: declare_buffer)
#ifndef CMSWITCH_PLATFORM_SETTINGS_H
#define CMSWITCH_PLATFORM_SETTINGS_H

#include "config/params.h"
#include "model/nic/host_qdisc.h"
#include "traffic/tcp/tcp_config.h"

#include <array>
#include <cstdint>
#include <string>
#include <utility>
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

// The host profiles: what the settings marked "profile" default to, each a list of parameter values
// (platform/settings.cpp).
//   ns2:   the set-up validated against ns-2 2.35 (validation/ns2): IW 2, no SACK or timestamps, no RACK-TLP, an
//          ACK per segment, cwnd grows on every ACK, a FIFO NIC queue, no small queues, no pacing.
//   linux: a Linux server (6.x defaults): IW 10, SACK, DSACK and timestamps, RACK-TLP, delayed ACKs with quick-ACK,
//          cwnd grows only while cwnd-limited, fq with pacing, TCP small queues, TSO/GSO, BQL, receive interrupt
//          moderation and GRO.
struct host_profile_entry {
    std::string name;
    std::vector<std::pair<std::string, std::string>> values;   // (parameter, value as text)
};
const std::vector<host_profile_entry>& host_profiles();
const host_profile_entry& host_profile(const std::string& name);   // config_error for an unknown name
std::vector<std::string> host_profile_names();

// The egress defaults of the settings: fq's quanta 0, "from the MTU" (2 and 10 frames of it, as Linux's
// 2 x psched_mtu and 10 x psched_mtu), filled in when the settings are resolved.
inline host_egress_config mtu_sized_egress() {
    host_egress_config e;
    e.fq_quantum_bytes = e.fq_initial_quantum_bytes = 0;
    return e;
}
// The hosts' settings, declared straight into the model's structs: TCP's (tcp_config) and the egress below it
// (host_egress_config), each parameter into the field of its own name in the model's unit. A profiled setting
// that was not given takes the host profile's value when the settings are resolved (make_tcp_config,
// make_host_egress); before that its field holds the struct's default.
struct tcp_settings {
    std::string host_profile = "ns2";
    tcp_config tcp;
    host_egress_config egress = mtu_sized_egress();
    std::array<bool, 32> given{};   // the profiled settings given, in declare_tcp's order
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
