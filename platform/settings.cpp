// SPDX-License-Identifier: Apache-2.0
#include "platform/settings.h"

#include <algorithm>

#include "config/errors.h"
#include "config/result.h"
#include "model/units.h"
#include "traffic/tcp/congestion_control.h"

namespace cmswitch {

namespace {
struct named_profile {
    const char* name;
    host_profile_values v;
};
const named_profile profiles[] = {
    // init_cwnd, quickacks, sack, dsack, timestamps, rack_tlp, delayed_ack, abc, cwnd_validation, small_queues,
    // pacing, qdisc
    {"ns2", {2, 0, false, false, false, false, false, false, false, false, false, "fifo"}},
    {"linux", {10, 16, true, true, true, true, true, true, true, true, true, "fq"}},
};
}   // namespace

const host_profile_values& host_profile(const std::string& name) {
    for (const auto& p : profiles)
        if (name == p.name)
            return p.v;
    throw config_error("host_profile = '" + name + "': allowed values are ns2, linux");
}

std::vector<std::string> host_profile_names() {
    std::vector<std::string> names;
    for (const auto& p : profiles)
        names.emplace_back(p.name);
    return names;
}

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
    t.add_choice("host_profile", &s.host_profile, host_profile_names(),
                 "the hosts: ns2 (the TCP validated against ns-2 2.35: IW 2, no SACK, a FIFO NIC queue) or linux (a "
                 "Linux 6.x server: IW 10, SACK, timestamps, RACK-TLP, delayed ACKs, cwnd grows only while "
                 "cwnd-limited, fq with pacing, TCP small queues); every setting marked [profile: ...] takes the "
                 "profile's value unless given");
    t.add_choice("transport", &s.transport, congestion_control_names(), "TCP congestion control");
    declare_congestion_control_params(t, s.algorithms);
    t.add_flag("ecn", &s.ecn, "newreno: ECN-capable, halving once per window on ECE (RFC 3168)");
    t.add_real("min_rto_ms", &s.min_rto_ms, 0.001, 60000, "ms", "TCP minimum retransmission timeout");
    t.add_int("init_cwnd", &s.init_cwnd, 1, 1000, "segments", "TCP initial congestion window", "ns2 2, linux 10");
    t.add_flag("limited_transmit", &s.limited_transmit,
               "RFC 3042 limited transmit: a segment on each of the 1st and 2nd duplicate ACK (ns-2, Linux, FreeBSD "
               "do it; --limited-transmit=false turns it off)");
    t.add_flag("slow_start_after_idle", &s.slow_start_after_idle,
               "RFC 5681 4.1: a sender idle for more than an RTO restarts from min(initial window, cwnd) "
               "(Linux, FreeBSD and ns-2 do; --slow-start-after-idle=false keeps the old window)");
    t.add_choice("ssthresh_rule", &s.ssthresh_rule, {"cwnd", "flight"},
                 "ssthresh after a loss: half the congestion window (Linux, FreeBSD, ns-2) or half the FlightSize "
                 "(RFC 5681 eq. 4)");
    t.add_flag("sack", &s.sack, "TCP SACK (RFC 2018) with RFC 6675 loss recovery (or RACK-TLP's)",
               "ns2 false, linux true");
    t.add_flag("dsack", &s.dsack, "receivers report duplicate segments at once (RFC 2883 D-SACK)",
               "ns2 false, linux true");
    t.add_flag("timestamps", &s.timestamps,
               "TCP timestamps (RFC 7323): RTT samples from every ACK of new data, retransmissions included; the "
               "12 option bytes leave 1448 payload bytes in a 1500-byte frame",
               "ns2 false, linux true");
    t.add_flag("rack_tlp", &s.rack_tlp,
               "RFC 8985 RACK-TLP with SACK: losses found by time, a tail loss probe 2 SRTT after the last send, "
               "recovery by proportional rate reduction (RFC 6937), as Linux",
               "ns2 false, linux true");
    t.add_real("tlp_min_ms", &s.tlp_min_ms, 0, 1000, "ms",
               "added to 2 SRTT in the probe timeout (Linux 2 ms; the minimum RTO instead when one segment is out)");
    t.add_flag("cwnd_validation", &s.cwnd_validation,
               "the window grows only while the flow is cwnd-limited (RFC 7661, Linux): not while the application "
               "or the host's small queues hold it back",
               "ns2 false, linux true");
    t.add_real("pacing_ss_ratio", &s.pacing_ss_ratio, 1, 1000, "%",
               "pacing rate in slow start (cwnd < ssthresh / 2): this share of cwnd / SRTT (Linux 200)");
    t.add_real("pacing_ca_ratio", &s.pacing_ca_ratio, 1, 1000, "%",
               "pacing rate otherwise: this share of cwnd / SRTT (Linux 120)");
    t.add_int("rwnd_segments", &s.rwnd_segments, 0, 1 << 20, "segments",
              "receiver's advertised window (0: unlimited, the switch buffer is the limit; ns-2's default is 20)");
    t.add_flag("delayed_ack", &s.delayed_ack,
               "receivers ACK when more than one full segment is unacknowledged, else after delack_ms",
               "ns2 false, linux true");
    t.add_real("delack_ms", &s.delack_ms, 0.001, 1000, "ms", "delayed ACK timeout (Linux 40)");
    t.add_int("quickacks", &s.quickacks, 0, 1 << 20, "segments",
              "with delayed_ack: segments ACKed at once at the start and after out-of-order data (Linux "
              "TCP_MAX_QUICKACKS)",
              "ns2 0, linux 16");
    t.add_flag("abc", &s.abc,
               "byte counting (RFC 3465, as Linux): slow start grows by the bytes each ACK acknowledges, congestion "
               "avoidance by one segment per window acknowledged (delayed ACKs grow it as fast as ACKs per segment)",
               "ns2 false, linux true");
    t.add_real("jitter_ns", &s.jitter_ns, 0, 1e6, "ns",
               "random delay in [0, jitter] before each segment reaches its NIC (breaks the lockstep of identical "
               "senders)");
    t.add_choice("jitter_scope", &s.jitter_scope, {"all", "window_sends"},
                 "segments the jitter delays: all, or only those sent from the window (not fast retransmits, "
                 "partial-ACK retransmissions and limited transmit), as ns-2's TCP overhead_ does");
    t.add_choice("host_qdisc", &s.host_qdisc, {"fifo", "fq"},
                 "the hosts' queueing below TCP: fifo (one queue, the NIC's) or fq (Linux sch_fq: a queue per socket, "
                 "served round robin by quantum, sockets back from idle first, paced frames held to their time, "
                 "into a NIC ring of nic_ring_kb)",
                 "ns2 fifo, linux fq");
    t.add_flag("small_queues", &s.small_queues,
               "TCP small queues: a socket sends while it has at most max(2 frames, tsq_us at its pacing rate) "
               "below TCP (qdisc and NIC), then waits for a transmission to start",
               "ns2 false, linux true");
    t.add_flag("pacing", &s.pacing,
               "with fq: each data frame leaves no earlier than its socket's pacing schedule (Linux's earliest "
               "departure times; the first 10 segments unpaced)",
               "ns2 false, linux true");
    t.add_real("nic_ring_kb", &s.nic_ring_kb, 0.001, 1 << 20, "KB (1024 B)",
               "with fq: bytes per NIC queue handed over by the qdisc and not yet transmitting (two frames by "
               "default: the model's completions come at once, so the NIC needs only the next frame)");
    t.add_real("tsq_us", &s.tsq_us, 0.001, 1e6, "us",
               "small-queue limit: this much time at the socket's pacing rate (Linux: 2^-10 s)");
    t.add_real("tsq_max_kb", &s.tsq_max_kb, 1, 1 << 20, "KB (1024 B)",
               "small-queue limit at most (Linux tcp_limit_output_bytes, 4 MB)");
    t.add_int("fq_quantum_bytes", &s.fq_quantum_bytes, 64, 1 << 20, "B",
              "fq: bytes a socket sends per round (Linux 2 x 1514)");
    t.add_int("fq_initial_quantum_bytes", &s.fq_initial_quantum_bytes, 0, 1 << 24, "B",
              "fq: a new socket's first credit (Linux 10 x 1514)");
}

tcp_config make_tcp_config(const tcp_settings& s) {
    const host_profile_values& p = host_profile(s.host_profile);
    tcp_config tcp = s.algorithms;
    tcp.congestion_control = s.transport;
    tcp.ecn = s.ecn;
    tcp.min_rto_ps = ms_to_ps(s.min_rto_ms);
    tcp.initial_cwnd = static_cast<uint32_t>(s.init_cwnd.or_profile(p.init_cwnd));
    tcp.limited_transmit = s.limited_transmit;
    tcp.slow_start_after_idle = s.slow_start_after_idle;
    tcp.ssthresh_from =
        s.ssthresh_rule == "flight" ? tcp_config::ssthresh_rule::flight : tcp_config::ssthresh_rule::cwnd;
    tcp.sack = s.sack.or_profile(p.sack);
    tcp.dsack = s.dsack.or_profile(p.dsack);
    tcp.timestamps = s.timestamps.or_profile(p.timestamps);
    if (tcp.timestamps)
        tcp.mss -= tcp_config::timestamp_option_bytes;   // the frame stays 1500 bytes, as Linux does
    // a profile's value gives way to a setting given that excludes it (sack = false: no RACK-TLP)
    tcp.rack_tlp = s.rack_tlp.or_profile(p.rack_tlp && tcp.sack);
    if (tcp.rack_tlp && !tcp.sack)
        throw config_error("rack_tlp = true needs sack = true (RACK-TLP reads SACK blocks)");
    tcp.tlp_min_ps = ms_to_ps(s.tlp_min_ms);
    tcp.cwnd_validation = s.cwnd_validation.or_profile(p.cwnd_validation);
    tcp.pacing_ss_ratio = s.pacing_ss_ratio / 100;
    tcp.pacing_ca_ratio = s.pacing_ca_ratio / 100;
    tcp.rwnd_bytes = static_cast<uint64_t>(s.rwnd_segments) * tcp.mss;
    tcp.delayed_ack = s.delayed_ack.or_profile(p.delayed_ack);
    tcp.delayed_ack_ps = ms_to_ps(s.delack_ms);
    tcp.quickacks = static_cast<uint32_t>(s.quickacks.or_profile(p.quickacks));
    tcp.abc = s.abc.or_profile(p.abc);
    tcp.jitter_ps = ns_to_ps(s.jitter_ns);
    tcp.jitter_scope =
        s.jitter_scope == "window_sends" ? tcp_config::jitter_scope_t::window_sends : tcp_config::jitter_scope_t::all;
    return tcp;
}

host_egress_config make_host_egress(const tcp_settings& s) {
    const host_profile_values& p = host_profile(s.host_profile);
    host_egress_config h;
    h.qdisc = s.host_qdisc.or_profile(p.qdisc) == "fq" ? host_egress_config::qdisc_kind::fq
                                                       : host_egress_config::qdisc_kind::fifo;
    h.small_queues = s.small_queues.or_profile(p.small_queues);
    h.pacing = s.pacing.or_profile(p.pacing && h.fq());   // (a profile's pacing gives way to host_qdisc = fifo)
    if (h.pacing && !h.fq())
        throw config_error("pacing = true needs host_qdisc = fq (fq holds paced frames; Linux's TCP paces by "
                           "itself only for BBR)");
    h.ring_bytes = std::max<uint64_t>(1, kb_to_bytes(s.nic_ring_kb));
    h.tsq_ps = us_to_ps(s.tsq_us);
    h.tsq_max_bytes = kb_to_bytes(s.tsq_max_kb);
    h.fq_quantum_bytes = static_cast<uint32_t>(s.fq_quantum_bytes);
    h.fq_initial_quantum_bytes = static_cast<uint32_t>(s.fq_initial_quantum_bytes);
    return h;
}

void report_host(result& r, const tcp_settings& s) {
    const tcp_config tcp = make_tcp_config(s);
    const host_egress_config h = make_host_egress(s);
    r.set("host_profile", s.host_profile);
    r.set("host_qdisc", std::string(h.fq() ? "fq" : "fifo"));
    r.set("host_small_queues", h.small_queues);
    r.set("host_pacing", h.pacing);
    r.set("tcp_init_cwnd", static_cast<int64_t>(tcp.initial_cwnd));
    r.set("tcp_sack", tcp.sack);
    r.set("tcp_rack_tlp", tcp.rack_tlp);
    r.set("tcp_timestamps", tcp.timestamps);
    r.set("tcp_delayed_ack", tcp.delayed_ack);
    r.set("tcp_cwnd_validation", tcp.cwnd_validation);
    r.set("tcp_abc", tcp.abc);
}

}   // namespace cmswitch
