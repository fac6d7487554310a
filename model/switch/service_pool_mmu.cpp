// SPDX-License-Identifier: Apache-2.0
#include "model/switch/service_pool_mmu.h"

#include "config/errors.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace cmswitch {

namespace {
std::string kb_text(uint64_t bytes) {
    std::ostringstream o;
    o << static_cast<double>(bytes) / 1024 << " KB";
    return o.str();
}

// alpha = 2^dynamic_th (SAI), checked; infinity for the no-limit value (7)
double alpha_of(int th, const std::string& field) {
    if (th == shared_limit::no_limit_th)
        return std::numeric_limits<double>::infinity();
    if (th < shared_limit::min_th || th > shared_limit::max_th)
        throw config_error(field + " = " + std::to_string(th) + ": allowed range [" +
                           std::to_string(shared_limit::min_th) + ", " + std::to_string(shared_limit::max_th) +
                           "] (alpha = 2^n: 1/128 to 64), or " + std::to_string(shared_limit::no_limit_th) +
                           " for no limit");
    return std::ldexp(1.0, th);
}

// The slice of every (ingress pipe, egress pipe), row by ingress pipe.
std::vector<uint8_t> slice_table(const mmu_config& m) {
    const int n = m.pipes;
    std::vector<uint8_t> t(static_cast<size_t>(n * n), 0);
    if (!m.slice_map.empty()) {
        if (m.slice_map.size() != t.size())
            throw config_error("slice_map_list: " + std::to_string(m.slice_map.size()) +
                               " entries; give pipes x pipes = " + std::to_string(t.size()) +
                               " (the slice of each ingress pipe x egress pipe, row by "
                               "ingress pipe), so that no pipe pair is left unserved");
        for (size_t k = 0; k < t.size(); ++k) {
            if (m.slice_map[k] >= m.slices)
                throw config_error("slice_map_list[" + std::to_string(k) + "] = " + std::to_string(m.slice_map[k]) +
                                   ": slices are 0 to " + std::to_string(m.slices - 1) +
                                   " (slices = " + std::to_string(m.slices) + ")");
            t[k] = m.slice_map[k];
        }
    } else if (m.slice_map_name == "single") {
        if (m.slices != 1)
            throw config_error(
                "slice_map single puts every pipe pair in slice 0, but slices = " + std::to_string(m.slices) +
                ": name a map for several slices (tomahawk, tomahawk4) "
                "or give slice_map_list");
    } else if (m.slice_map_name == "tomahawk" || m.slice_map_name == "tomahawk4") {
        const bool th = m.slice_map_name == "tomahawk";
        const int need = th ? 4 : 2;
        if (m.slices != need || n % 2 != 0)
            throw config_error("slice_map " + m.slice_map_name + " needs slices = " + std::to_string(need) +
                               " and an even number of pipes (slices = " + std::to_string(m.slices) +
                               ", pipes = " + std::to_string(n) + ")");
        for (int i = 0; i < n; ++i)
            for (int o = 0; o < n; ++o)   // each slice: one half of the ingress pipes (x one half of the egress)
                t[static_cast<size_t>(i * n + o)] =
                    static_cast<uint8_t>(th ? (i / (n / 2)) * 2 + o / (n / 2) : i / (n / 2));
    } else {
        throw config_error("slice_map = '" + m.slice_map_name + "': allowed values are single, tomahawk, tomahawk4");
    }
    for (int s = 0; s < m.slices; ++s)
        if (std::find(t.begin(), t.end(), static_cast<uint8_t>(s)) == t.end())
            throw config_error("slice " + std::to_string(s) + " serves no pipe pair of the slice map (slices = " +
                               std::to_string(m.slices) + ", pipes = " + std::to_string(n) + ")");
    return t;
}

table& table_named(result& r, const std::string& name) {
    for (auto& t : r.tables)
        if (t.first == name)
            return t.second;
    return r.add_table(name);
}
}   // namespace

service_pool_mmu::service_pool_mmu(const buffer_config& cfg, int num_ports) : buffer_manager(num_ports, cfg.units()) {
    use_own_books();
    const mmu_config& m = cfg.mmu;
    const buffer_units& u = units();
    setup_slices(m, num_ports);
    setup_pools(cfg);
    setup_profiles(cfg, num_ports);
    // lossless headroom, per port (one entry: every port)
    const auto per_port = [&](const std::vector<uint64_t>& v, const char* field, bool threshold) {
        if (!v.empty() && v.size() != 1 && v.size() != static_cast<size_t>(num_ports))
            throw config_error(std::string(field) + ": " + std::to_string(v.size()) +
                               " entries; give one (every port) or one per port (" + std::to_string(num_ports) + ")");
        std::vector<uint64_t> out(static_cast<size_t>(num_ports), 0);
        for (size_t i = 0; i < out.size() && !v.empty(); ++i) {
            const uint64_t b = v.size() == 1 ? v[0] : v[i];
            out[i] = threshold ? u.threshold(b) : u.memory(b);
        }
        return out;
    };
    m_xoff = per_port(m.xoff_bytes, "xoff_kb", false);
    m_xon = per_port(m.xon_bytes, "xon_kb", true);
    m_xon_offset = per_port(m.xon_offset_bytes, "xon_offset_kb", true);
    set_queue_reserves(m_q_reserved);   // (the base's shared and reserved counts, as the "shared" policy's)
    set_lossless_groups(0, nullptr);
    reset();
}

// The slices: which one stores a frame of each (ingress port, egress port), by their pipes.
void service_pool_mmu::setup_slices(const mmu_config& m, int num_ports) {
    if (m.slices < 1 || m.slices > 8)
        throw config_error("slices = " + std::to_string(m.slices) + ": allowed range [1, 8]");
    if (m.pipes < 1 || m.pipes > num_ports)
        throw config_error("pipes = " + std::to_string(m.pipes) + ": allowed range [1, " + std::to_string(num_ports) +
                           "] (the switch's ports, each in one pipe)");
    m_slices = m.slices;
    const std::vector<uint8_t> pairs = slice_table(m);
    m_slice_of.resize(static_cast<size_t>(num_ports) * static_cast<size_t>(num_ports));
    for (int i = 0; i < num_ports; ++i)
        for (int o = 0; o < num_ports; ++o) {
            const int pi = i * m.pipes / num_ports, po = o * m.pipes / num_ports;
            m_slice_of[static_cast<size_t>(i) * static_cast<size_t>(num_ports) + static_cast<size_t>(o)] =
                pairs[static_cast<size_t>(pi * m.pipes + po)];
        }
}

// The pools: each no larger than the buffer, the ingress pools and the headroom pool within it together; sizes
// per slice.
void service_pool_mmu::setup_pools(const buffer_config& cfg) {
    const mmu_config& m = cfg.mmu;
    const buffer_units& u = units();
    if (m.egress_pool_bytes.empty() || m.egress_pool_bytes.size() > mmu_config::max_pools)
        throw config_error("egress_pools_kb: " + std::to_string(m.egress_pool_bytes.size()) +
                           " pools; give 1 to 4 (or none: one egress pool of pool_kb)");
    if (m.ingress_pool_bytes.size() > mmu_config::max_pools)
        throw config_error("ingress_pools_kb: " + std::to_string(m.ingress_pool_bytes.size()) +
                           " pools; give at most 4 (none: no ingress admission)");
    uint64_t ingress_total = m.headroom_pool_bytes;
    for (size_t p = 0; p < m.ingress_pool_bytes.size(); ++p) {
        if (m.ingress_pool_bytes[p] > cfg.pool_bytes)
            throw config_error("ingress_pools_kb[" + std::to_string(p) + "] = " + kb_text(m.ingress_pool_bytes[p]) +
                               ": larger than the buffer, pool_kb = " + kb_text(cfg.pool_bytes));
        ingress_total += m.ingress_pool_bytes[p];
    }
    if (ingress_total > cfg.pool_bytes)
        throw config_error("ingress_pools_kb and headroom_pool_kb: " + kb_text(ingress_total) +
                           " in all, more than the buffer, pool_kb = " + kb_text(cfg.pool_bytes));
    for (size_t p = 0; p < m.egress_pool_bytes.size(); ++p)
        if (m.egress_pool_bytes[p] > cfg.pool_bytes)
            throw config_error("egress_pools_kb[" + std::to_string(p) + "] = " + kb_text(m.egress_pool_bytes[p]) +
                               ": larger than the buffer, pool_kb = " + kb_text(cfg.pool_bytes));
    if (!m.ingress_pool_bytes.empty() || m.headroom_pool_bytes > 0)
        if (m.ingress_pool_bytes.empty())
            throw config_error("headroom_pool_kb needs ingress pools (ingress_pools_kb): headroom is an ingress book");
    const auto per_slice = [&](uint64_t bytes) { return u.memory(bytes) / static_cast<uint64_t>(m_slices); };
    for (uint64_t b : m.ingress_pool_bytes)
        m_ing_pool_size.push_back(per_slice(b));
    for (uint64_t b : m.egress_pool_bytes)
        m_egr_pool_size.push_back(per_slice(b));
    m_hp_size = per_slice(m.headroom_pool_bytes);
}

// The groups' and queues' profiles, the ports' own per pool, and each pool's shared size once every reserve is
// carved out of it.
void service_pool_mmu::setup_profiles(const buffer_config& cfg, int num_ports) {
    const mmu_config& m = cfg.mmu;
    const buffer_units& u = units();
    m_pg_map = cfg.pg_map;
    std::array<uint64_t, mmu_config::max_pools> ing_reserve{}, egr_reserve{};
    for (int g = 0; g < num_priorities; ++g) {
        const size_t k = static_cast<size_t>(g);
        const std::string gs = "[" + std::to_string(g) + "]";
        if (has_ingress() && m.pg_pool[k] >= m.ingress_pool_bytes.size())
            throw config_error("pg_pool" + gs + " = " + std::to_string(m.pg_pool[k]) + ": no such ingress pool (" +
                               std::to_string(m.ingress_pool_bytes.size()) + " in ingress_pools_kb: 0 to " +
                               std::to_string(m.ingress_pool_bytes.size() - 1) + ")");
        if (m.queue_pool[k] >= m.egress_pool_bytes.size())
            throw config_error("queue_pool" + gs + " = " + std::to_string(m.queue_pool[k]) + ": no such egress pool (" +
                               std::to_string(m.egress_pool_bytes.size()) + " in egress_pools_kb: 0 to " +
                               std::to_string(m.egress_pool_bytes.size() - 1) + ")");
        m_pg_pool[k] = m.pg_pool[k];
        m_queue_pool[k] = m.queue_pool[k];
        m_pg_reserved[k] = u.memory(m.pg_reserved_bytes[k]);
        m_q_reserved[k] = u.memory(m.queue_reserved_bytes[k]);
        m_pg_static[k] = u.memory(m.pg_limit[k].static_bytes);
        m_q_static[k] = u.memory(m.queue_limit[k].static_bytes);
        m_pg_th_given[k] = m.pg_limit[k].dynamic_th;
        if (m.pg_limit[k].dynamic_th != shared_limit::unset_th)
            alpha_of(m.pg_limit[k].dynamic_th, "pg_dynamic_th" + gs);   // (checked now, resolved with the lossless)
        // the queue's alpha: its dynamic_th, else alpha_by_queue, else alpha (as the "shared" policy takes them)
        if (m.queue_limit[k].dynamic_th != shared_limit::unset_th)
            m_q_alpha[k] = alpha_of(m.queue_limit[k].dynamic_th, "queue_dynamic_th" + gs);
        else
            m_q_alpha[k] = cfg.alpha_by_queue.empty() ? cfg.alpha : cfg.alpha_by_queue[k];
        if (!(m_q_alpha[k] > 0))
            throw config_error("alpha" + gs + " = " + std::to_string(m_q_alpha[k]) + ": must be > 0");
        if (m_q_static[k] > 0)
            m_q_alpha[k] = 0;   // (the static limit instead)
        if (has_ingress())
            ing_reserve[m_pg_pool[k]] += m_pg_reserved[k] * static_cast<uint64_t>(num_ports);
        egr_reserve[m_queue_pool[k]] += m_q_reserved[k] * static_cast<uint64_t>(num_ports);
    }
    // a pool's shared size: the pool less the reserves of every port's groups or queues mapped to it (per slice)
    const auto carve = [&](std::vector<uint64_t>& sizes, const std::array<uint64_t, mmu_config::max_pools>& reserve,
                           const char* field, const char* profile) {
        for (size_t p = 0; p < sizes.size(); ++p) {
            if (reserve[p] + u.charge(max_frame_bytes) > sizes[p])
                throw config_error(
                    std::string(field) + "[" + std::to_string(p) + "]: " + std::to_string(u.to_bytes(sizes[p])) +
                    " B per slice, of which the reserves (" + profile + " x " + std::to_string(num_ports) +
                    " ports) take " + std::to_string(u.to_bytes(reserve[p])) +
                    " B, leaving less than one jumbo frame shared: raise the pool or lower the reserves");
            sizes[p] -= reserve[p];
        }
    };
    // port-level profiles per pool (SONiC BUFFER_PORT_*_PROFILE_LIST): a reserve of every port, a dynamic limit
    for (size_t p = 0; p < mmu_config::max_pools; ++p) {
        const std::string ps = "[" + std::to_string(p) + "]";
        m_port_ing_reserved[p] = u.memory(m.port_ingress_reserved_bytes[p]);
        m_port_egr_reserved[p] = u.memory(m.port_egress_reserved_bytes[p]);
        m_port_ing_alpha[p] = m.port_ingress_dynamic_th[p] == shared_limit::unset_th
                                  ? std::numeric_limits<double>::infinity()
                                  : alpha_of(m.port_ingress_dynamic_th[p], "port_ingress_dynamic_th" + ps);
        m_port_egr_alpha[p] = m.port_egress_dynamic_th[p] == shared_limit::unset_th
                                  ? std::numeric_limits<double>::infinity()
                                  : alpha_of(m.port_egress_dynamic_th[p], "port_egress_dynamic_th" + ps);
        if (has_ingress())
            ing_reserve[p] += m_port_ing_reserved[p] * static_cast<uint64_t>(num_ports);
        egr_reserve[p] += m_port_egr_reserved[p] * static_cast<uint64_t>(num_ports);
    }
    carve(m_ing_pool_size, ing_reserve, "ingress_pools_kb", "pg_reserved_kb and port_ingress_reserved_kb");
    carve(m_egr_pool_size, egr_reserve, "egress_pools_kb", "queue_reserved_kb and port_egress_reserved_kb");
    for (size_t p = 0; p < m_egr_pool_size.size(); ++p)
        m_capacity = std::max(m_capacity, (m_egr_pool_size[p] + egr_reserve[p]) * static_cast<uint64_t>(m_slices));
}

void service_pool_mmu::set_lossless_groups(uint8_t group_mask, flow_control_listener* listener) {
    if (group_mask && !has_ingress())
        throw config_error("PAUSE/PFC with buffer_policy pools needs ingress pools (ingress_pools_kb): a lossless "
                           "priority group pauses its peer from its ingress book");
    m_lossless = static_cast<uint8_t>(group_mask & 0x7f);
    m_listener = listener;
    for (int g = 0; g < num_priorities; ++g) {
        const size_t k = static_cast<size_t>(g);
        const bool lossless = (m_lossless >> g) & 1;
        // not given: lossless groups pause at 1/8 of the free shared space (Broadcom's SONiC lossless profiles,
        // dynamic_th -3), lossy ones at 8 x it (SONiC's ingress_lossy_profile, dynamic_th 3)
        const int th = m_pg_th_given[k] == shared_limit::unset_th ? (lossless ? -3 : 3) : m_pg_th_given[k];
        m_pg_alpha[k] = m_pg_static[k] > 0 ? 0.0 : alpha_of(th, "pg_dynamic_th[" + std::to_string(g) + "]");
    }
}

uint64_t service_pool_mmu::lone_port() const {
    // a queue of egress pool 0 alone: its reserve and alpha / (1 + alpha) of the pool, in every slice
    const double a = m_q_alpha[0] > 0 ? m_q_alpha[0] : 0;
    const double sh = static_cast<double>(m_egr_pool_size[m_queue_pool[0]]);
    const double part =
        m_q_alpha[0] > 0 ? (std::isinf(a) ? sh : a / (1 + a) * sh) : std::min(sh, static_cast<double>(m_q_static[0]));
    return (m_q_reserved[0] + static_cast<uint64_t>(part)) * static_cast<uint64_t>(m_slices);
}

void service_pool_mmu::reset() {
    buffer_manager::reset();
    const size_t pools = static_cast<size_t>(m_slices) * mmu_config::max_pools;
    m_ing.assign(pools, pool{});
    m_egr.assign(pools, pool{});
    for (int s = 0; s < m_slices; ++s) {
        for (size_t p = 0; p < m_ing_pool_size.size(); ++p)
            m_ing[pool_index(s, static_cast<int>(p))].size = m_ing_pool_size[p];
        for (size_t p = 0; p < m_egr_pool_size.size(); ++p)
            m_egr[pool_index(s, static_cast<int>(p))].size = m_egr_pool_size[p];
    }
    m_hp_used.assign(static_cast<size_t>(m_slices), 0);
    m_slice_headroom.assign(static_cast<size_t>(m_slices), 0);
    m_headroom_total = 0;
    const size_t slots = static_cast<size_t>(m_slices) * num_ports() * num_priorities;
    m_pg.assign(slots, group_account{});
    m_q.assign(slots, 0);
    const size_t port_pools = static_cast<size_t>(m_slices) * num_ports() * mmu_config::max_pools;
    m_ing_port.assign(port_pools, 0);
    m_egr_port.assign(port_pools, 0);
    m_pg_headroom.assign(static_cast<size_t>(num_ports()) * num_priorities, 0);
    m_pg_xoff.assign(static_cast<size_t>(num_ports()) * num_priorities, 0);
    m_stats.assign(static_cast<size_t>(m_slices), slice_stats{});
    m_headroom_peak = 0;
}

uint64_t service_pool_mmu::limit(double alpha, uint64_t static_units, const pool& p) const {
    if (alpha == 0)
        return static_units;
    if (std::isinf(alpha))
        return UINT64_MAX;
    const uint64_t free_units = p.size > p.used ? p.size - p.used : 0;
    return static_cast<uint64_t>(std::ceil(alpha * static_cast<double>(free_units)));
}

// Why queue `queue` (in egress pool pe) cannot take egr_pool_need more shared units, or none: the pool is full,
// the queue is at its static limit or its dynamic threshold, or the port at its limit in the pool. shared_q and
// shared_port: the queue's and the port's shared units now (above their reserves).
drop_reason service_pool_mmu::egress_refusal(int queue, int pe, uint64_t shared_q, uint64_t shared_port, const pool& ep,
                                             uint64_t egr_need, uint64_t egr_pool_need) const {
    const uint64_t free_units = ep.size > ep.used ? ep.size - ep.used : 0;
    const double alpha = m_q_alpha[static_cast<size_t>(queue)];
    const double port_alpha = m_port_egr_alpha[static_cast<size_t>(pe)];
    if (egr_pool_need > free_units)
        return drop_reason::pool_full;
    if (alpha == 0 && shared_q + egr_need > m_q_static[static_cast<size_t>(queue)])
        return drop_reason::queue_limit;
    if (alpha > 0 && !std::isinf(alpha) && !(static_cast<double>(shared_q) < alpha * static_cast<double>(free_units)))
        return drop_reason::dynamic_threshold;
    if (!std::isinf(port_alpha) && !(static_cast<double>(shared_port) < port_alpha * static_cast<double>(free_units)))
        return drop_reason::dynamic_threshold;   // (the port's limit in the pool)
    return drop_reason::none;
}

drop_reason service_pool_mmu::admit_own(int in_port, int port, int queue, frame& f) {
    const uint32_t u = units().charge(f.bytes);
    const int s = slice_of(in_port, port);
    const int g = m_pg_map[f.prio & 7];
    slice_stats& st = m_stats[static_cast<size_t>(s)];
    // 1. ingress: the group's reserve, then the port's reserve in the pool, then shared space, then (lossless)
    // headroom
    group_account* a = nullptr;
    pool* ip = nullptr;
    uint64_t* ipp = nullptr;   // the in-port's units in the pool beyond its groups' reserves
    uint64_t ing_need = 0, ing_pool_need = 0;
    bool into_headroom = false;
    if (has_ingress()) {
        const int pi = m_pg_pool[static_cast<size_t>(g)];
        a = &m_pg[pg_slot(s, in_port, g)];
        ip = &m_ing[pool_index(s, pi)];
        ipp = &m_ing_port[port_pool_slot(s, in_port, pi)];
        const uint64_t own = a->total - a->headroom, r = m_pg_reserved[static_cast<size_t>(g)];
        const uint64_t rp = m_port_ing_reserved[static_cast<size_t>(pi)];
        ing_need = above(own + u, r) - above(own, r);
        ing_pool_need = above(*ipp + ing_need, rp) - above(*ipp, rp);
        if (ing_pool_need > 0) {
            const uint64_t free_units = ip->size > ip->used ? ip->size - ip->used : 0;
            const double alpha = m_pg_alpha[static_cast<size_t>(g)];
            const double port_alpha = m_port_ing_alpha[static_cast<size_t>(pi)];
            const uint64_t shared = above(own, r);
            bool fits = ing_pool_need <= free_units;
            if (fits) {
                if (alpha == 0)
                    fits = shared + ing_need <= m_pg_static[static_cast<size_t>(g)];
                else if (!std::isinf(alpha))
                    fits = static_cast<double>(shared) < alpha * static_cast<double>(free_units);
            }
            if (fits && !std::isinf(port_alpha))   // the port's limit in the pool
                fits = static_cast<double>(above(*ipp, rp)) < port_alpha * static_cast<double>(free_units);
            if (!fits) {
                if (!((m_lossless >> g) & 1)) {
                    ++st.ingress_drops;
                    return ing_pool_need > free_units ? drop_reason::ingress_pool_full : drop_reason::ingress_threshold;
                }
                const size_t k = pg_index(in_port, g);
                if (m_pg_headroom[k] + u > m_xoff[static_cast<size_t>(in_port)] ||
                    (m_hp_size > 0 && m_hp_used[static_cast<size_t>(s)] + u > m_hp_size)) {
                    ++st.ingress_drops;
                    return drop_reason::ingress_limit;   // the headroom is used up: a mis-sized headroom
                }
                into_headroom = true;
            }
        }
    }
    // 2. egress: the queue's reserve, the port's reserve in the queue's pool, then shared space (lossless queues
    // are never refused)
    const int pe = m_queue_pool[static_cast<size_t>(queue)];
    uint64_t& qa = m_q[q_slot(s, port, queue)];
    uint64_t& epp = m_egr_port[port_pool_slot(s, port, pe)];
    pool& ep = m_egr[pool_index(s, pe)];
    const uint64_t rq = m_q_reserved[static_cast<size_t>(queue)], rpe = m_port_egr_reserved[static_cast<size_t>(pe)];
    const uint64_t egr_need = above(qa + u, rq) - above(qa, rq);
    const uint64_t egr_pool_need = above(epp + egr_need, rpe) - above(epp, rpe);
    const bool lossless_queue = (m_lossless >> g) & 1;   // (a lossless group's frames: lossless queues)
    if (egr_pool_need > 0 && !lossless_queue) {
        const drop_reason why = egress_refusal(queue, pe, above(qa, rq), above(epp, rpe), ep, egr_need, egr_pool_need);
        if (why != drop_reason::none) {
            ++st.egress_drops;
            return why;
        }
    }
    // both admit: charge every book
    if (a) {
        a->total += u;
        if (into_headroom) {
            a->headroom += u;
            m_pg_headroom[pg_index(in_port, g)] += u;
            m_headroom_total += u;
            if (m_hp_size > 0)
                m_hp_used[static_cast<size_t>(s)] += u;
            m_slice_headroom[static_cast<size_t>(s)] += u;
            st.headroom_peak = std::max(st.headroom_peak, m_slice_headroom[static_cast<size_t>(s)]);
            m_headroom_peak = std::max(m_headroom_peak, m_headroom_total);
        } else {
            *ipp += ing_need;
            ip->used += ing_pool_need;
            st.ingress_peak = std::max(st.ingress_peak, ip->used);
        }
    }
    qa += u;
    epp += egr_need;
    ep.used += egr_pool_need;
    st.egress_peak = std::max(st.egress_peak, ep.used);
    account(port, queue, static_cast<int64_t>(u));
    f.ingress = static_cast<uint16_t>(in_port);
    if (a && ((m_lossless >> g) & 1))
        update_xoff(in_port, g, s, now_ps(), into_headroom);
    return drop_reason::none;
}

void service_pool_mmu::ingress_shared(int slice, int in_port, int group, uint64_t before, uint64_t after) {
    // the group's units beyond its reserve went from `before` to `after`: the port's units in the pool and the
    // pool's shared use follow
    const int pi = m_pg_pool[static_cast<size_t>(group)];
    uint64_t& pp = m_ing_port[port_pool_slot(slice, in_port, pi)];
    const uint64_t rp = m_port_ing_reserved[static_cast<size_t>(pi)];
    const uint64_t pool_before = above(pp, rp);
    pp = pp + after - before;
    m_ing[pool_index(slice, pi)].used += above(pp, rp) - pool_before;   // (unsigned wrap-around subtracts)
}

void service_pool_mmu::update_xoff(int in_port, int group, int slice, uint64_t now, bool into_headroom) {
    uint8_t& mask = m_pg_xoff[pg_index(in_port, group)];
    const uint8_t bit = static_cast<uint8_t>(1u << slice);
    if (mask & bit)
        return;
    const group_account& a = m_pg[pg_slot(slice, in_port, group)];
    const pool& ip = m_ing[pool_index(slice, m_pg_pool[static_cast<size_t>(group)])];
    const uint64_t shared = above(a.total - a.headroom, m_pg_reserved[static_cast<size_t>(group)]);
    if (!into_headroom &&
        shared < limit(m_pg_alpha[static_cast<size_t>(group)], m_pg_static[static_cast<size_t>(group)], ip))
        return;
    const bool first = mask == 0;
    mask = static_cast<uint8_t>(mask | bit);
    if (first && m_listener)
        m_listener->on_xoff(in_port, group, now);
}

void service_pool_mmu::check_xon(int in_port, int group, int slice, uint64_t now) {
    uint8_t& mask = m_pg_xoff[pg_index(in_port, group)];
    const uint8_t bit = static_cast<uint8_t>(1u << slice);
    if (!(mask & bit))
        return;
    group_account& a = m_pg[pg_slot(slice, in_port, group)];
    const size_t k = static_cast<size_t>(group);
    pool& ip = m_ing[pool_index(slice, m_pg_pool[k])];
    const size_t port = static_cast<size_t>(in_port);
    uint64_t point = m_xon[port];
    if (m_xon_offset[port] > 0) {   // SAI: resume at max(xon, the group's limit now - xon_offset)
        const uint64_t lim = limit(m_pg_alpha[k], m_pg_static[k], ip);
        if (lim != UINT64_MAX) {
            const uint64_t total_limit = m_pg_reserved[k] + lim;
            point = std::max(point, total_limit > m_xon_offset[port] ? total_limit - m_xon_offset[port] : 0);
        }
    }
    if (a.total > point)
        return;
    if (a.headroom) {   // what headroom still holds fits under the limit now: shared again
        const uint64_t own = a.total - a.headroom, r = m_pg_reserved[k];
        ingress_shared(slice, in_port, group, above(own, r), above(a.total, r));
        if (m_hp_size > 0)
            m_hp_used[static_cast<size_t>(slice)] -= a.headroom;
        m_pg_headroom[pg_index(in_port, group)] -= a.headroom;
        m_slice_headroom[static_cast<size_t>(slice)] -= a.headroom;
        m_headroom_total -= a.headroom;
        a.headroom = 0;
    }
    mask = static_cast<uint8_t>(mask & ~bit);
    if (mask == 0 && m_listener)
        m_listener->on_xon(in_port, group, now);
}

void service_pool_mmu::release_own(int port, int queue, const frame& f) {
    const uint32_t u = units().charge(f.bytes);
    const int in_port = f.ingress;
    const int s = slice_of(in_port, port);
    const int g = m_pg_map[f.prio & 7];
    const int pe = m_queue_pool[static_cast<size_t>(queue)];
    uint64_t& qa = m_q[q_slot(s, port, queue)];
    uint64_t& epp = m_egr_port[port_pool_slot(s, port, pe)];
    const uint64_t rq = m_q_reserved[static_cast<size_t>(queue)], rpe = m_port_egr_reserved[static_cast<size_t>(pe)];
    const uint64_t out = above(qa, rq) - above(qa - u, rq);   // the queue's units beyond its reserve that leave
    m_egr[pool_index(s, pe)].used -= above(epp, rpe) - above(epp - out, rpe);
    epp -= out;
    qa -= u;
    if (has_ingress()) {
        group_account& a = m_pg[pg_slot(s, in_port, g)];
        const uint64_t h = std::min<uint64_t>(a.headroom, u);   // headroom first
        if (h) {
            a.headroom -= h;
            m_pg_headroom[pg_index(in_port, g)] -= h;
            m_slice_headroom[static_cast<size_t>(s)] -= h;
            m_headroom_total -= h;
            if (m_hp_size > 0)
                m_hp_used[static_cast<size_t>(s)] -= h;
        }
        const uint64_t own = a.total - (a.headroom + h), r = m_pg_reserved[static_cast<size_t>(g)];
        ingress_shared(s, in_port, g, above(own, r), above(own - (u - h), r));
        a.total -= u;
        if ((m_lossless >> g) & 1)
            check_xon(in_port, g, s, now_ps());
    }
    account(port, queue, -static_cast<int64_t>(u));
}

void service_pool_mmu::check_accounting(const std::string& where, uint64_t held_units, uint64_t held_bytes) const {
    buffer_manager::check_accounting(where, held_units, held_bytes);
    const auto fail = [&](const std::string& what) {
        throw model_error(where + ": pools accounting does not add up: " + what);
    };
    for (int s = 0; s < m_slices; ++s) {
        std::array<uint64_t, mmu_config::max_pools> ing{}, egr{};
        uint64_t hp = 0;
        for (int p = 0; p < static_cast<int>(num_ports()); ++p) {
            std::array<uint64_t, mmu_config::max_pools> pi{}, pe{};   // the port's units beyond the reserves
            for (int k = 0; k < num_priorities; ++k) {
                const size_t kk = static_cast<size_t>(k);
                const group_account& a = m_pg[pg_slot(s, p, k)];
                if (a.headroom > a.total)
                    fail("a group holds more headroom than units");
                pi[m_pg_pool[kk]] += above(a.total - a.headroom, m_pg_reserved[kk]);
                hp += a.headroom;
                pe[m_queue_pool[kk]] += above(m_q[q_slot(s, p, k)], m_q_reserved[kk]);
            }
            for (int q = 0; q < mmu_config::max_pools; ++q) {
                const size_t qq = static_cast<size_t>(q);
                if ((has_ingress() && pi[qq] != m_ing_port[port_pool_slot(s, p, q)]) ||
                    pe[qq] != m_egr_port[port_pool_slot(s, p, q)])
                    fail("slice " + std::to_string(s) + " port " + std::to_string(p) + " pool " + std::to_string(q) +
                         ": the port's units in the pool differ from its groups' or queues'");
                ing[qq] += above(pi[qq], m_port_ing_reserved[qq]);
                egr[qq] += above(pe[qq], m_port_egr_reserved[qq]);
            }
        }
        for (size_t p = 0; p < mmu_config::max_pools; ++p) {
            if (has_ingress() && ing[p] != m_ing[pool_index(s, static_cast<int>(p))].used)
                fail("slice " + std::to_string(s) + " ingress pool " + std::to_string(p) +
                     ": the groups' shared units " + std::to_string(ing[p]) + ", the pool's " +
                     std::to_string(m_ing[pool_index(s, static_cast<int>(p))].used));
            if (egr[p] != m_egr[pool_index(s, static_cast<int>(p))].used)
                fail("slice " + std::to_string(s) + " egress pool " + std::to_string(p) +
                     ": the queues' shared units " + std::to_string(egr[p]) + ", the pool's " +
                     std::to_string(m_egr[pool_index(s, static_cast<int>(p))].used));
        }
        if (m_hp_size > 0 && hp != m_hp_used[static_cast<size_t>(s)])
            fail("slice " + std::to_string(s) + " headroom pool: the groups' " + std::to_string(hp) + ", the pool's " +
                 std::to_string(m_hp_used[static_cast<size_t>(s)]));
    }
    // the ingress and the egress books hold the same units, and per port the queues what the base counts
    uint64_t groups = 0, queues = 0;
    for (size_t k = 0; k < m_pg.size(); ++k) {
        groups += m_pg[k].total;
        queues += m_q[k];
    }
    if (queues != used() || (has_ingress() && groups != used()))
        fail("the ingress books hold " + std::to_string(groups) + " units, the egress books " + std::to_string(queues) +
             ", the buffer " + std::to_string(used()));
    for (int p = 0; p < static_cast<int>(num_ports()); ++p)
        for (int q = 0; q < num_priorities; ++q) {
            uint64_t sum = 0;
            for (int s = 0; s < m_slices; ++s)
                sum += m_q[q_slot(s, p, q)];
            if (sum != queue_units(p, q))
                fail("port " + std::to_string(p) + " queue " + std::to_string(q) + ": the slices hold " +
                     std::to_string(sum) + " units, the queue " + std::to_string(queue_units(p, q)));
        }
}

void service_pool_mmu::report_books(result& r, int switch_id) const {
    table& t = table_named(r, "slices");
    const buffer_units& u = units();
    for (int s = 0; s < m_slices; ++s) {
        const slice_stats& st = m_stats[static_cast<size_t>(s)];
        t.column("switch").push_back(switch_id);
        t.column("slice").push_back(s);
        t.column("ingress_peak_cells").push_back(static_cast<double>(st.ingress_peak));
        t.column("ingress_peak_kb").push_back(static_cast<double>(u.to_bytes(st.ingress_peak)) / 1024);
        t.column("egress_peak_cells").push_back(static_cast<double>(st.egress_peak));
        t.column("egress_peak_kb").push_back(static_cast<double>(u.to_bytes(st.egress_peak)) / 1024);
        t.column("headroom_peak_kb").push_back(static_cast<double>(u.to_bytes(st.headroom_peak)) / 1024);
        t.column("ingress_drops").push_back(static_cast<double>(st.ingress_drops));
        t.column("egress_drops").push_back(static_cast<double>(st.egress_drops));
    }
}

std::unique_ptr<buffer_manager> make_service_pool_mmu(const buffer_config& cfg, int num_ports) {
    return std::make_unique<service_pool_mmu>(cfg, num_ports);
}

}   // namespace cmswitch
