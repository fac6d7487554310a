// SPDX-License-Identifier: Apache-2.0
// SACK-based loss recovery (RFC 6675), in the frame of dupack_recovery.h:
//  1. the scoreboard (sack_scoreboard.h) takes each ACK's SACK blocks; an ACK is a duplicate only if it SACKs
//     bytes not SACKed before;
//  2. IsLost: an unSACKed byte with more than 2 SMSS or 3 discontiguous blocks SACKed above it; recovery starts on
//     the 3rd duplicate or as soon as a byte IsLost (and the careful recover check allows it);
//  3. limited transmit before that: new segments while cwnd - pipe >= 1 SMSS (RFC 6675 step 3);
//  4. on entry: cwnd = ssthresh, retransmit the first segment presumed lost, HighRxt after it (step 4);
//  5. in recovery every ACK sends while cwnd - pipe >= 1 SMSS (step C), each segment chosen by NextSeg: (1) a lost
//     byte above HighRxt, (2) new data, (3) an unSACKed byte above HighRxt, (4) one rescue retransmission;
//  6. pipe (SetPipe): each unSACKed byte in flight once if not lost, once more if retransmitted (at or under HighRxt).
// Sending from the window outside recovery (and go-back-N after a timeout) skips what the receiver has SACKed.
#ifndef CMSWITCH_TRAFFIC_TCP_RFC6675_RECOVERY_H
#define CMSWITCH_TRAFFIC_TCP_RFC6675_RECOVERY_H

#include "traffic/tcp/dupack_recovery.h"
#include "traffic/tcp/sack_scoreboard.h"

namespace cmswitch {

class rfc6675_recovery final : public dupack_recovery {
public:
    using dupack_recovery::dupack_recovery;
    void on_ack(const tcp_ack_info& a, uint64_t now) override;
    void send(uint64_t now) override;
    void on_timeout() override;
    uint64_t pipe() const override;

private:
    void on_dupack(uint64_t now) override;
    void on_partial_ack(uint64_t ack, uint64_t newly, uint64_t now, bool& restart_timer) override;
    void enter_recovery(uint64_t now);
    void limited_transmit(uint64_t now);
    uint64_t lost_below() const;
    int next_seg(uint64_t& seq, uint32_t& len) const;   // NextSeg(): the rule (1-4) that chose it, 0: none
    void sack_send(uint64_t now);   // step (C)

    sack_scoreboard m_sb;
    uint64_t m_high_rxt = 0;   // HighRxt, as the byte after the highest retransmitted one
    bool m_rescue_valid = false;
    uint64_t m_rescue_rxt = 0;
};

}   // namespace cmswitch
#endif
