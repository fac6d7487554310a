// SPDX-License-Identifier: Apache-2.0
#include "platform/recorders/buffer_occupancy.h"

#include "model/cm/pause/pause_generator.h"
#include "platform/network.h"
#include "platform/statistics.h"

#include <algorithm>
#include <utility>

namespace cmswitch {

namespace {
// fn(switch, port, queue, its occupancy) for every egress queue that held a byte
template <typename Fn>
void for_each_used_queue(const network& net, Fn&& fn) {
    for (int s = 0; s < net.num_switches(); ++s)
        for (int p = 0; p < net.sw(s).num_ports(); ++p)
            for (int q = 0; q < num_priorities; ++q)
                if (const occupancy_stats o = net.sw(s).egress(p).queue_occupancy(q); o.max() > 0)
                    fn(s, p, q, o);   // (queue_occupancy makes a copy: once per queue)
}

double kb(uint64_t bytes) {
    return static_cast<double>(bytes) / 1024;
}
}   // namespace

buffer_occupancy_recorder::buffer_occupancy_recorder(network& net, bool all_queue_cdfs)
    : m_net(net), m_all_queue_cdfs(all_queue_cdfs) {
    for (int s = 0; s < net.num_switches(); ++s) {
        net.sw(s).track_pool_occupancy();
        net.sw(s).track_queue_occupancy();
        if (auto* g = net.sw(s).find_hook<pause_generator>())
            g->track_groups();
    }
}

void buffer_occupancy_recorder::report(result& r, uint64_t end_ps) const {
    report_pools(r, end_ps);
    report_queues(r, end_ps);
    report_groups(r, end_ps);
}

// every switch's shared pool (and headroom pool, with PFC) over time
void buffer_occupancy_recorder::report_pools(result& r, uint64_t end) const {
    network& net = m_net;
    table& sw = r.add_table("switches");
    double pool_p99 = 0, headroom_p99 = 0;
    uint64_t max_units = 0;
    for (int s = 0; s < net.num_switches(); ++s) {
        // (the buffer's books are in its units: KB of the memory they take, cells x cell size)
        const buffer_units& u = net.sw(s).buffer().units();
        const occupancy_stats& po = net.sw(s).buffer().pool_occupancy();
        sw.column("switch").push_back(s);
        for (const auto& q : {std::make_pair("pool_p50_kb", 0.5), std::make_pair("pool_p99_kb", 0.99)})
            sw.column(q.first).push_back(kb(u.to_bytes(po.quantile(q.second, end))));
        sw.column("pool_max_kb").push_back(kb(u.to_bytes(po.max())));
        sw.column("pool_max_cells").push_back(static_cast<double>(po.max()));   // (bytes when byte-exact)
        sw.column("cell_bytes").push_back(u.cell_bytes);
        max_units = std::max(max_units, po.max());
        pool_p99 = std::max(pool_p99, kb(u.to_bytes(po.quantile(0.99, end))));
        const auto* g = net.sw(s).find_hook<pause_generator>();
        const double h99 = g ? kb(u.to_bytes(g->headroom_occupancy().quantile(0.99, end))) : 0;
        sw.column("headroom_p99_kb").push_back(h99);
        sw.column("headroom_max_kb").push_back(g ? kb(u.to_bytes(g->headroom_peak())) : 0);
        headroom_p99 = std::max(headroom_p99, h99);
    }
    r.set("pool_p99_kb_max_switch", pool_p99);
    // the buffer's unit (0: byte-exact) and the most cells (or bytes) a switch's shared pool held
    r.set("cell_bytes", static_cast<int64_t>(net.sw(0).buffer().units().cell_bytes));
    r.set("pool_max_cells_max_switch", static_cast<int64_t>(max_units));
    r.set("headroom_p99_kb_max_switch", headroom_p99);
    // the busiest switch's pool distribution
    int busiest = 0;
    for (int s = 1; s < net.num_switches(); ++s)
        if (net.sw(s).buffer().pool_occupancy().mean(end) > net.sw(busiest).buffer().pool_occupancy().mean(end))
            busiest = s;
    report_occupancy(r, "pool_", net.sw(busiest).buffer().pool_occupancy(), end, true,
                     net.sw(busiest).buffer().units().unit_bytes());
    r.set("pool_cdf_switch", static_cast<int64_t>(busiest));
}

// every egress queue that held a byte: its time-weighted occupancy; the busiest one's distribution (by mean)
void buffer_occupancy_recorder::report_queues(result& r, uint64_t end) const {
    network& net = m_net;
    table& qt = r.add_table("queues");
    for_each_used_queue(net, [&](int s, int p, int q, const occupancy_stats& o) {
        qt.column("switch").push_back(s);
        qt.column("port").push_back(p);
        qt.column("queue").push_back(q);
        qt.column("mean_kb").push_back(o.mean(end) / 1024);
        qt.column("p50_kb").push_back(kb(o.quantile(0.5, end)));
        qt.column("p99_kb").push_back(kb(o.quantile(0.99, end)));
        qt.column("max_kb").push_back(kb(o.max()));
    });
    int bs = -1, bp = 0, bq = 0;
    double best = -1;
    for_each_used_queue(net, [&](int s, int p, int q, const occupancy_stats& o) {
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
    if (!m_all_queue_cdfs)
        return;
    table& ct = r.add_table("queue_cdfs");
    for_each_used_queue(net, [&](int s, int p, int q, const occupancy_stats& o) {
        for (const auto& point : o.cdf(end)) {
            ct.column("switch").push_back(s);
            ct.column("port").push_back(p);
            ct.column("queue").push_back(q);
            ct.column("bytes").push_back(static_cast<double>(point.first));
            ct.column("fraction").push_back(point.second);
        }
    });
}

// PFC/PAUSE: every ingress priority group's bytes (over the ports); the headroom pool of the switch that used
// it most, over time
void buffer_occupancy_recorder::report_groups(result& r, uint64_t end) const {
    network& net = m_net;
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
            const buffer_units& u = net.sw(s).buffer().units();   // (the PFC book counts in the buffer's units)
            gt->column("switch").push_back(s);
            gt->column("group").push_back(k);
            gt->column("mean_kb").push_back(o.mean(end) * u.unit_bytes() / 1024);
            gt->column("p50_kb").push_back(kb(u.to_bytes(o.quantile(0.5, end))));
            gt->column("p99_kb").push_back(kb(u.to_bytes(o.quantile(0.99, end))));
            gt->column("max_kb").push_back(kb(u.to_bytes(o.max())));
        }
    }
    int hs = -1;
    for (int s = 0; s < net.num_switches(); ++s) {
        const auto* g = net.sw(s).find_hook<pause_generator>();
        if (g && g->headroom_peak() > 0 &&
            (hs < 0 || g->headroom_occupancy().mean(end) >
                           net.sw(hs).find_hook<pause_generator>()->headroom_occupancy().mean(end)))
            hs = s;
    }
    if (hs >= 0) {
        report_occupancy(r, "headroom_", net.sw(hs).find_hook<pause_generator>()->headroom_occupancy(), end, true,
                         net.sw(hs).buffer().units().unit_bytes());
        r.set("headroom_cdf_switch", static_cast<int64_t>(hs));
    }
}

}   // namespace cmswitch
