// SPDX-License-Identifier: Apache-2.0
// DC-Vegas (Wang et al., paper 004): DCTCP's control law driven by Vegas' delay-based queue estimate instead of
// ECN marks, at the sender alone. The available text gives only the estimate (its Eq. 1): a flow's own queued
// segments q = (w / RTT) (RTT - RTT_min), compared with a threshold K_v. The control law is OUR READING (the
// docs/spec/tcp.md, DC-Vegas): over each RTT the fraction F of the
// per-segment RTT samples with q > K_v; at the RTT's end alpha = (1 - g) alpha + g F and, if any sample was
// over, cwnd = ssthresh = max(cwnd (1 - alpha / 2), 2 SMSS) (once per RTT, as DCTCP once per window); otherwise
// the window grows as Reno per ACK. K_v (segments) and g are settings (tcp_config::dcvegas_k, dcvegas_g).
#ifndef CMSWITCH_TRAFFIC_TCP_DC_VEGAS_H
#define CMSWITCH_TRAFFIC_TCP_DC_VEGAS_H

#include "config/params.h"
#include "traffic/tcp/congestion_control.h"

namespace cmswitch {

class dc_vegas final : public tcp_congestion_control {
public:
    explicit dc_vegas(const tcp_config& cfg) : m_k(cfg.dcvegas_k), m_g(cfg.dcvegas_g) {}
    // Its parameters, into cfg: dcvegas_k, dcvegas_g.
    static void declare(param_table& t, tcp_config& cfg);
    const char* name() const override { return "dc-vegas"; }
    bool ecn_capable() const override { return false; }
    void on_increase(tcp_window& w, const tcp_ack_event& a) override;
    bool wants_delay_samples() const override { return true; }
    double alpha() const { return m_alpha; }
    // One RTT sample against the threshold (the queue estimate of Eq. 1), and the end-of-RTT step; for tests.
    void sample(const tcp_window& w, uint64_t rtt);
    void end_of_rtt(tcp_window& w);

private:
    double m_k, m_g;
    double m_alpha = 1.0;
    uint64_t m_base_rtt = UINT64_MAX;
    uint32_t m_samples = 0, m_over = 0;
    uint64_t m_beg_snd_nxt = 0;
};

}   // namespace cmswitch
#endif
