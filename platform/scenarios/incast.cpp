// SPDX-License-Identifier: Apache-2.0
#include "platform/scenarios/incast.h"

#include "config/errors.h"
#include "model/units.h"
#include "platform/network.h"
#include "platform/queue_sampler.h"
#include "platform/sim_context.h"
#include "platform/statistics.h"
#include "platform/trace_recorder.h"
#include "traffic/bulk_app.h"
#include "traffic/incast.h"
#include "traffic/tcp/congestion_control.h"
#include "traffic/udp_sink.h"
#include "traffic/udp_source.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace cmswitch {

incast_scenario::incast_scenario() {
    auto& t = m_params;
    auto& c = m_cfg;
    t.add_int("flows", &c.flows, 1, 4000, "servers", "number of servers (one TCP flow each)");
    declare_buffer(t, c);
    declare_run(t, c, 1e5);
    t.add_real("sru_kb", &c.sru_kb, 1.0 / 1024, 1 << 22, "KB (1024 B)",
               "server response unit: bytes per server per round");
    declare_link_rate(t, c.link_gbps);
    t.add_real("server_link_gbps", &c.server_link_gbps, 0, 1000, "Gbps",
               "the servers' links, if not link_gbps (0): faster servers burst into the client's port as hosts on "
               "faster links do (the differential check against Linux in namespaces, whose senders' veths run at "
               "CPU speed)");
    t.add_real("server_uplink_gbps", &c.server_uplink_gbps, 0, 1000, "Gbps",
               "the servers behind a switch of their own whose one link into the client's switch runs at this rate "
               "(0: none, the servers are on the client's switch): a shared path, as the senders of the "
               "differential check against Linux share the CPUs that move their packets (its buffer takes "
               "everything)");
    declare_link_delay(t, c.delay_us);
    t.add_real("delay_skew_ns", &c.delay_skew_ns, 0, 1e6, "ns",
               "adds a random constant in [0, skew] to each server's link delay (drawn from the seed; breaks the "
               "exact ties of perfectly symmetric servers without random timing; the flows table lists the delays)");
    declare_tcp(t, c);
    m_schemes.declare(t, scheme_slot::marking, "switch ECN marking on the instantaneous queue");
    t.add_choice("request_timing", &c.request_timing, {"simultaneous", "serialized", "spread"},
                 "simultaneous: every server gets the next request at the same instant, one unloaded request "
                 "latency after the round ends (the paper's and ns-2's idealization); serialized: the client sends "
                 "one 64-byte request frame per server through its NIC; spread: as simultaneous, each server at a "
                 "random time up to request_spread_us later, drawn every round (servers whose CPUs take turns)");
    t.add_real("request_spread_us", &c.request_spread_us, 0, 1e7, "us",
               "request_timing spread: the largest offset of a server's start");
    t.add_int("bulk_flows", &c.bulk_flows, 0, 1000, "flows",
              "long-lived TCP flows to the client, each from a host of its own");
    t.add_int("elephant_flows", &c.elephant_flows, 0, 1000, "flows",
              "TCP flows to the client sending elephants of random size back to back, each from a host of its own");
    t.add_real("elephant_min_mb", &c.elephant_min_mb, 0.001, 1e6, "MB (2^20 B)", "smallest elephant");
    t.add_real("elephant_max_mb", &c.elephant_max_mb, 0.001, 1e6, "MB (2^20 B)", "largest elephant");
    t.add_real("udp_cbr_mbps", &c.udp_cbr_mbps, 0, 1e6, "Mbps",
               "one extra UDP constant-bit-rate flow to the client from a host of its own (Devkota & Reddy 2010: 400; "
               "0: none)");
    m_schemes.declare(t, scheme_slot::cm, "layer-2 congestion management");
    t.add_real("rate_sample_us", &c.rate_sample_us, 0, 1e9, "us",
               "sampling period of the incast flows' reaction-point rates (min rate metric, rate series)", true);
    t.set_min_nonzero("rate_sample_us", 0.1);
    m_schemes.declare(t, scheme_slot::pause,
                      "PAUSE at the switch inputs (lossless when the buffer holds every input's XOFF plus headroom)");
    t.add_real("sample_us", &c.sample_us, 0, 1e9, "us", "queue sampling period for the time series (0: off)");
    t.set_min_nonzero("sample_us", 0.1);
    t.add_flag("series", &c.series, "include the queue time series in the output");
    t.add_flag("trace", &c.trace,
               "include event traces: every switch drop and every TCP timeout, fast retransmit, end of recovery "
               "and limited transmit (tables drops and tcp_events)");
    t.add_flag("trace_acks", &c.trace_acks, "with trace: also every ACK's arrival at a sender (long tables)");
}

namespace {
constexpr const char* events_kind =
    "model queue entries dispatched (frame arrivals, transmitter wakeups, TCP and application timers)";

// The run's settings in model units, checked across fields.
struct incast_plan {
    uint64_t rate_bps, delay_ps, end_ps, sru_bytes;
    int n, nb, ne, nu;   // servers, bulk flows, elephant flows, UDP flows (0 or 1)
    tcp_config tcp;
    request_timing timing;
    int senders() const { return n + nb + ne + nu; }
};

incast_plan make_plan(const incast_config& c) {
    if (c.elephant_max_mb < c.elephant_min_mb)
        throw config_error("elephant_max_mb = " + format_number(c.elephant_max_mb) +
                           ": must be >= elephant_min_mb = " + format_number(c.elephant_min_mb));
    incast_plan p{gbps_to_bps(c.link_gbps),
                  us_to_ps(c.delay_us),
                  s_to_ps(c.duration_s),
                  kb_to_bytes(c.sru_kb),
                  static_cast<int>(c.flows),
                  static_cast<int>(c.bulk_flows),
                  static_cast<int>(c.elephant_flows),
                  c.udp_cbr_mbps > 0 ? 1 : 0,
                  tcp_config{},
                  parse_request_timing(c.request_timing)};
    p.tcp = make_tcp_config(c);
    return p;
}

// The servers on a switch of their own (switch 1, server i on port i - 1, port n up to switch 0), the other hosts on
// the client's switch (port 0 the client, then the bulk, elephant and UDP hosts, then the uplink); link i is still
// server i's. The servers' switch holds whatever its uplink cannot take at once.
void put_servers_behind_uplink(topology& topo, const incast_plan& p, uint64_t uplink_bps) {
    const int others = p.senders() - p.n;
    buffer_config big;
    big.port_limit_bytes = uint64_t{1} << 32;
    topo.switches[0].ports = 1 + others + 1;
    topo.switches.push_back(switch_spec{p.n + 1, big});
    for (int i = 1; i <= p.n; ++i) {
        link_spec& l = topo.links[static_cast<size_t>(i)];
        l.b = node_ref::of_switch(1);
        l.b_port = i - 1;
    }
    for (int k = 0; k < others; ++k)
        topo.links[static_cast<size_t>(p.n + 1 + k)].b_port = 1 + k;
    topo.links.push_back(
        link_spec{node_ref::of_switch(1), p.n, node_ref::of_switch(0), 1 + others, uplink_bps, p.delay_ps});
}

// A star: the client is host 0, then the servers (1..n), the bulk and elephant hosts, the UDP host.
topology make_topology(const incast_config& c, const incast_plan& p) {
    const buffer_config buf = make_buffer_config(c);
    topology topo = star_topology(p.senders() + 1, p.rate_bps, p.delay_ps, buf);
    topo.host_egress = make_host_egress(c);
    if (c.server_link_gbps > 0)
        for (int i = 1; i <= p.n; ++i)
            topo.links[static_cast<size_t>(i)].rate_bps = gbps_to_bps(c.server_link_gbps);
    if (c.server_uplink_gbps > 0)
        put_servers_behind_uplink(topo, p, gbps_to_bps(c.server_uplink_gbps));
    if (c.delay_skew_ns > 0) {
        rng skew(static_cast<uint64_t>(c.seed), stream_id(random_stream::delay_skew));
        for (int i = 1; i <= p.n; ++i)
            topo.links[static_cast<size_t>(i)].delay_ps += skew.below(ns_to_ps(c.delay_skew_ns) + 1);
    }
    return topo;
}

// The hosts' applications: each server's TCP flow and the client's rounds; background TCP flows (bulk, then
// elephants) from hosts n+1...; the UDP CBR flow from the last host.
struct incast_workload {
    static constexpr int client = 0;
    std::vector<tcp_stats> stats, bg_stats;
    std::vector<std::unique_ptr<tcp_sender>> senders, bg_senders;
    std::vector<std::unique_ptr<tcp_receiver>> receivers, bg_receivers;
    std::vector<std::unique_ptr<incast_server>> servers;
    std::vector<std::unique_ptr<bulk_app>> bg_apps;
    std::unique_ptr<incast_client> app;
    flow_stats udp;
    std::unique_ptr<udp_sink> udp_rx;
    std::unique_ptr<cbr_source> udp_tx;

    incast_workload(network& net, const incast_config& c, const incast_plan& p, trace_recorder* trace)
        : stats(static_cast<size_t>(p.n)), bg_stats(static_cast<size_t>(p.nb + p.ne)) {
        const uint64_t seed = static_cast<uint64_t>(c.seed);
        std::vector<tcp_receiver*> rx;
        std::vector<incast_server*> srv;
        std::vector<int> hosts;
        const shared_tcp_config tcp = std::make_shared<const tcp_config>(p.tcp);   // one for every connection
        for (int i = 0; i < p.n; ++i) {
            const int host = i + 1;
            const uint32_t flow = static_cast<uint32_t>(i);
            tcp_stats& st = stats[static_cast<size_t>(i)];
            senders.emplace_back(new tcp_sender(net.stack(host), flow, client, tcp, st,
                                                rng(seed, stream_id(random_stream::source, flow))));
            receivers.emplace_back(new tcp_receiver(net.stack(client), flow, host, tcp, st));
            servers.emplace_back(new incast_server(*senders.back(), net.nic(host), p.sru_bytes));
            rx.push_back(receivers.back().get());
            srv.push_back(servers.back().get());
            hosts.push_back(host);
            if (trace)
                senders.back()->set_observer(trace, c.trace_acks);
        }
        // an unloaded request's latency client -> switch -> server: two serializations and two propagations
        const uint32_t request_bytes = 64;
        const uint64_t request_latency = 2 * (serialization_ps(request_bytes, p.rate_bps) + p.delay_ps);
        app.reset(new incast_client(net.stack(client), rx, srv, hosts, 0, p.sru_bytes, request_bytes, p.timing,
                                    request_latency, 0, us_to_ps(c.request_spread_us),
                                    rng(seed, stream_id(random_stream::incast_requests))));
        for (int j = 0; j < p.nb + p.ne; ++j) {
            const int host = p.n + 1 + j;
            const uint32_t flow = static_cast<uint32_t>(p.n + j);
            tcp_stats& st = bg_stats[static_cast<size_t>(j)];
            bg_senders.emplace_back(new tcp_sender(net.stack(host), flow, client, tcp, st,
                                                   rng(seed, stream_id(random_stream::source, flow))));
            bg_receivers.emplace_back(new tcp_receiver(net.stack(client), flow, host, tcp, st));
            const bool elephant = j >= p.nb;
            bg_apps.emplace_back(
                new bulk_app(*bg_senders.back(), net.nic(host), elephant ? mb_to_bytes(c.elephant_min_mb) : 0,
                             elephant ? mb_to_bytes(c.elephant_max_mb) : 0,
                             rng(seed, stream_id(random_stream::bulk_app, static_cast<uint64_t>(j))), 0));
        }
        if (p.nu) {
            const int host = p.senders();
            udp.flow = static_cast<uint32_t>(p.n + p.nb + p.ne);
            udp.src = host;
            udp.dst = client;
            udp_rx.reset(new udp_sink(net.stack(client), udp));
            cbr_params cp;
            cp.rate_bps = mbps_to_bps(c.udp_cbr_mbps);
            cp.frame_bytes = 1500;
            cp.start_ps = rng(seed, stream_id(random_stream::cbr_phase)).below(serialization_ps(1500, cp.rate_bps));
            cp.stop_ps = p.end_ps;
            udp_tx.reset(new cbr_source(net.stack(host), udp, cp));
        }
    }
};

// The sampled series: each incast flow's allowed rate (when its NIC has a reaction point) and, with series, the
// bottleneck queue and the flows' delivered bytes.
struct incast_series {
    std::unique_ptr<queue_sampler> rates, queue;

    incast_series(network& net, const incast_config& c, const incast_plan& p, const incast_workload& w) {
        if (p.n > 0 && net.nic(1).get_reaction_point()) {
            rates.reset(new queue_sampler("rates", us_to_ps(c.rate_sample_us)));
            for (int i = 0; i < p.n; ++i) {
                const reaction_point* rp = net.nic(i + 1).get_reaction_point();
                const uint32_t flow = static_cast<uint32_t>(i);
                rates->watch_gauge("rate_mbps_flow" + std::to_string(i),
                                   [rp, flow] { return rp->rate_bps(flow) / 1e6; });
            }
        }
        if (c.sample_us > 0 && c.series) {
            queue.reset(new queue_sampler("sampler", us_to_ps(c.sample_us)));
            queue->watch("queue_bytes", &net.sw(0).egress(incast_workload::client));
            const network* n = &net;   // pause state: transmitters held by a PAUSE/PFC at each sample
            queue->watch_gauge("paused_transmitters", [n] { return static_cast<double>(paused_transmitters(*n)); });
            for (int i = 0; i < p.n; ++i)
                queue->watch_counter("delivered_bytes_flow" + std::to_string(i),
                                     &w.stats[static_cast<size_t>(i)].bytes_delivered);
        }
    }

    // Devkota & Reddy's "avg minrate": the minimum current rate over the incast flows at each sample, averaged
    void report_min_rate(result& r, const incast_config& c, int n) const {
        if (!rates) {   // no QCN rate limiters (every run has the keys): every flow at line rate
            r.set("avg_minrate_mbps", c.link_gbps * 1e3);
            r.set("avg_minrate_x_flows_mbps", c.link_gbps * 1e3 * n);
            return;
        }
        double sum = 0;
        const size_t samples = n ? rates->gauge_values(0).size() : 0;
        for (size_t k = 0; k < samples; ++k) {
            double m = 1e300;
            for (int i = 0; i < n; ++i)
                m = std::min(m, rates->gauge_values(static_cast<size_t>(i))[k]);
            sum += m;
        }
        const double avg_min = samples ? sum / static_cast<double>(samples) : c.link_gbps * 1e3;
        r.set("avg_minrate_mbps", avg_min);
        r.set("avg_minrate_x_flows_mbps", avg_min * n);
    }
};

void report_background(result& r, const incast_workload& w, const incast_plan& p) {
    uint64_t bulk_bytes = 0, elephant_bytes = 0, elephants_done = 0, bg_timeouts = 0;
    for (int j = 0; j < p.nb + p.ne; ++j) {
        const tcp_stats& st = w.bg_stats[static_cast<size_t>(j)];
        (j < p.nb ? bulk_bytes : elephant_bytes) += st.bytes_delivered;
        bg_timeouts += st.timeouts;
        if (j >= p.nb)
            elephants_done += w.bg_apps[static_cast<size_t>(j)]->completed();
    }
    r.set("bulk_goodput_mbps", mbps(bulk_bytes, p.end_ps));
    r.set("elephant_goodput_mbps", mbps(elephant_bytes, p.end_ps));
    r.set("elephants_completed", static_cast<int64_t>(elephants_done));
    r.set("background_timeouts", static_cast<int64_t>(bg_timeouts));
    r.set("udp_goodput_mbps", mbps(w.udp.received_bytes, p.end_ps));
}

std::vector<double> round_times_ms(const incast_client& app) {
    std::vector<double> rt;
    for (uint64_t t : app.round_times_ps())
        rt.push_back(static_cast<double>(t) * 1e-9);
    return rt;
}

void report_rounds(result& r, const incast_client& app) {
    const std::vector<double> rt = round_times_ms(app);
    r.set("rounds_completed", static_cast<int64_t>(app.rounds_completed()));
    r.set("round_time_p50_ms", percentile(rt, 0.50));
    r.set("round_time_p99_ms", percentile(rt, 0.99));
    r.set("round_time_max_ms", rt.empty() ? 0.0 : *std::max_element(rt.begin(), rt.end()));
    r.set("rounds_over_300ms",
          static_cast<int64_t>(std::count_if(rt.begin(), rt.end(), [](double x) { return x > 300.0; })));
}

void report_tcp(result& r, const std::vector<tcp_stats>& stats) {
    uint64_t timeouts = 0, max_timeouts = 0, fr = 0, lt = 0, idle = 0, reductions = 0;
    uint64_t segs = 0, probes = 0, probe_fixes = 0, rack = 0, dsacks = 0;
    for (const auto& st : stats) {
        segs += st.retransmitted_segments;
        probes += st.loss_probes;
        probe_fixes += st.tlp_recoveries;
        rack += st.rack_losses;
        dsacks += st.dsacks;
        timeouts += st.timeouts;
        max_timeouts = std::max(max_timeouts, st.timeouts);
        fr += st.fast_retransmits;
        lt += st.limited_transmits;
        idle += st.idle_restarts;
        reductions += st.ecn_reductions;
    }
    r.set("timeouts_per_flow_mean", static_cast<double>(timeouts) / static_cast<double>(stats.size()));
    r.set("timeouts_max_flow", static_cast<int64_t>(max_timeouts));
    r.set("timeouts", static_cast<int64_t>(timeouts));
    r.set("fast_retransmits", static_cast<int64_t>(fr));
    r.set("limited_transmits", static_cast<int64_t>(lt));
    r.set("idle_restarts", static_cast<int64_t>(idle));
    report_retransmissions(r, stats);
    r.set("ecn_reductions", static_cast<int64_t>(reductions));
    // the counters Linux's nstat shows: TcpRetransSegs, TCPLossProbes, TCPLossProbeRecovery, ... (in every run;
    // without RACK-TLP the probes and RACK's losses are 0)
    r.set("retransmitted_segments", static_cast<int64_t>(segs));
    r.set("loss_probes", static_cast<int64_t>(probes));
    r.set("loss_probe_recoveries", static_cast<int64_t>(probe_fixes));
    r.set("rack_losses", static_cast<int64_t>(rack));
    r.set("dsacks", static_cast<int64_t>(dsacks));
}

void report_bottleneck(result& r, const network& net, const incast_plan& p) {
    const egress_port& bottleneck = net.sw(0).egress(incast_workload::client);
    r.set("marks", static_cast<int64_t>(net.sw(0).counters(incast_workload::client).marks));
    const auto& occ = bottleneck.occupancy();
    r.set("mean_queue_bytes", occ.mean(p.end_ps));
    r.set("mean_queue_kb", occ.mean(p.end_ps) / 1024);
    r.set("max_queue_bytes", static_cast<int64_t>(occ.max()));
    report_occupancy(r, "queue_", occ, p.end_ps, true);
    r.set("bottleneck_utilization",
          mbps(bottleneck.stats().tx_bytes, p.end_ps) * 1e6 / static_cast<double>(p.rate_bps));
}

// Table "flows": per incast flow; "rounds": each round's completion time.
void report_flow_tables(result& r, const network& net, const incast_workload& w, const incast_plan& p) {
    table& ft = r.add_table("flows");
    auto& id = ft.column("flow");
    auto& to = ft.column("timeouts");
    auto& fx = ft.column("fast_retransmits");
    auto& rb = ft.column("retransmitted_bytes");
    auto& db = ft.column("delivered_bytes");
    auto& cn = ft.column("cnms_received");
    auto& ld = ft.column("link_delay_us");
    for (int i = 0; i < p.n; ++i) {
        const tcp_stats& st = w.stats[static_cast<size_t>(i)];
        id.push_back(i);
        to.push_back(static_cast<double>(st.timeouts));
        fx.push_back(static_cast<double>(st.fast_retransmits));
        rb.push_back(static_cast<double>(st.retransmitted_bytes));
        db.push_back(static_cast<double>(st.bytes_delivered));
        const reaction_point* rp = net.nic(i + 1).get_reaction_point();
        cn.push_back(rp ? static_cast<double>(rp->notifications(static_cast<uint32_t>(i))) : 0.0);
        ld.push_back(static_cast<double>(net.topo().links[static_cast<size_t>(i + 1)].delay_ps) * 1e-6);
    }
    r.add_table("rounds").column("round_time_ms") = round_times_ms(*w.app);
}

uint64_t sum_pause_frames(const ethernet_switch& sw) {
    uint64_t n = 0;
    for (int port = 0; port < sw.num_ports(); ++port)
        n += sw.counters(port).pause_sent;
    return n;
}
}   // namespace

vegas_incast_scenario::vegas_incast_scenario() {
    m_params.set_default("flows", "20");
    m_params.set_default("sru_kb", "128");
    m_params.set_default("transport", "vegas");
    m_params.set_default("duration_s", "2");
    m_params.set_default("jitter_ns", "500");   // breaks the lockstep of identical senders
}

void incast_scenario::estimate_cost(run_cost& cost) const {
    const incast_config& c = m_cfg;
    const double flows = static_cast<double>(c.flows),
                 background = static_cast<double>(c.bulk_flows + c.elephant_flows);
    const double hosts = 1 + flows + background + (c.udp_cbr_mbps > 0 ? 1 : 0);
    cost.add_network("flows", hosts, hosts, 1);
    cost.add_connections("flows", flows + background, "TCP connections (flows, bulk_flows, elephant_flows)");
    if (m_schemes.active(scheme_slot::cm))
        cost.add_series("rate_sample_us", format_number(c.rate_sample_us) + " us", c.rate_sample_us * 1e-6,
                        c.duration_s, flows + 1, "series (every flow's rate)", c.series);
    if (c.series)
        cost.add_series("sample_us", format_number(c.sample_us) + " us", c.sample_us * 1e-6, c.duration_s, flows + 3,
                        "series (the queue, every flow)");
    if (c.trace && c.trace_acks) {   // a row per ACK: at most one per data frame through the bottleneck
        const double frames = c.link_gbps * 1e9 / (8 * 1500) * c.duration_s;
        cost.add_records("trace_acks", frames, 11 * 8 * run_cost::copies,
                         "traced ACKs (one per data frame at most, over duration_s = " + format_number(c.duration_s) +
                             " s)",
                         "turn trace_acks off or shorten duration_s");
    }
}

struct incast_scenario::planned : incast_plan {};

struct incast_scenario::run_state : scenario_run {
    run_state(network& net, const incast_config& c, const incast_plan& p)
        : trace(c.trace ? net.sw(0).add_hook(std::make_unique<trace_recorder>()) : nullptr), w(net, c, p, trace),
          series(net, c, p, w) {}
    trace_recorder* trace;
    incast_workload w;
    const incast_series series;
};

scenario_plan incast_scenario::plan(result& r) {
    const incast_config& c = m_cfg;
    m_plan = std::make_shared<planned>(planned{make_plan(c)});
    if (find_congestion_control(c.tcp.transport).needs_marking && !m_schemes.active(scheme_slot::marking)) {
        const std::vector<std::string> names = m_schemes.offered(scheme_slot::marking);
        std::string offered;
        for (size_t i = 0; i < names.size(); ++i)
            offered += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
        throw config_error("transport = " + c.tcp.transport + " needs marking = " + offered +
                           " (it reacts to ECN marks only)");
    }
    m_schemes.check(c.tcp.transport);
    r.set("scenario", std::string(name()));
    return {make_topology(c, *m_plan), m_plan->end_ps};
}

std::unique_ptr<scenario_run> incast_scenario::build(network& net, result& r) {
    scheme_context schemes{net, static_cast<uint64_t>(m_cfg.seed), m_plan->senders()};
    schemes.mtu_bytes = net.topo().host_egress.mtu_bytes;
    schemes.traffic_priorities = 1;   // every flow sends on priority 0
    m_schemes.install(schemes);
    m_schemes.describe_setup(r);
    return std::make_unique<run_state>(net, m_cfg, *m_plan);
}

void incast_scenario::report(network& net, scenario_run& run, result& r) {
    const incast_config& c = m_cfg;
    const incast_plan& p = *m_plan;
    auto& [trace, w, series] = static_cast<run_state&>(run);
    r.set("flows", static_cast<int64_t>(p.n));
    r.set("buffer_kb", c.buffer_kb);
    if (c.buffer_policy != "static") {
        const buffer_manager& bm = net.sw(0).buffer();
        r.set("buffer_policy", c.buffer_policy);
        r.set("shared_peak_kb", static_cast<double>(bm.units().to_bytes(bm.shared_used_peak())) / 1024);
        r.set("shared_peak_cells", static_cast<int64_t>(bm.shared_used_peak()));   // (bytes when byte-exact)
    }
    r.set("min_rto_ms", static_cast<double>(c.tcp.min_rto_ps) / 1e9);
    r.set("transport", c.tcp.transport);
    report_host(r, c);
    r.set("marking", m_schemes.selected(scheme_slot::marking));
    m_schemes.report(scheme_slot::marking, net, r);
    uint64_t delivered = 0;
    for (const auto& st : w.stats)
        delivered += st.bytes_delivered;
    r.set("goodput_mbps", mbps(delivered, p.end_ps));   // incast application bytes only
    report_background(r, w, p);
    r.set("cm", m_schemes.selected(scheme_slot::cm));
    r.set("pause", m_schemes.selected(scheme_slot::pause));
    r.set("pause_frames", static_cast<int64_t>(sum_pause_frames(net.sw(0))));
    m_schemes.report(scheme_slot::pause, net, r);
    m_schemes.report(scheme_slot::cm, net, r);
    series.report_min_rate(r, c, p.n);
    report_rounds(r, *w.app);
    report_tcp(r, w.stats);
    report_drops(r, net);
    report_bottleneck(r, net, p);
    report_switch_ports(r, net, p.end_ps);   // the ports and hosts tables, pause episodes
    report_run_end(r, net, static_cast<double>(p.end_ps) * 1e-12, events_kind);
    r.set("data_frames_to_client", static_cast<int64_t>(net.sw(0).egress(incast_workload::client).stats().tx_frames));
    report_flow_tables(r, net, w, p);
    if (series.queue)
        series.queue->export_to(r.add_table("queue_series"));
    if (series.rates && c.series)
        series.rates->export_to(r.add_table("rate_series"));
    if (trace)
        trace->export_to(r);
}

}   // namespace cmswitch
