// SPDX-License-Identifier: Apache-2.0
#include "platform/scenarios/workload.h"

#include "config/errors.h"
#include "model/cm/pause/pause_generator.h"
#include "model/switch/sonic_headroom.h"
#include "model/units.h"
#include "platform/network.h"
#include "platform/recorders/buffer_occupancy.h"
#include "platform/recorders/class_drops.h"
#include "platform/recorders/flow_completion.h"
#include "platform/sim_context.h"
#include "platform/statistics.h"
#include "traffic/flow_workload.h"
#include "traffic/tcp/congestion_control.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace cmswitch {

// What plan() works out for build() and report(): the flow sizes, the TCP settings, the paths' model of the ideal
// flow completion time.
struct workload_scenario::planned {
    std::unique_ptr<flow_size_distribution> sizes;
    tcp_config tcp;
    flow_path_model paths;
    int down_hosts = 0;   // hosts on downlinks; the uplink hosts follow
    uint64_t stop_ps = 0, end_ps = 0;   // arrivals stop; the run ends
};

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
    declare_link_rate(t, c.link_gbps, "host links");
    t.add_real("fabric_gbps", &c.fabric_gbps, 0, 1000, "Gbps",
               "switch-to-switch links (leaf-spine oversubscription = hosts_per_leaf x link / (spines x fabric))",
               true);
    declare_link_delay(t, c.delay_us);
    t.add_real("load", &c.load, 0, 1, "", "Poisson flows' offered load on each host link (application bytes); 0: none");
    t.add_choice("flow_sizes", &c.flow_sizes, flow_size_distribution::builtin_names(),
                 "flow-size CDF (data/flow_sizes/*.csv): web-search (DCTCP), data-mining (VL2), fb-hadoop (HPCC), "
                 "or the path of your own .csv file (lines 'size_bytes,cdf_percent', not decreasing, ending at "
                 "100; '#' comments)",
                 true);
    declare_tcp(t, c);
    m_schemes.declare(t, scheme_slot::marking, "switch ECN marking on the instantaneous queue");
    declare_buffer(t, c);
    m_schemes.declare(t, scheme_slot::pause,
                      "PFC/PAUSE at the switch inputs (with a shared buffer: pause_xoff_alpha for dynamic XOFF and "
                      "pause_headroom_pool_kb for a shared headroom pool)");
    declare_run(t, c, 1e4, "flows arrive during this time");
    t.add_real("drain_ms", &c.drain_ms, 0, 1e7, "ms", "simulated time after the last arrival, for flows to finish");
    t.add_real("warmup_ms", &c.warmup_ms, 0, 1e7, "ms",
               "flows and incasts that start before this time are left out of the completion-time statistics "
               "(they met the idle network of the start); 0: every flow counts");
    t.add_int("flow_prio", &c.flow_prio, 0, 6, "", "802.1p priority of the Poisson flows (queue_map, pg_map)");
    t.add_list("flow_destinations", &c.flow_destinations, 0, 65535, 0, true, "",
               "the hosts the Poisson flows go to, uniformly (e.g. storage servers; host ids: star 0..hosts-1 then "
               "the uplinks, leaf-spine leaf x hosts_per_leaf + j); none: all-to-all");
    t.add_int("bulk_flows", &c.bulk_flows, 0, 64, "flows",
              "long-lived flows from each host that offers Poisson flows, sending from time 0 to the end of the "
              "run: host h's k-th to the ((h + k) mod n)-th of its destinations (flow_destinations, or every other "
              "host); the elephants short flows wait behind. Left out of the completion-time statistics; "
              "bulk_goodput_mbps reports their mean goodput");
    t.add_int("incast_fanin", &c.incast_fanin, 0, 4095, "senders", "periodic incasts: senders per incast (0: none)");
    t.add_int("incast_receivers", &c.incast_receivers, 1, 4096, "hosts",
              "incasts started together each period, to distinct receivers (several congested ports at once)");
    t.add_choice("incast_from", &c.incast_from, {"any", "uplinks", "hosts"},
                 "where incast senders are: any host, only the uplink hosts (the incast arrives over the uplinks; "
                 "star with uplinks), or only the hosts on downlinks; receivers are always downlink hosts");
    t.add_int("incast_prio", &c.incast_prio, 0, 6, "", "802.1p priority of the incast flows");
    t.add_real("incast_kb", &c.incast_kb, 0.001, 1 << 20, "KB (1024 B)", "incast: bytes from each sender");
    t.add_real("incast_period_ms", &c.incast_period_ms, 0.001, 1e6, "ms", "incast: time between two incasts");
    t.add_flag("flow_table", &c.flow_table,
               "include every completed flow as table flows: src, dst, start_ms, size_bytes, fct_us, slowdown, "
               "priority, net_queue_mean_us, delay_excess_max_us, timeouts, fast_retransmits, retransmitted_bytes, "
               "retransmitted_bytes_spurious (and the host wait where it is accounted, the wait in the receiving "
               "NIC's ring where it moderates its interrupts)");
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
    const double poisson =
        (down * c.load * c.link_gbps + static_cast<double>(c.uplinks) * c.uplink_load * c.uplink_gbps) * 1e9 / 8 /
        std::max(mean, 1.0) * c.duration_s;
    const double incast_flows = c.incast_fanin > 0 ? c.duration_s * 1e3 / c.incast_period_ms *
                                                         static_cast<double>(c.incast_fanin * c.incast_receivers)
                                                   : 0.0;
    cost.add_records("duration_s", poisson + incast_flows, 4 * 1024,
                     "flows over duration_s = " + format_number(c.duration_s) + " s (each kept to the end of the run)",
                     "shorten duration_s or lower load");
    const double per_switch = c.buffer_policy == "static"
                                  ? static_cast<double>(kb_to_bytes(c.buffer_kb)) * ports / switches
                                  : static_cast<double>(kb_to_bytes(c.pool_kb));
    // a bulk flow sends at most its host's link rate for the whole run
    const double bulk = static_cast<double>(c.bulk_flows) *
                        (down * (c.load > 0 ? c.link_gbps : 0) +
                         static_cast<double>(c.uplinks) * (c.uplink_load > 0 ? c.uplink_gbps : 0)) *
                        1e9 / 8 * (c.duration_s + c.drain_ms * 1e-3);
    const double offered = poisson * mean + incast_flows * static_cast<double>(kb_to_bytes(c.incast_kb)) + bulk;
    cost.add_buffered_frames("duration_s", per_switch * switches, offered);
}

scenario_plan workload_scenario::plan(result& r) {
    const workload_config& c = m_cfg;
    if (find_congestion_control(c.tcp.transport).needs_marking && !m_schemes.active(scheme_slot::marking))
        throw config_error("transport = " + c.tcp.transport + " needs a marking scheme (e.g. --marking step)");
    m_schemes.check(c.tcp.transport);
    auto pl = std::make_shared<planned>();
    pl->sizes = std::make_unique<flow_size_distribution>(flow_size_distribution::named(c.flow_sizes));
    const uint64_t host_rate = gbps_to_bps(c.link_gbps), fabric_rate = gbps_to_bps(c.fabric_gbps);
    if (host_rate == 0 || fabric_rate == 0)
        throw config_error("link_gbps / fabric_gbps: must be at least 1e-9 Gbps (1 bit/s)");
    const uint64_t delay = us_to_ps(c.delay_us);
    if (c.warmup_ms > 0 && c.warmup_ms >= c.duration_s * 1e3)
        throw config_error("warmup_ms = " + format_number(c.warmup_ms) +
                           ": must end before the arrivals do (duration_s = " + format_number(c.duration_s) + " s)");
    pl->stop_ps = s_to_ps(c.duration_s);
    pl->end_ps = pl->stop_ps + ms_to_ps(c.drain_ms);
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
    if (c.bulk_flows > 0 && c.load <= 0 && c.uplink_load <= 0)
        throw config_error("bulk_flows = " + std::to_string(c.bulk_flows) +
                           " needs load > 0 or uplink_load > 0 (bulk flows start at the hosts that offer Poisson "
                           "flows; with neither there would be none)");
    const uint64_t uplink_rate = gbps_to_bps(c.uplink_gbps);
    topology topo = star       ? star_topology(static_cast<int>(c.hosts), host_rate, delay, buf)
                    : fat_tree ? fat_tree_topology(static_cast<int>(c.fat_tree_k), host_rate, fabric_rate, delay, buf)
                               : leaf_spine_topology(static_cast<int>(c.leaves), hpl, static_cast<int>(c.spines),
                                                     host_rate, fabric_rate, delay, buf);
    pl->down_hosts = topo.hosts;   // hosts on downlinks; the uplink hosts follow
    if (star && c.uplinks > 0) {
        for (int u = 0; u < c.uplinks; ++u)
            topo.links.push_back(link_spec{node_ref::of_host(pl->down_hosts + u), 0, node_ref::of_switch(0),
                                           pl->down_hosts + u, uplink_rate, delay});
        topo.hosts += static_cast<int>(c.uplinks);
        topo.switches[0].ports += static_cast<int>(c.uplinks);
    }
    // the hosts' egress (qdisc, small queues, NIC ring: the host profile's); a FIFO NIC queue (the ns2 profile)
    // takes what the flows send without limit, for a host's qdisc holds back its senders rather than dropping
    // (1 MB of NIC queue would drop the bursts of many concurrent flows)
    topo.nic_queue_bytes = uint64_t{1} << 34;
    topo.host_egress = make_host_egress(c);
    flow_path_model& paths = pl->paths;
    for (int h = 0; h < topo.hosts; ++h)
        paths.host_rate_bps.push_back(h < pl->down_hosts ? host_rate : uplink_rate);
    paths.fabric_rate_bps = fabric_rate;
    paths.link_delay_ps = delay;
    paths.host_latency_ps = topo.host_egress.latency_ps;
    paths.rx_coalesce_ps = topo.host_egress.receive.coalesce_ps;
    if (!c.cable_m.empty()) {   // cables given in metres set the links' propagation (their mean, for a list)
        double sum = 0;
        for (double m : c.cable_m)
            sum += m;
        paths.link_delay_ps = static_cast<uint64_t>(
            std::llround(sum / static_cast<double>(c.cable_m.size()) / sonic_cable_speed_mps * 1e12));
    }
    paths.pipeline_ps = static_cast<uint64_t>(c.pipeline_ns) * 1000;
    paths.cut_through_bytes = c.forwarding == "cut-through" ? static_cast<uint32_t>(c.cut_through_bytes) : 0;
    // links on the shortest path between two hosts: 2 under one switch, 4 through a spine or within a fat-tree
    // pod, 6 between fat-tree pods
    paths.links = [star, fat_tree, hpl, half_k](int src, int dst) {
        if (star || src / hpl == dst / hpl)
            return 2;
        if (!fat_tree || src / (hpl * half_k) == dst / (hpl * half_k))
            return 4;
        return 6;
    };
    tcp_config& tcp = pl->tcp;
    tcp = make_tcp_config(c);
    tcp.prio = static_cast<uint8_t>(c.flow_prio);
    paths.mss = tcp.mss;
    paths.header_bytes = tcp.header_bytes + (tcp.timestamps ? tcp_config::timestamp_option_bytes : 0);
    m_plan = pl;
    r.set("scenario", std::string(name()));
    return {std::move(topo), pl->end_ps};
}

flow_workload_config workload_scenario::workload_settings(int hosts) const {
    const workload_config& c = m_cfg;
    const planned& p = *m_plan;
    flow_workload_config wc;
    wc.load = c.load;
    wc.host_rate_bps = gbps_to_bps(c.link_gbps);
    wc.stop_ps = p.stop_ps;
    wc.bulk_flows = static_cast<int>(c.bulk_flows);
    wc.incast_fanin = static_cast<int>(c.incast_fanin);
    wc.incast_bytes = kb_to_bytes(c.incast_kb);
    wc.incast_period_ps = ms_to_ps(c.incast_period_ms);
    wc.incast_receivers = static_cast<int>(c.incast_receivers);
    for (double d : c.flow_destinations)
        wc.destinations.push_back(static_cast<int>(d));
    wc.incast_prio = static_cast<uint8_t>(c.incast_prio);
    for (int h = 0; h < p.down_hosts; ++h) {
        wc.incast_targets.push_back(h);
        if (c.incast_from != "uplinks")
            wc.incast_senders.push_back(h);
    }
    if (hosts > p.down_hosts)
        wc.load_by_host.assign(static_cast<size_t>(p.down_hosts), c.load);
    for (int h = p.down_hosts; h < hosts; ++h) {
        if (c.incast_from != "hosts")
            wc.incast_senders.push_back(h);
        wc.load_by_host.push_back(c.uplink_load);
    }
    wc.rate_by_host = p.paths.host_rate_bps;
    wc.seed = static_cast<uint64_t>(c.seed);
    return wc;
}

struct workload_scenario::run_state : scenario_run {
    run_state(network& net, const workload_config& c, const planned& p, const flow_workload_config& wc)
        : w(net.stacks(), p.tcp, *p.sizes, wc), fct(w, p.paths, c.flow_table, net, ms_to_ps(c.warmup_ms)),
          occupancy(net, c.queue_cdfs) {}
    flow_workload w;
    flow_completion_recorder fct;
    buffer_occupancy_recorder occupancy;
    std::vector<const class_drop_counter*> class_drops;   // one per switch: 0 Poisson flows, 1 incasts, 2 other
};

std::unique_ptr<scenario_run> workload_scenario::build(network& net, result& r) {
    scheme_context schemes{net, static_cast<uint64_t>(m_cfg.seed), net.num_hosts() - 1};
    schemes.mtu_bytes = net.topo().host_egress.mtu_bytes;
    schemes.traffic_priorities =
        static_cast<uint8_t>((m_cfg.load > 0 || m_cfg.uplink_load > 0 ? 1u << m_cfg.flow_prio : 0u) |
                             (m_cfg.incast_fanin > 0 ? 1u << m_cfg.incast_prio : 0u));
    m_schemes.install(schemes);
    m_schemes.describe_setup(r);
    auto run = std::make_unique<run_state>(net, m_cfg, *m_plan, workload_settings(net.num_hosts()));
    const flow_workload* w = &run->w;
    for (int s = 0; s < net.num_switches(); ++s)
        run->class_drops.push_back(net.sw(s).add_hook(std::make_unique<class_drop_counter>(
            [w](uint32_t flow) { return flow < w->flows().size() ? (w->flows()[flow].incast >= 0 ? 1 : 0) : 2; })));
    return run;
}

void workload_scenario::report(network& net, scenario_run& run, result& r) {
    const workload_config& c = m_cfg;
    const planned& p = *m_plan;
    const auto& st = static_cast<const run_state&>(run);
    r.set("flow_sizes", c.flow_sizes);
    r.set("flow_size_mean_bytes", p.sizes->mean());
    r.set("load", c.load);
    r.set("transport", c.tcp.transport);
    report_host(r, c);
    r.set("marking", m_schemes.selected(scheme_slot::marking));
    r.set("pause", m_schemes.selected(scheme_slot::pause));
    m_schemes.report(scheme_slot::pause, net, r);
    report_switch_ports(r, net, p.end_ps);   // pause_frames, the ports and hosts tables, pause episodes
    st.occupancy.report(r, p.end_ps);
    report_class_drops(st, r);
    const uint64_t bytes_done = st.fct.report(r);
    if (c.bulk_flows > 0) {
        uint64_t bulk_bytes = 0;
        int64_t bulk = 0;
        for (const auto& f : st.w.flows())
            if (f.incast == flow_workload::bulk) {
                bulk_bytes += f.delivered;
                ++bulk;
            }
        r.set("bulk_flows", bulk);
        r.set("bulk_goodput_mbps", bulk ? static_cast<double>(bulk_bytes) * 8 /
                                              (static_cast<double>(p.end_ps) * 1e-12) / static_cast<double>(bulk) / 1e6
                                        : 0.0);
    }
    {   // of the links of the hosts that offer Poisson load (every host's when none does)
        double capacity = 0, all = 0;
        for (int h = 0; h < net.num_hosts(); ++h) {
            const double load_h = h < p.down_hosts ? c.load : c.uplink_load;
            const double rate = static_cast<double>(p.paths.host_rate_bps[static_cast<size_t>(h)]);
            all += rate;
            capacity += load_h > 0 ? rate : 0;
        }
        r.set("offered_load_measured", mbps(bytes_done, p.stop_ps) * 1e6 / (capacity > 0 ? capacity : all));
    }
    r.set("uplinks", c.uplinks);
    uint64_t timeouts = 0, marks = 0, shared_peak = 0, frames_sent = 0;
    for (const auto& s : st.w.stats())
        timeouts += s.timeouts;
    for (int s = 0; s < net.num_switches(); ++s) {
        for (int port = 0; port < net.sw(s).num_ports(); ++port) {
            marks += net.sw(s).counters(port).marks;
            frames_sent += net.sw(s).egress(port).stats().tx_frames;
        }
        const buffer_manager& bm = net.sw(s).buffer();
        shared_peak = std::max(shared_peak, bm.units().to_bytes(bm.shared_used_peak()));
    }
    r.set("switch_frames_sent", static_cast<int64_t>(frames_sent));
    r.set("timeouts", static_cast<int64_t>(timeouts));
    report_retransmissions(r, st.w.stats());
    r.set("marks", static_cast<int64_t>(marks));
    r.set("shared_peak_kb_max_switch", static_cast<double>(shared_peak) / 1024);
    report_drops(r, net);
    report_run_end(r, net, static_cast<double>(p.end_ps) * 1e-12,
                   "model queue entries dispatched (frame arrivals, transmitter wakeups, TCP and workload timers)");
}

// switch drops by the traffic the frame belongs to (the incasts' connections, the Poisson flows') and by the
// priorities those carry (every flow on the priority: the two are one when incasts have a priority of their own)
void workload_scenario::report_class_drops(const scenario_run& run, result& r) const {
    const workload_config& c = m_cfg;
    const auto& st = static_cast<const run_state&>(run);
    uint64_t by_class[class_drop_counter::num_classes] = {};
    for (const class_drop_counter* d : st.class_drops)
        for (int k = 0; k < class_drop_counter::num_classes; ++k)
            by_class[k] += d->drops(k);
    r.set("drops_flows", static_cast<int64_t>(by_class[0]));
    r.set("drops_incast", static_cast<int64_t>(by_class[1]));
    const int64_t incast_prio =
        c.incast_fanin > 0 ? static_cast<int64_t>(r.number("drops_prio" + std::to_string(c.incast_prio))) : 0;
    r.set("drops_incast_prio", incast_prio);
    r.set("drops_flow_prio", static_cast<int64_t>(r.number("drops_prio" + std::to_string(c.flow_prio))));
}

}   // namespace cmswitch
