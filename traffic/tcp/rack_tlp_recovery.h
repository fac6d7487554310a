// SPDX-License-Identifier: Apache-2.0
// Loss recovery as Linux runs it (tcp_config::rack_tlp, with SACK):
//  1. every segment in flight has a record (rack.h) with its last send time; each ACK marks what it delivered;
//  2. RACK (RFC 8985 section 6) marks a segment lost when one sent after it was delivered and it is older than
//     RACK.rtt + the reordering window; one not yet that old sets the reorder timer (its wait + Linux's 2 ms floor);
//  3. the first loss starts recovery: ssthresh by the loss response, recover = the highest byte sent; recovery ends
//     when the cumulative ACK reaches recover (cwnd = ssthresh);
//  4. in recovery the window follows proportional rate reduction (prr.h, the sender's): ssthresh / prior cwnd of
//     what was delivered, the first retransmission at once; a recovery that begins in CWR goes on with its
//     reduction (its ssthresh and counts);
//  5. sending: the lost segments first (Linux tcp_xmit_retransmit_queue), then new data, while the pipe fits the
//     window;
//  6. a tail loss probe 2 SRTT after the last send (+ 2 ms, or + the minimum RTO when one segment is out; RFC 8985
//     section 7, Linux tcp_schedule_loss_probe), never later than the RTO: new data if there is any, else the last
//     segment again (unless it is still in the host's queues); a probe that repaired a loss reduces the window once;
//  7. a timeout marks every segment not SACKed lost and resends from cwnd = 1 SMSS (Linux tcp_enter_loss); a repeated
//     timeout in the same episode keeps the first ssthresh.
// One timer serves the RTO, the probe and the reorder timeout, as in Linux; the RTO counts from the head segment's
// send.
#ifndef CMSWITCH_TRAFFIC_TCP_RACK_TLP_RECOVERY_H
#define CMSWITCH_TRAFFIC_TCP_RACK_TLP_RECOVERY_H

#include "traffic/tcp/loss_recovery.h"
#include "traffic/tcp/rack.h"

namespace cmswitch {

class rack_tlp_recovery final : public tcp_loss_recovery {
public:
    using tcp_loss_recovery::tcp_loss_recovery;
    void on_ack(const tcp_ack_info& a, uint64_t now) override;
    void send(uint64_t now) override;
    void on_timeout() override;
    void on_timer(tcp_timer_kind kind, uint64_t now) override;
    bool in_loss() const override { return m_in_loss; }
    uint64_t pipe() const override { return m_rack.pipe(); }

private:
    void transmit(uint64_t seq, uint32_t len, uint64_t now, bool direct = false);   // (1) and the send
    void update_recovery_state(uint64_t now, bool& exited);   // (3)
    uint64_t detect(uint64_t now, bool* armed);   // (2); armed: set the reorder timer if one waits (and say so)
    void enter_recovery(uint64_t now);
    void arm_after_ack(uint64_t now);
    bool schedule_loss_probe(uint64_t now, bool advancing_rto);   // (6)
    void rearm_rto_from_head(uint64_t now);
    void process_probe_ack(const tcp_ack_info& a, bool advanced, uint64_t delivered);
    void on_loss_probe(uint64_t now);
    void on_reorder_timeout(uint64_t now);

    rack_scoreboard m_rack;
    bool m_in_loss = false;   // after a timeout, until recover is acknowledged
    uint64_t m_tlp_high_seq = 0;   // 0: no probe outstanding
    bool m_tlp_retrans = false;
};

}   // namespace cmswitch
#endif
