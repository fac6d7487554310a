// SPDX-License-Identifier: Apache-2.0
#include "platform/scenario.h"

#include "model/units.h"

#include <cmath>
#include <ctime>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "config/errors.h"
#include "model/heap_pages.h"
#include "platform/network.h"
#include "platform/sim_context.h"
#include "platform/statistics.h"

namespace cmswitch {

void report_run_end(result& r, const network& net, double simulated_s, const char* events_kind) {
    report_conservation(r, net);
    uint64_t cut = 0, stored = 0;
    for (int s = 0; s < net.num_switches(); ++s) {
        net.sw(s).buffer().report_books(r, s);   // a policy's own books (the "pools" slices), if it keeps any
        cut += net.sw(s).cut_through_frames();
        stored += net.sw(s).cut_through_stored();
    }
    // cut-through switches: frames sent on before their last bit was in, and those stored (busy, paused or slower
    // egress port); 0 where every switch stores and forwards
    r.set("cut_through_frames", static_cast<int64_t>(cut));
    r.set("cut_through_stored", static_cast<int64_t>(stored));
    r.set("simulated_s", simulated_s);
    r.set("events", static_cast<int64_t>(net.events()));
    if (events_kind)
        r.set("events_kind", std::string(events_kind));
}

void scenario::set_memory_budget(double bytes) {
    if (!(bytes >= 0) || !std::isfinite(bytes))
        throw config_error("memory_budget_mb = " + format_number(bytes / (1024.0 * 1024.0)) +
                           ": must be a number of MB >= 0 (0: the default)");
    m_budget_bytes = bytes;
}

scenario_plan scenario::prepare(result& r) {
    m_params.validate();
    cost().check(memory_budget());
    return plan(r);
}

namespace {
thread_local run_phases t_phases;

double thread_cpu_s() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double heap_in_use() {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    const struct mallinfo2 m = mallinfo2();
    return static_cast<double>(m.uordblks + m.hblkhd);
#else
    return 0;
#endif
}
}   // namespace

const run_phases& last_run_phases() {
    return t_phases;
}

result scenario::run() {
    const run_clock clock;
    run_phases ph;
    const double cpu0 = thread_cpu_s();
    const double heap0 = heap_in_use();
    double cpu_built = 0, cpu_ran = 0;
    result r;
    const scenario_plan p = prepare(r);
    {
        heap_pages::prepare();
        sim_context ctx;
        network net(p.topo);
        std::unique_ptr<scenario_run> built = build(net, r);
        heap_pages::follow();
        cpu_built = thread_cpu_s();
        ph.heap_built_bytes = heap_in_use() - heap0;
        ctx.run_until(p.end_ps);
        report(net, *built, r);
        cpu_ran = thread_cpu_s();
        // what build made goes before the network, the network before the context
    }
    ph.setup_cpu_s = cpu_built - cpu0;
    ph.run_cpu_s = cpu_ran - cpu_built;
    ph.teardown_cpu_s = thread_cpu_s() - cpu_ran;
    t_phases = ph;
    clock.report(r);
    return r;
}

void scenario::check() {
    result scratch;
    const scenario_plan p = prepare(scratch);
    sim_context ctx;
    network net(p.topo);
    build(net, scratch);
}

topology scenario::planned_topology() {
    result scratch;
    scenario_plan p = prepare(scratch);
    describe_switch_ports(p.topo);
    return std::move(p.topo);
}

namespace {
// The service-pool MMU's settings ("pools"): its pools and profiles, the lossless groups' headroom (by rule, or
// SONiC's calculation and its inputs) and the buffer's slices.
void declare_pool_params(param_table& t, buffer_settings& b) {
    t.add_list("ingress_pools_kb", &b.ingress_pools_kb, 0, 1 << 22, 0, false, "KB (1024 B)",
               "pools: the ingress service pools, up to 4 (SONiC BUFFER_POOL type ingress; the chip's totals, each "
               "slice an equal part); none: no ingress admission (the egress side alone decides)");
    t.add_list("egress_pools_kb", &b.egress_pools_kb, 0, 1 << 22, 0, false, "KB (1024 B)",
               "pools: the egress service pools, up to 4; none: one of pool_kb");
    t.add_list("pg_pool", &b.pg_pool, 0, 3, 8, true, "", "pools: the ingress pool of each priority group 0-7");
    t.add_list("queue_pool", &b.queue_pool, 0, 3, 8, true, "", "pools: the egress pool of each queue 0-7");
    t.add_list("pg_reserved_kb", &b.pg_reserved_kb, 0, 1 << 20, 8, false, "KB (1024 B)",
               "pools: the reserved space of each priority group of every port (its pool's shared size excludes it)");
    t.add_list("pg_dynamic_th", &b.pg_dynamic_th, -7, 7, 8, true, "",
               "pools: each priority group's shared limit, alpha = 2^n of its pool's free shared space (SAI "
               "dynamic_th; 7: no limit); none: -3 for lossless groups, 3 for lossy ones (SONiC's)");
    t.add_list("pg_static_kb", &b.pg_static_kb, 0, 1 << 22, 8, false, "KB (1024 B)",
               "pools: a static shared limit per priority group instead of its dynamic threshold (0: dynamic)");
    t.add_list("queue_reserved_kb", &b.queue_reserved_kb, 0, 1 << 20, 8, false, "KB (1024 B)",
               "pools: the reserved space of each egress queue of every port");
    t.add_list("queue_dynamic_th", &b.queue_dynamic_th, -7, 7, 8, true, "",
               "pools: each egress queue's shared limit, alpha = 2^n (7: no limit); none: alpha (or alpha_by_queue)");
    t.add_list("queue_static_kb", &b.queue_static_kb, 0, 1 << 22, 8, false, "KB (1024 B)",
               "pools: a static shared limit per egress queue instead of its dynamic threshold (0: dynamic)");
    t.add_list("port_ingress_reserved_kb", &b.port_ingress_reserved_kb, 0, 1 << 20, 0, false, "KB (1024 B)",
               "pools: every port's reserve in each ingress pool (one per pool), after its groups' own (SONiC "
               "BUFFER_PORT_INGRESS_PROFILE_LIST)");
    t.add_list("port_ingress_dynamic_th", &b.port_ingress_dynamic_th, -7, 7, 0, true, "",
               "pools: every port's limit in each ingress pool, alpha = 2^n of its free shared space (7: none)");
    t.add_list(
        "port_egress_reserved_kb", &b.port_egress_reserved_kb, 0, 1 << 20, 0, false, "KB (1024 B)",
        "pools: every port's reserve in each egress pool, after its queues' own (BUFFER_PORT_EGRESS_PROFILE_LIST)");
    t.add_list("port_egress_dynamic_th", &b.port_egress_dynamic_th, -7, 7, 0, true, "",
               "pools: every port's limit in each egress pool, alpha = 2^n of its free shared space (7: none)");
    t.add_choice("headroom", &b.headroom, {"formula", "sonic", "given"},
                 "lossless priority groups' headroom (pools): formula, 2 x the bytes on the cable + 2 MTU + the "
                 "802.3 response time, XON 2 MTU below the limit; sonic, SONiC's dynamic calculation (cell size, "
                 "small packets, pipeline latency, MAC/PHY delay; the sonic_* inputs); given: xoff_kb, xon_kb, "
                 "xon_offset_kb");
    t.add_list("xoff_kb", &b.xoff_kb, 0, 1 << 20, 0, false, "KB (1024 B)",
               "pools, headroom given: the headroom of a lossless group after it paused its peer, one for every "
               "port or one per port");
    t.add_list("xon_kb", &b.xon_kb, 0, 1 << 20, 0, false, "KB (1024 B)",
               "pools, headroom given: a lossless group resumes at or below this, one for every port or one per port");
    t.add_list("xon_offset_kb", &b.xon_offset_kb, 0, 1 << 20, 0, false, "KB (1024 B)",
               "pools, headroom given: resume at max(xon, the group's limit - xon_offset) (SAI), one or one per port");
    t.add_real("headroom_pool_kb", &b.headroom_pool_kb, 0, 1 << 22, "KB (1024 B)",
               "pools: a shared headroom pool (SONiC: ingress_lossless_pool's xoff) that lossless groups' headroom "
               "comes from, each up to its xoff; 0: each its own");
    t.add_int("slices", &b.slices, 1, 8, "",
              "the buffer split into slices (Tomahawk XPEs, ITMs): a frame is stored in the slice slice_map gives "
              "its (ingress pipe, egress pipe); every pool and limit is per slice (pools)");
    t.add_int("pipes", &b.pipes, 1, 64, "", "the switch's ports split into pipelines, in order (pools)");
    t.add_choice("slice_map", &b.slice_map, {"single", "tomahawk", "tomahawk4"},
                 "pools: which slice serves a pipe pair: single (one slice), tomahawk (4 slices: half the ingress "
                 "pipes x half the egress pipes each), tomahawk4 (2 slices by the ingress pipe's half)");
    t.add_list("slice_map_list", &b.slice_map_list, 0, 7, 0, true, "",
               "pools: any map, the slice of each (ingress pipe, egress pipe), pipes x pipes entries row by ingress "
               "pipe (replaces slice_map)");
    t.add_list("cable_m", &b.cable_m, 0, 100000, 0, false, "m",
               "the cable of every switch port (one value) or of each port, in metres: the link's propagation at "
               "1.98e8 m/s (replacing the delay) and the headroom rules' cable; none: from the link delays");
    t.add_int("sonic_port_mtu", &b.sonic_port_mtu, 1500, 9216, "B", "headroom sonic: the port MTU (SONiC 9100)");
    t.add_int("sonic_lossless_mtu", &b.sonic_lossless_mtu, 64, 9216, "B",
              "headroom sonic: the lossless traffic's MTU (LOSSLESS_TRAFFIC_PATTERN mtu; SONiC 1024)");
    t.add_real("sonic_small_packet_percent", &b.sonic_small_packet_percent, 0, 100, "%",
               "headroom sonic: the share of small packets (LOSSLESS_TRAFFIC_PATTERN; SONiC 100: the worst case)");
    t.add_real("sonic_pipeline_latency_kb", &b.sonic_pipeline_latency_kb, 0, 1024, "KB (1024 B)",
               "headroom sonic: the ASIC's pipeline latency in buffer (ASIC_TABLE; Spectrum 18): the XON");
    t.add_real("sonic_mac_phy_delay_kb", &b.sonic_mac_phy_delay_kb, 0, 1024, "KB (1024 B)",
               "headroom sonic: bytes held in the MAC and PHY after XOFF (ASIC_TABLE; Spectrum 0.8)");
    t.add_real("sonic_peer_response_kb", &b.sonic_peer_response_kb, 0, 1024, "KB (1024 B)",
               "headroom sonic: the peer's response for a speed the 802.3 quanta table does not list (Spectrum 3.8)");
    t.add_int("sonic_lanes", &b.sonic_lanes, 1, 8, "lanes",
              "headroom sonic: the serdes lanes of every port (PORT lanes); 8 doubles the pipeline latency less 1 KB "
              "and adds a port MTU to the size (SONiC's 8-lane adjustment, e.g. 400G-8)");
    t.add_real("sonic_gearbox_delay_ns", &b.sonic_gearbox_delay_ns, 0, 100000, "ns",
               "headroom sonic: the delay of a gearbox between the ASIC and the port (0: none)");
}
}   // namespace

void declare_buffer(param_table& t, buffer_settings& b) {
    std::vector<std::string> policies;
    std::string help;
    for (const auto& p : buffer_policies())
        if (p.offered) {
            policies.emplace_back(p.name);
            help += std::string(help.empty() ? "" : "; ") + p.name + ": " + p.help;
        }
    t.add_choice("buffer_policy", &b.buffer_policy, policies, help);
    t.add_real("buffer_kb", &b.buffer_kb, 1, 1 << 22, "KB (1024 B)", "static: byte limit of each egress port");
    t.add_real("pool_kb", &b.pool_kb, 1, 1 << 22, "KB (1024 B)", "dynamic, shared: the whole buffer");
    t.add_real("alpha", &b.alpha, 0, 64, "", "dynamic, shared: queue threshold = alpha x free (shared) pool bytes",
               true);
    t.add_real("reserved_kb", &b.reserved_kb, 0, 1 << 20, "KB (1024 B)",
               "shared: guaranteed space of each queue (port x queue), used first, carved out of pool_kb");
    t.add_list("alpha_by_queue", &b.alpha_by_queue, 0, 64, 8, false, "",
               "shared: alpha of each egress queue 0-7 (each > 0); none: alpha for every queue");
    t.set_overridden_by("alpha", "alpha_by_queue");
    t.add_int("cell_bytes", &b.cell_bytes, 0, max_frame_bytes, "B",
              "the buffer's cell: every frame takes ceil((bytes + cell_overhead_bytes) / cell_bytes) cells in every "
              "book (admission, PFC, marking), and every size and threshold is converted to cells (Tomahawk 208, "
              "Tomahawk 3/4 254, Trident 3 256, Spectrum 96, Spectrum-2/3 144); 0: byte-exact (16 and up otherwise)");
    t.add_int("cell_overhead_bytes", &b.cell_overhead_bytes, 0, max_cell_overhead_bytes, "B",
              "bytes the buffer stores with every frame before its cells are counted (an MMU's per-frame header)");
    t.add_choice("forwarding", &b.forwarding, {"store-and-forward", "cut-through"},
                 "every switch: store-and-forward (a frame goes on pipeline_ns after its last bit is in), or "
                 "cut-through (pipeline_ns after its first cut_through_bytes, when its egress port is idle and not "
                 "slower than its ingress port; stored otherwise)");
    t.add_int("pipeline_ns", &b.pipeline_ns, 0, 1000000, "ns",
              "every switch: the time from a frame's last bit (stored) or its first cut_through_bytes (cut-through) "
              "to its transmission on an idle port");
    t.add_int("cut_through_bytes", &b.cut_through_bytes, min_frame_bytes, max_frame_bytes, "B",
              "cut-through: the bytes of a frame in before the switch acts on it (its headers; a minimum frame)");
    declare_pool_params(t, b);   // the service-pool MMU ("pools"), its headroom and slices
    t.add_list("queue_map", &b.queue_map, 0, 7, 8, true, "",
               "egress queue of each 802.1p priority 0-7 (data priorities use queues 0-6, priority 7 queue 7); "
               "none: queue = priority");
    t.add_list("pg_map", &b.pg_map, 0, 7, 8, true, "",
               "ingress priority group (PFC accounting and pause) of each priority 0-7; none: group = priority");
    t.add_choice("scheduler", &b.scheduler, {"strict", "dwrr"},
                 "egress scheduler of every switch port: strict priority (highest queue first), or deficit weighted "
                 "round robin over the queues with a weight (dwrr_weights), strict above them");
    t.add_list("dwrr_weights", &b.dwrr_weights, 0, 1000, 8, false, "",
               "dwrr: weight of each queue 0-7 (quantum = weight x 1500 B per round; 0: strict priority above the "
               "weighted queues; queue 7 must be 0); none: weight 1 for queues 0-6");
}

namespace {
// The "pools" settings into an mmu_config; refused with another policy, naming the setting.
void make_mmu_config(const buffer_settings& b, buffer_config& buf) {
    mmu_config& m = buf.mmu;
    const bool pools = b.buffer_policy == "pools";
    const std::pair<const char*, bool> only_pools[] = {
        {"ingress_pools_kb", !b.ingress_pools_kb.empty()},
        {"egress_pools_kb", !b.egress_pools_kb.empty()},
        {"pg_pool", !b.pg_pool.empty()},
        {"queue_pool", !b.queue_pool.empty()},
        {"pg_reserved_kb", !b.pg_reserved_kb.empty()},
        {"pg_dynamic_th", !b.pg_dynamic_th.empty()},
        {"pg_static_kb", !b.pg_static_kb.empty()},
        {"queue_reserved_kb", !b.queue_reserved_kb.empty()},
        {"queue_dynamic_th", !b.queue_dynamic_th.empty()},
        {"queue_static_kb", !b.queue_static_kb.empty()},
        {"port_ingress_reserved_kb", !b.port_ingress_reserved_kb.empty()},
        {"port_ingress_dynamic_th", !b.port_ingress_dynamic_th.empty()},
        {"port_egress_reserved_kb", !b.port_egress_reserved_kb.empty()},
        {"port_egress_dynamic_th", !b.port_egress_dynamic_th.empty()},
        {"xoff_kb", !b.xoff_kb.empty()},
        {"xon_kb", !b.xon_kb.empty()},
        {"xon_offset_kb", !b.xon_offset_kb.empty()},
        {"headroom_pool_kb", b.headroom_pool_kb > 0},
        {"slices", b.slices != 1},
        {"pipes", b.pipes != 1},
        {"slice_map", b.slice_map != "single"},
        {"slice_map_list", !b.slice_map_list.empty()},
    };
    for (const auto& [field, given] : only_pools)
        if (given && !pools)
            throw config_error(std::string(field) + " needs buffer_policy pools (not '" + b.buffer_policy + "')");
    if (!b.xoff_kb.empty() && b.headroom != "given")
        throw config_error("xoff_kb gives the lossless headroom, but headroom = " + b.headroom +
                           " computes it: set headroom given, or leave xoff_kb out");
    if (b.headroom == "given" && b.xoff_kb.empty() && pools)
        throw config_error("headroom = given needs xoff_kb (the lossless groups' headroom)");
    if (!b.slice_map_list.empty() && b.slice_map != "single")
        throw config_error("slice_map = " + b.slice_map + " and slice_map_list: give one of them");
    const auto bytes_of = [](const std::vector<double>& kb) {
        std::vector<uint64_t> v;
        for (double x : kb)
            v.push_back(kb_to_bytes(x));
        return v;
    };
    m.ingress_pool_bytes = bytes_of(b.ingress_pools_kb);
    m.egress_pool_bytes =
        b.egress_pools_kb.empty() ? std::vector<uint64_t>{kb_to_bytes(b.pool_kb)} : bytes_of(b.egress_pools_kb);
    for (size_t k = 0; k < 8; ++k) {
        if (!b.pg_pool.empty())
            m.pg_pool[k] = static_cast<uint8_t>(b.pg_pool[k]);
        if (!b.queue_pool.empty())
            m.queue_pool[k] = static_cast<uint8_t>(b.queue_pool[k]);
        if (!b.pg_reserved_kb.empty())
            m.pg_reserved_bytes[k] = kb_to_bytes(b.pg_reserved_kb[k]);
        if (!b.pg_dynamic_th.empty())
            m.pg_limit[k].dynamic_th = static_cast<int>(b.pg_dynamic_th[k]);
        if (!b.pg_static_kb.empty())
            m.pg_limit[k].static_bytes = kb_to_bytes(b.pg_static_kb[k]);
        // (none given: reserved_kb for every queue, as the "shared" policy reserves)
        m.queue_reserved_bytes[k] = kb_to_bytes(b.queue_reserved_kb.empty() ? b.reserved_kb : b.queue_reserved_kb[k]);
        if (!b.queue_dynamic_th.empty())
            m.queue_limit[k].dynamic_th = static_cast<int>(b.queue_dynamic_th[k]);
        if (!b.queue_static_kb.empty())
            m.queue_limit[k].static_bytes = kb_to_bytes(b.queue_static_kb[k]);
    }
    const auto per_pool = [](const std::vector<double>& v, const char* field) {
        if (v.size() > mmu_config::max_pools)
            throw config_error(std::string(field) + ": " + std::to_string(v.size()) + " entries; at most " +
                               std::to_string(mmu_config::max_pools) + " (one per pool)");
        return v;
    };
    for (size_t p = 0; p < per_pool(b.port_ingress_reserved_kb, "port_ingress_reserved_kb").size(); ++p)
        m.port_ingress_reserved_bytes[p] = kb_to_bytes(b.port_ingress_reserved_kb[p]);
    for (size_t p = 0; p < per_pool(b.port_egress_reserved_kb, "port_egress_reserved_kb").size(); ++p)
        m.port_egress_reserved_bytes[p] = kb_to_bytes(b.port_egress_reserved_kb[p]);
    for (size_t p = 0; p < per_pool(b.port_ingress_dynamic_th, "port_ingress_dynamic_th").size(); ++p)
        m.port_ingress_dynamic_th[p] = static_cast<int>(b.port_ingress_dynamic_th[p]);
    for (size_t p = 0; p < per_pool(b.port_egress_dynamic_th, "port_egress_dynamic_th").size(); ++p)
        m.port_egress_dynamic_th[p] = static_cast<int>(b.port_egress_dynamic_th[p]);
    m.xoff_bytes = bytes_of(b.xoff_kb);
    m.xon_bytes = bytes_of(b.xon_kb);
    m.xon_offset_bytes = bytes_of(b.xon_offset_kb);
    m.headroom_pool_bytes = kb_to_bytes(b.headroom_pool_kb);
    m.headroom_rule = b.headroom;
    m.slices = static_cast<int>(b.slices);
    m.pipes = static_cast<int>(b.pipes);
    m.slice_map_name = b.slice_map;
    for (double x : b.slice_map_list)
        m.slice_map.push_back(static_cast<uint8_t>(x));
    m.cable_m = b.cable_m;
    m.sonic.port_mtu = static_cast<uint32_t>(b.sonic_port_mtu);
    m.sonic.lossless_mtu = static_cast<uint32_t>(b.sonic_lossless_mtu);
    m.sonic.small_packet_percent = b.sonic_small_packet_percent;
    m.sonic.pipeline_latency_kb = b.sonic_pipeline_latency_kb;
    m.sonic.mac_phy_delay_kb = b.sonic_mac_phy_delay_kb;
    m.sonic.peer_response_kb = b.sonic_peer_response_kb;
    m.sonic.eight_lanes = b.sonic_lanes == 8;
    m.sonic.gearbox_delay_ns = b.sonic_gearbox_delay_ns;
}
}   // namespace

buffer_config make_buffer_config(const buffer_settings& b) {
    buffer_config buf;
    buf.policy = b.buffer_policy;
    buf.port_limit_bytes = kb_to_bytes(b.buffer_kb);
    buf.pool_bytes = kb_to_bytes(b.pool_kb);
    buf.alpha = b.alpha;
    buf.reserved_bytes = kb_to_bytes(b.reserved_kb);
    buf.alpha_by_queue = b.alpha_by_queue;
    if (b.cell_bytes != 0 && b.cell_bytes < static_cast<int64_t>(min_cell_bytes))
        throw config_error("cell_bytes = " + std::to_string(b.cell_bytes) + ": allowed 0 (byte-exact) or " +
                           std::to_string(min_cell_bytes) + " to " + std::to_string(max_frame_bytes));
    buf.cell_bytes = static_cast<uint16_t>(b.cell_bytes);
    buf.cell_overhead_bytes = static_cast<uint16_t>(b.cell_overhead_bytes);
    make_mmu_config(b, buf);
    buf.forwarding.cut_through = b.forwarding == "cut-through";
    buf.forwarding.pipeline_ns = static_cast<uint32_t>(b.pipeline_ns);
    buf.forwarding.cut_through_bytes = static_cast<uint32_t>(b.cut_through_bytes);
    for (size_t k = 0; k < b.alpha_by_queue.size(); ++k)
        if (!(b.alpha_by_queue[k] > 0))
            throw config_error("alpha_by_queue[" + std::to_string(k) + "] = " + format_number(b.alpha_by_queue[k]) +
                               ": allowed range (0, 64]");
    if (!b.alpha_by_queue.empty() && b.buffer_policy != "shared" && b.buffer_policy != "pools")
        throw config_error("alpha_by_queue needs buffer_policy shared or pools (not '" + b.buffer_policy + "')");
    for (size_t p = 0; p < b.queue_map.size(); ++p)
        buf.queue_map[p] = static_cast<uint8_t>(b.queue_map[p]);
    for (size_t p = 0; p < b.pg_map.size(); ++p)
        buf.pg_map[p] = static_cast<uint8_t>(b.pg_map[p]);
    if (b.scheduler == "dwrr") {
        std::vector<double> w = b.dwrr_weights;
        if (w.empty())
            w = {1, 1, 1, 1, 1, 1, 1, 0};
        for (int q = 0; q < num_priorities; ++q) {
            const double x = w[static_cast<size_t>(q)];
            if (x == 0)
                continue;
            if (x < 1)
                throw config_error(
                    "dwrr_weights[" + std::to_string(q) + "] = " + format_number(x) +
                    ": a weighted queue needs a weight of at least 1 (a 1500 B quantum); 0 makes it strict");
            buf.dwrr_queues |= static_cast<uint8_t>(1u << q);
            buf.dwrr_quantum[static_cast<size_t>(q)] = static_cast<uint32_t>(std::lround(x * 1500));
        }
    } else if (!b.dwrr_weights.empty()) {
        throw config_error("dwrr_weights needs scheduler dwrr (not '" + b.scheduler + "')");
    }
    check_class_maps(buf);
    return buf;
}

}   // namespace cmswitch
