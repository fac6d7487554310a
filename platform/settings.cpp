// SPDX-License-Identifier: Apache-2.0
#include "platform/settings.h"

#include <algorithm>

#include "config/errors.h"
#include "config/result.h"
#include "model/units.h"
#include "traffic/tcp/congestion_control.h"

namespace cmswitch {

const std::vector<host_profile_entry>& host_profiles() {
    static const std::vector<host_profile_entry> all = [] {
        std::vector<host_profile_entry> profiles = {
            {"ns2",
             {{"rto_rule", "rfc6298"},
              {"ecn_reduction", "cut"},
              {"cubic_hystart", "false"},
              {"init_cwnd", "2"},
              {"quickacks", "0"},
              {"sack", "false"},
              {"dsack", "false"},
              {"timestamps", "false"},
              {"rack_tlp", "false"},
              {"delayed_ack", "false"},
              {"abc", "false"},
              {"gso_max_kb", "0"},
              {"cwnd_validation", "false"},
              {"host_qdisc", "fifo"},
              {"small_queues", "false"},
              {"bql", "false"},
              {"nic_ring_kb", "3"},
              {"tx_coalesce_us", "16"},
              {"tx_coalesce_frames", "32"},
              {"host_latency_us", "0"},
              {"rx_coalesce_us", "0"},
              {"rx_coalesce_frames", "0"},
              {"gro_max_kb", "0"},
              {"pacing", "false"}}},
            {"linux",
             {{"rto_rule", "linux"},
              {"ecn_reduction", "cwr"},
              {"cubic_hystart", "true"},
              {"init_cwnd", "10"},
              {"quickacks", "16"},
              {"sack", "true"},
              {"dsack", "true"},
              {"timestamps", "true"},
              {"rack_tlp", "true"},
              {"delayed_ack", "true"},
              {"abc", "true"},
              {"gso_max_kb", "64"},
              {"cwnd_validation", "true"},
              {"host_qdisc", "fq"},
              {"small_queues", "true"},
              {"bql", "true"},
              {"nic_ring_kb", "3"},
              {"tx_coalesce_us", "16"},
              {"tx_coalesce_frames", "32"},
              {"host_latency_us", "0"},
              {"rx_coalesce_us", "3"},
              {"rx_coalesce_frames", "32"},
              {"gro_max_kb", "64"},
              {"pacing", "true"}}},
        };
        // a distribution's server: the linux profile with fq_codel, which does not pace (systemd's default qdisc)
        host_profile_entry codel{"linux-fq-codel", profiles[1].values};
        for (auto& [name, value] : codel.values) {
            if (name == "host_qdisc")
                value = "fq_codel";
            else if (name == "pacing")
                value = "false";
        }
        profiles.push_back(std::move(codel));
        return profiles;
    }();
    return all;
}

const host_profile_entry& host_profile(const std::string& name) {
    for (const auto& p : host_profiles())
        if (name == p.name)
            return p;
    std::string names;
    for (const auto& p : host_profiles())
        names += (names.empty() ? "" : ", ") + p.name;
    throw config_error("host_profile = '" + name + "': allowed values are " + names);
}

std::vector<std::string> host_profile_names() {
    std::vector<std::string> names;
    for (const auto& p : host_profiles())
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

namespace {
// What each profile gives the setting `name`: "ns2 2, linux 10" (model_error if a profile leaves it out).
std::string profile_text(const std::string& name) {
    std::string text;
    for (const auto& p : host_profiles()) {
        const auto row = std::find_if(p.values.begin(), p.values.end(), [&](const auto& v) { return v.first == name; });
        if (row == p.values.end())
            throw model_error("host profile '" + p.name + "' gives no value for '" + name + "'");
        text += (text.empty() ? "" : ", ") + p.name + " " + row->second;
    }
    return text;
}

// Marks the setting declared last as taking the host profile's value unless given; the report names it `key`.
struct profile_marker {
    param_table& t;
    tcp_settings& s;
    std::vector<std::string> keys;   // the report key of each profiled setting, in order
    // the parameter declared last, or the one named
    void operator()(const std::string& key, std::string name = {}) {
        if (name.empty())
            name = t.params().back().name;
        t.make_profiled(name, &s.given.at(keys.size()), profile_text(name));
        keys.push_back(key);
    }
};

void declare_egress(param_table& t, host_egress_config& e, profile_marker& profiled);

// Declares the hosts' settings; returns the report key of each profiled one, in order.
std::vector<std::string> declare_host(param_table& t, tcp_settings& s) {
    tcp_config& c = s.tcp;
    profile_marker profiled{t, s, {}};
    t.add_choice("host_profile", &s.host_profile, host_profile_names(),
                 "the hosts: ns2 (the TCP validated against ns-2 2.35: IW 2, no SACK, a FIFO NIC queue), linux (a "
                 "Linux 6.x server: IW 10, SACK, timestamps, RACK-TLP, delayed ACKs, cwnd grows only while "
                 "cwnd-limited, fq with pacing, TCP small queues, TSO/GSO, BQL, receive interrupt moderation and "
                 "GRO) or linux-fq-codel (the same with fq_codel, which does not pace: a distribution's default); "
                 "every setting marked [profile: ...] takes the profile's value unless given");
    t.add_choice("transport", &c.transport, congestion_control_names(), "TCP congestion control");
    declare_congestion_control_params(t, c);
    profiled("tcp_hystart", "cubic_hystart");
    t.add_flag("ecn", &c.ecn, "newreno: ECN-capable, halving once per window on ECE (RFC 3168)");
    t.add_time("min_rto_ms", &c.min_rto_ps, 0.001, 60000, "ms", "TCP minimum retransmission timeout");
    t.add_enum("rto_rule", &c.rto_rule,
               {{"rfc6298", tcp_config::rto_rule_t::rfc6298}, {"linux", tcp_config::rto_rule_t::linux_tcp}},
               "retransmission timeout from the RTT estimate: rfc6298, max(min_rto, SRTT + 4 RTTVAR) (ns-2, "
               "FreeBSD), or linux, SRTT + max(4 RTTVAR, min_rto) (tcp_set_rto)");
    profiled("tcp_rto_rule");
    t.add_enum("ecn_reduction", &c.ecn_reduction,
               {{"cut", tcp_config::ecn_reduction_t::cut}, {"cwr", tcp_config::ecn_reduction_t::cwr}},
               "the response to an ECN echo: cut, cwnd = ssthresh at once and at most once per window (ns-2, RFC "
               "8257), or cwr, Linux's CWR state: the window brought down to ssthresh by proportional rate "
               "reduction, with no growth until the data sent before the echo is acknowledged");
    profiled("tcp_ecn_reduction");
    t.add_count("mtu_bytes", &s.egress.mtu_bytes, 576, max_frame_bytes, "B",
                "the hosts' MTU: a full TCP frame's size (1500; 9000 for jumbo frames, as RoCE and AI fabrics run); "
                "the MSS is 40 B less (52 with timestamps), fq's quanta are 2 and 10 frames of it plus the Ethernet "
                "header, fq_codel's one, and PFC's headroom counts frames of it");
    t.add_count("init_cwnd", &c.init_cwnd, 1, 1000, "segments", "TCP initial congestion window");
    profiled("tcp_init_cwnd");
    t.add_flag("limited_transmit", &c.limited_transmit,
               "RFC 3042 limited transmit: a segment on each of the 1st and 2nd duplicate ACK (ns-2, Linux, FreeBSD "
               "do it; --limited-transmit=false turns it off)");
    t.add_flag("slow_start_after_idle", &c.slow_start_after_idle,
               "RFC 5681 4.1: a sender idle for more than an RTO restarts from min(initial window, cwnd) "
               "(Linux, FreeBSD and ns-2 do; --slow-start-after-idle=false keeps the old window)");
    t.add_enum("ssthresh_rule", &c.ssthresh_from,
               {{"cwnd", tcp_config::ssthresh_rule::cwnd}, {"flight", tcp_config::ssthresh_rule::flight}},
               "ssthresh after a loss: half the congestion window (Linux, FreeBSD, ns-2) or half the FlightSize "
               "(RFC 5681 eq. 4)");
    t.add_flag("sack", &c.sack, "TCP SACK (RFC 2018) with RFC 6675 loss recovery (or RACK-TLP's)");
    profiled("tcp_sack");
    t.add_flag("dsack", &c.dsack, "receivers report duplicate segments at once (RFC 2883 D-SACK)");
    profiled("tcp_dsack");
    t.add_flag("timestamps", &c.timestamps,
               "TCP timestamps (RFC 7323): RTT samples from every ACK of new data, retransmissions included; the "
               "12 option bytes leave 1448 payload bytes in a 1500-byte frame");
    profiled("tcp_timestamps");
    t.add_flag("rack_tlp", &c.rack_tlp,
               "RFC 8985 RACK-TLP with SACK: losses found by time, a tail loss probe 2 SRTT after the last send, "
               "recovery by proportional rate reduction (RFC 6937), as Linux");
    profiled("tcp_rack_tlp");
    t.add_time("tlp_min_ms", &c.tlp_min_ps, 0, 1000, "ms",
               "added to 2 SRTT in the probe timeout (Linux 2 ms; the minimum RTO instead when one segment is out)");
    t.add_flag("cwnd_validation", &c.cwnd_validation,
               "the window grows only while the flow is cwnd-limited (RFC 7661, Linux): not while the application "
               "or the host's small queues hold it back");
    profiled("tcp_cwnd_validation");
    t.add_percent("pacing_ss_ratio", &c.pacing_ss_ratio, 1, 1000,
                  "pacing rate in slow start (cwnd < ssthresh / 2): this share of cwnd / SRTT (Linux 200)");
    t.add_percent("pacing_ca_ratio", &c.pacing_ca_ratio, 1, 1000,
                  "pacing rate otherwise: this share of cwnd / SRTT (Linux 120)");
    t.add_count("rwnd_segments", &c.rwnd_segments, 0, 1 << 20, "segments",
                "receiver's advertised window (0: unlimited, the switch buffer is the limit; ns-2's default is 20)");
    t.add_flag("delayed_ack", &c.delayed_ack,
               "receivers ACK when more than one full segment is unacknowledged, else after delack_ms");
    profiled("tcp_delayed_ack");
    t.add_time("delack_ms", &c.delack_ps, 0.001, 1000, "ms", "delayed ACK timeout (Linux 40)");
    t.add_count("quickacks", &c.quickacks, 0, 1 << 20, "segments",
                "with delayed_ack: segments ACKed at once at the start and after out-of-order data (Linux "
                "TCP_MAX_QUICKACKS)");
    profiled("tcp_quickacks");
    t.add_flag("abc", &c.abc,
               "byte counting (RFC 3465, as Linux): slow start grows by the bytes each ACK acknowledges, congestion "
               "avoidance by one segment per window acknowledged (delayed ACKs grow it as fast as ACKs per segment)");
    profiled("tcp_abc");
    t.add_kb("gso_max_kb", &c.gso_max_bytes, 0, 64,
             "GSO/TSO: TCP hands its host new data in segments of up to this much payload, sized as Linux's "
             "tcp_tso_autosize (about 1 ms at the pacing rate, the whole size below 512 us of minimum RTT, at least 2 "
             "SMSS), and the NIC sends each segment's frames back to back; 0: a frame at a time");
    profiled("tcp_gso_max_kb");
    t.add_time("jitter_ns", &c.jitter_ps, 0, 1e6, "ns",
               "random delay in [0, jitter] before each segment reaches its NIC (breaks the lockstep of identical "
               "senders)");
    t.add_enum("jitter_scope", &c.jitter_scope,
               {{"all", tcp_config::jitter_scope_t::all}, {"window_sends", tcp_config::jitter_scope_t::window_sends}},
               "segments the jitter delays: all, or only those sent from the window (not fast retransmits, "
               "partial-ACK retransmissions and limited transmit), as ns-2's TCP overhead_ does");
    declare_egress(t, s.egress, profiled);
    return profiled.keys;
}

// The host's egress below TCP (model/nic/host_qdisc.h).
void declare_egress(param_table& t, host_egress_config& e, profile_marker& profiled) {
    using qdisc = host_egress_config::qdisc_kind;
    t.add_enum("host_qdisc", &e.qdisc, {{"fifo", qdisc::fifo}, {"fq", qdisc::fq}, {"fq_codel", qdisc::fq_codel}},
               "the hosts' queueing below TCP: fifo (one queue, the NIC's), fq (Linux sch_fq: a queue per socket, "
               "served round robin by quantum, sockets back from idle first, paced frames held to their time) or "
               "fq_codel (Linux sch_fq_codel: a queue per socket, round robin by a 1514-byte quantum, CoDel on each "
               "queue marking ECN-capable frames and dropping others, no pacing); either into a NIC ring of "
               "nic_ring_kb or BQL's limit");
    profiled("host_qdisc");
    t.add_flag("small_queues", &e.small_queues,
               "TCP small queues: a socket sends while it has at most max(2 skbs, tsq_us at its pacing rate) "
               "below TCP (qdisc and NIC), then waits for a transmission to start");
    profiled("host_small_queues");
    t.add_flag("pacing", &e.pacing,
               "with fq: each data frame leaves no earlier than its socket's pacing schedule (Linux's earliest "
               "departure times; the first 10 segments unpaced)");
    profiled("host_pacing");
    t.add_kb("nic_ring_kb", &e.ring_bytes, 0.001, 1 << 20,
             "with fq and no BQL: bytes per NIC queue handed over by the qdisc and not yet transmitting (two frames "
             "by default: without BQL a frame's completion is the start of its transmission, so the NIC needs only "
             "the next frame)");
    profiled("host_nic_ring_kb");
    t.add_flag("bql", &e.bql,
               "with fq: byte queue limits (Linux BQL): the bytes per NIC queue handed over and not yet completed "
               "are held to a limit that grows when the NIC starves between completions and shrinks by the slack "
               "seen over a second, as dynamic_queue_limits.c; frames complete at the NIC's transmit interrupt "
               "(tx_coalesce_us, tx_coalesce_frames) and free their small-queue bytes then");
    profiled("host_bql");
    t.add_time("tx_coalesce_us", &e.tx_coalesce_ps, 0, 10000, "us",
               "with bql: the transmit interrupt comes this long after the end of the first frame sent since the "
               "previous one (ethtool tx-usecs; mlx5 16); 0: at the end of every frame");
    profiled("host_tx_coalesce_us");
    t.add_count("tx_coalesce_frames", &e.tx_coalesce_frames, 0, 1 << 16, "skbs",
                "with bql: or once this many skbs (a GSO segment counts once) have been sent since the previous "
                "interrupt (ethtool tx-frames; mlx5 32); 0: no count");
    profiled("host_tx_coalesce_frames");
    t.add_time("host_latency_us", &e.latency_ps, 0, 10000, "us",
               "the hosts' software latency, each way: a frame a transport sends reaches the qdisc this long "
               "later, and an arriving frame reaches its transport this long after its last bit (host waits "
               "are counted after it; workload slowdowns divide by an ideal that includes it twice)");
    profiled("host_latency_us");
    t.add_time("rx_coalesce_us", &e.receive.coalesce_ps, 0, 10000, "us",
               "receive interrupt moderation: an arriving frame waits in the NIC's ring until this long passes with "
               "no new frame (each arrival restarts it: mlx5's CQE-based mode, 3 us) or rx_coalesce_frames wait; "
               "then the poll takes them up (GRO); 0: every frame goes up as it arrives");
    profiled("host_rx_coalesce_us");
    t.add_count("rx_coalesce_frames", &e.receive.coalesce_frames, 0, 1 << 16, "frames",
                "with rx_coalesce_us: or once this many frames wait (ethtool rx-frames; mlx5 32); 0: no count");
    profiled("host_rx_coalesce_frames");
    t.add_kb("gro_max_kb", &e.receive.gro_max_bytes, 0, 64,
             "GRO at the receiver: the poll merges a flow's in-order TCP segments with the same ECN field into one "
             "of up to this size (Linux gro_max_size, 64 KB), which TCP takes and acknowledges as one; a gap, a "
             "CE change or a short segment ends it; needs rx_coalesce_us > 0; 0: none");
    profiled("host_gro_max_kb");
    t.add_time("tsq_us", &e.tsq_ps, 0.001, 1e6, "us",
               "small-queue limit: this much time at the socket's pacing rate (Linux: 2^-10 s)");
    t.add_kb("tsq_max_kb", &e.tsq_max_bytes, 1, 1 << 20,
             "small-queue limit at most (Linux tcp_limit_output_bytes, 4 MB)");
    t.add_count("fq_quantum_bytes", &e.fq_quantum_bytes, 0, 1 << 20, "B",
                "fq: bytes a socket sends per round (0: two frames of the MTU with the Ethernet header, Linux's 2 x "
                "psched_mtu: 3028 at MTU 1500)");
    t.add_count("fq_initial_quantum_bytes", &e.fq_initial_quantum_bytes, 0, 1 << 24, "B",
                "fq: a new socket's first credit (0: ten frames of the MTU, Linux's 10 x psched_mtu: 15140 at MTU "
                "1500)");
    t.add_time("codel_target_us", &e.codel.target_ps, 1, 1e7, "us",
               "fq_codel: CoDel's target sojourn time (Linux 5000 us)");
    t.add_time("codel_interval_us", &e.codel.interval_ps, 1, 1e8, "us", "fq_codel: CoDel's interval (Linux 100000 us)");
    t.add_time("codel_ce_threshold_us", &e.codel.ce_threshold_ps, 0, 1e7, "us",
               "fq_codel: an ECN-capable frame that waited longer than this is marked CE (Linux's ce_threshold, for "
               "DCTCP hosts); 0: off");
}

// The settings with every profiled value filled in, the combinations checked, and the values that follow from
// others derived (the payload a segment carries beside the timestamp option).
tcp_settings resolve(const tcp_settings& s) {
    tcp_settings r = s;
    param_table t;
    declare_host(t, r);
    const bool rack_tlp_given = t.given("rack_tlp"), pacing_given = t.given("pacing"),
               gso_given = t.given("gso_max_kb"), bql_given = t.given("bql"), ring_given = t.given("nic_ring_kb"),
               coalesce_us_given = t.given("tx_coalesce_us"), coalesce_frames_given = t.given("tx_coalesce_frames"),
               gro_given = t.given("gro_max_kb"), rx_frames_given = t.given("rx_coalesce_frames");
    for (const auto& [name, value] : host_profile(s.host_profile).values) {
        const auto p =
            std::find_if(t.params().begin(), t.params().end(), [&](const auto& q) { return q.name == name; });
        if (p == t.params().end() || !p->is_set)
            throw model_error("host profile '" + s.host_profile + "' names '" + name + "', not a profiled setting");
        if (p->unset())
            t.set(name, value);
    }
    // the MTU decides the segment size and, unless given, the qdiscs' quanta (Linux: psched_mtu, the MTU and the
    // Ethernet header)
    const uint32_t mtu = r.egress.mtu_bytes, frame = mtu + 14;
    r.tcp.mss = mtu - r.tcp.header_bytes;
    if (!r.egress.fq_quantum_bytes)
        r.egress.fq_quantum_bytes = 2 * frame;
    if (!r.egress.fq_initial_quantum_bytes)
        r.egress.fq_initial_quantum_bytes = 10 * frame;
    r.egress.fq_codel_quantum_bytes = frame;
    r.egress.codel.mtu_bytes = frame;
    // a profile's value gives way to a setting given that excludes it (sack = false: no RACK-TLP; host_qdisc =
    // fifo: no pacing; jitter_ns > 0: no GSO)
    if (!rack_tlp_given && !r.tcp.sack)
        r.tcp.rack_tlp = false;
    if (r.tcp.rack_tlp && !r.tcp.sack)
        throw config_error("rack_tlp = true needs sack = true (RACK-TLP reads SACK blocks)");
    if (!pacing_given && !r.egress.fq())
        r.egress.pacing = false;
    if (r.egress.pacing && !r.egress.fq())
        throw config_error("pacing = true needs host_qdisc = fq (fq holds paced frames; fq_codel and fifo do not "
                           "pace, and Linux's TCP paces by itself only for BBR)");
    if (!bql_given && (!r.egress.per_socket() || ring_given))
        r.egress.bql = false;
    if (r.egress.bql && !r.egress.per_socket())
        throw config_error("bql = true needs host_qdisc = fq or fq_codel (the qdisc holds the frames the queue limit "
                           "keeps out of the NIC; fifo hands every frame to the NIC at once)");
    if (r.egress.bql && ring_given)
        throw config_error("nic_ring_kb cannot go with bql = true (the queue limit sizes the NIC ring): give one "
                           "of them");
    for (const auto& [name, given] :
         {std::pair{"tx_coalesce_us", coalesce_us_given}, std::pair{"tx_coalesce_frames", coalesce_frames_given}})
        if (!r.egress.bql && given)
            throw config_error(std::string(name) +
                               " needs bql = true (transmit completions are modelled with byte queue limits; "
                               "without them a frame completes as it starts)");
    if (!gro_given && !r.egress.receive.coalesce_ps)
        r.egress.receive.gro_max_bytes = 0;
    if (r.egress.receive.gro_max_bytes && !r.egress.receive.coalesce_ps)
        throw config_error("gro_max_kb > 0 needs rx_coalesce_us > 0 (GRO merges the frames one receive poll takes up; "
                           "without interrupt moderation each frame is polled alone)");
    if (r.egress.receive.gro_max_bytes && r.egress.receive.gro_max_bytes < 2 * uint64_t{r.tcp.mss})
        throw config_error("gro_max_kb = " + std::to_string(r.egress.receive.gro_max_bytes) +
                           " B: allowed values are 0 (no GRO) or at least 2 segments (" +
                           std::to_string(2 * r.tcp.mss) + " B)");
    if (rx_frames_given && !r.egress.receive.coalesce_ps)
        throw config_error("rx_coalesce_frames needs rx_coalesce_us > 0 (without interrupt moderation every frame "
                           "goes up as it arrives)");
    if (!gso_given && r.tcp.jitter_ps)
        r.tcp.gso_max_bytes = 0;
    if (r.tcp.gso_max_bytes && r.tcp.jitter_ps)
        throw config_error("gso_max_kb > 0 cannot go with jitter_ns > 0 (the jitter delays each frame alone, and a GSO "
                           "segment's frames leave together): set one of them to 0");
    if (r.tcp.gso_max_bytes && r.tcp.gso_max_bytes < 2 * uint64_t{r.tcp.mss})
        throw config_error("gso_max_kb = " + std::to_string(r.tcp.gso_max_bytes) +
                           " B: allowed values are 0 (no GSO) or at least 2 segments (" +
                           std::to_string(2 * r.tcp.mss) + " B)");
    if (r.tcp.timestamps)
        r.tcp.mss -= tcp_config::timestamp_option_bytes;   // the frame stays one MTU, as Linux does
    return r;
}
}   // namespace

void declare_tcp(param_table& t, tcp_settings& s) {
    declare_host(t, s);
}

tcp_config make_tcp_config(const tcp_settings& s) {
    return resolve(s).tcp;
}

host_egress_config make_host_egress(const tcp_settings& s) {
    return resolve(s).egress;
}

void report_host(result& r, const tcp_settings& s) {
    tcp_settings resolved = resolve(s);
    param_table t;
    const std::vector<std::string> keys = declare_host(t, resolved);
    r.set("host_profile", s.host_profile);
    size_t k = 0;
    for (const auto& p : t.params()) {
        if (!p.is_set)
            continue;
        const std::string& key = keys.at(k++);
        switch (p.type) {
        case param_table::kind::flag: r.set(key, p.flag_value()); break;
        case param_table::kind::integer: r.set(key, p.int_value()); break;
        case param_table::kind::choice: r.set(key, p.choice_value()); break;
        case param_table::kind::real: r.set(key, p.real_value()); break;
        default: throw model_error("report_host: profiled setting '" + p.name + "' of an unreported kind");
        }
    }
}

}   // namespace cmswitch
