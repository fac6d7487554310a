// SPDX-License-Identifier: Apache-2.0
// Proportional rate reduction (RFC 6937 with the slow-start reduction bound, as Linux tcp_cwnd_reduction): the
// window while a sender reduces it, in loss recovery (rack_tlp) or in CWR after an ECN echo
// (tcp_config::ecn_reduction = cwr). In bytes where Linux counts segments.
//  1. begin: the window before the reduction (prior_cwnd); nothing delivered or sent since;
//  2. every ACK adds what it delivered (newly acknowledged or SACKed);
//  3. while the pipe is above ssthresh, the sender may have sent ssthresh / prior_cwnd of what was delivered
//     (rounded up); at or below it, it may send back up to ssthresh no faster than slow start (what was delivered,
//     one SMSS more when the ACK advanced snd_una and found no new loss);
//  4. at least one SMSS goes at once after the reduction begins (Linux: the fast retransmit; in CWR a segment);
//  5. cwnd = pipe + what step 3 or 4 allows.
#ifndef CMSWITCH_TRAFFIC_TCP_PRR_H
#define CMSWITCH_TRAFFIC_TCP_PRR_H

#include "model/types.h"

#include <algorithm>
#include <cstdint>

namespace cmswitch {

struct tcp_prr {
    uint64_t prior_cwnd = 0;
    uint64_t delivered = 0;   // since the reduction began
    uint64_t out = 0;   // bytes sent since the reduction began (the sender counts them)

    void begin(uint64_t cwnd) {   // (1)
        prior_cwnd = cwnd;
        delivered = out = 0;
    }
    // (2)-(5): the window after an ACK that delivered `newly` bytes; cwnd unchanged if it delivered nothing.
    void on_ack(uint64_t& cwnd, uint64_t newly, uint64_t pipe, uint64_t ssthresh, uint32_t mss, bool una_advanced,
                bool newly_lost) {
        if (newly == 0 || prior_cwnd == 0)
            return;
        delivered += newly;
        int64_t sndcnt;
        if (pipe > ssthresh) {   // (3) proportional
            const uint128 dividend = static_cast<uint128>(ssthresh) * delivered + prior_cwnd - 1;
            sndcnt = static_cast<int64_t>(dividend / prior_cwnd) - static_cast<int64_t>(out);
        } else {   // (3) slow-start reduction bound
            const int64_t delta = static_cast<int64_t>(ssthresh) - static_cast<int64_t>(pipe);
            sndcnt = std::max(static_cast<int64_t>(delivered) - static_cast<int64_t>(out), static_cast<int64_t>(newly));
            if (una_advanced && !newly_lost)
                sndcnt += mss;
            sndcnt = std::min(delta, sndcnt);
        }
        sndcnt = std::max<int64_t>(sndcnt, out ? 0 : mss);   // (4)
        cwnd = pipe + static_cast<uint64_t>(std::max<int64_t>(sndcnt, 0));   // (5)
    }
};

}   // namespace cmswitch
#endif
