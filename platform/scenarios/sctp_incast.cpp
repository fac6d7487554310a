// SPDX-License-Identifier: Apache-2.0
#include "platform/scenarios/sctp_incast.h"

#include "config/errors.h"
#include "model/units.h"
#include "platform/network.h"
#include "platform/sim_context.h"
#include "platform/statistics.h"
#include "traffic/sctp/sctp_congestion_control.h"
#include "traffic/sctp_elephant.h"
#include "traffic/sctp_incast.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace cmswitch {

namespace {
constexpr int num_hosts = 11;
constexpr int incast_client_host = 7;   // bsd8
constexpr int elephant_hosts[2] = {2, 3};   // bsd3, bsd4
bool fast_host(int h) {
    return h == 2 || h == 3 || h == 7;
}   // bsd3, bsd4, bsd8 on 1 Gb/s

int64_t port_limit_packets(const sctp_incast_config& c, int h) {
    return fast_host(h) ? c.fast_queue_packets : c.slow_queue_packets;
}

sctp_config sctp_settings(const sctp_incast_config& c) {
    sctp_config sc;
    sc.congestion_control = c.sctp_cc;
    sc.rto_min_ps = ms_to_ps(c.rto_min_ms);
    sc.rto_max_ps = ms_to_ps(c.rto_max_ms);
    sc.rto_initial_ps = ms_to_ps(c.rto_initial_ms);
    sc.delayed_sack = c.delayed_sack;
    sc.sack_delay_ps = ms_to_ps(c.sack_delay_ms);
    sc.lan_rtt_ps = ms_to_ps(c.lan_rtt_ms);
    sc.abc_l = static_cast<uint32_t>(c.abc_l);
    return sc;
}

// The transport's counters over both kinds of association.
void report_sctp(result& r, const sctp_stats& incast_st, const sctp_stats& elephant_st) {
    sctp_stats all = incast_st;
    for (const sctp_stats* s : {&elephant_st}) {
        all.t3_timeouts += s->t3_timeouts;
        all.t1_timeouts += s->t1_timeouts;
        all.fast_retransmits += s->fast_retransmits;
        all.ecn_window_cuts += s->ecn_window_cuts;
        all.ecn_in_window_cuts += s->ecn_in_window_cuts;
        all.rtt_samples += s->rtt_samples;
        all.rtt_sum_ps += s->rtt_sum_ps;
        all.retransmitted_chunks += s->retransmitted_chunks;
    }
    r.set("t3_timeouts", static_cast<int64_t>(all.t3_timeouts));
    r.set("t3_timeouts_incast", static_cast<int64_t>(incast_st.t3_timeouts));
    r.set("t3_timeouts_elephant", static_cast<int64_t>(elephant_st.t3_timeouts));
    r.set("t1_timeouts", static_cast<int64_t>(all.t1_timeouts));
    r.set("fast_retransmits", static_cast<int64_t>(all.fast_retransmits));
    r.set("retransmitted_chunks", static_cast<int64_t>(all.retransmitted_chunks));
    r.set("ecn_window_cuts", static_cast<int64_t>(all.ecn_window_cuts));
    r.set("ecn_in_window_cuts", static_cast<int64_t>(all.ecn_in_window_cuts));
    r.set("mean_rtt_ms", all.rtt_samples ? all.rtt_sum_ps / static_cast<double>(all.rtt_samples) * 1e-9 : 0.0);
    r.set("elephant_mean_rtt_ms",
          elephant_st.rtt_samples ? elephant_st.rtt_sum_ps / static_cast<double>(elephant_st.rtt_samples) * 1e-9 : 0.0);
}

}   // namespace

sctp_incast_scenario::sctp_incast_scenario() {
    auto& t = m_params;
    auto& c = m_cfg;
    declare_run(t, c, 1e5);
    t.add_choice("sctp_cc", &c.sctp_cc, sctp_cc_names(),
                 "SCTP's ECN response: plain (not ECN-capable), ecn (RFC 4960 appendix A), dccc, dynamic-dccc");
    m_schemes.declare(t, scheme_slot::marking, "the switch's transmit-queue manager (Stewart et al. 2011: dbl)");
    t.set_default("marking", "dbl");
    t.add_real("slow_mbps", &c.slow_mbps, 0, 1e6, "Mbps", "rate of the eight slow hosts' ports (paper 100)", true);
    t.add_real("fast_mbps", &c.fast_mbps, 0, 1e6, "Mbps", "rate of bsd3, bsd4 and bsd8's ports (paper 1000)", true);
    t.add_int("slow_queue_packets", &c.slow_queue_packets, 1, 1000000, "frames",
              "transmit queue of a slow port (Catalyst 4500: 240 at 100 Mb/s)");
    t.add_int("fast_queue_packets", &c.fast_queue_packets, 1, 1000000, "frames",
              "transmit queue of a fast port (Catalyst 4500: 1920 at 1 Gb/s)");
    declare_link_delay(t, c.delay_us);
    t.add_real("rto_min_ms", &c.rto_min_ms, 0.001, 1e6, "ms", "SCTP RTO.min (paper: 300 ms; RFC 4960 1 s)");
    t.add_real("rto_max_ms", &c.rto_max_ms, 0.001, 1e7, "ms", "SCTP RTO.max (RFC 4960 60 s)");
    t.add_real("rto_initial_ms", &c.rto_initial_ms, 0.001, 1e7, "ms", "SCTP RTO.initial, also T1's (RFC 4960 3 s)");
    t.add_flag("delayed_sack", &c.delayed_sack, "SACK every 2nd packet or after sack_delay_ms (RFC 4960 6.2)");
    t.add_real("sack_delay_ms", &c.sack_delay_ms, 0.001, 500, "ms", "delayed SACK timeout (FreeBSD 200 ms)");
    t.add_int("abc_l", &c.abc_l, 1, 64, "MTU",
              "slow start: at most L x MTU more per SACK (RFC 4960: 1; FreeBSD's abc_l_var: 1 or 2 by release)");
    t.add_real("lan_rtt_ms", &c.lan_rtt_ms, 0, 1e4, "ms", "dynamic DCCC: DCCC when the first RTT is below this");
    t.add_int("incast_sends", &c.incast_sends, 1, 1000000, "messages", "messages each peer returns per request");
    t.add_int("incast_send_bytes", &c.incast_send_bytes, 1, 1 << 30, "bytes", "size of each message (paper 1448)");
    t.add_real("incident_ms", &c.incident_ms, 0, 1e6, "ms", "a request slower than this is an incast incident", true);
    t.add_flag("elephants", &c.elephants, "run the two elephant sources (bsd3, bsd4)");
    t.add_flag(
        "trace_nic_drops", &c.trace_nic_drops,
        "record the frames host NICs drop, the first 100,000 per host (table nic_drops: time, host, flow, chunks, "
        "TSN; nic_drops_untraced counts the rest)");
    t.add_real("elephant_min_mb", &c.elephant_min_mb, 0.001, 1e6, "MB (2^20 B)", "smallest elephant (paper 1e8 B)");
    t.add_real("elephant_max_mb", &c.elephant_max_mb, 0.001, 1e6, "MB (2^20 B)", "largest elephant (paper 2^29 B)");
    t.add_real("bin_s", &c.bin_s, 0, 1e4, "s", "bin of the elephant bandwidth series", true);
}

void sctp_incast_scenario::estimate_cost(run_cost& cost) const {
    const sctp_incast_config& c = m_cfg;
    cost.add_network("duration_s", num_hosts, num_hosts, 1);
    cost.add_connections("elephants", 3 * (num_hosts - 1), "SCTP associations (incast and elephants)");
    // the elephant bandwidth series: two sources x two classes of destination (its table and the front end's
    // copy hold fewer columns: the copies factor covers them)
    if (c.elephants)
        cost.add_series("bin_s", format_number(c.bin_s) + " s", c.bin_s, c.duration_s, 2 * 2,
                        "elephant bandwidth series");
    // the incast's requests: a round is at least the peers' replies at the client's link rate
    const double round_s = 10.0 * static_cast<double>(c.incast_sends * c.incast_send_bytes) * 8 / (c.fast_mbps * 1e6);
    cost.add_records("duration_s", 10 * c.duration_s / std::max(round_s, 1e-6), 24,
                     "incast request records (10 per round)", "shorten duration_s");
}

scenario_plan sctp_incast_scenario::plan(result& r) {
    const sctp_incast_config& c = m_cfg;
    if (c.elephant_max_mb < c.elephant_min_mb)
        throw config_error("elephant_max_mb = " + format_number(c.elephant_max_mb) +
                           ": must be >= elephant_min_mb = " + format_number(c.elephant_min_mb));
    if (c.rto_max_ms < c.rto_min_ms)
        throw config_error("rto_max_ms = " + format_number(c.rto_max_ms) +
                           ": must be >= rto_min_ms = " + format_number(c.rto_min_ms));
    const uint64_t reply = static_cast<uint64_t>(c.incast_sends) * static_cast<uint64_t>(c.incast_send_bytes);
    if (reply > (uint64_t{1} << 32))
        throw config_error("incast_sends x incast_send_bytes = " + std::to_string(reply) + ": at most 4 GiB");
    m_schemes.check("sctp");
    m_end_ps = s_to_ps(c.duration_s);
    const uint64_t slow = mbps_to_bps(c.slow_mbps), fast = mbps_to_bps(c.fast_mbps);
    if (slow == 0 || fast == 0)
        throw config_error("slow_mbps / fast_mbps: must be at least 1e-6 Mbps (1 bit/s)");
    r.set("scenario", std::string(name()));
    buffer_config buf;
    buf.policy = "packets";
    for (int h = 0; h < num_hosts; ++h)
        buf.port_limit_packets.push_back(static_cast<uint64_t>(port_limit_packets(c, h)));
    topology topo = star_topology(num_hosts, fast, us_to_ps(c.delay_us), buf);
    for (int h = 0; h < num_hosts; ++h)
        topo.links[static_cast<size_t>(h)].rate_bps = fast_host(h) ? fast : slow;
    return {std::move(topo), m_end_ps};
}

// The SCTP associations: the incast's (peer i's server -> the client, flows 0..9), then the elephants' (bsd3 to
// every other host in order, bsd4 in reverse order).
struct sctp_incast_scenario::run_state : scenario_run {
    run_state(network& net, const sctp_incast_config& c) {
        const sctp_config sc = sctp_settings(c);
        uint32_t flow = 0;
        std::vector<sctp_receiver*> incast_rx;
        for (int h = 0; h < num_hosts; ++h) {
            if (h == incast_client_host)
                continue;
            incast_peers.push_back(h);
            senders.emplace_back(new sctp_sender(net.stack(h), flow, incast_client_host, sc, incast_st));
            receivers.emplace_back(new sctp_receiver(net.stack(incast_client_host), flow, h, sc, incast_st));
            servers.emplace_back(new sctp_incast_server(*senders.back(), static_cast<uint64_t>(c.incast_sends),
                                                        static_cast<uint64_t>(c.incast_send_bytes)));
            incast_rx.push_back(receivers.back().get());
            ++flow;
        }
        client = std::make_unique<sctp_incast_client>(net.nic(incast_client_host), incast_rx,
                                                      static_cast<uint64_t>(c.incast_sends),
                                                      static_cast<uint64_t>(c.incast_send_bytes), 0);
        if (c.elephants)
            for (int e = 0; e < 2; ++e)
                add_elephant_source(net, c, sc, e, flow);
        if (c.trace_nic_drops) {
            nic_drops.resize(num_hosts);
            for (int h = 0; h < num_hosts; ++h)
                net.nic(h).record_drops(&nic_drops[static_cast<size_t>(h)], nic_drops_traced_per_host);
        }
    }

    void add_elephant_source(network& net, const sctp_incast_config& c, const sctp_config& sc, int e, uint32_t& flow) {
        const int src = elephant_hosts[e];
        std::vector<int>& peers = elephant_peers[static_cast<size_t>(e)];
        for (int h = 0; h < num_hosts; ++h)
            if (h != src)
                peers.push_back(h);
        if (e == 1)
            std::reverse(peers.begin(), peers.end());
        std::vector<sctp_sender*> tx;
        std::vector<sctp_receiver*> rx;
        std::vector<int> cls;
        for (int h : peers) {
            senders.emplace_back(new sctp_sender(net.stack(src), flow, h, sc, elephant_st));
            receivers.emplace_back(new sctp_receiver(net.stack(h), flow, src, sc, elephant_st));
            tx.push_back(senders.back().get());
            rx.push_back(receivers.back().get());
            cls.push_back(fast_host(h) ? 1 : 0);
            ++flow;
        }
        sources.emplace_back(new sctp_elephant_source(
            net.nic(src), tx, rx, mb_to_bytes(c.elephant_min_mb), mb_to_bytes(c.elephant_max_mb),
            rng(static_cast<uint64_t>(c.seed), stream_id(random_stream::sctp_app, static_cast<uint64_t>(src))), 0));
        sources.back()->set_bins(s_to_ps(c.bin_s), cls);
    }

    sctp_stats incast_st, elephant_st;
    std::vector<std::unique_ptr<sctp_sender>> senders;
    std::vector<std::unique_ptr<sctp_receiver>> receivers;
    std::vector<std::unique_ptr<sctp_incast_server>> servers;
    std::vector<int> incast_peers;
    std::unique_ptr<sctp_incast_client> client;
    std::vector<std::unique_ptr<sctp_elephant_source>> sources;
    std::vector<std::vector<int>> elephant_peers = std::vector<std::vector<int>>(2);
    std::vector<std::vector<host_nic::drop_record>> nic_drops;   // per host, with trace_nic_drops
    // at most this many per host (4 MB; a 600 s run of the defaults drops about 3,600 in all): a run that drops more
    // reports how many went untraced
    static constexpr size_t nic_drops_traced_per_host = 100000;
};

std::unique_ptr<scenario_run> sctp_incast_scenario::build(network& net, result& r) {
    scheme_context schemes{net, static_cast<uint64_t>(m_cfg.seed), num_hosts};
    schemes.traffic_priorities = 1;   // every flow sends on priority 0
    m_schemes.install(schemes);
    m_schemes.describe_setup(r);
    return std::make_unique<run_state>(net, m_cfg);
}

void sctp_incast_scenario::report(network& net, scenario_run& run, result& r) {
    const sctp_incast_config& c = m_cfg;
    const auto& st = static_cast<const run_state&>(run);
    r.set("sctp_cc", c.sctp_cc);
    r.set("marking", m_schemes.selected(scheme_slot::marking));
    m_schemes.report(scheme_slot::marking, net, r);
    report_incast(st, r);
    if (c.trace_nic_drops)
        report_nic_drops(net, st, r);
    report_elephants(st, r);
    report_sctp(r, st.incast_st, st.elephant_st);
    report_switch(net, r);
    report_drops(r, net);
    report_run_end(r, net, c.duration_s,
                   "model queue entries dispatched (frame arrivals, transmitter wakeups, SCTP and application timers)");
}

// Every frame a host NIC dropped (trace_nic_drops), in time order per host, hosts in order. incast: the frame
// belongs to one of the incast's associations (flows 0-9); chunks: the SCTP chunk flags (sctp_flags, frame.h).
void sctp_incast_scenario::report_nic_drops(network& net, const run_state& st, result& r) const {
    table& t = r.add_table("nic_drops");
    auto& tt = t.column("time_s");
    auto& th = t.column("host");
    auto& tf = t.column("flow");
    auto& ti = t.column("incast");
    auto& tc = t.column("chunks");
    auto& ts = t.column("tsn");
    auto& tb = t.column("bytes");
    uint64_t untraced = 0;
    for (size_t h = 0; h < st.nic_drops.size(); ++h)
        untraced += net.nic(static_cast<int>(h)).dropped_frames() - st.nic_drops[h].size();
    r.set("nic_drops_untraced", static_cast<int64_t>(untraced));   // beyond the trace's bound per host
    for (size_t h = 0; h < st.nic_drops.size(); ++h)
        for (const host_nic::drop_record& d : st.nic_drops[h]) {
            tt.push_back(static_cast<double>(d.t_ps) * 1e-12);
            th.push_back(static_cast<double>(h + 1));   // bsd numbering, as peer_host
            tf.push_back(d.flow);
            ti.push_back(d.flow < st.incast_peers.size() ? 1 : 0);
            tc.push_back(d.flags);
            ts.push_back(static_cast<double>(d.seq));
            tb.push_back(d.bytes);
        }
}

// The incast's requests: completion times, the incidents over incident_ms, and their distribution.
void sctp_incast_scenario::report_incast(const run_state& st, result& r) const {
    const sctp_incast_config& c = m_cfg;
    std::vector<double> times_ms;
    uint64_t incidents = 0;
    table& inc = r.add_table("incidents");
    auto& it = inc.column("start_s");
    auto& ip = inc.column("peer_host");
    auto& im = inc.column("time_ms");
    auto& iu = inc.column("unfinished");
    auto& iflow = inc.column("flow");   // the request's association (the incast's flow i is peer i's)
    auto add = [&](const sctp_incast_client::request_record& q, bool unfinished) {
        const double ms = static_cast<double>(q.time_ps) * 1e-9;
        if (!unfinished)
            times_ms.push_back(ms);
        if (ms > c.incident_ms) {
            ++incidents;
            it.push_back(static_cast<double>(q.start_ps) * 1e-12);
            ip.push_back(st.incast_peers[static_cast<size_t>(q.peer)] + 1);
            im.push_back(ms);
            iu.push_back(unfinished ? 1 : 0);
            iflow.push_back(q.peer);
        }
    };
    for (const auto& q : st.client->requests())
        add(q, false);
    for (const auto& q : st.client->unfinished(m_end_ps))
        add(q, true);
    r.set("incast_rounds", static_cast<int64_t>(st.client->rounds_completed()));
    r.set("incast_requests", static_cast<int64_t>(times_ms.size()));
    r.set("incast_incidents", static_cast<int64_t>(incidents));
    r.set("incast_incidents_per_minute", c.duration_s > 0 ? static_cast<double>(incidents) * 60 / c.duration_s : 0.0);
    r.set("request_p50_ms", percentile(times_ms, 0.5));
    r.set("request_p90_ms", percentile(times_ms, 0.9));
    r.set("request_p99_ms", percentile(times_ms, 0.99));
    r.set("request_max_ms", times_ms.empty() ? 0.0 : *std::max_element(times_ms.begin(), times_ms.end()));
    // the completion time distribution: counts per band (the paper plots times above 15 ms)
    table& dist = r.add_table("request_time_histogram");
    auto& lo = dist.column("from_ms");
    auto& cnt = dist.column("requests");
    const double edges[] = {0, 1, 2, 5, 10, 15, 30, 100, 300, 1000, 3000, 10000};
    for (size_t k = 0; k < sizeof(edges) / sizeof(edges[0]); ++k) {
        const double a = edges[k], b = k + 1 < sizeof(edges) / sizeof(edges[0]) ? edges[k + 1] : 1e300;
        lo.push_back(a);
        cnt.push_back(static_cast<double>(
            std::count_if(times_ms.begin(), times_ms.end(), [&](double x) { return x >= a && x < b; })));
    }
}

// The elephants: every transfer, their goodput to the slow hosts and the bandwidth series of the two sources.
void sctp_incast_scenario::report_elephants(const run_state& st, result& r) const {
    const sctp_incast_config& c = m_cfg;
    const uint64_t end_ps = m_end_ps, bin_ps = s_to_ps(c.bin_s);
    uint64_t slow_bytes = 0, completed = 0;
    std::vector<double> bw;
    table& tt = r.add_table("elephant_transfers");
    auto& ts = tt.column("source_host");
    auto& td = tt.column("sink_host");
    auto& tb = tt.column("bytes");
    auto& tst = tt.column("start_s");
    auto& tdel = tt.column("delivered_bytes");
    auto& tm = tt.column("bandwidth_mbps");
    for (size_t e = 0; e < st.sources.size(); ++e) {
        for (const auto& x : st.sources[e]->transfers()) {
            const int sink = st.elephant_peers[e][static_cast<size_t>(x.peer)];
            if (!fast_host(sink))
                slow_bytes += x.delivered;
            double mb = 0;
            if (x.last_byte_ps > x.first_byte_ps) {
                ++completed;
                mb = mbps(x.bytes, x.last_byte_ps - x.first_byte_ps);
                if (!fast_host(sink))
                    bw.push_back(mb);
            }
            ts.push_back(elephant_hosts[e] + 1);
            td.push_back(sink + 1);
            tb.push_back(static_cast<double>(x.bytes));
            tst.push_back(static_cast<double>(x.start_ps) * 1e-12);
            tdel.push_back(static_cast<double>(x.delivered));
            tm.push_back(mb);
        }
    }
    r.set("elephant_goodput_mbps", mbps(slow_bytes, end_ps));   // both sources, to the 100 Mb/s hosts
    r.set("elephant_transfers_completed", static_cast<int64_t>(completed));
    double bw_mean = 0;
    for (double x : bw)
        bw_mean += x;
    r.set("elephant_transfer_mbps_mean", bw.empty() ? 0.0 : bw_mean / static_cast<double>(bw.size()));
    if (st.sources.empty() || !bin_ps)
        return;
    table& ser = r.add_table("elephant_series");
    auto& t = ser.column("t_s");
    auto& s0 = ser.column("bsd3_mbps");
    auto& s1 = ser.column("bsd4_mbps");
    const size_t nb = static_cast<size_t>((end_ps + bin_ps - 1) / bin_ps);
    for (size_t b = 0; b < nb; ++b) {
        t.push_back(static_cast<double>(b) * c.bin_s);
        for (size_t e = 0; e < 2; ++e) {
            const auto& bins = st.sources[e]->bytes_per_bin(0);
            (e ? s1 : s0).push_back(mbps(b < bins.size() ? bins[b] : 0, bin_ps));
        }
    }
}

// The switch's ports: tail and DBL drops, marks, queues.
void sctp_incast_scenario::report_switch(network& net, result& r) const {
    const sctp_incast_config& c = m_cfg;
    uint64_t tail = 0, aqm = 0;
    table& pt = r.add_table("ports");
    auto& ph = pt.column("host");
    auto& pr = pt.column("rate_mbps");
    auto& pq = pt.column("queue_packets");
    auto& ptail = pt.column("tail_drops");
    auto& pdbl = pt.column("dbl_drops");
    auto& pm = pt.column("marks");
    auto& pmax = pt.column("max_queue_frames");
    auto& p50 = pt.column("queue_p50_kb");   // time-weighted, as every scenario's ports table
    auto& p99 = pt.column("queue_p99_kb");
    for (int h = 0; h < num_hosts; ++h) {
        const auto& cn = net.sw(0).counters(h);
        const uint64_t td = cn.drop_frames[static_cast<size_t>(drop_reason::port_packet_limit)];
        const uint64_t ad = cn.drop_frames[static_cast<size_t>(drop_reason::aqm)];
        tail += td;
        aqm += ad;
        ph.push_back(h + 1);
        pr.push_back(static_cast<double>(mbps_to_bps(fast_host(h) ? c.fast_mbps : c.slow_mbps)) * 1e-6);
        pq.push_back(static_cast<double>(port_limit_packets(c, h)));
        ptail.push_back(static_cast<double>(td));
        pdbl.push_back(static_cast<double>(ad));
        pm.push_back(static_cast<double>(cn.marks));
        pmax.push_back(static_cast<double>(net.sw(0).egress(h).occupancy().max()) / 1500.0);
        p50.push_back(static_cast<double>(net.sw(0).egress(h).occupancy().quantile(0.5, m_end_ps)) / 1024);
        p99.push_back(static_cast<double>(net.sw(0).egress(h).occupancy().quantile(0.99, m_end_ps)) / 1024);
    }
    uint64_t sent = 0;
    for (int h = 0; h < num_hosts; ++h)
        sent += net.sw(0).egress(h).stats().tx_frames;
    r.set("switch_frames_sent", static_cast<int64_t>(sent));
    r.set("tail_drops", static_cast<int64_t>(tail));
    r.set("dbl_drops_switch", static_cast<int64_t>(aqm));
}

}   // namespace cmswitch
