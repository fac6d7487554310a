// SPDX-License-Identifier: Apache-2.0
#include "platform/settings.h"

#include "model/units.h"
#include "traffic/tcp/congestion_control.h"

namespace cmswitch {

void declare_run(param_table& t, run_settings& s, double max_duration_s, const std::string& duration_help) {
    t.add_real("duration_s", &s.duration_s, 0, max_duration_s, "s",
               duration_help.empty() ? "simulated time" : duration_help, true);
    t.set_min_nonzero("duration_s", 1e-6);
    t.add_int("seed", &s.seed, 0, (int64_t{1} << 53) - 1, "", "seed of every random choice of the run");
}

void declare_link_rate(param_table& t, double& link_gbps, const std::string& help) {
    t.add_real("link_gbps", &link_gbps, 0, 1000, "Gbps", help.empty() ? "rate of every link" : help, true);
}

void declare_link_delay(param_table& t, double& delay_us) {
    t.add_real("delay_us", &delay_us, 0, 1e6, "us", "propagation delay of every link, each direction");
}

void declare_tcp(param_table& t, tcp_settings& s) {
    t.add_choice("transport", &s.transport, congestion_control_names(), "TCP congestion control");
    declare_congestion_control_params(t, s.algorithms);
    t.add_flag("ecn", &s.ecn, "newreno: ECN-capable, halving once per window on ECE (RFC 3168)");
    t.add_real("min_rto_ms", &s.min_rto_ms, 0.001, 60000, "ms", "TCP minimum retransmission timeout");
    t.add_int("init_cwnd", &s.init_cwnd, 1, 1000, "segments", "TCP initial congestion window");
    t.add_flag("limited_transmit", &s.limited_transmit,
               "RFC 3042 limited transmit: a segment on each of the 1st and 2nd duplicate ACK (ns-2, Linux, FreeBSD "
               "do it; --limited-transmit=false turns it off)");
    t.add_flag("slow_start_after_idle", &s.slow_start_after_idle,
               "RFC 5681 4.1: a sender idle for more than an RTO restarts from min(initial window, cwnd) "
               "(Linux, FreeBSD and ns-2 do; --slow-start-after-idle=false keeps the old window)");
    t.add_choice("ssthresh_rule", &s.ssthresh_rule, {"cwnd", "flight"},
                 "ssthresh after a loss: half the congestion window (Linux, FreeBSD, ns-2) or half the FlightSize "
                 "(RFC 5681 eq. 4)");
    t.add_flag("sack", &s.sack, "TCP SACK (RFC 2018) with RFC 6675 loss recovery");
    t.add_flag("timestamps", &s.timestamps,
               "TCP timestamps (RFC 7323): RTT samples from every ACK of new data, retransmissions included; the "
               "12 option bytes leave 1448 payload bytes in a 1500-byte frame");
    t.add_int("rwnd_segments", &s.rwnd_segments, 0, 1 << 20, "segments",
              "receiver's advertised window (0: unlimited, the switch buffer is the limit; ns-2's default is 20)");
    t.add_flag("delayed_ack", &s.delayed_ack, "receivers ACK every 2nd segment (40 ms timeout)");
    t.add_real("jitter_ns", &s.jitter_ns, 0, 1e6, "ns",
               "random delay in [0, jitter] before each segment reaches its NIC (breaks the lockstep of identical "
               "senders)");
    t.add_choice("jitter_scope", &s.jitter_scope, {"all", "window_sends"},
                 "segments the jitter delays: all, or only those sent from the window (not fast retransmits, "
                 "partial-ACK retransmissions and limited transmit), as ns-2's TCP overhead_ does");
}

tcp_config make_tcp_config(const tcp_settings& s) {
    tcp_config tcp = s.algorithms;
    tcp.congestion_control = s.transport;
    tcp.ecn = s.ecn;
    tcp.min_rto_ps = ms_to_ps(s.min_rto_ms);
    tcp.initial_cwnd = static_cast<uint32_t>(s.init_cwnd);
    tcp.limited_transmit = s.limited_transmit;
    tcp.slow_start_after_idle = s.slow_start_after_idle;
    tcp.ssthresh_from =
        s.ssthresh_rule == "flight" ? tcp_config::ssthresh_rule::flight : tcp_config::ssthresh_rule::cwnd;
    tcp.sack = s.sack;
    tcp.timestamps = s.timestamps;
    if (s.timestamps)
        tcp.mss -= tcp_config::timestamp_option_bytes;   // the frame stays 1500 bytes, as Linux does
    tcp.rwnd_bytes = static_cast<uint64_t>(s.rwnd_segments) * tcp.mss;
    tcp.delayed_ack = s.delayed_ack;
    tcp.jitter_ps = ns_to_ps(s.jitter_ns);
    tcp.jitter_scope =
        s.jitter_scope == "window_sends" ? tcp_config::jitter_scope_t::window_sends : tcp_config::jitter_scope_t::all;
    return tcp;
}

}   // namespace cmswitch
