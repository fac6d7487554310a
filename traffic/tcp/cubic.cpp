// SPDX-License-Identifier: Apache-2.0
#include "traffic/tcp/cubic.h"

#include <algorithm>
#include <cmath>

namespace cmswitch {

uint64_t cubic::loss_ssthresh(uint64_t x) {
    const double cwnd = static_cast<double>(x) / mss();
    m_epoch_ps = 0;
    m_w_max = m_fast_convergence && cwnd < m_w_max ? cwnd * (1 + m_beta) / 2 : cwnd;
    return std::max(static_cast<uint64_t>(std::llround(static_cast<double>(x) * m_beta)), 2 * uint64_t{mss()});
}

void cubic::on_timeout() {
    m_epoch_ps = 0;
    m_w_max = m_k = m_origin = m_w_est = 0;
    m_cwr_end = 0;
}

void cubic::on_increase(tcp_window& w, const tcp_ack_event& a) {
    if (a.rtt_ps)
        m_min_rtt = std::min(m_min_rtt, a.rtt_ps);
    if (w.cwnd < w.ssthresh) {
        slow_start(w, a.newly_acked);
        return;
    }
    const double mss_d = mss();
    const double cwnd = static_cast<double>(w.cwnd) / mss_d;
    if (m_epoch_ps == 0) {   // a new epoch: the curve through this window, its plateau at W_max
        m_epoch_ps = a.now_ps ? a.now_ps : 1;
        m_w_est = cwnd;
        if (m_w_max <= cwnd) {
            m_k = 0;
            m_origin = cwnd;
        } else {
            m_k = std::cbrt((m_w_max - cwnd) / m_c);
            m_origin = m_w_max;
        }
    }
    const double rtt_s = m_min_rtt == UINT64_MAX ? 0 : static_cast<double>(m_min_rtt) * 1e-12;
    const double t = static_cast<double>(a.now_ps - std::min(a.now_ps, m_epoch_ps)) * 1e-12 + rtt_s;
    const double target = window(t, m_k, m_origin, m_c);
    const double acked = static_cast<double>(a.newly_acked) / mss_d;   // segments
    double per_segment = target > cwnd ? (target - cwnd) / cwnd : 0.01 / cwnd;   // Linux: cnt = 100 cwnd
    if (m_w_max == 0)
        per_segment = std::max(per_segment, 1.0 / 20);   // no congestion event yet: 5 % per RTT at least
    m_w_est += 3 * (1 - m_beta) / (1 + m_beta) * acked / cwnd;   // the Reno-friendly estimate
    if (m_w_est > cwnd)
        per_segment = std::max(per_segment, (m_w_est - cwnd) / cwnd);
    per_segment = std::min(per_segment, 0.5);   // at most 1.5x per RTT
    w.cwnd += static_cast<uint64_t>(per_segment * acked * mss_d);
}

tcp_congestion_control::ecn_response cubic::on_ecn_echo(tcp_window& w, const tcp_ack_event& a) {
    if (!m_ecn || a.ack < m_cwr_end)
        return {};
    w.ssthresh = loss_ssthresh(w.cwnd);
    w.cwnd = w.ssthresh;
    m_cwr_end = a.snd_nxt + 1;
    return {true, true};
}

void cubic_params::declare(param_table& t) {
    t.add_real("cubic_c", &c, 0, 100, "segments/s^3", "CUBIC C (RFC 9438 and Linux: 0.4)", true);
    t.add_real("cubic_beta", &beta, 0, 1, "", "CUBIC multiplicative decrease beta (RFC 9438: 0.7)", true);
    t.add_flag("cubic_fast_convergence", &fast_convergence,
               "CUBIC fast convergence: after a loss below the last W_max, W_max = cwnd (1 + beta) / 2");
}

}   // namespace cmswitch
