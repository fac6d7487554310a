// SPDX-License-Identifier: Apache-2.0
// How a TCP sender finds and repairs lost segments: one strategy per sender, chosen at construction from its
// tcp_config (make_loss_recovery):
//  - newreno (newreno_recovery.h): fast retransmit on the 3rd duplicate ACK and RFC 6582 partial ACKs, for a
//    sender without SACK;
//  - rfc6675 (rfc6675_recovery.h): with SACK, the scoreboard decides what is lost and the pipe what may be sent;
//  - rack-tlp (rack_tlp_recovery.h): with SACK, losses found by time (RFC 8985), proportional rate reduction, a
//    tail loss probe; the way Linux recovers.
// The sender (tcp_sender.h) keeps what every strategy shares: the sequence space (snd_una, snd_nxt, the highest byte
// sent), the window and its congestion control, the RTT estimate, one timer, the host below. A strategy is a part
// of its sender: it reads and moves that state directly (it is the sender's friend), and sends through the sender's
// send_segment. The retransmission timeout's common steps (back-off, ssthresh, cwnd = 1 SMSS) are the sender's;
// the strategy adds its own (go-back-N, or every unSACKed segment marked lost).
#ifndef CMSWITCH_TRAFFIC_TCP_LOSS_RECOVERY_H
#define CMSWITCH_TRAFFIC_TCP_LOSS_RECOVERY_H

#include "model/frame.h"
#include "traffic/tcp/sack_scoreboard.h"

#include <cstdint>
#include <memory>

namespace cmswitch {

class tcp_sender;
struct tcp_config;

// An ACK as the sender reads it from the frame.
struct tcp_ack_info {
    uint64_t ack;
    bool ece;
    bool dsack;   // the receiver got a duplicate ending at dsack_end
    uint64_t dsack_end;
    uint64_t tsecr;   // 0: none
    uint64_t echo;   // the send time of the segment answered (tcp_ack_event::delay_ps)
    int nsack;
    sack_scoreboard::range sack[max_sack_blocks];   // absolute [begin, end); only the first nsack are set
};

// What the sender's one timer is waiting for.
enum class tcp_timer_kind : uint8_t { rto, loss_probe, reorder };

class tcp_loss_recovery {
public:
    explicit tcp_loss_recovery(tcp_sender& s) : m_s(s) {}
    virtual ~tcp_loss_recovery() = default;
    tcp_loss_recovery(const tcp_loss_recovery&) = delete;
    tcp_loss_recovery& operator=(const tcp_loss_recovery&) = delete;

    // An ACK with snd_una <= ack <= the highest byte sent: the whole response (window, recovery, sending).
    virtual void on_ack(const tcp_ack_info& a, uint64_t now) = 0;
    // Send what the window and the host allow (the application wrote, the host has room again).
    virtual void send(uint64_t now) = 0;
    // The strategy's steps of a retransmission timeout, after the sender's common ones (tcp_sender::on_rto);
    // the sender then calls send.
    virtual void on_timeout() = 0;
    // The sender's timer fired for a loss probe or a reorder timeout (only strategies that set them get this).
    virtual void on_timer(tcp_timer_kind, uint64_t) {}
    // A repeated timeout in the same loss episode keeps the ssthresh of the first (Linux tcp_enter_loss).
    virtual bool in_loss() const { return false; }
    // Bytes in the network by the strategy's estimate (RFC 6675 pipe, Linux packets_in_flight).
    virtual uint64_t pipe() const = 0;
    // RFC 5681 FlightSize for the loss response (tcp_config::ssthresh_rule::flight).
    virtual uint64_t flight_size() const;

protected:
    tcp_sender& m_s;
};

// The strategy cfg asks for: rack-tlp with rack_tlp, rfc6675 with sack, newreno otherwise.
std::unique_ptr<tcp_loss_recovery> make_loss_recovery(tcp_sender& s, const tcp_config& cfg);

}   // namespace cmswitch
#endif
