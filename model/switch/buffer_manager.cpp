// SPDX-License-Identifier: Apache-2.0
#include "model/switch/buffer_manager.h"

#include "model/switch/service_pool_mmu.h"

#include "config/errors.h"

#include <algorithm>
#include <cstddef>
#include <sstream>
#include <utility>

namespace cmswitch {

buffer_manager::buffer_manager(int num_ports, buffer_units units)
    : m_ports(std::make_unique<port_account[]>(static_cast<size_t>(num_ports))), m_units(units),
      m_special(!units.byte_exact() || units.overhead_bytes != 0), m_num_ports(static_cast<uint32_t>(num_ports)),
      m_pool_occ(std::make_unique<occupancy_stats>()) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
    static_assert(offsetof(buffer_manager, m_own_books) < 64, "what an admission reads is in the first line");
#pragma GCC diagnostic pop
}

drop_reason buffer_manager::admit_special(int in_port, int port, int queue, frame& f) {
    drop_reason r;
    if (m_own_books) {
        r = admit_own(in_port, port, queue, f);
    } else {
        const uint32_t u = m_units.charge(f.bytes);
        r = check(port, queue, u);
        if (r == drop_reason::none)
            account(port, queue, static_cast<int64_t>(u));
    }
    if (r == drop_reason::none)
        m_data_bytes += f.bytes;
    return r;
}

void buffer_manager::release_special(int port, int queue, const frame& f) {
    if (m_own_books)
        release_own(port, queue, f);
    else
        account(port, queue, -static_cast<int64_t>(m_units.charge(f.bytes)));
    m_data_bytes -= f.bytes;
}

void buffer_manager::reset() {
    m_used = 0;
    std::fill(m_ports.get(), m_ports.get() + m_num_ports, port_account{});
    m_shared = m_shared_peak = 0;
    m_ing_reserved_used = 0;
    m_data_bytes = 0;
    m_pool_occ->reset(now_ps(), 1);
}

void buffer_manager::set_lossless(uint8_t, uint64_t, uint64_t) {
    throw config_error(std::string("buffer_policy ") + name() +
                       " has no lossless queues beside a shared pool (a PFC headroom pool needs buffer_policy shared)");
}

drop_reason buffer_manager::admit_own(int, int, int, frame&) {
    throw model_error(std::string("buffer_policy ") + name() + ": no books of its own");
}

void buffer_manager::release_own(int, int, const frame&) {
    throw model_error(std::string("buffer_policy ") + name() + ": no books of its own");
}

void buffer_manager::check_accounting(const std::string& where, uint64_t held_units, uint64_t held_bytes) const {
    if (held_units != m_used || held_bytes != data_bytes())
        throw model_error(where + ": buffer accounting does not add up: the frames in the queues take " +
                          std::to_string(held_units) + " units (" + std::to_string(held_bytes) +
                          " B), the buffer counts " + std::to_string(m_used) + " units (" +
                          std::to_string(data_bytes()) + " B)");
    uint64_t total = 0;
    for (uint32_t p = 0; p < m_num_ports; ++p) {
        const port_account& pa = m_ports[p];
        uint64_t queues = 0;
        for (uint64_t q : pa.queue)
            queues += q;
        if (queues != pa.units)
            throw model_error(where + ": buffer accounting does not add up: port " + std::to_string(p) + " holds " +
                              std::to_string(pa.units) + " units, its queues " + std::to_string(queues));
        total += pa.units;
    }
    if (total != m_used)
        throw model_error(where + ": buffer accounting does not add up: the ports hold " + std::to_string(total) +
                          " units, the buffer counts " + std::to_string(m_used));
}

static_buffer::static_buffer(int num_ports, uint64_t port_limit_bytes, buffer_units units)
    : buffer_manager(num_ports, units), m_limit(units.memory(port_limit_bytes)) {}

drop_reason static_buffer::check(int port, int, uint32_t u) const {
    return port_units(port) + u <= m_limit ? drop_reason::none : drop_reason::port_limit;
}

dynamic_threshold_buffer::dynamic_threshold_buffer(int num_ports, uint64_t pool_bytes, double alpha, buffer_units units)
    : buffer_manager(num_ports, units), m_pool(units.memory(pool_bytes)), m_alpha(alpha) {}

drop_reason dynamic_threshold_buffer::check(int port, int queue, uint32_t u) const {
    const uint64_t free_units = m_pool - used();
    if (u > free_units)
        return drop_reason::pool_full;
    if (!(static_cast<double>(queue_units(port, queue)) < m_alpha * static_cast<double>(free_units)))
        return drop_reason::dynamic_threshold;
    return drop_reason::none;
}

packet_buffer::packet_buffer(int num_ports, std::vector<uint64_t> limits, uint64_t mtu_bytes, buffer_units units)
    : buffer_manager(num_ports, units), m_limits(std::move(limits)), m_capacity(0) {
    for (uint64_t l : m_limits)
        m_capacity = std::max(m_capacity, l * units.charge(static_cast<uint32_t>(mtu_bytes)));
}

drop_reason packet_buffer::check(int port, int, uint32_t) const {
    return port_frames(port) < m_limits[static_cast<size_t>(port)] ? drop_reason::none : drop_reason::port_packet_limit;
}

shared_buffer::shared_buffer(int num_ports, uint64_t pool_bytes, uint64_t reserved_bytes, std::vector<double> alpha,
                             buffer_units units)
    : buffer_manager(num_ports, units),
      m_shared_size(units.memory(pool_bytes) -
                    units.memory(reserved_bytes) * static_cast<uint64_t>(num_ports) * num_priorities),
      m_pool(units.memory(pool_bytes)), m_alpha0(0), m_alpha{} {
    if (alpha.size() != m_alpha.size())
        throw config_error("buffer alpha_by_queue: " + std::to_string(alpha.size()) + " entries; give " +
                           std::to_string(num_priorities) + " (one per queue)");
    std::copy(alpha.begin(), alpha.end(), m_alpha.begin());
    m_alpha0 = m_alpha[0];
    set_queue_reserved(units.memory(reserved_bytes));
}

void shared_buffer::set_lossless(uint8_t queue_mask, uint64_t headroom_pool_bytes, uint64_t ingress_reserved_bytes) {
    const uint64_t reserves = units().memory(ingress_reserved_bytes);
    if (reserves > 0 && queue_reserved() > 0)
        throw config_error("pause_reserved_kb with reserved_kb > 0: a lossless byte would be guaranteed twice "
                           "(by its egress queue and by its ingress group); give one of them");
    if (reserves + units().charge(min_frame_bytes) > m_shared_size + m_ing_reserved)
        throw config_error("pause_reserved_kb: the ingress guarantees (" + std::to_string(ingress_reserved_bytes) +
                           " B over every port and lossless group) leave no shared pool of the " +
                           std::to_string(units().to_bytes(m_shared_size + m_ing_reserved)) +
                           " B; lower pause_reserved_kb or raise pool_kb");
    m_lossless = queue_mask;
    m_headroom_pool = units().memory(headroom_pool_bytes);
    m_shared_size += m_ing_reserved;   // (set again: undo a previous carve)
    m_ing_reserved = reserves;
    m_shared_size -= m_ing_reserved;
}

drop_reason shared_buffer::check(int port, int queue, uint32_t u) const {
    const uint64_t q = queue_units(port, queue);
    const uint64_t need = shared_part(q + u) - shared_part(q);   // what the reserved space cannot take
    if (need == 0)
        return drop_reason::none;
    if ((m_lossless >> queue) & 1) {   // lossless: the shared pool, ingress reserves and headroom pool, no threshold
        return shared_used() + need <= m_shared_size + m_ing_reserved + m_headroom_pool ? drop_reason::none
                                                                                        : drop_reason::pool_full;
    }
    const uint64_t used = shared_pool_used();
    const uint64_t free_shared = m_shared_size > used ? m_shared_size - used : 0;
    if (need > free_shared)
        return drop_reason::pool_full;
    const double alpha = queue == 0 ? m_alpha0 : m_alpha[static_cast<size_t>(queue)];
    if (!(static_cast<double>(shared_part(q)) < alpha * static_cast<double>(free_shared)))
        return drop_reason::dynamic_threshold;
    return drop_reason::none;
}

void check_class_maps(const buffer_config& cfg) {
    for (int p = 0; p < num_priorities; ++p) {
        const auto ps = std::to_string(p);
        const int q = cfg.queue_map[static_cast<size_t>(p)], g = cfg.pg_map[static_cast<size_t>(p)];
        if (p == num_priorities - 1 && (q != p || g != p))
            throw config_error("queue_map / pg_map: priority 7 (control frames: PAUSE, CNM, CNP) must stay in queue 7 "
                               "and group 7");
        if (p < num_priorities - 1 && q > num_priorities - 2)
            throw config_error("queue_map[" + ps + "] = " + std::to_string(q) +
                               ": data priorities use queues 0-6 (queue 7 is the control queue)");
        if (p < num_priorities - 1 && g > num_priorities - 2)
            throw config_error("pg_map[" + ps + "] = " + std::to_string(g) +
                               ": data priorities use groups 0-6 (group 7 is the control group)");
    }
    for (int q = 0; q < num_priorities; ++q)
        if (((cfg.dwrr_queues >> q) & 1) && cfg.dwrr_quantum[static_cast<size_t>(q)] < 1500)
            throw config_error("dwrr_weights: queue " + std::to_string(q) + " gets a quantum of " +
                               std::to_string(cfg.dwrr_quantum[static_cast<size_t>(q)]) + " B; at least 1500 B");
    if (cfg.dwrr_queues & 0x80)
        throw config_error("dwrr_weights[7]: queue 7 (control frames) stays strict priority: give it 0");
}

namespace {
std::unique_ptr<buffer_manager> make_static(const buffer_config& cfg, int num_ports) {
    if (cfg.port_limit_bytes < min_frame_bytes)
        throw config_error("buffer_kb (the port limit) = " + std::to_string(cfg.port_limit_bytes) +
                           " bytes: must be >= " + std::to_string(min_frame_bytes) + " bytes");
    return std::make_unique<static_buffer>(num_ports, cfg.port_limit_bytes, cfg.units());
}

std::unique_ptr<buffer_manager> make_dynamic(const buffer_config& cfg, int num_ports) {
    if (cfg.pool_bytes < min_frame_bytes)
        throw config_error("pool_kb (the buffer pool) = " + std::to_string(cfg.pool_bytes) +
                           " bytes: must be >= " + std::to_string(min_frame_bytes) + " bytes");
    if (!(cfg.alpha > 0.0 && cfg.alpha <= 64.0)) {
        std::ostringstream m;
        m << "buffer alpha = " << cfg.alpha << ": allowed range (0, 64]";
        throw config_error(m.str());
    }
    return std::make_unique<dynamic_threshold_buffer>(num_ports, cfg.pool_bytes, cfg.alpha, cfg.units());
}

std::unique_ptr<buffer_manager> make_packets(const buffer_config& cfg, int num_ports) {
    const size_t n = static_cast<size_t>(num_ports);
    if (cfg.port_limit_packets.size() != 1 && cfg.port_limit_packets.size() != n)
        throw config_error("buffer port_limit_packets: " + std::to_string(cfg.port_limit_packets.size()) +
                           " entries; give 1 (every port) or one per port (" + std::to_string(n) + ")");
    std::vector<uint64_t> limits(n, cfg.port_limit_packets.front());
    if (cfg.port_limit_packets.size() == n)
        limits = cfg.port_limit_packets;
    for (size_t i = 0; i < n; ++i)
        if (limits[i] < 1 || limits[i] > 1000000)
            throw config_error("buffer port_limit_packets[" + std::to_string(i) + "] = " + std::to_string(limits[i]) +
                               ": allowed range [1, 1000000]");
    return std::make_unique<packet_buffer>(num_ports, std::move(limits), 1500, cfg.units());
}

std::unique_ptr<buffer_manager> make_shared(const buffer_config& cfg, int num_ports) {
    const uint64_t carved = cfg.reserved_bytes * static_cast<uint64_t>(num_ports) * num_priorities;
    if (cfg.pool_bytes < min_frame_bytes || carved >= cfg.pool_bytes)
        throw config_error("pool_kb (the buffer pool) = " + std::to_string(cfg.pool_bytes) +
                           " bytes: must be >= " + std::to_string(min_frame_bytes) +
                           " and more than the reserved space, reserved_kb = " + std::to_string(cfg.reserved_bytes) +
                           " bytes x " + std::to_string(num_ports) + " ports x " + std::to_string(num_priorities) +
                           " queues = " + std::to_string(carved) + ": lower reserved_kb or raise pool_kb");
    std::vector<double> alpha = cfg.alpha_by_queue;
    if (alpha.empty())
        alpha.assign(num_priorities, cfg.alpha);
    if (alpha.size() != static_cast<size_t>(num_priorities))
        throw config_error("buffer alpha_by_queue: " + std::to_string(alpha.size()) + " entries; give " +
                           std::to_string(num_priorities) + " (one per queue) or none");
    for (size_t i = 0; i < alpha.size(); ++i)
        if (!(alpha[i] > 0.0 && alpha[i] <= 64.0)) {
            std::ostringstream m;
            m << "buffer alpha[" << i << "] = " << alpha[i] << ": allowed range (0, 64]";
            throw config_error(m.str());
        }
    return std::make_unique<shared_buffer>(num_ports, cfg.pool_bytes, cfg.reserved_bytes, std::move(alpha),
                                           cfg.units());
}
}   // namespace

const std::vector<buffer_policy_entry>& buffer_policies() {
    static const std::vector<buffer_policy_entry> policies{
        {"static", "per-port byte limit (drop-tail)", true, &make_static},
        {"dynamic", "one shared pool with dynamic thresholds", true, &make_dynamic},
        {"packets", "a transmit queue limit in frames per port", false, &make_packets},
        {"shared", "a shared-buffer MMU's egress side: reserved_kb per queue, then a dynamic-threshold shared pool",
         true, &make_shared},
        {"pools",
         "service pools with ingress (priority group) and egress (queue) admission, lossless headroom and slices "
         "per pipeline: the SAI/SONiC buffer model",
         true, &make_service_pool_mmu},
    };
    return policies;
}

const std::vector<std::string>& buffer_policy_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n;
        for (const auto& p : buffer_policies())
            n.emplace_back(p.name);
        return n;
    }();
    return names;
}

std::unique_ptr<buffer_manager> make_buffer_manager(const buffer_config& cfg, int num_ports) {
    check_class_maps(cfg);
    if (num_ports < 1)
        throw config_error("ports = " + std::to_string(num_ports) + ": a switch needs at least 1 port");
    if (cfg.cell_bytes != 0 && (cfg.cell_bytes < min_cell_bytes || cfg.cell_bytes > max_frame_bytes))
        throw config_error("cell_bytes = " + std::to_string(cfg.cell_bytes) +
                           ": allowed 0 (byte-exact accounting) or " + std::to_string(min_cell_bytes) + " to " +
                           std::to_string(max_frame_bytes) + " (the largest frame a port takes)");
    if (cfg.cell_overhead_bytes > max_cell_overhead_bytes)
        throw config_error("cell_overhead_bytes = " + std::to_string(cfg.cell_overhead_bytes) + ": allowed range [0, " +
                           std::to_string(max_cell_overhead_bytes) + "]");
    for (const auto& p : buffer_policies())
        if (cfg.policy == p.name)
            return p.make(cfg, num_ports);
    std::string known;
    for (const auto& p : buffer_policies())
        known += (known.empty() ? "" : ", ") + std::string(p.name);
    throw config_error("buffer policy = '" + cfg.policy + "': allowed values are " + known);
}

}   // namespace cmswitch
