// SPDX-License-Identifier: Apache-2.0
#include "platform/scenarios/overload.h"

#include "config/errors.h"
#include "model/units.h"
#include "platform/network.h"
#include "platform/queue_sampler.h"
#include "platform/sim_context.h"
#include "platform/statistics.h"
#include "traffic/udp_sink.h"
#include "traffic/udp_source.h"

#include <cmath>

namespace cmswitch {

overload_scenario::overload_scenario() {
    auto& t = m_params;
    auto& c = m_cfg;
    t.add_int("senders", &c.senders, 1, 4000, "hosts", "number of sending hosts (one more host receives)");
    declare_link_rate(t, c.link_gbps);
    declare_link_delay(t, c.delay_us);
    t.add_real("load", &c.load, 0, 1e4, "x port rate",
               "aggregate offered load of all senders, relative to the bottleneck port rate", true);
    t.add_choice("traffic", &c.traffic, {"cbr", "poisson", "bernoulli"},
                 "cbr: constant bit rate; poisson/bernoulli: fixed-size transactions with random arrivals");
    t.add_int("frame_bytes", &c.frame_bytes, min_frame_bytes, max_frame_bytes, "bytes",
              "frame size on the wire (IP packet size)");
    t.add_int("txn_bytes", &c.txn_bytes, min_frame_bytes, 1 << 30, "bytes",
              "poisson/bernoulli: bytes per transaction, split into frames of frame_bytes");
    declare_buffer(t, c);
    t.add_real("nic_queue_kb", &c.nic_queue_kb, 9, 1 << 22, "KB (1024 B)", "host NIC egress queue limit");
    declare_run(t, c, 1e5);
    t.add_real("sample_us", &c.sample_us, 0, 1e9, "us", "queue sampling period for the time series (0: off)");
    t.set_min_nonzero("sample_us", 0.1);
    t.add_flag("series", &c.series, "include the queue time series in the output");
    t.add_choice("event_domains", &c.event_domains, {"shared", "grouped", "per_block"},
                 "how blocks share SystemC-driven event queues (speed only; see bench/)");
    t.add_real("warmup_s", &c.warmup_s, 0, 1e5, "s",
               "after this time: bottleneck drops, mean queue and per-flow rates are also reported as *_after_warmup");
    m_schemes.declare(t, scheme_slot::cm, "layer-2 congestion management");
    t.add_flag("no_decoupling", &c.no_decoupling,
               "return to the SystemC kernel at every model timestamp (same results, slower)");
}

namespace {
constexpr const char* events_kind =
    "model queue entries dispatched (frame arrivals, transmitter wakeups, source timers)";

// A star: senders are hosts 0..n-1, the receiver host n.
topology make_topology(const overload_config& c) {
    const buffer_config buf = make_buffer_config(c);
    topology topo = star_topology(static_cast<int>(c.senders) + 1, gbps_to_bps(c.link_gbps), us_to_ps(c.delay_us), buf);
    topo.nic_queue_bytes = kb_to_bytes(c.nic_queue_kb);
    topo.event_domains = c.event_domains;
    topo.temporal_decoupling = !c.no_decoupling;
    return topo;
}

// One UDP flow per sender to the receiver: CBR with a random phase, or transactions with random arrivals.
struct overload_workload {
    std::vector<flow_stats> flows;
    std::vector<std::unique_ptr<udp_sink>> sinks;
    std::vector<std::unique_ptr<cbr_source>> cbr;
    std::vector<std::unique_ptr<transaction_source>> txn;

    overload_workload(network& net, const overload_config& c, uint64_t src_rate, uint64_t end_ps)
        : flows(static_cast<size_t>(c.senders)) {
        const int receiver = static_cast<int>(c.senders);
        for (int i = 0; i < receiver; ++i) {
            flow_stats& f = flows[static_cast<size_t>(i)];
            f.flow = static_cast<uint32_t>(i);
            f.src = i;
            f.dst = receiver;
            sinks.emplace_back(new udp_sink(net.stack(receiver), f));
            rng r_i(static_cast<uint64_t>(c.seed), stream_id(random_stream::source, static_cast<uint64_t>(i)));
            if (c.traffic == "cbr") {
                cbr_params p;
                p.rate_bps = src_rate;
                p.frame_bytes = static_cast<uint32_t>(c.frame_bytes);
                // random phase in one interval, so that perfectly clocked senders do not collide in lockstep
                p.start_ps = r_i.below(serialization_ps(p.frame_bytes, p.rate_bps));
                p.stop_ps = end_ps;
                cbr.emplace_back(new cbr_source(net.stack(i), f, p));
            } else {
                transaction_params p;
                p.arrivals = parse_arrival_process(c.traffic);
                p.rate_bps = src_rate;
                p.txn_bytes = static_cast<uint32_t>(c.txn_bytes);
                p.frame_bytes = static_cast<uint32_t>(c.frame_bytes);
                p.slot_ps = serialization_ps(p.txn_bytes, gbps_to_bps(c.link_gbps));
                p.stop_ps = end_ps;
                txn.emplace_back(new transaction_source(net.stack(i), {&f}, p, r_i));
            }
        }
    }
};

// Samples of the bottleneck queue, each flow's received bytes, the bottleneck's drops and, when the senders'
// NICs have reaction points, each flow's allowed rate.
struct overload_series {
    std::unique_ptr<queue_sampler> sampler;
    size_t drops_gauge = 0;

    overload_series(network& net, const overload_config& c, const overload_workload& w) {
        if (c.sample_us <= 0 && c.warmup_s <= 0)
            return;
        const int receiver = static_cast<int>(c.senders);
        sampler.reset(new queue_sampler("sampler", us_to_ps(c.sample_us > 0 ? c.sample_us : 100)));
        sampler->watch("bottleneck_bytes", &net.sw(0).egress(receiver));
        for (int i = 0; i < receiver; ++i)
            sampler->watch_counter("received_bytes_flow" + std::to_string(i),
                                   &w.flows[static_cast<size_t>(i)].received_bytes);
        const ethernet_switch* sw = &net.sw(0);
        drops_gauge = sampler->watch_gauge("bottleneck_drops", [sw, receiver] {
            uint64_t d = 0;
            for (uint64_t x : sw->counters(receiver).drop_frames)
                d += x;
            return static_cast<double>(d);
        });
        if (net.nic(0).get_reaction_point())
            for (int i = 0; i < receiver; ++i) {
                const reaction_point* rp = net.nic(i).get_reaction_point();
                const uint32_t flow = static_cast<uint32_t>(i);
                sampler->watch_gauge("rate_mbps_flow" + std::to_string(i),
                                     [rp, flow] { return rp->rate_bps(flow) / 1e6; });
            }
    }

    // From the samples after the warm-up: mean queue, drops, and each flow's received rate.
    void report_after_warmup(result& r, const overload_config& c, const overload_workload& w, uint64_t end_ps) const {
        if (c.warmup_s <= 0 || !sampler)
            return;
        const std::vector<double>& ts = sampler->times_ms();
        size_t k0 = 0;
        while (k0 < ts.size() && ts[k0] < c.warmup_s * 1e3)
            ++k0;
        const std::vector<double>& q = sampler->port_values(0);
        const std::vector<double>& drops = sampler->gauge_values(drops_gauge);
        double qsum = 0;
        for (size_t k = k0; k < q.size(); ++k)
            qsum += q[k];
        const size_t nk = q.size() > k0 ? q.size() - k0 : 0;
        r.set("mean_queue_bytes_after_warmup", nk ? qsum / static_cast<double>(nk) : 0.0);
        r.set("drops_after_warmup", static_cast<int64_t>(nk ? drops.back() - (k0 ? drops[k0 - 1] : 0.0) : 0.0));
        const double span_s = static_cast<double>(end_ps) * 1e-12 - (k0 ? ts[k0 - 1] * 1e-3 : 0.0);
        table& fr = r.add_table("flow_rates_after_warmup");
        auto& id = fr.column("flow");
        auto& mb = fr.column("received_mbps");
        for (size_t i = 0; i < w.flows.size(); ++i) {
            const double before = k0 ? sampler->counter_values(i)[k0 - 1] : 0.0;
            id.push_back(static_cast<double>(i));
            mb.push_back((static_cast<double>(w.flows[i].received_bytes) - before) * 8 / span_s / 1e6);
        }
    }
};

uint64_t frames_forwarded(const ethernet_switch& sw) {
    uint64_t n = 0;
    for (int p = 0; p < sw.num_ports(); ++p)
        n += sw.egress(p).stats().tx_frames;
    return n;
}
}   // namespace

void overload_scenario::estimate_cost(run_cost& cost) const {
    const overload_config& c = m_cfg;
    const double hosts = static_cast<double>(c.senders) + 1;
    cost.add_network("senders", hosts, hosts, 1);
    // the series: the bottleneck queue, its drops, each flow's received bytes (and allowed rate with QCN)
    const double columns = 3 + static_cast<double>(c.senders) * (m_schemes.active(scheme_slot::cm) ? 2 : 1);
    if (c.sample_us > 0)
        cost.add_series("sample_us", format_number(c.sample_us) + " us", c.sample_us * 1e-6, c.duration_s, columns,
                        "series (the bottleneck, every flow)", c.series);
    else if (c.warmup_s > 0)
        cost.add_series("sample_us", "0 (every 100 us for the after-warm-up figures)", 100e-6, c.duration_s, columns,
                        "series", false);
    // what each sender offers beyond its link waits in its NIC queue (up to nic_queue_kb): frames held in memory
    const double link_bytes_s = c.link_gbps * 1e9 / 8,
                 offered_bytes_s = c.load * link_bytes_s / static_cast<double>(c.senders);
    if (offered_bytes_s > link_bytes_s) {
        const double held = std::min(c.nic_queue_kb * 1024, (offered_bytes_s - link_bytes_s) * c.duration_s);
        cost.add_records("nic_queue_kb", static_cast<double>(c.senders) * held / static_cast<double>(c.frame_bytes),
                         sizeof(frame),
                         "frames waiting in the senders' NIC queues (each sender offers more than its link)",
                         "lower nic_queue_kb or load");
    }
}

struct overload_scenario::run_state : scenario_run {
    run_state(network& net, const overload_config& c, uint64_t src_rate, uint64_t end_ps)
        : w(net, c, src_rate, end_ps), series(net, c, w) {}
    const overload_workload w;
    const overload_series series;
};

scenario_plan overload_scenario::plan(result& r) {
    const overload_config& c = m_cfg;
    const uint64_t rate_bps = gbps_to_bps(c.link_gbps);
    m_end_ps = s_to_ps(c.duration_s);
    m_src_rate =
        static_cast<uint64_t>(std::llround(c.load * static_cast<double>(rate_bps) / static_cast<double>(c.senders)));
    if (m_src_rate == 0)
        throw config_error("load = " + format_number(c.load) + ": gives 0 bit/s per sender");
    if (c.warmup_s >= c.duration_s)
        throw config_error("warmup_s = " + format_number(c.warmup_s) +
                           ": must be below duration_s = " + format_number(c.duration_s));
    m_schemes.check("udp");
    r.set("scenario", std::string("overload"));
    return {make_topology(c), m_end_ps};
}

std::unique_ptr<scenario_run> overload_scenario::build(network& net, result& r) {
    scheme_context schemes{net, static_cast<uint64_t>(m_cfg.seed), 0};
    schemes.traffic_priorities = 1;   // every flow sends on priority 0
    m_schemes.install(schemes);
    m_schemes.describe_setup(r);
    return std::make_unique<run_state>(net, m_cfg, m_src_rate, m_end_ps);
}

void overload_scenario::report(network& net, scenario_run& run, result& r) {
    const overload_config& c = m_cfg;
    const uint64_t end_ps = m_end_ps;
    const auto& [w, series] = static_cast<run_state&>(run);
    r.set("senders", c.senders);
    r.set("load", c.load);
    r.set("link_gbps", c.link_gbps);
    r.set("buffer_policy", c.buffer_policy);
    uint64_t sent = 0, received = 0;
    for (const auto& f : w.flows) {
        sent += f.sent_bytes;
        received += f.received_bytes;
    }
    r.set("offered_mbps", mbps(sent, end_ps));
    r.set("delivered_mbps", mbps(received, end_ps));
    report_port(r, "bottleneck_", net.sw(0).egress(static_cast<int>(c.senders)), gbps_to_bps(c.link_gbps), end_ps);
    r.set("cm", m_schemes.selected(scheme_slot::cm));
    m_schemes.report(scheme_slot::cm, net, r);
    series.report_after_warmup(r, c, w, end_ps);
    report_drops(r, net);
    if (c.warmup_s <= 0) {   // no warm-up: the window is the whole run (the same keys in every run)
        r.set("mean_queue_bytes_after_warmup", r.number("bottleneck_mean_queue_bytes"));
        r.set("drops_after_warmup", static_cast<int64_t>(r.number("drops")));
    }
    r.set("frames_forwarded", static_cast<int64_t>(frames_forwarded(net.sw(0))));
    report_run_end(r, net, static_cast<double>(end_ps) * 1e-12, events_kind);
    report_flows(r, w.flows, end_ps);
    if (series.sampler && c.series)
        series.sampler->export_to(r.add_table("queue_series"));
}

}   // namespace cmswitch
