// SPDX-License-Identifier: Apache-2.0
#include "platform/scenarios/incast.h"

#include "model/cm/ecn/ecn_marking.h"
#include "model/errors.h"
#include "platform/network.h"
#include "platform/queue_sampler.h"
#include "platform/sim_context.h"
#include "platform/statistics.h"
#include "platform/trace_recorder.h"
#include "traffic/bulk_app.h"
#include "traffic/incast.h"
#include "traffic/udp_sink.h"
#include "traffic/udp_source.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace cmswitch {

incast_scenario::incast_scenario() {
    auto& t = m_params;
    auto& c = m_cfg;
    t.add_int("flows", &c.flows, 1, 4000, "servers", "number of servers (one TCP flow each)");
    t.add_real("buffer_kb", &c.buffer_kb, 1, 1 << 20, "KB (1024 B)", "static buffer of each switch egress port");
    t.add_real("min_rto_ms", &c.min_rto_ms, 0.001, 60000, "ms", "TCP minimum retransmission timeout");
    t.add_real("duration_s", &c.duration_s, 0, 1e5, "s", "simulated time", true);
    t.add_int("seed", &c.seed, 0, INT64_MAX, "", "seed of every random choice of the run");
    t.add_real("sru_kb", &c.sru_kb, 1.0 / 1024, 1 << 22, "KB (1024 B)", "server response unit: bytes per server per round");
    t.add_real("link_gbps", &c.link_gbps, 0, 1000, "Gbps", "rate of every link", true);
    t.add_real("delay_us", &c.delay_us, 0, 1e6, "us", "propagation delay of every link, each direction");
    t.add_real("delay_skew_ns", &c.delay_skew_ns, 0, 1e6, "ns",
               "adds a random constant in [0, skew] to each server's link delay (drawn from the seed; breaks the "
               "exact ties of perfectly symmetric servers without random timing; the flows table lists the delays)");
    t.add_choice("transport", &c.transport, congestion_control_names(), "TCP congestion control");
    t.add_flag("ecn", &c.ecn, "newreno: ECN-capable, halving once per window on ECE (RFC 3168)");
    t.add_choice("marking", &c.marking, {"none", "step", "red"},
                 "switch ECN marking on the instantaneous queue: none, step (> K), red (Kmin/Kmax/Pmax)");
    t.add_real("ecn_k_kb", &c.ecn_k_kb, 0, 1 << 20, "KB (1024 B)", "step marking threshold K (default 20 x 1500 B)");
    t.add_real("red_kmin_kb", &c.red_kmin_kb, 0, 1 << 20, "KB (1024 B)", "RED marking: Kmin");
    t.add_real("red_kmax_kb", &c.red_kmax_kb, 0, 1 << 20, "KB (1024 B)", "RED marking: Kmax");
    t.add_real("red_pmax", &c.red_pmax, 0, 1, "", "RED marking: probability at Kmax", true);
    t.add_real("dctcp_g", &c.dctcp_g, 0, 1, "", "DCTCP alpha gain g", true);
    t.add_int("init_cwnd", &c.init_cwnd, 1, 1000, "segments", "TCP initial congestion window");
    t.add_flag("limited_transmit", &c.limited_transmit,
               "RFC 3042 limited transmit: a segment on each of the 1st and 2nd duplicate ACK (ns-2, Linux, FreeBSD "
               "do it; --limited-transmit=false turns it off)");
    t.add_flag("slow_start_after_idle", &c.slow_start_after_idle,
               "RFC 5681 4.1: a sender idle for more than an RTO restarts from min(initial window, cwnd) "
               "(Linux, FreeBSD and ns-2 do; --slow-start-after-idle=false keeps the old window)");
    t.add_choice("ssthresh_rule", &c.ssthresh_rule, {"cwnd", "flight"},
                 "ssthresh after a loss: half the congestion window (Linux, FreeBSD, ns-2) or half the FlightSize "
                 "(RFC 5681 eq. 4)");
    t.add_flag("sack", &c.sack, "TCP SACK (RFC 2018) with RFC 6675 loss recovery");
    t.add_flag("timestamps", &c.timestamps,
               "TCP timestamps (RFC 7323): RTT samples from every ACK of new data, retransmissions included; the "
               "12 option bytes leave 1448 payload bytes in a 1500-byte frame");
    t.add_choice("request_timing", &c.request_timing, {"simultaneous", "serialized"},
                 "simultaneous: every server gets the next request at the same instant, one unloaded request "
                 "latency after the round ends (the paper's and ns-2's idealization); serialized: the client sends "
                 "one 64-byte request frame per server through its NIC");
    t.add_int("rwnd_segments", &c.rwnd_segments, 0, 1 << 20, "segments",
              "receiver's advertised window (0: unlimited, the switch buffer is the limit; ns-2's default is 20)");
    t.add_flag("delayed_ack", &c.delayed_ack, "receivers ACK every 2nd segment (40 ms timeout)");
    t.add_real("jitter_ns", &c.jitter_ns, 0, 1e6, "ns",
               "random delay in [0, jitter] before each server segment reaches its NIC (breaks lockstep)");
    t.add_choice("jitter_scope", &c.jitter_scope, {"all", "window_sends"},
                 "segments the jitter delays: all, or only those sent from the window (not fast retransmits, "
                 "partial-ACK retransmissions and limited transmit), as ns-2's TCP overhead_ does");
    t.add_int("bulk_flows", &c.bulk_flows, 0, 1000, "flows",
              "long-lived TCP flows to the client, each from a host of its own");
    t.add_int("elephant_flows", &c.elephant_flows, 0, 1000, "flows",
              "TCP flows to the client sending elephants of random size back to back, each from a host of its own");
    t.add_real("elephant_min_mb", &c.elephant_min_mb, 0.001, 1e6, "MB (2^20 B)", "smallest elephant");
    t.add_real("elephant_max_mb", &c.elephant_max_mb, 0.001, 1e6, "MB (2^20 B)", "largest elephant");
    t.add_real("udp_cbr_mbps", &c.udp_cbr_mbps, 0, 1e6, "Mbps",
               "one extra UDP constant-bit-rate flow to the client from a host of its own (seed 000: 400; 0: none)");
    c.qcn.add_params(t);
    t.add_choice("pause", &c.pause, {"none", "pause", "pfc"},
                 "802.3x PAUSE or 802.1Qbb PFC at the switch inputs (lossless when the buffer holds every input's "
                 "XOFF plus headroom)");
    t.add_real("pause_xoff_kb", &c.pause_xoff_kb, 0, 1 << 20, "KB (1024 B)",
               "per-input XOFF (0: buffer_kb / (flows + background flows) minus the headroom)");
    t.add_real("pause_xon_kb", &c.pause_xon_kb, 0, 1 << 20, "KB (1024 B)", "per-input XON (0: XOFF - 2 x 1500 B)");
    t.add_real("sample_us", &c.sample_us, 0, 1e9, "us", "queue sampling period for the time series (0: off)");
    t.add_flag("series", &c.series, "include the queue time series in the output");
    t.add_flag("trace", &c.trace,
               "include event traces: every switch drop and every TCP timeout, fast retransmit, end of recovery "
               "and limited transmit (tables drops and tcp_events)");
    t.add_flag("trace_acks", &c.trace_acks, "with trace: also every ACK's arrival at a sender (long tables)");
}

namespace {
double percentile(std::vector<double> v, double p) {
    if (v.empty())
        return 0.0;
    std::sort(v.begin(), v.end());
    const size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(v.size())));   // nearest rank
    return v[std::min(v.size() - 1, rank ? rank - 1 : 0)];
}
uint64_t kb_bytes(double kb) { return static_cast<uint64_t>(std::llround(kb * 1024)); }
constexpr uint64_t stream_delay_skew = 6000000;   // random stream of the per-server link delay skew
} // namespace

result incast_scenario::run() {
    m_params.validate();
    const incast_config c = m_cfg;
    const auto wall0 = std::chrono::steady_clock::now();
    const uint64_t rate_bps = static_cast<uint64_t>(std::llround(c.link_gbps * 1e9));
    const uint64_t delay_ps = static_cast<uint64_t>(std::llround(c.delay_us * 1e6));
    const uint64_t end_ps = static_cast<uint64_t>(std::llround(c.duration_s * 1e12));
    const int n = static_cast<int>(c.flows);
    const uint64_t sru = kb_bytes(c.sru_kb);

    buffer_config buf;
    buf.policy = "static";
    buf.port_limit_bytes = kb_bytes(c.buffer_kb);
    marking_config mark;
    mark.policy = c.marking;
    mark.k_bytes = kb_bytes(c.ecn_k_kb);
    mark.kmin_bytes = kb_bytes(c.red_kmin_kb);
    mark.kmax_bytes = kb_bytes(c.red_kmax_kb);
    mark.pmax = c.red_pmax;
    (void)make_ecn_marker(mark);   // validates before any simulation starts
    if (c.elephant_max_mb < c.elephant_min_mb)
        throw config_error("elephant_max_mb = " + format_number(c.elephant_max_mb) +
                           ": must be >= elephant_min_mb = " + format_number(c.elephant_min_mb));
    if (c.transport == "dctcp" && c.marking == "none")
        throw config_error("transport = dctcp needs marking = step or red (DCTCP reacts to ECN marks only)");

    tcp_config tcp;
    tcp.congestion_control = c.transport;
    tcp.ecn = c.ecn;
    tcp.min_rto_ps = static_cast<uint64_t>(std::llround(c.min_rto_ms * 1e9));
    tcp.dctcp_g = c.dctcp_g;
    tcp.initial_cwnd = static_cast<uint32_t>(c.init_cwnd);
    tcp.limited_transmit = c.limited_transmit;
    tcp.slow_start_after_idle = c.slow_start_after_idle;
    tcp.ssthresh_from = c.ssthresh_rule == "flight" ? tcp_config::ssthresh_rule::flight : tcp_config::ssthresh_rule::cwnd;
    tcp.sack = c.sack;
    tcp.timestamps = c.timestamps;
    if (c.timestamps)
        tcp.mss -= tcp_config::timestamp_option_bytes;   // the frame stays 1500 bytes, as Linux does
    const request_timing timing = parse_request_timing(c.request_timing);
    tcp.rwnd_bytes = static_cast<uint64_t>(c.rwnd_segments) * tcp.mss;
    tcp.delayed_ack = c.delayed_ack;
    tcp.jitter_ps = static_cast<uint64_t>(std::llround(c.jitter_ns * 1e3));
    tcp.jitter_scope = c.jitter_scope == "window_sends" ? tcp_config::jitter_scope_t::window_sends
                                                        : tcp_config::jitter_scope_t::all;

    result r;
    r.set("scenario", std::string("incast"));
    sim_context ctx;
    {
        const int client = 0;
        const int nb = static_cast<int>(c.bulk_flows), ne = static_cast<int>(c.elephant_flows);
        const int nu = c.udp_cbr_mbps > 0 ? 1 : 0;
        topology topo = star_topology(n + nb + ne + nu + 1, rate_bps, delay_ps, buf);
        if (c.delay_skew_ns > 0) {
            rng skew(static_cast<uint64_t>(c.seed), stream_delay_skew);
            const uint64_t skew_ps = static_cast<uint64_t>(std::llround(c.delay_skew_ns * 1e3));
            for (int i = 1; i <= n; ++i)
                topo.links[static_cast<size_t>(i)].delay_ps += skew.below(skew_ps + 1);
        }
        network net(topo);
        c.qcn.apply(net, static_cast<uint64_t>(c.seed));
        if (c.pause != "none") {
            // each sending input may hold XOFF + headroom; by default the port's buffer is split among them
            const int inputs = n + nb + ne + nu;
            const uint64_t headroom = pause_headroom_bytes(rate_bps, delay_ps, 1500);
            const uint64_t share = buf.port_limit_bytes / static_cast<uint64_t>(inputs);
            pause_config pc;
            pc.mode = c.pause;
            pc.xoff_bytes = c.pause_xoff_kb > 0 ? kb_bytes(c.pause_xoff_kb)
                                                : (share > headroom ? share - headroom : 0);
            pc.xon_bytes = c.pause_xon_kb > 0 ? kb_bytes(c.pause_xon_kb)
                                              : (pc.xoff_bytes > 3000 ? pc.xoff_bytes - 3000 : 0);
            if (pc.xoff_bytes < 4500)
                throw config_error("pause: buffer_kb = " + format_number(c.buffer_kb) + " shared by " +
                                   std::to_string(inputs) + " inputs leaves " + std::to_string(share) +
                                   " B each, less than the headroom " + std::to_string(headroom) +
                                   " B plus 3 frames: not lossless; raise buffer_kb or set pause_xoff_kb");
            net.enable_pause(pc);
            r.set("pause_xoff_bytes", static_cast<int64_t>(pc.xoff_bytes));
        }
        if (auto marking = make_ecn_marking(mark, rng(static_cast<uint64_t>(c.seed), 1000000)))
            net.sw(0).add_hook(std::move(marking));
        std::vector<tcp_stats> stats(static_cast<size_t>(n));
        std::vector<std::unique_ptr<tcp_sender>> senders;
        std::vector<std::unique_ptr<tcp_receiver>> receivers;
        std::vector<std::unique_ptr<incast_server>> servers;
        std::vector<tcp_receiver*> rx;
        std::vector<incast_server*> srv;
        std::vector<int> server_hosts;
        trace_recorder* trace = c.trace ? net.sw(0).add_hook(std::make_unique<trace_recorder>()) : nullptr;
        for (int i = 0; i < n; ++i) {
            const int host = i + 1;
            const uint32_t flow = static_cast<uint32_t>(i);
            tcp_stats& st = stats[static_cast<size_t>(i)];
            senders.emplace_back(new tcp_sender(net.stack(host), flow, client, tcp, st,
                                                rng(static_cast<uint64_t>(c.seed), static_cast<uint64_t>(i))));
            receivers.emplace_back(new tcp_receiver(net.stack(client), flow, host, tcp, st));
            servers.emplace_back(new incast_server(*senders.back(), net.nic(host), sru));
            rx.push_back(receivers.back().get());
            srv.push_back(servers.back().get());
            server_hosts.push_back(host);
            if (trace)
                senders.back()->set_observer(trace, c.trace_acks);
        }
        // an unloaded request's latency client -> switch -> server: two serializations and two propagations
        const uint32_t request_bytes = 64;
        const uint64_t request_latency = 2 * (serialization_ps(request_bytes, rate_bps) + delay_ps);
        incast_client app(net.stack(client), rx, srv, server_hosts, 0, sru, request_bytes, timing, request_latency, 0);
        // background flows: hosts n+1 ..., flows n ...
        std::vector<tcp_stats> bg_stats(static_cast<size_t>(nb + ne));
        std::vector<std::unique_ptr<tcp_sender>> bg_senders;
        std::vector<std::unique_ptr<tcp_receiver>> bg_receivers;
        std::vector<std::unique_ptr<bulk_app>> bg_apps;
        for (int j = 0; j < nb + ne; ++j) {
            const int host = n + 1 + j;
            const uint32_t flow = static_cast<uint32_t>(n + j);
            tcp_stats& st = bg_stats[static_cast<size_t>(j)];
            const rng r_j(static_cast<uint64_t>(c.seed), static_cast<uint64_t>(n + j));
            bg_senders.emplace_back(new tcp_sender(net.stack(host), flow, client, tcp, st, r_j));
            bg_receivers.emplace_back(new tcp_receiver(net.stack(client), flow, host, tcp, st));
            const bool elephant = j >= nb;
            const uint64_t lo = elephant ? static_cast<uint64_t>(std::llround(c.elephant_min_mb * 1048576)) : 0;
            const uint64_t hi = elephant ? static_cast<uint64_t>(std::llround(c.elephant_max_mb * 1048576)) : 0;
            bg_apps.emplace_back(new bulk_app(*bg_senders.back(), net.nic(host), lo, hi,
                                              rng(static_cast<uint64_t>(c.seed), 2000000 + static_cast<uint64_t>(j)), 0));
        }
        // the UDP CBR flow: last host, flow n + nb + ne
        flow_stats udp;
        std::unique_ptr<udp_sink> udp_rx;
        std::unique_ptr<cbr_source> udp_tx;
        if (nu) {
            const int host = n + nb + ne + 1;
            udp.flow = static_cast<uint32_t>(n + nb + ne);
            udp.src = host;
            udp.dst = client;
            udp_rx.reset(new udp_sink(net.stack(client), udp));
            cbr_params p;
            p.rate_bps = static_cast<uint64_t>(std::llround(c.udp_cbr_mbps * 1e6));
            p.frame_bytes = 1500;
            p.start_ps = rng(static_cast<uint64_t>(c.seed), 5000000).below(serialization_ps(1500, p.rate_bps));
            p.stop_ps = end_ps;
            udp_tx.reset(new cbr_source(net.stack(host), udp, p));
        }
        const egress_port& bottleneck = net.sw(0).egress(client);
        // QCN: the current rate of every incast flow's limiter (line rate when it has none), sampled
        std::unique_ptr<queue_sampler> rates;
        if (c.qcn.enabled()) {
            rates.reset(new queue_sampler("rates", static_cast<uint64_t>(std::llround(c.qcn.rate_sample_us * 1e6))));
            for (int i = 0; i < n; ++i) {
                const reaction_point* rp = net.nic(i + 1).get_reaction_point();
                const uint32_t flow = static_cast<uint32_t>(i);
                rates->watch_gauge("rate_mbps_flow" + std::to_string(i), [rp, flow] { return rp->rate_bps(flow) / 1e6; });
            }
        }
        std::unique_ptr<queue_sampler> sampler;
        if (c.sample_us > 0 && c.series) {
            sampler.reset(new queue_sampler("sampler", static_cast<uint64_t>(std::llround(c.sample_us * 1e6))));
            sampler->watch("queue_bytes", &bottleneck);
            for (int i = 0; i < n; ++i)
                sampler->watch_counter("delivered_bytes_flow" + std::to_string(i),
                                       &stats[static_cast<size_t>(i)].bytes_delivered);
        }

        ctx.run_until(end_ps);

        r.set("flows", static_cast<int64_t>(n));
        r.set("buffer_kb", c.buffer_kb);
        r.set("min_rto_ms", c.min_rto_ms);
        r.set("transport", c.transport);
        r.set("marking", c.marking);
        uint64_t delivered = 0, timeouts = 0, max_timeouts = 0, fr = 0, lt = 0, idle = 0, rexmit = 0, reductions = 0;
        for (const auto& st : stats) {
            delivered += st.bytes_delivered;
            timeouts += st.timeouts;
            max_timeouts = std::max(max_timeouts, st.timeouts);
            fr += st.fast_retransmits;
            lt += st.limited_transmits;
            idle += st.idle_restarts;
            rexmit += st.retransmitted_bytes;
            reductions += st.ecn_reductions;
        }
        r.set("goodput_mbps", mbps(delivered, end_ps));   // incast application bytes only
        uint64_t bulk_bytes = 0, elephant_bytes = 0, elephants_done = 0, bg_timeouts = 0;
        for (int j = 0; j < nb + ne; ++j) {
            const tcp_stats& st = bg_stats[static_cast<size_t>(j)];
            (j < nb ? bulk_bytes : elephant_bytes) += st.bytes_delivered;
            bg_timeouts += st.timeouts;
            if (j >= nb)
                elephants_done += bg_apps[static_cast<size_t>(j)]->completed();
        }
        r.set("bulk_goodput_mbps", mbps(bulk_bytes, end_ps));
        r.set("elephant_goodput_mbps", mbps(elephant_bytes, end_ps));
        r.set("elephants_completed", static_cast<int64_t>(elephants_done));
        r.set("background_timeouts", static_cast<int64_t>(bg_timeouts));
        r.set("udp_goodput_mbps", mbps(udp.received_bytes, end_ps));
        r.set("cm", c.qcn.cm);
        r.set("pause", c.pause);
        uint64_t pauses = 0;
        for (int p = 0; p < net.sw(0).num_ports(); ++p)
            pauses += net.sw(0).counters(p).pause_sent;
        r.set("pause_frames", static_cast<int64_t>(pauses));
        if (c.qcn.enabled()) {
            r.set("qcn_cp", c.qcn.cp);
            r.set("qcn_rp", c.qcn.rp);
            uint64_t cnms = 0;
            for (int p = 0; p < net.sw(0).num_ports(); ++p)
                cnms += net.sw(0).counters(p).cnms;
            r.set("cnms", static_cast<int64_t>(cnms));
            // seed 000's "avg minrate": the minimum current rate over the incast flows at each sample, averaged
            double sum = 0;
            size_t samples = n ? rates->gauge_values(0).size() : 0;
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
        r.set("rounds_completed", static_cast<int64_t>(app.rounds_completed()));
        std::vector<double> rt;
        for (uint64_t t : app.round_times_ps())
            rt.push_back(static_cast<double>(t) * 1e-9);
        r.set("round_time_p50_ms", percentile(rt, 0.50));
        r.set("round_time_p99_ms", percentile(rt, 0.99));
        r.set("round_time_max_ms", rt.empty() ? 0.0 : *std::max_element(rt.begin(), rt.end()));
        r.set("rounds_over_300ms", static_cast<int64_t>(std::count_if(rt.begin(), rt.end(),
                                                                        [](double x) { return x > 300.0; })));
        r.set("timeouts_per_flow_mean", static_cast<double>(timeouts) / n);
        r.set("timeouts_max_flow", static_cast<int64_t>(max_timeouts));
        r.set("timeouts", static_cast<int64_t>(timeouts));
        r.set("fast_retransmits", static_cast<int64_t>(fr));
        r.set("limited_transmits", static_cast<int64_t>(lt));
        r.set("idle_restarts", static_cast<int64_t>(idle));
        r.set("retransmitted_bytes", static_cast<int64_t>(rexmit));
        r.set("ecn_reductions", static_cast<int64_t>(reductions));
        report_drops(r, net);
        r.set("marks", static_cast<int64_t>(net.sw(0).counters(client).marks));
        const auto& occ = bottleneck.occupancy();
        r.set("mean_queue_bytes", occ.mean(end_ps));
        r.set("mean_queue_kb", occ.mean(end_ps) / 1024);
        r.set("max_queue_bytes", static_cast<int64_t>(occ.max()));
        r.set("bottleneck_utilization", mbps(bottleneck.stats().tx_bytes, end_ps) * 1e6 / static_cast<double>(rate_bps));
        report_conservation(r, net);
        r.set("simulated_s", static_cast<double>(end_ps) * 1e-12);
        r.set("events", static_cast<int64_t>(net.events()));
        r.set("events_kind", std::string("model queue entries dispatched (frame arrivals, transmitter wakeups, "
                                         "TCP and application timers)"));
        r.set("data_frames_to_client", static_cast<int64_t>(bottleneck.stats().tx_frames));
        table& ft = r.add_table("flows");
        auto& id = ft.column("flow");
        auto& to = ft.column("timeouts");
        auto& fx = ft.column("fast_retransmits");
        auto& rb = ft.column("retransmitted_bytes");
        auto& db = ft.column("delivered_bytes");
        auto& cn = ft.column("cnms_received");
        auto& ld = ft.column("link_delay_us");
        for (int i = 0; i < n; ++i) {
            const tcp_stats& st = stats[static_cast<size_t>(i)];
            id.push_back(i);
            to.push_back(static_cast<double>(st.timeouts));
            fx.push_back(static_cast<double>(st.fast_retransmits));
            rb.push_back(static_cast<double>(st.retransmitted_bytes));
            db.push_back(static_cast<double>(st.bytes_delivered));
            const reaction_point* rp = net.nic(i + 1).get_reaction_point();
            cn.push_back(rp ? static_cast<double>(rp->notifications(static_cast<uint32_t>(i))) : 0.0);
            ld.push_back(static_cast<double>(net.topo().links[static_cast<size_t>(i + 1)].delay_ps) * 1e-6);
        }
        table& rtt = r.add_table("rounds");
        rtt.column("round_time_ms") = rt;
        if (sampler)
            sampler->export_to(r.add_table("queue_series"));
        if (rates && c.series)
            rates->export_to(r.add_table("rate_series"));
        if (trace)
            trace->export_to(r);
    }
    r.set("wall_s", std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count());
    return r;
}

} // namespace cmswitch
