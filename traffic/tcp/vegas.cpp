// SPDX-License-Identifier: Apache-2.0
#include "traffic/tcp/vegas.h"

#include <algorithm>

namespace cmswitch {

void vegas::step(tcp_window& w, uint64_t rtt, uint32_t samples) {
    const uint64_t mss = this->mss();
    if (samples <= 2) {   // too few samples to trust (delayed ACKs): Reno
        tcp_congestion_control::on_increase(w, tcp_ack_event{0, 0, mss, 0, 0, 0, false, false});
        return;
    }
    const double cwnd = static_cast<double>(w.cwnd / mss);   // segments
    const double base = static_cast<double>(m_base_rtt), r = static_cast<double>(rtt);
    const double diff = cwnd * (r - base) / base;
    const bool slow_start = w.cwnd < w.ssthresh;
    uint64_t segs = w.cwnd / mss;
    if (slow_start && diff > m_gamma) {
        const uint64_t target = static_cast<uint64_t>(cwnd * base / r);
        segs = std::min(segs, target + 1);
        w.ssthresh = std::min(w.ssthresh, std::max<uint64_t>(segs, 3) * mss - mss);
    } else if (slow_start) {
        return;   // slow start proper grows per ACK (on_increase)
    } else if (diff > m_beta) {
        segs -= 1;
        w.ssthresh = std::min(w.ssthresh, std::max<uint64_t>(segs, 3) * mss - mss);
    } else if (diff < m_alpha) {
        segs += 1;
    }
    w.cwnd = std::max<uint64_t>(segs, 2) * mss;
}

void vegas::on_increase(tcp_window& w, const tcp_ack_event& a) {
    if (a.delay_ps) {
        m_base_rtt = std::min(m_base_rtt, a.delay_ps);
        m_min_rtt = std::min(m_min_rtt, a.delay_ps);
        ++m_cnt;
    }
    if (a.ack > m_beg_snd_nxt) {   // an RTT has passed
        if (m_beg_snd_nxt != 0 && m_base_rtt != UINT64_MAX)
            step(w, m_min_rtt == UINT64_MAX ? m_base_rtt : m_min_rtt, m_cnt);
        m_beg_snd_nxt = a.snd_nxt;
        m_cnt = 0;
        m_min_rtt = UINT64_MAX;
        return;
    }
    if (w.cwnd < w.ssthresh)
        w.cwnd += std::min<uint64_t>(a.newly_acked, mss());   // slow start between the per-RTT steps
}

void vegas_params::declare(param_table& t) {
    t.add_real("vegas_alpha", &alpha, 0, 1000, "segments", "Vegas: grow below this many queued segments");
    t.add_real("vegas_beta", &beta, 0, 1000, "segments", "Vegas: shrink above this many queued segments");
    t.add_real("vegas_gamma", &gamma, 0, 1000, "segments", "Vegas: leave slow start above this many");
}

}   // namespace cmswitch
