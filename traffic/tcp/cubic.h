// SPDX-License-Identifier: Apache-2.0
// CUBIC (RFC 9438) as Linux tcp_cubic.c runs it, in segments:
//  - a congestion event (loss_ssthresh) ends the epoch; W_max = cwnd, or with fast convergence, if cwnd has not
//    regained the previous W_max, cwnd (1 + beta) / 2; ssthresh = max(cwnd beta, 2 SMSS);
//  - in congestion avoidance the epoch starts at the first ACK: K = cbrt((W_max - cwnd) / C) and origin W_max (or
//    K = 0 and origin cwnd above W_max); the target is W(t + RTT_min) with W(t) = C (t - K)^3 + origin, and each
//    segment acknowledged adds (target - cwnd) / cwnd, at most 1/2 (cwnd grows at most 1.5x per RTT) and, before
//    any congestion event (W_max = 0), at least 1/20 (5 % per RTT, Linux);
//  - the Reno-friendly estimate W_est grows by alpha = 3 (1 - beta) / (1 + beta) per window acknowledged; cwnd
//    follows it where it is above the cubic curve;
//  - a timeout resets everything (W_max = 0), as Linux; slow start is the sender's (with tcp_config::abc, Linux's).
// Not modelled: HyStart (Linux exits slow start early on ACK trains or RTT growth).
// With tcp_config::ecn: ECN-capable, the RFC 3168 response (a congestion event at most once per window, CWR).
#ifndef CMSWITCH_TRAFFIC_TCP_CUBIC_H
#define CMSWITCH_TRAFFIC_TCP_CUBIC_H

#include "config/params.h"
#include "traffic/tcp/congestion_control.h"

namespace cmswitch {

// Its parameters (tcp_config::cubic).
struct cubic_params {
    double c = 0.4, beta = 0.7;   // RFC 9438 and Linux
    bool fast_convergence = true;
    void declare(param_table& t);   // cubic_c, cubic_beta, cubic_fast_convergence
};

class cubic final : public tcp_congestion_control {
public:
    // ecn: the sender's tcp_config::ecn
    cubic(const cubic_params& p, bool ecn)
        : m_c(p.c), m_beta(p.beta), m_fast_convergence(p.fast_convergence), m_ecn(ecn) {}
    const char* name() const override { return "cubic"; }
    bool ecn_capable() const override { return m_ecn; }
    void on_increase(tcp_window& w, const tcp_ack_event& a) override;
    uint64_t loss_ssthresh(uint64_t x) override;
    ecn_response on_ecn_echo(tcp_window& w, const tcp_ack_event& a) override;
    void on_timeout() override;

    // W(t) = C (t - K)^3 + W_max (segments; t and K in seconds).
    static double window(double t_s, double k_s, double w_max, double c) {
        const double d = t_s - k_s;
        return c * d * d * d + w_max;
    }
    double w_max() const { return m_w_max; }   // segments
    double k_s() const { return m_k; }
    double origin() const { return m_origin; }
    double w_est() const { return m_w_est; }
    bool in_epoch() const { return m_epoch_ps != 0; }

private:
    double m_c, m_beta;
    bool m_fast_convergence, m_ecn;
    double m_w_max = 0, m_k = 0, m_origin = 0, m_w_est = 0;
    uint64_t m_epoch_ps = 0;   // 0: no epoch
    uint64_t m_min_rtt = UINT64_MAX;
    uint64_t m_cwr_end = 0;   // ECN: no further reduction until an ACK reaches this sequence
};

}   // namespace cmswitch
#endif
