// SPDX-License-Identifier: Apache-2.0
// TCP Vegas as Linux tcp_vegas.c does it (docs/spec/tcp.md, Vegas). baseRTT is the
// smallest RTT ever seen; over each RTT (until an ACK passes the snd_nxt of the RTT's start) the smallest sample
// and their count are kept. Then, with at least 3 samples:
//   diff = cwnd (rtt - baseRTT) / baseRTT   (segments this flow keeps queued), target = cwnd baseRTT / rtt
//   slow start and diff > gamma: cwnd = min(cwnd, target + 1), ssthresh = min(ssthresh, cwnd - 1)
//   slow start otherwise: slow start;  diff > beta: cwnd -= 1, ssthresh = min(ssthresh, cwnd - 1);
//   diff < alpha: cwnd += 1;  cwnd >= 2 segments.
// With fewer samples (delayed ACKs) it grows as Reno. Between the per-RTT steps only slow start grows the
// window. Loss response: NewReno's. The samples are the sender's own per-segment round trips (delay_ps).
#ifndef CMSWITCH_TRAFFIC_TCP_VEGAS_H
#define CMSWITCH_TRAFFIC_TCP_VEGAS_H

#include "config/params.h"
#include "traffic/tcp/congestion_control.h"

namespace cmswitch {

// Its parameters (tcp_config::vegas): queued segments aimed at, as Linux tcp_vegas.
struct vegas_params {
    double alpha = 2, beta = 4, gamma = 1;
    void declare(param_table& t);   // vegas_alpha, vegas_beta, vegas_gamma
};

class vegas final : public tcp_congestion_control {
public:
    explicit vegas(const vegas_params& p) : m_alpha(p.alpha), m_beta(p.beta), m_gamma(p.gamma) {}
    const char* name() const override { return "vegas"; }
    bool ecn_capable() const override { return false; }
    void on_increase(tcp_window& w, const tcp_ack_event& a) override;
    bool wants_delay_samples() const override { return true; }
    void on_timeout() override {
        m_cnt = 0;
        m_min_rtt = UINT64_MAX;
    }

    uint64_t base_rtt() const { return m_base_rtt; }
    // The per-RTT step, exposed for tests: the window after an RTT with `samples` samples, the smallest `rtt`.
    void step(tcp_window& w, uint64_t rtt, uint32_t samples);

private:
    double m_alpha, m_beta, m_gamma;
    uint64_t m_base_rtt = UINT64_MAX, m_min_rtt = UINT64_MAX;
    uint32_t m_cnt = 0;
    uint64_t m_beg_snd_nxt = 0;
};

}   // namespace cmswitch
#endif
