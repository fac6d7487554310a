// SPDX-License-Identifier: Apache-2.0
#include "traffic/tcp/dc_vegas.h"

#include <algorithm>

namespace cmswitch {

void dc_vegas::sample(const tcp_window& w, uint64_t rtt) {
    m_base_rtt = std::min(m_base_rtt, rtt);
    const double segs = static_cast<double>(w.cwnd) / mss();
    const double r = static_cast<double>(rtt);
    const double q = segs / r * (r - static_cast<double>(m_base_rtt));   // Eq. 1, in segments
    ++m_samples;
    if (q > m_k)
        ++m_over;
}

void dc_vegas::end_of_rtt(tcp_window& w) {
    const double f = m_samples ? static_cast<double>(m_over) / m_samples : 0.0;
    m_alpha = (1 - m_g) * m_alpha + m_g * f;
    if (m_over > 0) {
        w.ssthresh =
            std::max(static_cast<uint64_t>(static_cast<double>(w.cwnd) * (1 - m_alpha / 2)), 2 * uint64_t{mss()});
        w.cwnd = w.ssthresh;
    }
    m_samples = m_over = 0;
}

void dc_vegas::on_increase(tcp_window& w, const tcp_ack_event& a) {
    if (a.delay_ps)
        sample(w, a.delay_ps);
    if (a.ack > m_beg_snd_nxt) {   // an RTT has passed
        if (m_beg_snd_nxt != 0)
            end_of_rtt(w);
        m_beg_snd_nxt = a.snd_nxt;
    }
    tcp_congestion_control::on_increase(w, a);   // Reno growth
}

void dc_vegas::declare(param_table& t, tcp_config& cfg) {
    t.add_real("dcvegas_k", &cfg.dcvegas_k, 0, 1000, "segments", "DC-Vegas: queue estimate threshold K_v");
    t.add_real("dcvegas_g", &cfg.dcvegas_g, 0, 1, "", "DC-Vegas: alpha gain g", true);
}

}   // namespace cmswitch
