// SPDX-License-Identifier: Apache-2.0
#include "platform/scenarios/rdma_incast.h"

#include "config/errors.h"
#include "model/cm/dcqcn/dcqcn_endpoint.h"
#include "model/cm/dcqcn/dcqcn_scheme.h"
#include "model/control_frames.h"
#include "model/units.h"
#include "platform/delay_recorder.h"
#include "platform/network.h"
#include "platform/queue_sampler.h"
#include "platform/sim_context.h"
#include "platform/statistics.h"
#include "traffic/rdma/rdma_qp.h"

#include <algorithm>
#include <memory>

namespace cmswitch {

rdma_incast_scenario::rdma_incast_scenario() {
    auto& t = m_params;
    auto& c = m_cfg;
    t.add_int("senders", &c.senders, 1, 1000, "hosts", "sending hosts (one more host receives)");
    t.add_int("qps", &c.qps, 1, 10000, "queue pairs", "queue pairs per sender (flows = senders x qps)");
    declare_link_rate(t, c.link_gbps);
    declare_link_delay(t, c.delay_us);
    declare_run(t, c, 1e4);
    t.add_int("mtu_bytes", &c.mtu_bytes, 256, 4096, "bytes",
              "RoCE MTU: payload bytes per packet (62 header bytes more)");
    t.add_real("message_kb", &c.message_kb, 0, 1e9, "KB (1024 B)", "bytes each QP sends (0: endless, as ib_send_bw)");
    t.add_int("ack_every", &c.ack_every, 1, 1 << 20, "packets", "the responder ACKs every this many in-order packets");
    t.add_real("rto_us", &c.rto_us, 0, 1e7, "us",
               "go-back-N retransmission timeout (ConnectX: 4.096 us x 2^timeout; perftest default 14: 67 ms)", true);
    // from 1 us (ConnectX's smallest finite timeout is 8.192 us): a timeout of picoseconds re-sends the window
    // at every timer expiry, billions of times per simulated second (a fuzz run hung with 6.5 ps)
    t.set_min_nonzero("rto_us", 1);
    t.add_real("start_spread_us", &c.start_spread_us, 0, 1e7, "us",
               "each QP starts at a random time in [0, spread] (the paper's flows start within a second)");
    declare_buffer(t, c);
    m_schemes.declare(t, scheme_slot::marking, "switch ECN marking");
    t.set_default("marking", "dcqcn");
    m_schemes.declare(t, scheme_slot::cm, "NIC congestion control");
    t.set_default("cm", "dcqcn");
    m_schemes.declare(t, scheme_slot::pause, "PFC at the switch inputs");
    t.set_default("pause", "pfc");
    t.add_real("converge_kb", &c.converge_kb, 0, 1 << 22, "KB (1024 B)",
               "converged: the bottleneck queue stays under this (default 1 MB: a fifth of the buffer, well above the "
               "marking range) ...");
    t.add_real("converge_window_ms", &c.converge_window_ms, 0, 1e6, "ms", "... for this long", true);
    t.add_real("sample_us", &c.sample_us, 0, 1e9, "us", "queue sampling period (convergence, series)", true);
    t.set_min_nonzero("sample_us", 0.1);
    t.add_flag("series", &c.series, "include the queue time series in the output");
    t.add_real("warmup_ms", &c.warmup_ms, 0, 1e6, "ms",
               "measurement window: from this time to the end, the bottleneck's queueing delay and the goodput are "
               "also reported as delay_*_us_after_warmup and goodput_gbps_after_warmup (0: the whole run), leaving "
               "the start-up burst out");
}

namespace {
constexpr const char* events_kind =
    "model queue entries dispatched (frame arrivals, transmitter wakeups, QP pacing and DCQCN timers)";

struct rdma_plan {
    int senders, qps, flows;
    uint64_t rate_bps, end_ps;
    rdma_config qp;
};

rdma_plan make_plan(const rdma_incast_config& c) {
    rdma_plan p{static_cast<int>(c.senders), static_cast<int>(c.qps), static_cast<int>(c.senders * c.qps),
                gbps_to_bps(c.link_gbps),    s_to_ps(c.duration_s),   rdma_config{}};
    if (p.flows > 1 << 20)
        throw config_error("senders x qps = " + std::to_string(p.flows) + ": at most 1048576 flows");
    if (c.warmup_ms > 0 && c.warmup_ms >= c.duration_s * 1e3)
        throw config_error("warmup_ms = " + format_number(c.warmup_ms) + ": must end before duration_s = " +
                           format_number(c.duration_s) + " s (" + format_number(c.duration_s * 1e3) + " ms)");
    p.qp.mtu = static_cast<uint32_t>(c.mtu_bytes);
    p.qp.message_bytes = kb_to_bytes(c.message_kb);
    p.qp.ack_every = static_cast<uint32_t>(c.ack_every);
    p.qp.rto_ps = us_to_ps(c.rto_us);
    return p;
}

topology make_topology(const rdma_incast_config& c, const rdma_plan& p) {
    const buffer_config buf = make_buffer_config(c);
    topology t = star_topology(p.senders + 1, p.rate_bps, us_to_ps(c.delay_us), buf);
    // a RoCE NIC holds its queue pairs' frames (two per QP in its scheduler) and never drops them: room for all
    // of them plus 1 MB for ACKs and CNPs (with the 1 MB default, 500 QPs per sender overflowed the NIC)
    t.nic_queue_bytes =
        std::max<uint64_t>(t.nic_queue_bytes, static_cast<uint64_t>(p.qps) * 2 * p.qp.frame_bytes() + (1u << 20));
    return t;
}

// One QP (flow) per sender x qps to the receiver (host `senders`), each starting at a random time.
struct rdma_workload {
    std::vector<rdma_stats> stats;
    std::vector<std::unique_ptr<rdma_sender>> senders;
    std::vector<std::unique_ptr<rdma_receiver>> receivers;

    rdma_workload(network& net, const rdma_incast_config& c, const rdma_plan& p) : stats(static_cast<size_t>(p.flows)) {
        rng r(static_cast<uint64_t>(c.seed), stream_id(random_stream::rdma_start));
        const uint64_t spread = us_to_ps(c.start_spread_us);
        for (int f = 0; f < p.flows; ++f) {
            const uint32_t flow = static_cast<uint32_t>(f);
            rdma_stats& st = stats[static_cast<size_t>(f)];
            receivers.emplace_back(new rdma_receiver(net.stack(p.senders), flow, p.qp, st));
            senders.emplace_back(new rdma_sender(net.stack(f / p.qps), flow, p.senders, p.qp, st));
            senders.back()->start(spread ? r.below(spread + 1) : 0);
        }
    }
};

// The bottleneck queue every sample_us; each flow's delivered bytes at half time and at the end.
struct rdma_series {
    queue_sampler queue;
    queue_sampler halves;
    rdma_series(network& net, const rdma_incast_config& c, const rdma_plan& p, const rdma_workload& w)
        : queue("queue", us_to_ps(c.sample_us)), halves("halves", std::max<uint64_t>(1, p.end_ps / 2)) {
        queue.watch("bottleneck_bytes", &net.sw(0).egress(p.senders));
        const network* n = &net;   // pause state: transmitters held by a PAUSE/PFC at each sample
        queue.watch_gauge("paused_transmitters", [n] { return static_cast<double>(paused_transmitters(*n)); });
        for (int f = 0; f < p.flows; ++f)
            halves.watch_counter("delivered_flow" + std::to_string(f),
                                 &w.stats[static_cast<size_t>(f)].bytes_delivered);
    }

    // First time after the queue first exceeded the threshold that it stays under it for the window.
    void report_convergence(result& r, const rdma_incast_config& c) const {
        const std::vector<double>& t = queue.times_ms();
        const std::vector<double>& q = queue.port_values(0);
        const double th = c.converge_kb * 1024, window = c.converge_window_ms;
        bool burst = false;
        double since = -1, at = -1;
        for (size_t k = 0; k < q.size() && at < 0; ++k) {
            if (q[k] >= th) {
                burst = true;
                since = -1;
            } else if (burst || k + 1 == q.size()) {
                if (since < 0)
                    since = t[k];
                if (t[k] - since >= window)
                    at = since;
            }
        }
        if (!burst)
            at = 0;   // never above the threshold
        r.set("converged", at >= 0);
        r.set("convergence_ms", at >= 0 ? at : c.duration_s * 1e3);
        // whether it stayed there: the share of the samples after convergence with the queue above the threshold
        size_t after = 0, above = 0;
        for (size_t k = 0; k < q.size(); ++k)
            if (at >= 0 && t[k] >= at) {
                ++after;
                above += q[k] >= th ? 1 : 0;
            }
        r.set("above_threshold_after_convergence",
              after ? static_cast<double>(above) / static_cast<double>(after) : 0.0);
        double tail = 0;
        size_t n = 0;
        for (size_t k = q.size() - q.size() / 5; k < q.size(); ++k, ++n)
            tail += q[k];
        r.set("queue_last_fifth_kb", n ? tail / static_cast<double>(n) / 1024 : 0.0);
        // where the queue settled, from its distribution over the second half (the start-up burst long over),
        // not from one crossing of a threshold: its percentiles, and how often it was empty (the link idle
        // unless a frame was on the wire: rate cuts overshot)
        std::vector<double> late;
        size_t empty = 0;
        for (size_t k = 0; k < q.size(); ++k)
            if (t[k] >= c.duration_s * 1e3 / 2) {
                late.push_back(q[k] / 1024);
                empty += q[k] == 0 ? 1 : 0;
            }
        r.set("queue_p10_kb_second_half", percentile(late, 0.10));
        r.set("queue_p50_kb_second_half", percentile(late, 0.50));
        r.set("queue_p99_kb_second_half", percentile(late, 0.99));
        r.set("queue_empty_fraction_second_half",
              late.empty() ? 0.0 : static_cast<double>(empty) / static_cast<double>(late.size()));
    }

    // Per-flow rates over the second half and their Jain fairness index.
    std::vector<double> second_half_mbps(const rdma_plan& p, const rdma_workload& w) const {
        std::vector<double> rates(static_cast<size_t>(p.flows), 0.0);
        const double span_s = static_cast<double>(p.end_ps - p.end_ps / 2) * 1e-12;
        for (size_t f = 0; f < rates.size(); ++f) {
            const std::vector<double>& v = halves.counter_values(f);   // the sample at half time
            const double half = v.empty() ? 0.0 : v[0];
            rates[f] = (static_cast<double>(w.stats[f].bytes_delivered) - half) * 8 / span_s / 1e6;
        }
        return rates;
    }
};

void report_rates(result& r, const std::vector<double>& rates) {
    double sum = 0, sq = 0;
    for (double x : rates) {
        sum += x;
        sq += x * x;
    }
    r.set("jain_fairness", sq > 0 ? sum * sum / (static_cast<double>(rates.size()) * sq) : 0.0);
    r.set("rate_min_mbps", *std::min_element(rates.begin(), rates.end()));
    r.set("rate_max_mbps", *std::max_element(rates.begin(), rates.end()));
    r.set("goodput_gbps_second_half", sum / 1e3);
}

// CNPs and the per-flow table.
void report_flows_and_cnps(result& r, const network& net, const rdma_plan& p, const rdma_workload& w,
                           const std::vector<double>& rates) {
    uint64_t sent = 0, received = 0;
    for (int h = 0; h <= p.senders; ++h)
        if (const auto* e = net.nic(h).reaction_point_as<dcqcn_endpoint>()) {
            sent += e->cnps_sent();
            received += e->cnps_received();
        }
    r.set("cnps_sent", static_cast<int64_t>(sent));
    r.set("cnps_received", static_cast<int64_t>(received));
    uint64_t rexmit = 0;
    for (const auto& st : w.stats)
        rexmit += st.retransmitted_bytes;
    r.set("retransmitted_bytes_total", static_cast<int64_t>(rexmit));
    table& ft = r.add_table("flows");
    for (int f = 0; f < p.flows; ++f) {
        const rdma_stats& st = w.stats[static_cast<size_t>(f)];
        const reaction_point* rp = net.nic(f / p.qps).get_reaction_point();
        ft.column("flow").push_back(f);
        ft.column("sender").push_back(f / p.qps);
        ft.column("delivered_bytes").push_back(static_cast<double>(st.bytes_delivered));
        ft.column("second_half_mbps").push_back(rates[static_cast<size_t>(f)]);
        ft.column("rate_mbps_end").push_back(rp ? rp->rate_bps(static_cast<uint32_t>(f)) / 1e6 : 0.0);
        ft.column("cnps").push_back(rp ? static_cast<double>(rp->notifications(static_cast<uint32_t>(f))) : 0.0);
        ft.column("retransmitted_bytes").push_back(static_cast<double>(st.retransmitted_bytes));
    }
}
}   // namespace

void rdma_incast_scenario::estimate_cost(run_cost& cost) const {
    const rdma_incast_config& c = m_cfg;
    const double hosts = static_cast<double>(c.senders) + 1, flows = static_cast<double>(c.senders * c.qps);
    cost.add_network("senders", hosts, hosts, 1);
    // a queue pair (requester, responder, its DCQCN reaction point and notification state): about 10 KB, measured
    cost.add_records("qps", flows, 10 * 1024, "queue pairs (senders x qps)", "fewer senders or qps");
    cost.add_series("sample_us", format_number(c.sample_us) + " us", c.sample_us * 1e-6, c.duration_s, 3,
                    "series (the bottleneck queue, pauses)", c.series);
    // every data frame's queueing delay at the bottleneck, kept for exact percentiles (4 B, a copy to sort)
    const double frames = c.link_gbps * 1e9 / (8 * static_cast<double>(c.mtu_bytes + 62)) * c.duration_s;
    cost.add_records("duration_s", frames, 12,
                     "queueing-delay samples (one per data frame through the bottleneck over duration_s = " +
                         format_number(c.duration_s) + " s)",
                     "shorten duration_s");
}

struct rdma_incast_scenario::planned : rdma_plan {};

struct rdma_incast_scenario::run_state : scenario_run {
    run_state(network& net, const rdma_incast_config& c, const rdma_plan& p)
        : delays(net.sw(0).add_hook(std::make_unique<delay_recorder>(p.senders, frame_kind::rdma))), w(net, c, p),
          series(net, c, p, w) {
        if (c.warmup_ms > 0)
            delays->set_window_start(ms_to_ps(c.warmup_ms));
    }
    delay_recorder* delays;
    const rdma_workload w;
    const rdma_series series;
};

scenario_plan rdma_incast_scenario::plan(result& r) {
    const rdma_incast_config& c = m_cfg;
    m_plan = std::make_shared<planned>(planned{make_plan(c)});
    if (m_schemes.active(scheme_slot::cm) && !m_schemes.active(scheme_slot::marking))
        throw config_error("cm = " + m_schemes.selected(scheme_slot::cm) + " needs marking (it reacts to ECN marks)");
    if (m_schemes.active(scheme_slot::cm) && m_schemes.selected(scheme_slot::cm).rfind("dcqcn", 0) != 0)
        throw config_error("cm = " + m_schemes.selected(scheme_slot::cm) +
                           ": RDMA queue pairs take dcqcn, dcqcn+ or none");
    m_schemes.check("rdma");
    r.set("scenario", std::string("rdma-incast"));
    return {make_topology(c, *m_plan), m_plan->end_ps};
}

std::unique_ptr<scenario_run> rdma_incast_scenario::build(network& net, result& r) {
    const rdma_plan& p = *m_plan;
    scheme_context schemes{net, static_cast<uint64_t>(m_cfg.seed), p.senders, p.qp.frame_bytes()};
    schemes.traffic_priorities = static_cast<uint8_t>(1u << p.qp.prio);
    schemes.control_priorities = static_cast<uint8_t>(1u << control_priority);   // ACKs, NACKs and CNPs
    m_schemes.install(schemes);
    if (!m_schemes.active(scheme_slot::cm))   // the NICs still schedule their QPs, at line rate
        install_rdma_endpoints(net, dcqcn_scheme{}, "none", p.qp.frame_bytes());
    m_schemes.describe_setup(r);
    return std::make_unique<run_state>(net, m_cfg, p);
}

void rdma_incast_scenario::report(network& net, scenario_run& run, result& r) {
    const rdma_incast_config& c = m_cfg;
    const rdma_plan& p = *m_plan;
    const auto& [delays, w, series] = static_cast<run_state&>(run);
    r.set("flows", static_cast<int64_t>(p.flows));
    r.set("link_gbps", c.link_gbps);
    r.set("marking", m_schemes.selected(scheme_slot::marking));
    r.set("cm", m_schemes.selected(scheme_slot::cm));
    r.set("pause", m_schemes.selected(scheme_slot::pause));
    uint64_t delivered = 0, done = 0;
    for (const auto& st : w.stats) {
        delivered += st.bytes_delivered;
        done += st.done_ps ? 1 : 0;
    }
    r.set("goodput_gbps", mbps(delivered, p.end_ps) / 1e3);
    r.set("payload_delivered_bytes", static_cast<int64_t>(delivered));
    r.set("qps_done", static_cast<int64_t>(done));   // message QPs whose last byte was acknowledged
    {   // message QPs not done by the end, by name (sender s, its QP q: "s3.qp1"): a stalled set-up shows here
        std::string names;
        uint64_t left = 0;
        for (size_t f = 0; c.message_kb > 0 && f < w.stats.size(); ++f)
            if (!w.stats[f].done_ps && ++left <= 16)
                names += (names.empty() ? "" : " ") + ("s" + std::to_string(f / static_cast<size_t>(p.qps))) + ".qp" +
                         std::to_string(f % static_cast<size_t>(p.qps));
        if (left > 16)
            names += " (+" + std::to_string(left - 16) + " more)";
        r.set("qps_unfinished", static_cast<int64_t>(left));
        r.set("qps_unfinished_names", names);
    }
    // every key in every run: without messages (message_kb 0) the message times are 0 and incast_completed 0
    r.set("message_time_p50_ms", 0.0);
    r.set("message_time_p99_ms", 0.0);
    r.set("message_time_max_ms", 0.0);
    r.set("incast_completed", int64_t{0});
    r.set("incast_time_ms", 0.0);
    if (c.message_kb > 0) {   // each message's completion (first packet to last byte acknowledged), and the incast's
        std::vector<double> ms;
        uint64_t first = UINT64_MAX, last = 0;
        for (const auto& st : w.stats) {
            first = std::min(first, st.start_ps);
            if (st.done_ps) {
                ms.push_back(static_cast<double>(st.done_ps - st.start_ps) * 1e-9);
                last = std::max(last, st.done_ps);
            }
        }
        r.set("message_time_p50_ms", percentile(ms, 0.5));
        r.set("message_time_p99_ms", percentile(ms, 0.99));
        r.set("message_time_max_ms", percentile(ms, 1.0));
        // the incast: from the first QP's first packet to the last QP's last acknowledged byte (when every QP is
        // done; else incast_completed and incast_time_ms are 0)
        const bool all = done == w.stats.size() && last > first;
        r.set("incast_completed", static_cast<int64_t>(all ? 1 : 0));
        if (all)
            r.set("incast_time_ms", static_cast<double>(last - first) * 1e-9);
    }
    r.set("marks", static_cast<int64_t>(net.sw(0).counters(p.senders).marks));
    report_port(r, "bottleneck_", net.sw(0).egress(p.senders), p.rate_bps, p.end_ps);
    series.report_convergence(r, c);
    const std::vector<double> q = delays->quantiles_us({0.5, 0.99, 1.0});
    r.set("delay_p50_us", q[0]);
    r.set("delay_p99_us", q[1]);
    r.set("delay_max_us", q[2]);
    if (c.warmup_ms > 0) {
        const std::vector<double> qw = delays->quantiles_us({0.5, 0.99, 1.0}, true);
        r.set("delay_p50_us_after_warmup", qw[0]);
        r.set("delay_p99_us_after_warmup", qw[1]);
        r.set("delay_max_us_after_warmup", qw[2]);
        const uint64_t from = ms_to_ps(c.warmup_ms);
        r.set("goodput_gbps_after_warmup", mbps(delays->window_payload_bytes(), p.end_ps - from) / 1e3);
    } else {   // no warm-up: the window is the whole run
        r.set("delay_p50_us_after_warmup", q[0]);
        r.set("delay_p99_us_after_warmup", q[1]);
        r.set("delay_max_us_after_warmup", q[2]);
        r.set("goodput_gbps_after_warmup", mbps(delivered, p.end_ps) / 1e3);
    }
    const std::vector<double> rates = series.second_half_mbps(p, w);
    report_rates(r, rates);
    report_switch_ports(r, net, p.end_ps);
    m_schemes.report(scheme_slot::pause, net, r);
    report_drops(r, net);
    r.set("data_frames_to_receiver", static_cast<int64_t>(net.sw(0).egress(p.senders).stats().tx_frames));
    report_run_end(r, net, c.duration_s, events_kind);
    report_flows_and_cnps(r, net, p, w, rates);
    if (c.series)
        series.queue.export_to(r.add_table("queue_series"));
}

}   // namespace cmswitch
