// SPDX-License-Identifier: Apache-2.0
#include "traffic/tcp/newreno.h"

#include <algorithm>

namespace cmswitch {

tcp_congestion_control::ecn_response newreno::on_ecn_echo(tcp_window& w, const tcp_ack_event& a) {
    if (!m_ecn || a.ack < m_cwr_end)
        return {};
    w.ssthresh = std::max<uint64_t>(w.cwnd / 2, 2 * uint64_t{mss()});
    w.cwnd = w.ssthresh;
    m_cwr_end = a.snd_nxt + 1;
    return {true, true};
}

}   // namespace cmswitch
