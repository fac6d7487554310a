// SPDX-License-Identifier: Apache-2.0
#include "platform/statistics.h"

#include <climits>

#include <algorithm>
#include <cmath>

namespace cmswitch {

void report_port(result& r, const std::string& prefix, const egress_port& port, uint64_t rate_bps, uint64_t now_ps) {
    const auto& st = port.stats();
    const auto& occ = port.occupancy();
    const double tput = mbps(st.tx_bytes, now_ps);
    r.set(prefix + "throughput_mbps", tput);
    r.set(prefix + "utilization", tput * 1e6 / static_cast<double>(rate_bps));
    r.set(prefix + "tx_frames", static_cast<int64_t>(st.tx_frames));
    const double mean = occ.mean(now_ps);
    r.set(prefix + "mean_queue_bytes", mean);
    r.set(prefix + "mean_queue_kb", mean / 1024.0);
    r.set(prefix + "max_queue_bytes", static_cast<int64_t>(occ.max()));
    r.set(prefix + "max_queue_kb", static_cast<double>(occ.max()) / 1024.0);
    const double wait_us =
        st.tx_frames ? static_cast<double>(st.wait_sum_ps) / static_cast<double>(st.tx_frames) * 1e-6 : 0.0;
    r.set(prefix + "mean_wait_us", wait_us);
    r.set(prefix + "max_wait_us", static_cast<double>(st.wait_max_ps) * 1e-6);
    report_occupancy(r, prefix + "queue_", occ, now_ps, true);
    table& h = r.add_table(prefix + "histogram");
    const auto frac = occ.histogram(now_ps);
    auto& lo = h.column("bin_lo_bytes");
    auto& fr = h.column("time_fraction");
    for (size_t i = 0; i < frac.size(); ++i) {
        lo.push_back(static_cast<double>(i * occ.bin_bytes()));
        fr.push_back(frac[i]);
    }
}

void report_occupancy(result& r, const std::string& prefix, const occupancy_stats& occ, uint64_t now_ps, bool cdf,
                      uint32_t unit_bytes) {
    static const std::pair<const char*, double> qs[] = {
        {"p50_kb", 0.5}, {"p90_kb", 0.9}, {"p99_kb", 0.99}, {"p999_kb", 0.999}};
    const double scale = static_cast<double>(unit_bytes);
    for (const auto& q : qs)
        r.set(prefix + q.first, static_cast<double>(occ.quantile(q.second, now_ps)) * scale / 1024.0);
    if (!cdf)
        return;
    table& t = r.add_table(prefix + "cdf");
    auto& bytes = t.column("bytes");
    auto& frac = t.column("fraction");
    for (const auto& pt : occ.cdf(now_ps)) {
        bytes.push_back(static_cast<double>(pt.first) * scale);
        frac.push_back(pt.second);
    }
}

void report_pause_episodes(result& r, const network& net, uint64_t end_ps) {
    table& t = r.add_table("pause_episodes");
    std::vector<double> all;
    auto row = [&](bool host, int node, int port, const egress_port& e) {
        for (int c = 0; c < num_priorities; ++c) {
            std::vector<double> us;
            for (uint64_t d : e.pause_episodes_ps(c))
                us.push_back(static_cast<double>(d) * 1e-6);
            if (e.paused(c))
                us.push_back(static_cast<double>(end_ps - e.pause_episode_start_ps(c)) * 1e-6);
            if (us.empty())
                continue;
            double sum = 0;
            for (double x : us)
                sum += x;
            t.column("node_is_host").push_back(host ? 1 : 0);
            t.column("node").push_back(node);
            t.column("port").push_back(port);
            t.column("class").push_back(c);
            t.column("episodes").push_back(static_cast<double>(us.size()));
            t.column("p50_us").push_back(percentile(us, 0.5));
            t.column("p99_us").push_back(percentile(us, 0.99));
            t.column("max_us").push_back(*std::max_element(us.begin(), us.end()));
            t.column("paused_ms").push_back(sum * 1e-3);
            all.insert(all.end(), us.begin(), us.end());
        }
    };
    for (int s = 0; s < net.num_switches(); ++s)
        for (int p = 0; p < net.sw(s).num_ports(); ++p)
            row(false, s, p, net.sw(s).egress(p));
    for (int h = 0; h < net.num_hosts(); ++h)
        row(true, h, 0, net.nic(h).egress());
    r.set("pause_episodes", static_cast<int64_t>(all.size()));
    r.set("pause_episode_p50_us", percentile(all, 0.5));
    r.set("pause_episode_p99_us", percentile(all, 0.99));
    r.set("pause_episode_max_us", all.empty() ? 0.0 : *std::max_element(all.begin(), all.end()));
}

int paused_transmitters(const network& net) {
    int n = 0;
    for (int s = 0; s < net.num_switches(); ++s)
        for (int port = 0; port < net.sw(s).num_ports(); ++port)
            n += net.sw(s).egress(port).paused() != 0;
    for (int h = 0; h < net.num_hosts(); ++h)
        n += net.nic(h).egress().paused() != 0;
    return n;
}

uint64_t switch_drops(const network& net) {
    uint64_t n = 0;
    for (int s = 0; s < net.num_switches(); ++s)
        for (int p = 0; p < net.sw(s).num_ports(); ++p)
            for (int k = 1; k < num_drop_reasons; ++k)
                n += net.sw(s).counters(p).drop_frames[static_cast<size_t>(k)];
    return n;
}

void report_drops(result& r, const network& net) {
    uint64_t per_reason[num_drop_reasons] = {};
    uint64_t bytes = 0;
    for (int s = 0; s < net.num_switches(); ++s)
        for (int p = 0; p < net.sw(s).num_ports(); ++p) {
            const auto& c = net.sw(s).counters(p);
            for (int k = 1; k < num_drop_reasons; ++k) {
                per_reason[k] += c.drop_frames[static_cast<size_t>(k)];
                bytes += c.drop_bytes[static_cast<size_t>(k)];
            }
        }
    for (int h = 0; h < net.num_hosts(); ++h) {
        for (int k = 1; k < num_drop_reasons; ++k)
            per_reason[k] += net.nic(h).dropped_frames(static_cast<drop_reason>(k));
        bytes += net.nic(h).dropped_bytes();
    }
    uint64_t total = 0;
    for (int k = 1; k < num_drop_reasons; ++k)
        total += per_reason[k];
    r.set("drops", static_cast<int64_t>(total));
    for (int k = 1; k < num_drop_reasons; ++k)
        r.set(std::string("drops_") + drop_reason_name(static_cast<drop_reason>(k)),
              static_cast<int64_t>(per_reason[k]));
    r.set("dropped_bytes", static_cast<int64_t>(bytes));
}

void report_conservation(result& r, const network& net) {
    const conservation c = net.account();
    r.set("offered_bytes", static_cast<int64_t>(c.offered_bytes));
    r.set("delivered_bytes", static_cast<int64_t>(c.delivered_bytes));
    r.set("queued_bytes", static_cast<int64_t>(c.queued_bytes));
    r.set("in_flight_bytes", static_cast<int64_t>(c.in_flight_bytes));
    r.set("conservation_ok", c.holds());
    net.check_conservation();
}

void report_flows(result& r, const std::vector<flow_stats>& flows, uint64_t duration_ps) {
    table& t = r.add_table("flows");
    auto& id = t.column("flow");
    auto& src = t.column("src");
    auto& dst = t.column("dst");
    auto& sf = t.column("sent_frames");
    auto& sb = t.column("sent_bytes");
    auto& rf = t.column("received_frames");
    auto& rb = t.column("received_bytes");
    auto& sm = t.column("sent_mbps");
    auto& rm = t.column("received_mbps");
    for (const auto& f : flows) {
        id.push_back(f.flow);
        src.push_back(f.src);
        dst.push_back(f.dst);
        sf.push_back(static_cast<double>(f.sent_frames));
        sb.push_back(static_cast<double>(f.sent_bytes));
        rf.push_back(static_cast<double>(f.received_frames));
        rb.push_back(static_cast<double>(f.received_bytes));
        sm.push_back(mbps(f.sent_bytes, duration_ps));
        rm.push_back(mbps(f.received_bytes, duration_ps));
    }
}

void report_switch_ports(result& r, const network& net, uint64_t end_ps) {
    table& ports = r.add_table("ports");
    uint64_t pauses = 0, cnms = 0;
    double max_paused = 0;
    for (int s = 0; s < net.num_switches(); ++s)
        for (int p = 0; p < net.sw(s).num_ports(); ++p) {
            const auto& pc = net.sw(s).counters(p);
            pauses += pc.pause_sent;
            cnms += pc.cnms;
            const double paused_ms = static_cast<double>(net.sw(s).egress(p).paused_ps(end_ps)) * 1e-9;
            max_paused = std::max(max_paused, paused_ms);
            ports.column("switch").push_back(s);
            ports.column("port").push_back(p);
            ports.column("pause_sent").push_back(static_cast<double>(pc.pause_sent));
            ports.column("xon_sent").push_back(static_cast<double>(pc.xon_sent));
            ports.column("paused_ms").push_back(paused_ms);
            ports.column("queue_max_kb").push_back(static_cast<double>(net.sw(s).egress(p).occupancy().max()) / 1024);
            ports.column("queue_p99_kb")
                .push_back(static_cast<double>(net.sw(s).egress(p).occupancy().quantile(0.99, end_ps)) / 1024);
            uint64_t d = 0;
            for (uint64_t x : pc.drop_frames)
                d += x;
            ports.column("drops").push_back(static_cast<double>(d));
        }
    table& hosts = r.add_table("hosts");
    bool accounted = false;   // hosts count what waits below TCP (host_qdisc.h)
    uint64_t below_max = 0, socket_max = 0, bql_max = 0, rx_polls = 0, gro_aggregates = 0, gro_frames = 0,
             codel_marks = 0;
    int64_t excess = INT64_MIN;
    for (int h = 0; h < net.num_hosts(); ++h) {
        const host_nic& nic = net.nic(h);
        hosts.column("host").push_back(h);
        hosts.column("paused_ms").push_back(static_cast<double>(nic.egress().paused_ps(end_ps)) * 1e-9);
        hosts.column("nic_queue_max_kb").push_back(static_cast<double>(nic.egress().occupancy().max()) / 1024);
        accounted = accounted || nic.shaped();
        below_max = std::max(below_max, nic.qdisc().below_max_bytes());
        socket_max = std::max(socket_max, nic.qdisc().socket_below_max_bytes());
        excess = std::max(excess, nic.qdisc().excess_max_bytes());
        bql_max = std::max(bql_max, nic.qdisc().bql_limit_max());
        rx_polls += nic.rx_poll().interrupts();
        gro_aggregates += nic.rx_poll().aggregates();
        gro_frames += nic.rx_poll().merged_frames();
        codel_marks += nic.qdisc().codel_marks();
    }
    if (accounted) {   // what the hosts held below TCP (qdisc, NIC queue): per host, and its largest
        for (int h = 0; h < net.num_hosts(); ++h)
            hosts.column("below_tcp_max_kb")
                .push_back(static_cast<double>(net.nic(h).qdisc().below_max_bytes()) / 1024);
    }
    // (in every run: 0 where the hosts do not account below TCP, or have no small-queue limit)
    r.set("host_queue_max_kb", accounted ? static_cast<double>(below_max) / 1024 : 0.0);
    r.set("host_socket_queue_max_kb", accounted ? static_cast<double>(socket_max) / 1024 : 0.0);
    r.set("host_bql_limit_max_kb", static_cast<double>(bql_max) / 1024);
    r.set("host_rx_polls", static_cast<int64_t>(rx_polls));
    r.set("host_gro_aggregates", static_cast<int64_t>(gro_aggregates));
    r.set("host_gro_merged_frames", static_cast<int64_t>(gro_frames));
    r.set("host_codel_marks", static_cast<int64_t>(codel_marks));
    const bool small = accounted && net.num_hosts() > 0 && net.nic(0).qdisc().config().small_queues;
    r.set("small_queue_excess_max_bytes", small && excess != INT64_MIN ? excess : int64_t{0});
    // PAUSE seen from both ends of each link: a switch port paused as a receiver of PAUSE (its transmitter held,
    // above) and as its sender (the transmitter at the link's far end held: a host's NIC or another switch's port)
    double max_pausing = 0, max_nic = 0;
    for (int h = 0; h < net.num_hosts(); ++h)
        max_nic = std::max(max_nic, static_cast<double>(net.nic(h).egress().paused_ps(end_ps)) * 1e-9);
    for (const link_spec& l : net.topo().links)
        for (int end = 0; end < 2; ++end) {
            const node_ref& me = end ? l.b : l.a;
            const node_ref& far = end ? l.a : l.b;
            if (me.kind != node_ref::sw)
                continue;
            const egress_port& e = far.kind == node_ref::host ? net.nic(far.id).egress()
                                                              : net.sw(far.id).egress(end ? l.a_port : l.b_port);
            max_pausing = std::max(max_pausing, static_cast<double>(e.paused_ps(end_ps)) * 1e-9);
        }
    r.set("pause_frames", static_cast<int64_t>(pauses));
    r.set("paused_ms_max_port", max_paused);
    r.set("pausing_ms_max_port", max_pausing);
    r.set("paused_ms_max_nic", max_nic);
    report_pause_episodes(r, net, end_ps);
    r.set("cnms", static_cast<int64_t>(cnms));
    report_drops_by_priority(r, net);
}

void report_drops_by_priority(result& r, const network& net) {
    table& pt = r.add_table("priorities");
    for (int prio = 0; prio < num_priorities; ++prio) {
        uint64_t d = 0;
        for (int s = 0; s < net.num_switches(); ++s)
            for (int p = 0; p < net.sw(s).num_ports(); ++p)
                d += net.sw(s).counters(p).drop_frames_by_prio[static_cast<size_t>(prio)];
        pt.column("priority").push_back(prio);
        pt.column("switch_drops").push_back(static_cast<double>(d));
        r.set("drops_prio" + std::to_string(prio), static_cast<int64_t>(d));
    }
}

double percentile(std::vector<double> v, double p) {
    if (v.empty())
        return 0.0;
    std::sort(v.begin(), v.end());
    const size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(v.size())));   // nearest rank
    return v[std::min(v.size() - 1, rank ? rank - 1 : 0)];
}

}   // namespace cmswitch
