// SPDX-License-Identifier: Apache-2.0
#include "traffic/tcp/dc_vegas.h"

#include <algorithm>

namespace cmswitch {

void dc_vegas::cut(tcp_window& w) {
    w.ssthresh = std::max(static_cast<uint64_t>(static_cast<double>(w.cwnd) * (1 - m_alpha / 2)), 2 * uint64_t{mss()});
    w.cwnd = w.ssthresh;
}

void dc_vegas::sample(tcp_window& w, uint64_t rtt) {
    m_base_rtt = std::min(m_base_rtt, rtt);
    bool over;
    if (m_path) {
        over = rtt - m_base_rtt > m_delay_ps;
    } else {
        const double segs = static_cast<double>(w.cwnd) / mss();
        const double r = static_cast<double>(rtt);
        over = segs / r * (r - static_cast<double>(m_base_rtt)) > m_k;   // Eq. 1, in segments
    }
    ++m_samples;
    m_over += over;
    if (m_timing == timing::ack)
        m_alpha = (1 - m_g) * m_alpha + (over ? m_g : 0.0);
    if (over && m_timing != timing::rtt && !m_cut_this_rtt) {
        cut(w);
        m_cut_this_rtt = true;
    }
}

void dc_vegas::end_of_rtt(tcp_window& w) {
    if (m_timing != timing::ack) {
        const double f = m_samples ? static_cast<double>(m_over) / m_samples : 0.0;
        m_alpha = (1 - m_g) * m_alpha + m_g * f;
    }
    if (m_timing == timing::rtt && m_over > 0)
        cut(w);
    m_samples = m_over = 0;
    m_cut_this_rtt = false;
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

void dc_vegas_params::declare(param_table& t) {
    t.add_real("dcvegas_k", &k, 0, 1000, "segments", "DC-Vegas: queue estimate threshold K_v");
    t.add_real("dcvegas_g", &g, 0, 1, "", "DC-Vegas: alpha gain g", true);
    t.add_time("dcvegas_delay_us", &delay_ps, 0, 1e6, "us", "DC-Vegas: queueing delay threshold of the path signal");
    t.add_enum("dcvegas_signal", &signal, {{"flow", signal_t::flow}, {"path", signal_t::path}},
               "DC-Vegas: congestion signal (flow: Eq. 1's queued segments > dcvegas_k; path: RTT - RTT_min > "
               "dcvegas_delay_us)");
    t.add_enum("dcvegas_update", &update, {{"dctcp", timing_t::dctcp}, {"rtt", timing_t::rtt}, {"ack", timing_t::ack}},
               "DC-Vegas: alpha per RTT and the cut on the first sample over (dctcp), both at the RTT's end (rtt), "
               "alpha per sample (ack)");
}

}   // namespace cmswitch
