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
    for (size_t k = 0; k < b.alpha_by_queue.size(); ++k)
        if (!(b.alpha_by_queue[k] > 0))
            throw config_error("alpha_by_queue[" + std::to_string(k) + "] = " + format_number(b.alpha_by_queue[k]) +
                               ": allowed range (0, 64]");
    if (!b.alpha_by_queue.empty() && b.buffer_policy != "shared")
        throw config_error("alpha_by_queue needs buffer_policy shared (not '" + b.buffer_policy + "')");
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
