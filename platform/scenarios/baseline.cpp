// SPDX-License-Identifier: Apache-2.0
#include "platform/scenarios/baseline.h"

#include "model/errors.h"
#include "platform/network.h"
#include "platform/queue_sampler.h"
#include "platform/sim_context.h"
#include "platform/statistics.h"
#include "traffic/tcp/tcp_receiver.h"
#include "traffic/tcp/tcp_sender.h"
#include "traffic/transaction_app.h"
#include "traffic/udp_sink.h"
#include "traffic/udp_source.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>

namespace cmswitch {

namespace {
const std::vector<std::string> schemes{"tcp",     "tcp-pause", "tcp-qcn",     "tcp-qcn-pause",
                                       "udp",     "udp-pause", "udp-qcn",     "udp-qcn-pause"};
}

baseline_scenario::baseline_scenario() {
    auto& t = m_params;
    auto& c = m_cfg;
    t.add_choice("scenario", &c.scenario, {"og-hotspot", "periodic-hotspot", "pause-spreading"},
                 "which baseline (see platform/scenarios/baseline.h)");
    t.add_choice("cm", &c.cm, schemes, "transport and congestion management: tcp|udp [+qcn] [+pause]");
    t.add_real("link_gbps", &c.link_gbps, 0, 1000, "Gbps", "rate of every link", true);
    t.add_real("duration_s", &c.duration_s, 0, 1e4, "s", "simulated time", true);
    t.add_int("seed", &c.seed, 0, INT64_MAX, "", "seed of every random choice of the run");
    t.add_real("hot_rate_gbps", &c.hot_rate_gbps, 0, 1000, "Gbps",
               "service rate of the hot spot during congestion (0: 0.5 for the hotspots, 1 for pause-spreading)");
    t.add_real("loop_latency_us", &c.loop_latency_us, 0, 1e6, "us",
               "round-trip propagation between hosts (0: 16 for the hotspots, 24 for pause-spreading)");
    t.add_int("txn_bytes", &c.txn_bytes, 64, 1 << 30, "bytes", "bytes per transaction (1500-byte frames)");
    t.add_real("buffer_kb", &c.buffer_kb, 1, 1 << 20, "KB (1024 B)",
               "output queue limit when PAUSE is off (seed 002: 150000 B); with PAUSE the outputs have no limit");
    t.add_choice("pause_mode", &c.pause_mode, {"pause", "pfc"}, "802.3x PAUSE or 802.1Qbb PFC for the +pause schemes");
    t.add_real("pause_xoff_kb", &c.pause_xoff_kb, 0, 1 << 20, "KB (1024 B)",
               "per-input high watermark (seed 002: 130000 B)", true);
    t.add_real("pause_xon_kb", &c.pause_xon_kb, 0, 1 << 20, "KB (1024 B)",
               "per-input low watermark (seed 002: 110000 B)");
    t.add_int("pause_quanta", &c.pause_quanta, 1, 65535, "quanta (512 bit times)", "pause time of each XOFF");
    t.add_real("min_rto_ms", &c.min_rto_ms, 0.001, 60000, "ms", "TCP minimum retransmission timeout");
    t.add_real("sample_us", &c.sample_us, 1, 1e9, "us", "time-series bin (throughput and queues)");
    t.add_flag("series", &c.series, "include the time series (default on)");
    c.qcn.add_params(t, false);
}

result baseline_scenario::run() {
    m_params.validate();
    baseline_config c = m_cfg;
    const auto wall0 = std::chrono::steady_clock::now();
    const bool tcp = c.cm.rfind("tcp", 0) == 0;
    const bool use_pause = c.cm.find("pause") != std::string::npos;
    c.qcn.cm = c.cm.find("qcn") != std::string::npos ? "qcn" : "none";
    const bool og = c.scenario != "pause-spreading";
    const uint64_t rate = static_cast<uint64_t>(std::llround(c.link_gbps * 1e9));
    const uint64_t hot = static_cast<uint64_t>(std::llround((c.hot_rate_gbps > 0 ? c.hot_rate_gbps : og ? 0.5 : 1.0) * 1e9));
    const double loop_us = c.loop_latency_us > 0 ? c.loop_latency_us : og ? 16.0 : 24.0;
    const uint64_t delay_ps = static_cast<uint64_t>(std::llround(loop_us * 1e6 / 8));   // 4 links each way
    const uint64_t end_ps = static_cast<uint64_t>(std::llround(c.duration_s * 1e12));
    const uint64_t bin_ps = static_cast<uint64_t>(std::llround(c.sample_us * 1e6));

    buffer_config buf;
    buf.policy = "static";
    buf.port_limit_bytes = use_pause ? (uint64_t{1} << 30) : static_cast<uint64_t>(std::llround(c.buffer_kb * 1024));

    topology topo;
    int hot_host;
    std::vector<std::pair<uint64_t, uint64_t>> events;   // congested intervals [from, to)
    if (og) {
        topo = leaf_spine_topology(2, 5, 2, rate, rate, delay_ps, buf);
        hot_host = 6;   // node 7
        if (c.scenario == "og-hotspot") {
            events.emplace_back(0, std::min<uint64_t>(end_ps, 500000000000ull));
        } else {
            for (uint64_t t = 0; t < end_ps; t += 200000000000ull)
                events.emplace_back(t, std::min<uint64_t>(end_ps, t + 100000000000ull));
        }
    } else {
        topo.hosts = 4;
        topo.switches = {switch_spec{3, buf}, switch_spec{2, buf}, switch_spec{3, buf}};
        topo.links = {link_spec{node_ref::of_host(0), 0, node_ref::of_switch(0), 0, rate, delay_ps},
                      link_spec{node_ref::of_host(1), 0, node_ref::of_switch(0), 1, rate, delay_ps},
                      link_spec{node_ref::of_switch(0), 2, node_ref::of_switch(1), 0, rate, delay_ps},
                      link_spec{node_ref::of_switch(1), 1, node_ref::of_switch(2), 2, rate, delay_ps},
                      link_spec{node_ref::of_host(2), 0, node_ref::of_switch(2), 0, rate, delay_ps},
                      link_spec{node_ref::of_host(3), 0, node_ref::of_switch(2), 1, rate, delay_ps}};
        hot_host = 2;   // node 3
        events.emplace_back(std::min<uint64_t>(end_ps, 250000000000ull), std::min<uint64_t>(end_ps, 750000000000ull));
    }
    for (const auto& e : events) {
        topo.host_service.push_back({hot_host, e.first, hot});
        topo.host_service.push_back({hot_host, e.second, rate});
    }
    topo.nic_queue_bytes = uint64_t{1} << 30;   // open-loop UDP sources: their excess waits (or is paused) here

    pause_config pc;
    if (use_pause) {
        pc.mode = c.pause_mode;
        pc.xoff_bytes = static_cast<uint64_t>(std::llround(c.pause_xoff_kb * 1024));
        pc.xon_bytes = static_cast<uint64_t>(std::llround(c.pause_xon_kb * 1024));
        pc.pause_quanta = static_cast<uint32_t>(c.pause_quanta);
    }

    result r;
    r.set("scenario", std::string("baseline"));
    r.set("baseline", c.scenario);
    r.set("cm", c.cm);
    sim_context ctx;
    {
        network net(topo);
        net.enable_pause(pc);
        c.qcn.apply(net, static_cast<uint64_t>(c.seed));
        const int hosts = topo.hosts;
        // sources: who sends to whom, at what rate
        std::vector<std::pair<int, std::vector<int>>> senders;   // host, destinations
        std::vector<uint64_t> offered(static_cast<size_t>(hosts), 0);
        if (og) {
            for (int h = 0; h < hosts; ++h) {
                if (h == hot_host)
                    continue;
                std::vector<int> dst;
                for (int d = 0; d < hosts; ++d)
                    if (d != h)
                        dst.push_back(d);
                senders.emplace_back(h, dst);
                offered[static_cast<size_t>(h)] = static_cast<uint64_t>(static_cast<double>(rate) * (h < 6 ? 0.25 : 0.40));
            }
        } else {
            senders.emplace_back(0, std::vector<int>{2});
            senders.emplace_back(1, std::vector<int>{3});
            offered[0] = offered[1] = rate;
        }
        const size_t nflows = static_cast<size_t>(hosts) * hosts;
        std::vector<flow_stats> udp(nflows);
        std::vector<tcp_stats> tst(nflows);
        std::vector<std::unique_ptr<udp_sink>> sinks;
        std::vector<std::unique_ptr<transaction_source>> udp_src;
        std::vector<std::unique_ptr<tcp_sender>> tx;
        std::vector<std::unique_ptr<tcp_receiver>> rx;
        std::vector<std::unique_ptr<tcp_transaction_source>> tcp_src;
        std::vector<std::pair<size_t, bool>> flows;   // flow id, victim
        tcp_config tc;
        tc.min_rto_ps = static_cast<uint64_t>(std::llround(c.min_rto_ms * 1e9));
        for (const auto& s : senders) {
            const int h = s.first;
            transaction_params p;
            p.arrivals = arrival_process::bernoulli;
            p.rate_bps = offered[static_cast<size_t>(h)];
            p.txn_bytes = static_cast<uint32_t>(c.txn_bytes);
            p.frame_bytes = 1500;
            p.slot_ps = serialization_ps(p.txn_bytes, rate);
            p.stop_ps = end_ps;
            rng rs(static_cast<uint64_t>(c.seed), static_cast<uint64_t>(h));
            p.start_ps = rs.below(p.slot_ps);   // random phase: sources at p = 1 would otherwise run in lockstep
            std::vector<flow_stats*> fs;
            std::vector<tcp_sender*> ts;
            for (int d : s.second) {
                const size_t id = static_cast<size_t>(h) * hosts + d;
                flows.emplace_back(id, d == hot_host);
                if (tcp) {
                    tx.emplace_back(new tcp_sender(net.stack(h), static_cast<uint32_t>(id), d, tc, tst[id],
                                                   rng(static_cast<uint64_t>(c.seed), 100000 + id)));
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
                tcp_src.emplace_back(new tcp_transaction_source(net.nic(h), ts, p, rs));
            else
                udp_src.emplace_back(new transaction_source(net.stack(h), fs, p, rs));
        }
        auto delivered = [&](bool victim) {
            uint64_t b = 0;
            for (const auto& f : flows)
                if (f.second == victim)
                    b += tcp ? tst[f.first].bytes_delivered : udp[f.first].received_payload;
            return static_cast<double>(b);
        };
        queue_sampler sampler("sampler", bin_ps);
        sampler.watch_gauge("innocent_bytes", [&] { return delivered(false); });
        sampler.watch_gauge("victim_bytes", [&] { return delivered(true); });
        for (int s = 0; s < net.num_switches(); ++s) {
            const ethernet_switch* sw = &net.sw(s);
            sampler.watch_gauge("queue_kb_switch" + std::to_string(s), [sw] {
                uint64_t b = 0;
                for (int p = 0; p < sw->num_ports(); ++p)
                    b += sw->egress(p).bytes();
                return static_cast<double>(b) / 1024;
            });
        }

        ctx.run_until(end_ps);

        // throughput per bin (Gb/s of payload) and its averages in and out of congestion
        table series;
        sampler.export_to(series);
        const auto& t_ms = series.column("t_ms");
        const auto& inn = series.column("innocent_bytes");
        const auto& vic = series.column("victim_bytes");
        table& out = r.add_table("series");
        auto& ot = out.column("t_ms");
        auto& og_ = out.column("innocent_gbps");
        auto& ov = out.column("victim_gbps");
        double sum[2][2] = {{0, 0}, {0, 0}};   // [in event][innocent, victim]
        int bins[2] = {0, 0};
        for (size_t k = 0; k < t_ms.size(); ++k) {
            const double dt_s = c.sample_us * 1e-6;
            const double gi = (inn[k] - (k ? inn[k - 1] : 0)) * 8 / dt_s / 1e9;
            const double gv = (vic[k] - (k ? vic[k - 1] : 0)) * 8 / dt_s / 1e9;
            ot.push_back(t_ms[k]);
            og_.push_back(gi);
            ov.push_back(gv);
            const uint64_t mid = static_cast<uint64_t>((t_ms[k] - c.sample_us * 5e-4) * 1e9);
            bool in_event = false;
            for (const auto& e : events)
                in_event = in_event || (mid >= e.first && mid < e.second);
            sum[in_event][0] += gi;
            sum[in_event][1] += gv;
            ++bins[in_event];
        }
        for (int s = 0; s < net.num_switches(); ++s)
            out.column("queue_kb_switch" + std::to_string(s)) = series.column("queue_kb_switch" + std::to_string(s));
        const double secs = c.duration_s;
        r.set("innocent_gbps", delivered(false) * 8 / secs / 1e9);
        r.set("victim_gbps", delivered(true) * 8 / secs / 1e9);
        r.set("innocent_gbps_congested", bins[1] ? sum[1][0] / bins[1] : 0.0);
        r.set("victim_gbps_congested", bins[1] ? sum[1][1] / bins[1] : 0.0);
        r.set("innocent_gbps_uncongested", bins[0] ? sum[0][0] / bins[0] : 0.0);
        r.set("victim_gbps_uncongested", bins[0] ? sum[0][1] / bins[0] : 0.0);
        double offered_innocent = 0, offered_victim = 0;
        for (const auto& s : senders) {
            const double per_dst = static_cast<double>(offered[static_cast<size_t>(s.first)]) / static_cast<double>(s.second.size());
            for (int d : s.second)
                (d == hot_host ? offered_victim : offered_innocent) += per_dst;
        }
        // ideal while congested: victims limited to the hot spot's service rate; innocent traffic all delivered,
        // except where it shares a link with the victim flow (pause-spreading: both cross the one 10 Gb/s trunk,
        // so the innocent flow can have at most the trunk minus the victim's share, 9 Gb/s at the defaults)
        const double victim_ideal = std::min(offered_victim, static_cast<double>(hot));
        const double innocent_ideal =
            og ? offered_innocent : std::min(offered_innocent, static_cast<double>(rate) - victim_ideal);
        r.set("ideal_innocent_gbps", innocent_ideal / 1e9);
        r.set("ideal_victim_gbps_congested", victim_ideal / 1e9);
        r.set("ideal_victim_gbps_uncongested", offered_victim / 1e9);
        report_drops(r, net);
        // drops inside the network (switches); the rest are NIC drops (a full QCN rate limiter, say)
        r.set("network_drops", static_cast<int64_t>(switch_drops(net)));
        table& ports = r.add_table("ports");
        uint64_t pauses = 0, cnms = 0;
        double max_paused = 0;
        for (int s = 0; s < net.num_switches(); ++s)
            for (int p = 0; p < net.sw(s).num_ports(); ++p) {
                const auto& pc_ = net.sw(s).counters(p);
                pauses += pc_.pause_sent;
                cnms += pc_.cnms;
                const double paused_ms = static_cast<double>(net.sw(s).egress(p).paused_ps(end_ps)) * 1e-9;
                max_paused = std::max(max_paused, paused_ms);
                ports.column("switch").push_back(s);
                ports.column("port").push_back(p);
                ports.column("pause_sent").push_back(static_cast<double>(pc_.pause_sent));
                ports.column("xon_sent").push_back(static_cast<double>(pc_.xon_sent));
                ports.column("paused_ms").push_back(paused_ms);
                ports.column("queue_max_kb").push_back(static_cast<double>(net.sw(s).egress(p).occupancy().max()) / 1024);
                uint64_t d = 0;
                for (uint64_t x : pc_.drop_frames)
                    d += x;
                ports.column("drops").push_back(static_cast<double>(d));
            }
        table& hostt = r.add_table("hosts");
        for (int h = 0; h < hosts; ++h) {
            hostt.column("host").push_back(h);
            hostt.column("paused_ms").push_back(static_cast<double>(net.nic(h).egress().paused_ps(end_ps)) * 1e-9);
            hostt.column("nic_queue_max_kb").push_back(static_cast<double>(net.nic(h).egress().occupancy().max()) / 1024);
        }
        r.set("pause_frames", static_cast<int64_t>(pauses));
        r.set("paused_ms_max_port", max_paused);
        r.set("cnms", static_cast<int64_t>(cnms));
        report_conservation(r, net);
        r.set("simulated_s", c.duration_s);
        r.set("events", static_cast<int64_t>(net.events()));
        if (!c.series)
            r.tables.erase(r.tables.begin());   // the series is the first table
    }
    r.set("wall_s", std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count());
    return r;
}

} // namespace cmswitch
