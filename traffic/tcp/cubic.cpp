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
    m_found = false;   // (Linux bictcp_reset and bictcp_hystart_reset on the loss state; the round restarts at
    m_end_seq = 0;   // the next ACK)
    m_epoch_ps = 0;
    m_w_max = m_k = m_origin = m_w_est = 0;
    m_cwr_end = 0;
}

void cubic::on_increase(tcp_window& w, const tcp_ack_event& a) {
    if (a.rtt_ps)
        m_min_rtt = std::min(m_min_rtt, a.rtt_ps);
    if (m_hystart && a.delay_ps)
        hystart_update(w, a);
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

uint64_t cubic::hystart_ack_delay_ps(uint64_t pacing_bps) const {
    if (pacing_bps == 0 || gso_max_bytes() == 0)
        return 0;
    const double t = 4.0 * gso_max_bytes() * 8 / static_cast<double>(pacing_bps) * 1e12;
    return std::min<uint64_t>(1000000000ull, static_cast<uint64_t>(t));
}

void cubic::hystart_reset(const tcp_ack_event& a) {   // bictcp_hystart_reset
    m_round_start = m_last_ack = a.now_ps;
    m_end_seq = a.snd_nxt;
    m_curr_rtt = UINT64_MAX;
    m_sample_cnt = 0;
}

// Linux bictcp_acked and hystart_update
void cubic::hystart_update(tcp_window& w, const tcp_ack_event& a) {
    constexpr uint64_t one_second = 1000000000000ull;
    if (m_epoch_ps && a.now_ps - std::min(a.now_ps, m_epoch_ps) < one_second)
        return;   // no delay samples just after a congestion event
    const uint64_t delay = a.delay_ps;
    if (m_delay_min == 0 || delay < m_delay_min)
        m_delay_min = delay;
    if (m_found || w.cwnd >= w.ssthresh || w.cwnd < uint64_t{hystart_low_window} * mss())
        return;
    if (a.ack > m_end_seq)
        hystart_reset(a);   // a new round
    if (a.now_ps - m_last_ack <= hystart_ack_delta_ps) {   // the ACK train goes on
        m_last_ack = a.now_ps;
        uint64_t threshold = m_delay_min + hystart_ack_delay_ps(a.pacing_bps);
        if (!paced())
            threshold /= 2;
        if (a.now_ps - m_round_start > threshold) {
            m_found = true;
            w.ssthresh = w.cwnd;
            return;
        }
    }
    m_curr_rtt = std::min(m_curr_rtt, delay);   // the delay increase
    if (m_sample_cnt < hystart_min_samples) {
        ++m_sample_cnt;
    } else if (m_curr_rtt > m_delay_min + std::clamp(m_delay_min / 8, hystart_delay_min_ps, hystart_delay_max_ps)) {
        m_found = true;
        w.ssthresh = w.cwnd;
    }
}

void cubic_params::declare(param_table& t) {
    t.add_real("cubic_c", &c, 0, 100, "segments/s^3", "CUBIC C (RFC 9438 and Linux: 0.4)", true);
    t.add_real("cubic_beta", &beta, 0, 1, "", "CUBIC multiplicative decrease beta (RFC 9438: 0.7)", true);
    t.add_flag("cubic_fast_convergence", &fast_convergence,
               "CUBIC fast convergence: after a loss below the last W_max, W_max = cwnd (1 + beta) / 2");
    t.add_flag("cubic_hystart", &hystart,
               "CUBIC HyStart as Linux: slow start ends (ssthresh = cwnd) at 16 segments or more when one round's "
               "ACK train spans half the minimum RTT (the whole of it with pacing) or its RTT rises by 4-16 ms");
}

}   // namespace cmswitch
