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
//  - a timeout resets everything (W_max = 0), as Linux; slow start is the sender's (with tcp_config::abc, Linux's);
//  - HyStart (cubic_hystart; Linux tcp_cubic.c hystart_update, both detectors on, as its defaults) ends slow start
//    early, setting ssthresh = cwnd, once a window of at least hystart_low_window (16) segments shows either
//      * an ACK train: the ACKs of one round (from the first ACK past the data out when the round began), each
//        within 2 ms of the one before, spanning more than (delay_min + ack_delay) / 2 (not halved when the host
//        paces: fq with pacing), i.e. the window no longer fits half the minimum RTT; ack_delay, Linux's allowance
//        for ACKs that GRO and TSO bunch, is min(1 ms, 4 GSO sizes at the pacing rate), 0 without GSO;
//      * a delay increase: the least RTT of the round's first 8 ACKs above delay_min + clamp(delay_min / 8,
//        4 ms, 16 ms);
//    delay_min is the least RTT seen, from every ACK of new data (Linux: not within 1 s of a CUBIC epoch's start);
//    once found, HyStart waits for a timeout (which resets it, as Linux's loss state does). Linux runs it on every
//    ACK with an RTT sample; here on the ACKs that may grow the window (slow start runs only on those).
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
    bool hystart = false;   // Linux: on (tcp_cubic.c hystart = 1)
    void declare(param_table& t);   // cubic_c, cubic_beta, cubic_fast_convergence, cubic_hystart
};

class cubic final : public tcp_congestion_control {
public:
    // ecn: the sender's tcp_config::ecn
    cubic(const cubic_params& p, bool ecn)
        : m_c(p.c), m_beta(p.beta), m_fast_convergence(p.fast_convergence), m_ecn(ecn), m_hystart(p.hystart) {}
    // HyStart's constants (Linux tcp_cubic.c: hystart_low_window, hystart_ack_delta_us, HYSTART_MIN_SAMPLES,
    // HYSTART_DELAY_MIN, HYSTART_DELAY_MAX)
    static constexpr uint32_t hystart_low_window = 16;   // segments
    static constexpr uint64_t hystart_ack_delta_ps = 2000000000ull;   // 2 ms
    static constexpr uint32_t hystart_min_samples = 8;
    static constexpr uint64_t hystart_delay_min_ps = 4000000000ull, hystart_delay_max_ps = 16000000000ull;
    const char* name() const override { return "cubic"; }
    bool ecn_capable() const override { return m_ecn; }
    void on_increase(tcp_window& w, const tcp_ack_event& a) override;
    uint64_t loss_ssthresh(uint64_t x) override;
    ecn_response on_ecn_echo(tcp_window& w, const tcp_ack_event& a) override;
    void on_timeout() override;
    bool wants_delay_samples() const override { return m_hystart; }
    bool hystart_found() const { return m_found; }
    uint64_t delay_min_ps() const { return m_delay_min; }

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
    // HyStart
    void hystart_update(tcp_window& w, const tcp_ack_event& a);
    void hystart_reset(const tcp_ack_event& a);
    uint64_t hystart_ack_delay_ps(uint64_t pacing_bps) const;
    bool m_hystart;
    bool m_found = false;
    uint64_t m_delay_min = 0;   // 0: no sample yet
    uint64_t m_round_start = 0, m_last_ack = 0, m_end_seq = 0, m_curr_rtt = UINT64_MAX;
    uint32_t m_sample_cnt = 0;
};

}   // namespace cmswitch
#endif
