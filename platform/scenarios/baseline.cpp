// SPDX-License-Identifier: Apache-2.0
#include "platform/scenarios/baseline.h"

#include "config/errors.h"
#include "model/units.h"
#include "platform/network.h"
#include "platform/queue_sampler.h"
#include "platform/sim_context.h"
#include "platform/statistics.h"
#include "traffic/tcp/congestion_control.h"
#include "traffic/tcp/tcp_receiver.h"
#include "traffic/tcp/tcp_sender.h"
#include "traffic/transaction_app.h"
#include "traffic/udp_sink.h"
#include "traffic/udp_source.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace cmswitch {

namespace {
const std::vector<std::string> schemes{"tcp", "tcp-pause", "tcp-qcn", "tcp-qcn-pause",
                                       "udp", "udp-pause", "udp-qcn", "udp-qcn-pause"};
}

baseline_scenario::baseline_scenario() {
    auto& t = m_params;
    auto& c = m_cfg;
    t.add_choice("scenario", &c.scenario, {"og-hotspot", "periodic-hotspot", "pause-spreading"},
                 "which baseline (see platform/scenarios/baseline.h)");
    t.add_choice("cm", &c.cm, schemes, "transport and congestion management: tcp|udp [+qcn] [+pause]");
    declare_link_rate(t, c.link_gbps);
    declare_run(t, c, 1e4);
    t.add_real("hot_rate_gbps", &c.hot_rate_gbps, 0, 1000, "Gbps",
               "service rate of the hot spot during congestion (0: 0.5 for the hotspots, 1 for pause-spreading)");
    t.add_real("loop_latency_us", &c.loop_latency_us, 0, 1e6, "us",
               "round-trip propagation between hosts (0: 16 for the hotspots, 24 for pause-spreading)");
    t.add_int("txn_bytes", &c.txn_bytes, 64, 1 << 30, "bytes", "bytes per transaction (1500-byte frames)");
    t.add_real("buffer_kb", &c.buffer_kb, 1, 1 << 20, "KB (1024 B)",
               "output queue limit when PAUSE is off (Atikoglu & Prabhakar 2008: 150000 B); with PAUSE the outputs "
               "have no limit");
    t.add_choice("pause_mode", &c.pause_mode, {"pause", "pfc"}, "802.3x PAUSE or 802.1Qbb PFC for the +pause schemes");
    m_schemes.declare(t, scheme_slot::pause, "", false);
    t.set_default("pause_xoff_kb",
                  format_number(130000.0 / 1024));   // Atikoglu & Prabhakar 2008: Watermark_hi 130000 B
    t.set_default("pause_xon_kb", format_number(110000.0 / 1024));   // Atikoglu & Prabhakar 2008: Watermark_lo 110000 B
    t.add_real("sample_us", &c.sample_us, 1, 1e9, "us", "time-series bin (throughput and queues)");
    t.set_min_nonzero("sample_us", 0.1);
    t.add_flag("series", &c.series, "include the time series (default on)");
    m_schemes.declare(t, scheme_slot::cm, "", false);
    declare_tcp(t, c);   // the hosts' TCP, for the tcp-* schemes (dctcp needs --marking)
    m_schemes.declare(t, scheme_slot::marking, "switch ECN marking on the instantaneous queue (tcp-* schemes)");
}

namespace {
// The run's settings in model units; the hot spot's congested intervals.
struct baseline_plan {
    bool og;   // og-hotspot or periodic-hotspot (else pause-spreading)
    bool tcp;
    uint64_t rate, hot, delay_ps, end_ps, bin_ps;
    int hot_host;
    std::vector<std::pair<uint64_t, uint64_t>> events;   // congested intervals [from, to)
};

baseline_plan make_plan(const baseline_config& c) {
    baseline_plan p;
    p.og = c.scenario != "pause-spreading";
    p.tcp = c.cm.rfind("tcp", 0) == 0;
    p.rate = gbps_to_bps(c.link_gbps);
    p.hot = gbps_to_bps(c.hot_rate_gbps > 0 ? c.hot_rate_gbps : p.og ? 0.5 : 1.0);
    p.delay_ps = us_to_ps((c.loop_latency_us > 0 ? c.loop_latency_us : p.og ? 16.0 : 24.0) / 8);   // 4 links each way
    p.end_ps = s_to_ps(c.duration_s);
    p.bin_ps = us_to_ps(c.sample_us);
    p.hot_host = p.og ? 6 : 2;   // node 7, or node 3
    if (c.scenario == "og-hotspot")
        p.events.emplace_back(0, std::min<uint64_t>(p.end_ps, 500000000000ull));
    else if (c.scenario == "periodic-hotspot")
        for (uint64_t t = 0; t < p.end_ps; t += 200000000000ull)
            p.events.emplace_back(t, std::min<uint64_t>(p.end_ps, t + 100000000000ull));
    else
        p.events.emplace_back(std::min<uint64_t>(p.end_ps, 250000000000ull),
                              std::min<uint64_t>(p.end_ps, 750000000000ull));
    return p;
}

topology make_topology(const baseline_config& c, const baseline_plan& p, bool lossless) {
    buffer_config buf;
    buf.policy = "static";
    buf.port_limit_bytes = lossless ? (uint64_t{1} << 30) : kb_to_bytes(c.buffer_kb);   // PAUSE: no output limit
    topology topo;
    if (p.og) {
        topo = leaf_spine_topology(2, 5, 2, p.rate, p.rate, p.delay_ps, buf);
    } else {
        const uint64_t r = p.rate, d = p.delay_ps;
        topo.hosts = 4;
        topo.switches = {switch_spec{3, buf}, switch_spec{2, buf}, switch_spec{3, buf}};
        topo.links = {link_spec{node_ref::of_host(0), 0, node_ref::of_switch(0), 0, r, d},
                      link_spec{node_ref::of_host(1), 0, node_ref::of_switch(0), 1, r, d},
                      link_spec{node_ref::of_switch(0), 2, node_ref::of_switch(1), 0, r, d},
                      link_spec{node_ref::of_switch(1), 1, node_ref::of_switch(2), 2, r, d},
                      link_spec{node_ref::of_host(2), 0, node_ref::of_switch(2), 0, r, d},
                      link_spec{node_ref::of_host(3), 0, node_ref::of_switch(2), 1, r, d}};
    }
    for (const auto& e : p.events) {
        topo.host_service.push_back({p.hot_host, e.first, p.hot});
        topo.host_service.push_back({p.hot_host, e.second, p.rate});
    }
    topo.nic_queue_bytes = uint64_t{1} << 30;   // open-loop UDP sources: their excess waits (or is paused) here
    topo.host_egress = make_host_egress(c);
    return topo;
}

// Bernoulli transaction sources: og/periodic, every node but the hot one to all others (nodes 1-6 at 25 %, 8-10
// at 40 % of the link); pause-spreading, node 1 -> node 3 and node 2 -> node 4 at the link rate. Over UDP or
// one TCP flow per (source, destination).
struct baseline_workload {
    std::vector<std::pair<int, std::vector<int>>> senders;   // host, destinations
    std::vector<uint64_t> offered;   // per host
    std::vector<flow_stats> udp;
    std::vector<tcp_stats> tst;
    std::vector<std::unique_ptr<udp_sink>> sinks;
    std::vector<std::unique_ptr<transaction_source>> udp_src;
    std::vector<std::unique_ptr<tcp_sender>> tx;
    std::vector<std::unique_ptr<tcp_receiver>> rx;
    std::vector<std::unique_ptr<tcp_transaction_source>> tcp_src;
    std::vector<std::pair<size_t, bool>> flows;   // flow id, to the hot spot
    bool tcp;

    baseline_workload(network& net, const baseline_config& c, const baseline_plan& p)
        : offered(static_cast<size_t>(net.num_hosts()), 0), udp(static_cast<size_t>(net.num_hosts() * net.num_hosts())),
          tst(udp.size()), tcp(p.tcp) {
        const int hosts = net.num_hosts();
        if (p.og) {
            for (int h = 0; h < hosts; ++h) {
                if (h == p.hot_host)
                    continue;
                std::vector<int> dst;
                for (int d = 0; d < hosts; ++d)
                    if (d != h)
                        dst.push_back(d);
                senders.emplace_back(h, dst);
                offered[static_cast<size_t>(h)] =
                    static_cast<uint64_t>(static_cast<double>(p.rate) * (h < 6 ? 0.25 : 0.40));
            }
        } else {
            senders.emplace_back(0, std::vector<int>{2});
            senders.emplace_back(1, std::vector<int>{3});
            offered[0] = offered[1] = p.rate;
        }
        const shared_tcp_config tc = std::make_shared<const tcp_config>(make_tcp_config(c));
        const uint64_t seed = static_cast<uint64_t>(c.seed);
        for (const auto& s : senders) {
            const int h = s.first;
            transaction_params tp;
            tp.arrivals = arrival_process::bernoulli;
            tp.rate_bps = offered[static_cast<size_t>(h)];
            tp.txn_bytes = static_cast<uint32_t>(c.txn_bytes);
            tp.frame_bytes = 1500;
            tp.slot_ps = serialization_ps(tp.txn_bytes, p.rate);
            tp.stop_ps = p.end_ps;
            rng rs(seed, stream_id(random_stream::source, static_cast<uint64_t>(h)));
            tp.start_ps = rs.below(tp.slot_ps);   // random phase: sources at p = 1 would otherwise run in lockstep
            std::vector<flow_stats*> fs;
            std::vector<tcp_sender*> ts;
            for (int d : s.second) {
                const size_t id = static_cast<size_t>(h) * static_cast<size_t>(hosts) + static_cast<size_t>(d);
                flows.emplace_back(id, d == p.hot_host);
                if (tcp) {
                    tx.emplace_back(new tcp_sender(net.stack(h), static_cast<uint32_t>(id), d, tc, tst[id],
                                                   rng(seed, stream_id(random_stream::transaction_tcp, id))));
                    rx.emplace_back(new tcp_receiver(net.stack(d), static_cast<uint32_t>(id), h, tc, tst[id]));
                    ts.push_back(tx.back().get());
                } else {
                    udp[id].flow = static_cast<uint32_t>(id);
                    udp[id].src = h;
                    udp[id].dst = d;
                    sinks.emplace_back(new udp_sink(net.stack(d), udp[id]));
                    fs.push_back(&udp[id]);
                }
            }
            if (tcp)
                tcp_src.emplace_back(new tcp_transaction_source(net.nic(h), ts, tp, rs));
            else
                udp_src.emplace_back(new transaction_source(net.stack(h), fs, tp, rs));
        }
    }

    // Payload bytes delivered so far to hot-spot or innocent flows.
    double delivered(bool hotspot) const {
        uint64_t b = 0;
        for (const auto& f : flows)
            if (f.second == hotspot)
                b += tcp ? tst[f.first].bytes_delivered : udp[f.first].received_payload;
        return static_cast<double>(b);
    }

    // Ideal while congested: hot-spot flows limited to the hot spot's service rate; innocent traffic all delivered,
    // except where it shares a link with the hot-spot flow (pause-spreading: both cross the one trunk, so the
    // innocent flow can have at most the trunk minus the hot-spot flow's share, 9 Gb/s at the defaults).
    void report_ideal(result& r, const baseline_plan& p) const {
        double offered_innocent = 0, offered_hotspot = 0;
        for (const auto& s : senders) {
            const double per_dst =
                static_cast<double>(offered[static_cast<size_t>(s.first)]) / static_cast<double>(s.second.size());
            for (int d : s.second)
                (d == p.hot_host ? offered_hotspot : offered_innocent) += per_dst;
        }
        const double hotspot_ideal = std::min(offered_hotspot, static_cast<double>(p.hot));
        const double innocent_ideal =
            p.og ? offered_innocent : std::min(offered_innocent, static_cast<double>(p.rate) - hotspot_ideal);
        r.set("ideal_innocent_gbps", innocent_ideal / 1e9);
        r.set("ideal_hotspot_gbps_congested", hotspot_ideal / 1e9);
        r.set("ideal_hotspot_gbps_uncongested", offered_hotspot / 1e9);
    }
};

// Per bin: innocent and hot-spot payload delivered so far, and each switch's buffered bytes.
struct baseline_series {
    queue_sampler sampler;
    baseline_series(network& net, const baseline_plan& p, const baseline_workload& w) : sampler("sampler", p.bin_ps) {
        sampler.watch_gauge("innocent_bytes", [&w] { return w.delivered(false); });
        sampler.watch_gauge("hotspot_bytes", [&w] { return w.delivered(true); });
        for (int s = 0; s < net.num_switches(); ++s) {
            const ethernet_switch* sw = &net.sw(s);
            sampler.watch_gauge("queue_kb_switch" + std::to_string(s), [sw] {
                uint64_t b = 0;
                for (int port = 0; port < sw->num_ports(); ++port)
                    b += sw->egress(port).bytes();
                return static_cast<double>(b) / 1024;
            });
        }
        for (int s = 0; s < net.num_switches(); ++s) {   // pause state: transmitters held by a PAUSE/PFC now
            const ethernet_switch* sw = &net.sw(s);
            sampler.watch_gauge("paused_ports_switch" + std::to_string(s), [sw] {
                int n = 0;
                for (int port = 0; port < sw->num_ports(); ++port)
                    n += sw->egress(port).paused() != 0;
                return static_cast<double>(n);
            });
        }
    }

    // Throughput (Gb/s of payload) per bin into table "series" (with_table), and its averages in and out of the
    // congested intervals.
    void report(result& r, const baseline_config& c, const baseline_plan& p, int switches, bool with_table) const {
        const std::vector<double>& t_ms = sampler.times_ms();
        const std::vector<double>& inn = sampler.gauge_values(0);
        const std::vector<double>& vic = sampler.gauge_values(1);
        table out;
        auto& ot = out.column("t_ms");
        auto& oi = out.column("innocent_gbps");
        auto& ov = out.column("hotspot_gbps");
        double sum[2][2] = {{0, 0}, {0, 0}};   // [in event][innocent, hot spot]
        int bins[2] = {0, 0};
        for (size_t k = 0; k < t_ms.size(); ++k) {
            const double dt_s = c.sample_us * 1e-6;
            const double gi = (inn[k] - (k ? inn[k - 1] : 0)) * 8 / dt_s / 1e9;
            const double gv = (vic[k] - (k ? vic[k - 1] : 0)) * 8 / dt_s / 1e9;
            ot.push_back(t_ms[k]);
            oi.push_back(gi);
            ov.push_back(gv);
            const uint64_t mid = static_cast<uint64_t>((t_ms[k] - c.sample_us * 5e-4) * 1e9);
            bool in_event = false;
            for (const auto& e : p.events)
                in_event = in_event || (mid >= e.first && mid < e.second);
            sum[in_event][0] += gi;
            sum[in_event][1] += gv;
            ++bins[in_event];
        }
        for (int s = 0; s < switches; ++s)
            out.column("queue_kb_switch" + std::to_string(s)) = sampler.gauge_values(static_cast<size_t>(2 + s));
        for (int s = 0; s < switches; ++s)   // sampled at the end of each bin
            out.column("paused_ports_switch" + std::to_string(s)) =
                sampler.gauge_values(static_cast<size_t>(2 + switches + s));
        if (with_table)
            r.add_table("series") = std::move(out);
        r.set("innocent_gbps_congested", bins[1] ? sum[1][0] / bins[1] : 0.0);
        r.set("hotspot_gbps_congested", bins[1] ? sum[1][1] / bins[1] : 0.0);
        r.set("innocent_gbps_uncongested", bins[0] ? sum[0][0] / bins[0] : 0.0);
        r.set("hotspot_gbps_uncongested", bins[0] ? sum[0][1] / bins[0] : 0.0);
    }
};

}   // namespace

void baseline_scenario::estimate_cost(run_cost& cost) const {
    const baseline_config& c = m_cfg;
    const bool og = c.scenario != "pause-spreading";
    const double hosts = og ? 10 : 4, switches = og ? 4 : 3;
    cost.add_network("scenario", hosts, og ? 18 : 8, switches);
    if (c.cm.rfind("tcp", 0) == 0)
        cost.add_connections("cm", hosts * (hosts - 1), "TCP connections (one per source and destination)");
    cost.add_series("sample_us", format_number(c.sample_us) + " us", c.sample_us * 1e-6, c.duration_s,
                    1 + 2 + 2 * switches, "series (throughput, every switch's queue and pauses)", c.series);
    // open-loop UDP held back by PAUSE waits in the hosts' NIC queues (up to 1 GB each)
    if (c.cm.rfind("udp", 0) == 0 && c.cm.find("pause") != std::string::npos) {
        const double held = std::min(double(uint64_t{1} << 30), c.link_gbps * 1e9 / 8 * 0.4 * c.duration_s);
        cost.add_records("duration_s", hosts * held / 1500, sizeof(frame),
                         "frames paused in the hosts' NIC queues (open-loop UDP behind PAUSE)", "shorten duration_s");
    }
}

struct baseline_scenario::planned : baseline_plan {};

struct baseline_scenario::run_state : scenario_run {
    run_state(network& net, const baseline_config& c, const baseline_plan& p) : w(net, c, p), series(net, p, w) {}
    const baseline_workload w;
    const baseline_series series;
};

scenario_plan baseline_scenario::plan(result& r) {
    const baseline_config& c = m_cfg;
    m_plan = std::make_shared<planned>(planned{make_plan(c)});
    const baseline_plan& p = *m_plan;
    // the scheme name says the transport and which of QCN and PAUSE are on
    m_schemes.select(scheme_slot::cm, c.cm.find("qcn") != std::string::npos ? "qcn" : "none");
    m_schemes.select(scheme_slot::pause, c.cm.find("pause") != std::string::npos ? c.pause_mode : "none");
    if (!p.tcp && (c.tcp.transport != "newreno" || c.tcp.ecn || m_schemes.active(scheme_slot::marking)))
        throw config_error("transport / ecn / marking: for the tcp-* schemes; cm = " + c.cm + " sends UDP");
    if (p.tcp && find_congestion_control(c.tcp.transport).needs_marking && !m_schemes.active(scheme_slot::marking))
        throw config_error("transport = " + c.tcp.transport + " needs a marking scheme (e.g. --marking step)");
    m_schemes.check(p.tcp ? c.tcp.transport : "udp");
    r.set("scenario", std::string("baseline"));
    r.set("baseline", c.scenario);
    r.set("cm", c.cm);
    return {make_topology(c, p, m_schemes.active(scheme_slot::pause)), p.end_ps};
}

std::unique_ptr<scenario_run> baseline_scenario::build(network& net, result& r) {
    scheme_context schemes{net, static_cast<uint64_t>(m_cfg.seed), 0};
    schemes.traffic_priorities = 1;   // every flow sends on priority 0
    m_schemes.install(schemes);
    m_schemes.describe_setup(r);
    return std::make_unique<run_state>(net, m_cfg, *m_plan);
}

void baseline_scenario::report(network& net, scenario_run& run, result& r) {
    const baseline_config& c = m_cfg;
    const baseline_plan& p = *m_plan;
    const auto& [w, series] = static_cast<run_state&>(run);
    r.set("innocent_gbps", w.delivered(false) * 8 / c.duration_s / 1e9);
    r.set("hotspot_gbps", w.delivered(true) * 8 / c.duration_s / 1e9);
    series.report(r, c, p, net.num_switches(), c.series);
    w.report_ideal(r, p);
    report_drops(r, net);
    // drops inside the network (switches); the rest are NIC drops (a full QCN rate limiter, say)
    r.set("network_drops", static_cast<int64_t>(switch_drops(net)));
    report_switch_ports(r, net, p.end_ps);
    m_schemes.report(scheme_slot::pause, net, r);
    m_schemes.report(scheme_slot::cm, net, r);
    {   // the TCP hosts and the marking (in every run: marking none marks nothing)
        r.set("transport", c.tcp.transport);
        report_host(r, c);
        r.set("marking", m_schemes.selected(scheme_slot::marking));
        m_schemes.report(scheme_slot::marking, net, r);
        uint64_t marks = 0;   // frames set to CE, every switch port
        for (int s = 0; s < net.num_switches(); ++s)
            for (int port = 0; port < net.sw(s).num_ports(); ++port)
                marks += net.sw(s).counters(port).marks;
        r.set("marks", static_cast<int64_t>(marks));
    }
    report_run_end(r, net, c.duration_s);
}

}   // namespace cmswitch
