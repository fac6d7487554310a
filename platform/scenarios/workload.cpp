// SPDX-License-Identifier: Apache-2.0
#include "platform/scenarios/workload.h"

#include "model/cm/pause/pause_generator.h"
#include "model/errors.h"
#include "model/units.h"
#include "platform/network.h"
#include "platform/sim_context.h"
#include "platform/statistics.h"
#include "traffic/flow_workload.h"
#include "traffic/tcp/congestion_control.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace cmswitch {

namespace {
// Flow-size buckets for the FCT tables (upper bounds, bytes): the small/medium/large split of DCTCP and HPCC.
const double bucket_upper[] = {10e3, 100e3, 1e6, 10e6, 1e300};
const char* bucket_name[] = {"<=10KB", "10KB-100KB", "100KB-1MB", "1MB-10MB", ">10MB"};
}   // namespace

workload_scenario::workload_scenario() {
    auto& t = m_params;
    auto& c = m_cfg;
    t.add_choice("topology", &c.topology, {"star", "leaf-spine", "fat-tree"},
                 "star: every host on one switch; leaf-spine: leaves x hosts_per_leaf hosts, every leaf linked to "
                 "every spine, equal-cost paths spread by destination; fat-tree: k pods (fat_tree_k), k^3/4 hosts, "
                 "equal-cost paths spread by a hash of destination and switch");
    t.add_int("hosts", &c.hosts, 2, 4096, "hosts", "star: number of hosts on the switch's downlink ports");
    t.add_int("uplinks", &c.uplinks, 0, 256, "ports",
              "star: uplink ports after the host ports, each to a host that stands for the rest of the network "
              "(it receives its share of the all-to-all flows, offers uplink_load, may send incasts); the "
              "leaf-spine's uplinks are its spines");
    t.add_real("uplink_gbps", &c.uplink_gbps, 0, 1000, "Gbps", "star: uplink port speed", true);
    t.add_real("uplink_load", &c.uplink_load, 0, 1, "",
               "star: Poisson load each uplink host offers into the switch (of its link rate); 0: none");
    t.add_int("leaves", &c.leaves, 1, 256, "switches", "leaf-spine: leaf switches");
    t.add_int("hosts_per_leaf", &c.hosts_per_leaf, 1, 256, "hosts", "leaf-spine: hosts per leaf");
    t.add_int("spines", &c.spines, 1, 64, "switches", "leaf-spine: spine switches");
    t.add_int("fat_tree_k", &c.fat_tree_k, 2, 64, "ports",
              "fat-tree: switch ports k (even): k^3/4 hosts, k^2 + k^2/4 switches");
    t.add_real("link_gbps", &c.link_gbps, 0, 1000, "Gbps", "host links", true);
    t.add_real("fabric_gbps", &c.fabric_gbps, 0, 1000, "Gbps",
               "switch-to-switch links (leaf-spine oversubscription = hosts_per_leaf x link / (spines x fabric))",
               true);
    t.add_real("delay_us", &c.delay_us, 0, 1e6, "us", "propagation delay of every link, each direction");
    t.add_real("load", &c.load, 0, 1, "", "Poisson flows' offered load on each host link (application bytes); 0: none");
    t.add_choice("flow_sizes", &c.flow_sizes, flow_size_distribution::builtin_names(),
                 "flow-size CDF (data/flow_sizes/*.csv): web-search (DCTCP), data-mining (VL2), fb-hadoop (HPCC), "
                 "or the path of your own .csv file (lines 'size_bytes,cdf_percent', not decreasing, ending at "
                 "100; '#' comments)",
                 true);
    t.add_choice("transport", &c.transport, congestion_control_names(), "TCP congestion control");
    m_schemes.declare(t, scheme_slot::marking, "switch ECN marking on the instantaneous queue");
    t.add_real("dctcp_g", &c.dctcp_g, 0, 1, "", "DCTCP alpha gain g", true);
    t.add_real("min_rto_ms", &c.min_rto_ms, 0.001, 60000, "ms", "TCP minimum retransmission timeout");
    t.add_int("init_cwnd", &c.init_cwnd, 1, 1000, "segments", "TCP initial window");
    declare_buffer(t, c);
    m_schemes.declare(t, scheme_slot::pause,
                      "PFC/PAUSE at the switch inputs (with a shared buffer: pause_xoff_alpha for dynamic XOFF and "
                      "pause_headroom_pool_kb for a shared headroom pool)");
    t.add_real("duration_s", &c.duration_s, 0, 1e4, "s", "flows arrive during this time", true);
    t.set_min_nonzero("duration_s", 1e-6);
    t.add_real("drain_ms", &c.drain_ms, 0, 1e7, "ms", "simulated time after the last arrival, for flows to finish");
    t.add_int("seed", &c.seed, 0, (int64_t{1} << 53) - 1, "", "seed of every random choice of the run");
    t.add_int("flow_prio", &c.flow_prio, 0, 6, "", "802.1p priority of the Poisson flows (queue_map, pg_map)");
    t.add_list("flow_destinations", &c.flow_destinations, 0, 65535, 0, true, "",
               "the hosts the Poisson flows go to, uniformly (e.g. storage servers; host ids: star 0..hosts-1 then "
               "the uplinks, leaf-spine leaf x hosts_per_leaf + j); none: all-to-all");
    t.add_int("incast_fanin", &c.incast_fanin, 0, 4095, "senders", "periodic incasts: senders per incast (0: none)");
    t.add_int("incast_receivers", &c.incast_receivers, 1, 4096, "hosts",
              "incasts started together each period, to distinct receivers (several congested ports at once)");
    t.add_choice("incast_from", &c.incast_from, {"any", "uplinks", "hosts"},
                 "where incast senders are: any host, only the uplink hosts (the incast arrives over the uplinks; "
                 "star with uplinks), or only the hosts on downlinks; receivers are always downlink hosts");
    t.add_int("incast_prio", &c.incast_prio, 0, 6, "", "802.1p priority of the incast flows");
    t.add_real("incast_kb", &c.incast_kb, 0.001, 1 << 20, "KB (1024 B)", "incast: bytes from each sender");
    t.add_real("incast_period_ms", &c.incast_period_ms, 0.001, 1e6, "ms", "incast: time between two incasts");
    t.add_flag("flow_table", &c.flow_table, "include every flow (size, FCT, slowdown) as table flows");
    t.add_flag("queue_cdfs", &c.queue_cdfs,
               "include every egress queue's occupancy CDF (table queue_cdfs; the busiest queue's is always in "
               "queue_cdf)");
}

void workload_scenario::estimate_cost(run_cost& cost) const {
    const workload_config& c = m_cfg;
    double hosts, switches, ports;
    const char* driver = "hosts";
    if (c.topology == "star") {
        hosts = static_cast<double>(c.hosts + c.uplinks);
        switches = 1;
        ports = hosts;
    } else if (c.topology == "fat-tree") {
        const double k = static_cast<double>(c.fat_tree_k);
        hosts = k * k * k / 4;
        switches = 5 * k * k / 4;
        ports = switches * k;
        driver = "fat_tree_k";
    } else {
        const double leaves = static_cast<double>(c.leaves), spines = static_cast<double>(c.spines);
        hosts = leaves * static_cast<double>(c.hosts_per_leaf);
        switches = leaves + spines;
        ports = hosts + 2 * leaves * spines;
        driver = "leaves";
    }
    cost.add_network(driver, hosts, ports, switches);
    // every flow keeps its connection's state and its record to the end of the run (about 4 KB, measured)
    double mean = 1;
    try {
        mean = flow_size_distribution::named(c.flow_sizes).mean();
    } catch (const config_error&) {   // a bad file is refused by run() with its own message
    }
    const double down = c.topology == "star" ? static_cast<double>(c.hosts) : hosts;
    double flows = (down * c.load * c.link_gbps + static_cast<double>(c.uplinks) * c.uplink_load * c.uplink_gbps) *
                   1e9 / 8 / std::max(mean, 1.0) * c.duration_s;
    if (c.incast_fanin > 0)
        flows += c.duration_s * 1e3 / c.incast_period_ms * static_cast<double>(c.incast_fanin * c.incast_receivers);
    cost.add_records("duration_s", flows, 4 * 1024,
                     "flows over duration_s = " + format_number(c.duration_s) + " s (each kept to the end of the run)",
                     "shorten duration_s or lower load");
}

result workload_scenario::run() {
    const run_clock clock;
    m_params.validate();
    check_cost();
    const workload_config c = m_cfg;
    if (find_congestion_control(c.transport).needs_marking && !m_schemes.active(scheme_slot::marking))
        throw config_error("transport = " + c.transport + " needs a marking scheme (e.g. --marking step)");
    m_schemes.check(c.transport);
    const flow_size_distribution sizes = flow_size_distribution::named(c.flow_sizes);
    const uint64_t host_rate = gbps_to_bps(c.link_gbps), fabric_rate = gbps_to_bps(c.fabric_gbps);
    if (host_rate == 0 || fabric_rate == 0)
        throw config_error("link_gbps / fabric_gbps: must be at least 1e-9 Gbps (1 bit/s)");
    const uint64_t delay = us_to_ps(c.delay_us);
    const uint64_t stop = s_to_ps(c.duration_s), end = stop + ms_to_ps(c.drain_ms);
    const buffer_config buf = make_buffer_config(c);
    const bool star = c.topology == "star", fat_tree = c.topology == "fat-tree";
    const int half_k = static_cast<int>(c.fat_tree_k / 2);
    // hosts per first-tier switch (the star's one switch, a leaf, a fat-tree edge)
    const int hpl = star ? static_cast<int>(c.hosts) : fat_tree ? half_k : static_cast<int>(c.hosts_per_leaf);
    if (!star && (c.uplinks > 0 || c.uplink_load > 0))
        throw config_error("uplinks / uplink_load: for topology star (a leaf-spine's uplinks are its spines: "
                           "spines, fabric_gbps)");
    if (c.incast_from == "uplinks" && c.uplinks == 0)
        throw config_error("incast_from = uplinks needs uplinks > 0 (topology star)");
    const uint64_t uplink_rate = gbps_to_bps(c.uplink_gbps);
    topology topo = star       ? star_topology(static_cast<int>(c.hosts), host_rate, delay, buf)
                    : fat_tree ? fat_tree_topology(static_cast<int>(c.fat_tree_k), host_rate, fabric_rate, delay, buf)
                               : leaf_spine_topology(static_cast<int>(c.leaves), hpl, static_cast<int>(c.spines),
                                                     host_rate, fabric_rate, delay, buf);
    const int down_hosts = topo.hosts;   // hosts on downlinks; the uplink hosts follow
    if (star && c.uplinks > 0) {
        for (int u = 0; u < c.uplinks; ++u)
            topo.links.push_back(link_spec{node_ref::of_host(down_hosts + u), 0, node_ref::of_switch(0), down_hosts + u,
                                           uplink_rate, delay});
        topo.hosts += static_cast<int>(c.uplinks);
        topo.switches[0].ports += static_cast<int>(c.uplinks);
    }
    auto rate_of = [&](int h) { return h < down_hosts ? host_rate : uplink_rate; };
    // links on the shortest path between two hosts: 2 under one switch, 4 through a spine or within a fat-tree
    // pod, 6 between fat-tree pods
    auto path_links = [&](int src, int dst) {
        if (star || src / hpl == dst / hpl)
            return 2;
        if (!fat_tree || src / (hpl * half_k) == dst / (hpl * half_k))
            return 4;
        return 6;
    };
    // a host queues what its flows send without limit (a host's qdisc with TCP small queues holds back its
    // senders rather than dropping; 1 MB of NIC queue would drop the bursts of many concurrent flows)
    topo.nic_queue_bytes = uint64_t{1} << 34;
    tcp_config tcp;
    tcp.congestion_control = c.transport;
    tcp.dctcp_g = c.dctcp_g;
    tcp.min_rto_ps = ms_to_ps(c.min_rto_ms);
    tcp.initial_cwnd = static_cast<uint32_t>(c.init_cwnd);
    tcp.prio = static_cast<uint8_t>(c.flow_prio);

    result r;
    r.set("scenario", std::string(name()));
    sim_context ctx;
    {
        network net(topo);
        scheme_context schemes{net, static_cast<uint64_t>(c.seed), net.num_hosts() - 1};
        m_schemes.install(schemes);
        m_schemes.describe_setup(r);
        std::vector<host_stack*> hosts;
        for (int h = 0; h < net.num_hosts(); ++h)
            hosts.push_back(&net.stack(h));
        flow_workload_config wc;
        wc.load = c.load;
        wc.host_rate_bps = host_rate;
        wc.stop_ps = stop;
        wc.incast_fanin = static_cast<int>(c.incast_fanin);
        wc.incast_bytes = kb_to_bytes(c.incast_kb);
        wc.incast_period_ps = ms_to_ps(c.incast_period_ms);
        wc.incast_receivers = static_cast<int>(c.incast_receivers);
        for (double d : c.flow_destinations)
            wc.destinations.push_back(static_cast<int>(d));
        wc.incast_prio = static_cast<uint8_t>(c.incast_prio);
        for (int h = 0; h < down_hosts; ++h) {
            wc.incast_targets.push_back(h);
            if (c.incast_from != "uplinks")
                wc.incast_senders.push_back(h);
        }
        if (net.num_hosts() > down_hosts)
            wc.load_by_host.assign(static_cast<size_t>(down_hosts), c.load);
        for (int h = down_hosts; h < net.num_hosts(); ++h) {
            if (c.incast_from != "hosts")
                wc.incast_senders.push_back(h);
            wc.load_by_host.push_back(c.uplink_load);
        }
        for (int h = 0; h < net.num_hosts(); ++h)
            wc.rate_by_host.push_back(rate_of(h));
        wc.seed = static_cast<uint64_t>(c.seed);
        flow_workload w(hosts, tcp, sizes, wc);
        for (int s = 0; s < net.num_switches(); ++s) {
            net.sw(s).track_pool_occupancy();
            net.sw(s).track_queue_occupancy();
            if (auto* g = net.sw(s).find_hook<pause_generator>())
                g->track_groups();
        }

        ctx.run_until(end);

        // the ideal FCT: the flow alone, its last byte behind its whole wire size at the host rate, one frame's
        // store-and-forward on every further link, the propagation of every link on the path
        // (the whole size at the slower of the two host links, one frame at the faster)
        auto ideal_ps = [&](int src, int dst, uint64_t bytes) {
            const uint64_t segs = (bytes + tcp.mss - 1) / tcp.mss;
            const uint64_t wire = bytes + segs * tcp.header_bytes;
            const int links = path_links(src, dst);
            const uint64_t first = std::min<uint64_t>(wire, tcp.mss + tcp.header_bytes);
            const double slow_rate = static_cast<double>(std::min(rate_of(src), rate_of(dst)));
            const double fast_rate = static_cast<double>(std::max(rate_of(src), rate_of(dst)));
            double t = static_cast<double>(wire) * 8e12 / slow_rate;
            t += static_cast<double>(first) * 8e12 / fast_rate;   // the other host link
            t += (links - 2) * static_cast<double>(first) * 8e12 / static_cast<double>(fabric_rate);
            return t + static_cast<double>(links) * static_cast<double>(delay);
        };
        std::vector<double> fct[5], slow[5], all_slow, incast_done;
        std::vector<uint64_t> incast_end, incast_start;
        uint64_t started = 0, completed = 0, bytes_done = 0;
        table* ft = c.flow_table ? &r.add_table("flows") : nullptr;
        for (const auto& f : w.flows()) {
            if (f.incast >= 0) {
                const size_t k = static_cast<size_t>(f.incast);
                if (incast_end.size() <= k) {
                    incast_end.resize(k + 1, 0);
                    incast_start.resize(k + 1, f.start_ps);
                }
                incast_end[k] =
                    (f.end_ps == 0 || incast_end[k] == UINT64_MAX) ? UINT64_MAX : std::max(incast_end[k], f.end_ps);
                continue;
            }
            ++started;
            if (f.end_ps == 0)
                continue;
            ++completed;
            bytes_done += f.bytes;
            const double t = static_cast<double>(f.end_ps - f.start_ps);
            const double s = t / ideal_ps(f.src, f.dst, f.bytes);
            size_t b = 0;
            while (static_cast<double>(f.bytes) > bucket_upper[b])
                ++b;
            fct[b].push_back(t * 1e-9);
            slow[b].push_back(s);
            all_slow.push_back(s);
            if (ft) {
                ft->column("size_bytes").push_back(static_cast<double>(f.bytes));
                ft->column("fct_us").push_back(t * 1e-6);
                ft->column("slowdown").push_back(s);
            }
        }
        for (size_t k = 0; k < incast_end.size(); ++k)
            if (incast_end[k] != UINT64_MAX && incast_end[k] != 0)
                incast_done.push_back(static_cast<double>(incast_end[k] - incast_start[k]) * 1e-9);
        r.set("flow_sizes", c.flow_sizes);
        r.set("flow_size_mean_bytes", sizes.mean());
        r.set("load", c.load);
        r.set("transport", c.transport);
        r.set("marking", m_schemes.selected(scheme_slot::marking));
        r.set("pause", m_schemes.selected(scheme_slot::pause));
        m_schemes.report(scheme_slot::pause, net, r);
        report_switch_ports(r, net, end);   // pause_frames, the ports and hosts tables, pause episodes
        {   // every switch's shared pool (and headroom pool, with PFC) over time
            table& sw = r.add_table("switches");
            double pool_p99 = 0, headroom_p99 = 0;
            for (int s = 0; s < net.num_switches(); ++s) {
                const occupancy_stats& po = net.sw(s).buffer().pool_occupancy();
                sw.column("switch").push_back(s);
                for (const auto& q : {std::make_pair("pool_p50_kb", 0.5), std::make_pair("pool_p99_kb", 0.99)})
                    sw.column(q.first).push_back(static_cast<double>(po.quantile(q.second, end)) / 1024);
                sw.column("pool_max_kb").push_back(static_cast<double>(po.max()) / 1024);
                pool_p99 = std::max(pool_p99, static_cast<double>(po.quantile(0.99, end)) / 1024);
                const auto* g = net.sw(s).find_hook<pause_generator>();
                const double h99 = g ? static_cast<double>(g->headroom_occupancy().quantile(0.99, end)) / 1024 : 0;
                sw.column("headroom_p99_kb").push_back(h99);
                sw.column("headroom_max_kb").push_back(g ? static_cast<double>(g->headroom_peak()) / 1024 : 0);
                headroom_p99 = std::max(headroom_p99, h99);
            }
            r.set("pool_p99_kb_max_switch", pool_p99);
            r.set("headroom_p99_kb_max_switch", headroom_p99);
            // the busiest switch's pool distribution
            int busiest = 0;
            for (int s = 1; s < net.num_switches(); ++s)
                if (net.sw(s).buffer().pool_occupancy().mean(end) > net.sw(busiest).buffer().pool_occupancy().mean(end))
                    busiest = s;
            report_occupancy(r, "pool_", net.sw(busiest).buffer().pool_occupancy(), end, true);
            r.set("pool_cdf_switch", static_cast<int64_t>(busiest));
        }
        {   // every egress queue that held a byte: its time-weighted occupancy
            // fn(switch, port, queue, its occupancy) for every egress queue that held a byte
            auto for_each_queue = [&](auto&& fn) {
                for (int s = 0; s < net.num_switches(); ++s)
                    for (int p = 0; p < net.sw(s).num_ports(); ++p)
                        for (int q = 0; q < num_priorities; ++q)
                            if (net.sw(s).egress(p).queue_occupancy(q).max() > 0)
                                fn(s, p, q, net.sw(s).egress(p).queue_occupancy(q));
            };
            table& qt = r.add_table("queues");
            for_each_queue([&](int s, int p, int q, const occupancy_stats& o) {
                qt.column("switch").push_back(s);
                qt.column("port").push_back(p);
                qt.column("queue").push_back(q);
                qt.column("mean_kb").push_back(o.mean(end) / 1024);
                qt.column("p50_kb").push_back(static_cast<double>(o.quantile(0.5, end)) / 1024);
                qt.column("p99_kb").push_back(static_cast<double>(o.quantile(0.99, end)) / 1024);
                qt.column("max_kb").push_back(static_cast<double>(o.max()) / 1024);
            });
            table& pt = r.add_table("priorities");   // switch drops by the frames' priority (lossless ones: 0)
            for (int prio = 0; prio < num_priorities - 1; ++prio) {
                uint64_t d = 0;
                for (int s = 0; s < net.num_switches(); ++s)
                    for (int p = 0; p < net.sw(s).num_ports(); ++p)
                        d += net.sw(s).counters(p).drop_frames_by_prio[static_cast<size_t>(prio)];
                pt.column("priority").push_back(prio);
                pt.column("switch_drops").push_back(static_cast<double>(d));
                if (prio == c.incast_prio && c.incast_fanin > 0)
                    r.set("drops_incast_prio", static_cast<int64_t>(d));
                if (prio == c.flow_prio)
                    r.set("drops_flow_prio", static_cast<int64_t>(d));
            }
            // the busiest egress queue's distribution (by mean), and every queue's with queue_cdfs
            int bs = -1, bp = 0, bq = 0;
            double best = -1;
            for_each_queue([&](int s, int p, int q, const occupancy_stats& o) {
                if (o.mean(end) > best) {
                    best = o.mean(end);
                    bs = s, bp = p, bq = q;
                }
            });
            if (bs >= 0) {
                report_occupancy(r, "queue_", net.sw(bs).egress(bp).queue_occupancy(bq), end, true);
                r.set("queue_cdf_switch", static_cast<int64_t>(bs));
                r.set("queue_cdf_port", static_cast<int64_t>(bp));
                r.set("queue_cdf_queue", static_cast<int64_t>(bq));
            }
            if (c.queue_cdfs) {
                table& ct = r.add_table("queue_cdfs");
                for_each_queue([&](int s, int p, int q, const occupancy_stats& o) {
                    for (const auto& point : o.cdf(end)) {
                        ct.column("switch").push_back(s);
                        ct.column("port").push_back(p);
                        ct.column("queue").push_back(q);
                        ct.column("bytes").push_back(static_cast<double>(point.first));
                        ct.column("fraction").push_back(point.second);
                    }
                });
            }
            // PFC/PAUSE: every ingress priority group's bytes (over the ports), headroom and ingress reserves
            table* gt = nullptr;
            for (int s = 0; s < net.num_switches(); ++s) {
                const auto* g = net.sw(s).find_hook<pause_generator>();
                if (!g)
                    continue;
                for (int k = 0; k < num_priorities - 1; ++k) {
                    const occupancy_stats& o = g->group_occupancy(k);
                    if (o.max() == 0)
                        continue;
                    if (!gt)
                        gt = &r.add_table("groups");
                    gt->column("switch").push_back(s);
                    gt->column("group").push_back(k);
                    gt->column("mean_kb").push_back(o.mean(end) / 1024);
                    gt->column("p50_kb").push_back(static_cast<double>(o.quantile(0.5, end)) / 1024);
                    gt->column("p99_kb").push_back(static_cast<double>(o.quantile(0.99, end)) / 1024);
                    gt->column("max_kb").push_back(static_cast<double>(o.max()) / 1024);
                }
            }
            // the headroom pool of the switch that used it most, over time
            int hs = -1;
            for (int s = 0; s < net.num_switches(); ++s) {
                const auto* g = net.sw(s).find_hook<pause_generator>();
                if (g && g->headroom_peak() > 0 &&
                    (hs < 0 || g->headroom_occupancy().mean(end) >
                                   net.sw(hs).find_hook<pause_generator>()->headroom_occupancy().mean(end)))
                    hs = s;
            }
            if (hs >= 0) {
                report_occupancy(r, "headroom_", net.sw(hs).find_hook<pause_generator>()->headroom_occupancy(), end,
                                 true);
                r.set("headroom_cdf_switch", static_cast<int64_t>(hs));
            }
        }
        r.set("flows_started", static_cast<int64_t>(started));
        r.set("flows_completed", static_cast<int64_t>(completed));
        {   // of the links of the hosts that offer Poisson load (every host's when none does)
            double capacity = 0, all = 0;
            for (int h = 0; h < net.num_hosts(); ++h) {
                const double load_h = h < down_hosts ? c.load : c.uplink_load;
                all += static_cast<double>(rate_of(h));
                capacity += load_h > 0 ? static_cast<double>(rate_of(h)) : 0;
            }
            r.set("offered_load_measured", mbps(bytes_done, stop) * 1e6 / (capacity > 0 ? capacity : all));
        }
        r.set("uplinks", c.uplinks);
        r.set("slowdown_p50", percentile(all_slow, 0.5));
        r.set("slowdown_p99", percentile(all_slow, 0.99));
        table& bt = r.add_table("fct_by_size");
        for (size_t b = 0; b < 5; ++b) {
            bt.column("bucket").push_back(static_cast<double>(b));
            bt.column("upper_bytes").push_back(b < 4 ? bucket_upper[b] : 0);
            bt.column("flows").push_back(static_cast<double>(fct[b].size()));
            bt.column("fct_p50_ms").push_back(percentile(fct[b], 0.5));
            bt.column("fct_p99_ms").push_back(percentile(fct[b], 0.99));
            bt.column("slowdown_p50").push_back(percentile(slow[b], 0.5));
            bt.column("slowdown_p95").push_back(percentile(slow[b], 0.95));
            bt.column("slowdown_p99").push_back(percentile(slow[b], 0.99));
        }
        r.set("slowdown_p99_small", percentile(slow[0], 0.99));   // <= 10 KB
        r.set("slowdown_p99_large", percentile(slow[3], 0.99));   // 1-10 MB
        r.set("fct_buckets", std::string(bucket_name[0]) + ", " + bucket_name[1] + ", " + bucket_name[2] + ", " +
                                 bucket_name[3] + ", " + bucket_name[4]);
        r.set("incasts", static_cast<int64_t>(incast_end.size()));
        r.set("incasts_completed", static_cast<int64_t>(incast_done.size()));
        r.set("incast_time_p50_ms", percentile(incast_done, 0.5));
        r.set("incast_time_p99_ms", percentile(incast_done, 0.99));
        uint64_t timeouts = 0, marks = 0, shared_peak = 0;
        for (const auto& st : w.stats())
            timeouts += st.timeouts;
        for (int s = 0; s < net.num_switches(); ++s) {
            for (int p = 0; p < net.sw(s).num_ports(); ++p)
                marks += net.sw(s).counters(p).marks;
            shared_peak = std::max(shared_peak, net.sw(s).buffer().shared_used_peak_bytes());
        }
        uint64_t frames_sent = 0;
        for (int s = 0; s < net.num_switches(); ++s)
            for (int p = 0; p < net.sw(s).num_ports(); ++p)
                frames_sent += net.sw(s).egress(p).stats().tx_frames;
        r.set("switch_frames_sent", static_cast<int64_t>(frames_sent));
        r.set("timeouts", static_cast<int64_t>(timeouts));
        r.set("marks", static_cast<int64_t>(marks));
        r.set("shared_peak_kb_max_switch", static_cast<double>(shared_peak) / 1024);
        report_drops(r, net);
        report_run_end(r, net, static_cast<double>(end) * 1e-12,
                       "model queue entries dispatched (frame arrivals, transmitter wakeups, TCP and workload timers)");
    }
    clock.report(r);
    return r;
}

}   // namespace cmswitch
