// SPDX-License-Identifier: Apache-2.0
// Loss recovery driven by duplicate ACKs (RFC 5681 section 3.2), the frame that NewReno (newreno_recovery.h) and
// RFC 6675 (rfc6675_recovery.h) fill in differently. An ACK:
//  1. of new data: an RTT sample; outside recovery the window grows (congestion_control.h); in recovery a full ACK
//     (at or past recover) leaves it with cwnd = ssthresh (RFC 6582 option 2, as Linux and ns-2; RFC 6675 does the
//     same), a partial ACK is the strategy's; the timer restarts (RFC 6298 5.3) or stops when nothing is out;
//  2. a duplicate (the strategy says which ACKs count as one): the strategy's; a new recovery only once the
//     cumulative ACK has passed recover (RFC 6582's "careful" variant, as ns-2, Linux and FreeBSD);
//  3. with an ECN echo, outside recovery: the congestion control's response.
// Limited transmit (RFC 3042) sends on the 1st and 2nd duplicate ACK; its segments are not counted again in the
// window after fast retransmit, nor in the FlightSize the loss response reads.
// A timeout goes back N: snd_nxt returns to snd_una.
#ifndef CMSWITCH_TRAFFIC_TCP_DUPACK_RECOVERY_H
#define CMSWITCH_TRAFFIC_TCP_DUPACK_RECOVERY_H

#include "traffic/tcp/congestion_control.h"
#include "traffic/tcp/loss_recovery.h"

namespace cmswitch {

class dupack_recovery : public tcp_loss_recovery {
public:
    using tcp_loss_recovery::tcp_loss_recovery;
    void on_timeout() override;
    uint64_t flight_size() const override;   // without what limited transmit sent

protected:
    static constexpr uint32_t dup_thresh = 3;   // RFC 5681 / RFC 6675 DupThresh

    // Steps 1-3 for an ACK; dup: whether it counts as a duplicate if it acknowledges nothing new.
    void process_ack(const tcp_ack_info& a, bool dup, uint64_t now);
    // A partial ACK of `newly` bytes up to ack in recovery: moves snd_una; restart_timer: whether the timer restarts.
    virtual void on_partial_ack(uint64_t ack, uint64_t newly, uint64_t now, bool& restart_timer) = 0;
    virtual void on_dupack(uint64_t now) = 0;
    // No new recovery until the cumulative ACK covers more than recover.
    bool may_recover() const;
    // The common first steps of a fast retransmit: ssthresh by the loss response, recover = the highest byte sent.
    void begin_recovery(uint64_t now);
    void count_limited_transmit(uint64_t len, uint64_t now);

    uint32_t m_limited_sent = 0;   // segments limited transmit sent since the last new ACK
    uint64_t m_limited_bytes = 0;

private:
    void on_new_ack(const tcp_ack_info& a, tcp_ack_event& ev, uint64_t now);
};

}   // namespace cmswitch
#endif
