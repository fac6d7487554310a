// SPDX-License-Identifier: Apache-2.0
// DCTCP (RFC 8257): alpha, the moving average of the fraction of bytes acknowledged with ECN-Echo over each
// observation window (about one RTT), with gain g (alpha starts at 1); on ECN-Echo, at most once per window,
// cwnd = ssthresh = max(cwnd x (1 - alpha / 2), 2 SMSS) (tcp_config::ecn_reduction = cut, as ns-2). With
// ecn_reduction = cwr (Linux) the sender reduces towards that ssthresh by proportional rate reduction, without
// growth until the data sent before the reduction is acknowledged. The receiver echoes per segment. Window growth
// and loss response are NewReno's.
#ifndef CMSWITCH_TRAFFIC_TCP_DCTCP_H
#define CMSWITCH_TRAFFIC_TCP_DCTCP_H

#include "config/params.h"
#include "traffic/tcp/congestion_control.h"

namespace cmswitch {

// Its parameters (tcp_config::dctcp).
struct dctcp_params {
    double g = 1.0 / 16;   // alpha gain (RFC 8257: 1/16)
    void declare(param_table& t);   // dctcp_g
};

class dctcp final : public tcp_congestion_control {
public:
    explicit dctcp(const dctcp_params& p) : m_g(p.g) {}
    const char* name() const override { return "dctcp"; }
    bool ecn_capable() const override { return true; }
    void on_acked(tcp_window& w, const tcp_ack_event& a) override;
    bool wants_on_acked() const override { return true; }
    ecn_response on_ecn_echo(tcp_window& w, const tcp_ack_event& a) override;
    uint64_t ecn_ssthresh(uint64_t cwnd) override;   // max(cwnd x (1 - alpha / 2), 2 SMSS) (Linux dctcp_ssthresh)
    void on_timeout() override { m_reduced = false; }
    double alpha() const { return m_alpha; }

private:
    double m_g;
    double m_alpha = 1.0;
    uint64_t m_window_end = 0, m_acked = 0, m_marked = 0;
    bool m_reduced = false;   // a reduction in this observation window
};

}   // namespace cmswitch
#endif
