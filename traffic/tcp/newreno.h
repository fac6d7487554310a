// SPDX-License-Identifier: Apache-2.0
// NewReno's congestion control (RFC 5681 slow start and congestion avoidance; its loss recovery, RFC 6582, is
// the sender's). With tcp_config::ecn, ECN-capable with the RFC 3168 response: on ECN-Echo, halve the window
// (ssthresh = max(cwnd / 2, 2 SMSS), cwnd = ssthresh) at most once per window of data, and send CWR.
#ifndef CMSWITCH_TRAFFIC_TCP_NEWRENO_H
#define CMSWITCH_TRAFFIC_TCP_NEWRENO_H

#include "traffic/tcp/congestion_control.h"

namespace cmswitch {

class newreno final : public tcp_congestion_control {
public:
    explicit newreno(bool ecn) : m_ecn(ecn) {}   // ecn: the sender's tcp_config::ecn
    const char* name() const override { return "newreno"; }
    bool ecn_capable() const override { return m_ecn; }
    ecn_response on_ecn_echo(tcp_window& w, const tcp_ack_event& a) override;
    void on_timeout() override { m_cwr_end = 0; }

private:
    bool m_ecn;
    uint64_t m_cwr_end = 0;   // no further reduction until an ACK reaches this sequence
};

}   // namespace cmswitch
#endif
