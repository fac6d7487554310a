// SPDX-License-Identifier: Apache-2.0
#include "traffic/tcp/dctcp.h"

#include <algorithm>

namespace cmswitch {

void dctcp::on_acked(tcp_window&, const tcp_ack_event& a) {
    m_acked += a.newly_acked;
    if (a.ece)
        m_marked += a.newly_acked;
    if (a.ack > m_window_end) {   // one observation window (about one RTT) has ended
        const double frac = m_acked ? static_cast<double>(m_marked) / static_cast<double>(m_acked) : 0.0;
        m_alpha = (1 - m_g) * m_alpha + m_g * frac;
        m_window_end = a.snd_nxt;
        m_acked = m_marked = 0;
        m_reduced = false;   // a new reduction is allowed in the new window
    }
}

uint64_t dctcp::ecn_ssthresh(uint64_t cwnd) {
    return std::max(static_cast<uint64_t>(static_cast<double>(cwnd) * (1 - m_alpha / 2)), 2 * uint64_t{mss()});
}

tcp_congestion_control::ecn_response dctcp::on_ecn_echo(tcp_window& w, const tcp_ack_event&) {
    if (m_reduced)
        return {};
    w.ssthresh = ecn_ssthresh(w.cwnd);
    w.cwnd = w.ssthresh;
    m_reduced = true;
    return {true, false};
}

void dctcp_params::declare(param_table& t) {
    t.add_real("dctcp_g", &g, 0, 1, "", "DCTCP alpha gain g", true);
}

}   // namespace cmswitch
