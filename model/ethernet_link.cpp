// SPDX-License-Identifier: Apache-2.0
#include "model/ethernet_link.h"

namespace cmswitch {

link_timing& link_timing::operator=(const link_timing& o) {
    if (this == &o)
        return *this;
    m_ps_per_byte = o.m_ps_per_byte;
    m_delay_ps = o.m_delay_ps;
    m_rate_bps = o.m_rate_bps;
    m_schedule = o.m_schedule ? std::make_unique<schedule>(*o.m_schedule) : nullptr;
    return *this;
}

void link_timing::set_rate_schedule(std::vector<std::pair<uint64_t, uint64_t>> changes) {
    const uint64_t nominal = rate_bps();
    m_rate_bps = nominal;
    m_ps_per_byte = exact_ps_per_byte(nominal);
    m_schedule.reset();
    if (!changes.empty())
        m_schedule = std::make_unique<schedule>(schedule{std::move(changes), 0, nominal});
}

void link_timing::follow_schedule(uint64_t now) {
    schedule& s = *m_schedule;
    if (s.next < s.changes.size() && s.changes[s.next].first <= now) {
        while (s.next < s.changes.size() && s.changes[s.next].first <= now)
            m_rate_bps = s.changes[s.next++].second;
        m_ps_per_byte = exact_ps_per_byte(m_rate_bps);
    }
}

ethernet_link::ethernet_link(sc_core::sc_module_name name, uint64_t rate_bps, uint64_t delay_ps)
    : sc_module(name), m_dir{link_timing(rate_bps, delay_ps), link_timing(rate_bps, delay_ps)} {
    a_in.register_b_transport(this, &ethernet_link::transport, 0);
    b_in.register_b_transport(this, &ethernet_link::transport, 1);
}

void ethernet_link::reset() {
    m_frames[0] = m_frames[1] = 0;
    m_bytes[0] = m_bytes[1] = 0;
}

void ethernet_link::transport(int dir, frame& f, sc_core::sc_time& delay) {
    link_timing& t = m_dir[dir];
    const uint64_t ser = t.serialization_ps(f.bytes, now_ps());
    ++m_frames[dir];
    m_bytes[dir] += f.bytes;
    sc_core::sc_time arrive = delay + ps_time(ser + t.delay_ps());
    (dir == 0 ? a_out : b_out)->b_transport(f, arrive);   // f belongs to the receiver from here on
    delay += ps_time(ser);
}

}   // namespace cmswitch
