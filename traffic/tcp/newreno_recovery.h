// SPDX-License-Identifier: Apache-2.0
// NewReno loss recovery (RFC 5681 3.2 with RFC 6582), for a sender without SACK:
//  1. every ACK that acknowledges nothing new while data is out is a duplicate;
//  2. on the 1st and 2nd duplicate, limited transmit (RFC 3042): one new segment each, up to cwnd + 2 SMSS in flight;
//  3. on the 3rd: retransmit snd_una, ssthresh by the loss response, cwnd = ssthresh + 3 SMSS less the segments
//     limited transmit already sent (FreeBSD's snd_limited accounting);
//  4. each further duplicate inflates cwnd by 1 SMSS (a segment has left the network);
//  5. a partial ACK retransmits the next hole at once, deflates cwnd by what it acknowledged (+1 SMSS if that was
//     a full segment, at least 1 SMSS) and restarts the timer on the first partial ACK only (RFC 6582 "impatient");
//  6. a full ACK ends recovery (dupack_recovery.h).
// Sending from the window: new segments while the flight stays within min(cwnd, rwnd); after a timeout go-back-N
// resends from snd_una.
#ifndef CMSWITCH_TRAFFIC_TCP_NEWRENO_RECOVERY_H
#define CMSWITCH_TRAFFIC_TCP_NEWRENO_RECOVERY_H

#include "traffic/tcp/dupack_recovery.h"

namespace cmswitch {

class newreno_recovery final : public dupack_recovery {
public:
    using dupack_recovery::dupack_recovery;
    void on_ack(const tcp_ack_info& a, uint64_t now) override;
    void send(uint64_t now) override;
    uint64_t pipe() const override;   // the bytes sent and not acknowledged

private:
    void on_dupack(uint64_t now) override;
    void on_partial_ack(uint64_t ack, uint64_t newly, uint64_t now, bool& restart_timer) override;
    void enter_recovery(uint64_t now);
    void limited_transmit(uint64_t now);

    bool m_first_partial = true;
};

}   // namespace cmswitch
#endif
