// SPDX-License-Identifier: Apache-2.0
// The retransmission timer's round-trip estimate of RFC 6298 (docs/spec/tcp.md, "Retransmission timer"), shared
// by TCP and SCTP: the first sample R sets SRTT = R and RTTVAR = R / 2; later ones RTTVAR = 3/4 RTTVAR + 1/4
// |SRTT - R| (with the old SRTT) and SRTT = 7/8 SRTT + 1/8 R. Each transport bounds SRTT + 4 RTTVAR by its own
// minimum and maximum (and rounds as its reference implementation does).
#ifndef CMSWITCH_TRAFFIC_RTT_ESTIMATOR_H
#define CMSWITCH_TRAFFIC_RTT_ESTIMATOR_H

#include <cmath>

namespace cmswitch {

class rtt_estimator {
public:
    // Adds a sample (ps); returns SRTT + 4 RTTVAR (ps, before bounds; clock granularity G: the model's 1 ps).
    double sample(double r) {
        if (!m_have) {
            m_srtt = r;
            m_rttvar = r / 2;
            m_have = true;
        } else {
            m_rttvar = 0.75 * m_rttvar + 0.25 * std::fabs(m_srtt - r);   // uses the old SRTT
            m_srtt = 0.875 * m_srtt + 0.125 * r;
        }
        return m_srtt + 4 * m_rttvar;
    }
    void reset() { *this = rtt_estimator{}; }
    bool have_sample() const { return m_have; }
    double srtt() const { return m_srtt; }
    double rttvar() const { return m_rttvar; }

private:
    bool m_have = false;
    double m_srtt = 0, m_rttvar = 0;
};

}   // namespace cmswitch
#endif
