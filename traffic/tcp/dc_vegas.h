// SPDX-License-Identifier: Apache-2.0
// DC-Vegas (Wang et al. 2015): DCTCP's control law driven by Vegas' delay-based congestion detection instead
// of ECN marks, at the sender alone. The available text gives only Vegas' estimate (its Eq. 1): a flow's own queued
// segments q = (w / RTT) (RTT - RTT_min), compared with a threshold K_v, "in each RTT", and names Vegas' binary
// decision as what fails in incast. The control law is a READING (docs/spec/tcp.md, DC-Vegas; docs/validation.md
// shows every reading's incast collapse point): the fraction F of an RTT's per-segment samples that signal
// congestion takes the place of DCTCP's fraction of marked bytes, alpha = (1 - g) alpha + g F, a cut
// cwnd = ssthresh = max(cwnd (1 - alpha / 2), 2 SMSS) at most once per RTT, Reno growth otherwise. Settings:
// the signal (dcvegas_signal: "flow", Eq. 1 against K_v = dcvegas_k segments; "path", RTT - RTT_min against
// dcvegas_delay_us), the timing (dcvegas_update: "dctcp", alpha at the RTT's end and the cut on its first sample
// over, as DCTCP cuts on the first ECE of a window; "rtt", both at the RTT's end; "ack", alpha per sample with
// gain g and the cut on the first sample over), g (dcvegas_g).
#ifndef CMSWITCH_TRAFFIC_TCP_DC_VEGAS_H
#define CMSWITCH_TRAFFIC_TCP_DC_VEGAS_H

#include "config/params.h"
#include "traffic/tcp/congestion_control.h"

namespace cmswitch {

// Its parameters (tcp_config::dc_vegas): the threshold K_v (segments), the gain, and the readings above.
struct dc_vegas_params {
    enum class signal_t { flow, path };
    enum class timing_t { dctcp, rtt, ack };
    double k = 4, g = 1.0 / 16;
    signal_t signal = signal_t::flow;
    timing_t update = timing_t::dctcp;
    uint64_t delay_ps = 48000000;   // 48 us: 4 full frames at 1 Gb/s
    void declare(param_table& t);   // dcvegas_k, dcvegas_g, dcvegas_delay_us, dcvegas_signal, dcvegas_update
};

class dc_vegas final : public tcp_congestion_control {
public:
    explicit dc_vegas(const dc_vegas_params& p)
        : m_k(p.k), m_g(p.g), m_path(p.signal == dc_vegas_params::signal_t::path), m_timing(p.update),
          m_delay_ps(p.delay_ps) {}
    const char* name() const override { return "dc-vegas"; }
    bool ecn_capable() const override { return false; }
    void on_increase(tcp_window& w, const tcp_ack_event& a) override;
    bool wants_delay_samples() const override { return true; }
    double alpha() const { return m_alpha; }
    // One RTT sample against the threshold (the queue estimate of Eq. 1), and the end-of-RTT step; for tests.
    void sample(tcp_window& w, uint64_t rtt);
    void end_of_rtt(tcp_window& w);

private:
    using timing = dc_vegas_params::timing_t;
    void cut(tcp_window& w);
    double m_k, m_g;
    bool m_path;   // the path's queueing delay (else Eq. 1's per-flow segments)
    timing m_timing;
    uint64_t m_delay_ps;
    bool m_cut_this_rtt = false;
    double m_alpha = 1.0;
    uint64_t m_base_rtt = UINT64_MAX;
    uint32_t m_samples = 0, m_over = 0;
    uint64_t m_beg_snd_nxt = 0;
};

}   // namespace cmswitch
#endif
