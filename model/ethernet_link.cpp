// SPDX-License-Identifier: Apache-2.0
#include "model/ethernet_link.h"

namespace cmswitch {

ethernet_link::ethernet_link(sc_core::sc_module_name name, uint64_t rate_bps, uint64_t delay_ps)
    : sc_module(name), m_rate_bps(rate_bps), m_delay_ps(delay_ps),
      m_ps_per_byte(8000000000000ull % rate_bps == 0 ? 8000000000000ull / rate_bps : 0) {
    m_dir_rate[0] = m_dir_rate[1] = rate_bps;
    a_in.register_b_transport(this, &ethernet_link::transport, 0);
    b_in.register_b_transport(this, &ethernet_link::transport, 1);
}

void ethernet_link::reset() {
    m_frames[0] = m_frames[1] = 0;
    m_bytes[0] = m_bytes[1] = 0;
}

void ethernet_link::set_rate_schedule(int dir, std::vector<std::pair<uint64_t, uint64_t>> schedule) {
    m_schedule[dir] = std::move(schedule);
    m_next_change[dir] = 0;
    m_dir_rate[dir] = m_rate_bps;
}

void ethernet_link::transport(int dir, frame& f, sc_core::sc_time& delay) {
    const auto& sched = m_schedule[dir];
    if (m_next_change[dir] < sched.size()) {
        const uint64_t now = now_ps();
        while (m_next_change[dir] < sched.size() && sched[m_next_change[dir]].first <= now)
            m_dir_rate[dir] = sched[m_next_change[dir]++].second;
    }
    const uint64_t rate = m_dir_rate[dir];
    timing_cache& c = m_cache[dir];
    if (c.bytes != f.bytes || c.rate != rate) {
        const uint64_t ser =
            rate == m_rate_bps && m_ps_per_byte ? f.bytes * m_ps_per_byte : serialization_ps(f.bytes, rate);
        c.bytes = f.bytes;
        c.rate = rate;
        c.ser = ps_time(ser);
        c.arrive = ps_time(ser + m_delay_ps);
    }
    ++m_frames[dir];
    m_bytes[dir] += f.bytes;
    const sc_core::sc_time ser = c.ser;
    sc_core::sc_time arrive = delay + c.arrive;
    (dir == 0 ? a_out : b_out)->b_transport(f, arrive);   // f belongs to the receiver from here on
    delay += ser;
}

}   // namespace cmswitch
