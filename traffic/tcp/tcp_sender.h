// SPDX-License-Identifier: Apache-2.0
// The sending end of one TCP flow: byte sequence numbers from 0, no handshake (the connection is taken as
// established; see tcp_config::initial_rto_ps). The window is the congestion-control algorithm's
// (congestion_control.h: NewReno, DCTCP, ...); loss recovery is the sender's and the same for every algorithm:
//  - NewReno recovery (fast retransmit on the 3rd duplicate ACK, partial ACKs per RFC 6582, the "careful"
//    recover check) or, with SACK, RFC 6675 (scoreboard, IsLost, pipe, NextSeg with its rescue retransmission);
//  - limited transmit (RFC 3042) on the 1st and 2nd duplicate ACK;
//  - retransmission timer per RFC 6298 with a settable minimum, exponential back-off and Karn's rule, or RTT
//    samples from timestamps (RFC 7323) on every ACK of new data; go-back-N from snd_una after a timeout
//    (skipping SACKed data); slow start after idle (RFC 5681 4.1);
//  - or, with rack_tlp (and SACK), loss recovery as Linux runs it: RACK (RFC 8985) marks segments lost by time
//    (rack.h), recovery retransmits them under proportional rate reduction (RFC 6937), a tail loss probe goes out
//    2 SRTT after the last send (RFC 8985 section 7; Linux's timer), a timeout marks everything unSACKed lost.
// Below TCP it tells its host its pacing rate (Linux: ratio x max(cwnd, flight) / SRTT) and waits when its host
// holds too much of it (TCP small queues, model/nic/host_qdisc.h); with cwnd_validation the window grows only while
// it is cwnd-limited (Linux tcp_is_cwnd_limited).
// The advertised window is a fixed setting (rwnd_bytes), unlimited by default: the switch buffer is the limit.
#ifndef CMSWITCH_TRAFFIC_TCP_TCP_SENDER_H
#define CMSWITCH_TRAFFIC_TCP_TCP_SENDER_H

#include "model/rng.h"
#include "model/trace_signal.h"
#include "traffic/host_stack.h"
#include "traffic/rtt_estimator.h"
#include "traffic/tcp/congestion_control.h"
#include "traffic/tcp/rack.h"
#include "traffic/tcp/sack_scoreboard.h"
#include "traffic/tcp/tcp_config.h"
#include "traffic/transport_listener.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

namespace cmswitch {

// What a sender did, for recorders (traces of loss recovery). Called synchronously; must not call back. A timeout
// or fast retransmit is reported with the state that triggered it (before the sender reacts); the others after.
enum class tcp_event : uint8_t { timeout, fast_retransmit, recovery_exit, limited_transmit, ack, loss_probe };
const char* tcp_event_name(tcp_event e);

class tcp_sender;
class tcp_observer {
public:
    virtual void on_tcp_event(const tcp_sender& s, tcp_event e, uint64_t now_ps) = 0;

protected:
    ~tcp_observer() = default;
};

class tcp_sender final : public flow_endpoint, public timer_client {
public:
    // Told when every byte written so far has been acknowledged.
    using listener = send_listener;

    // Sends flow `flow` from host.host_id() to dst. stats outlives the sender. r: for the send jitter.
    // Throws config_error for an unknown congestion-control algorithm.
    // cfg: shared with the flow's other connections (not null).
    tcp_sender(host_stack& host, uint32_t flow, int dst, shared_tcp_config cfg, tcp_stats& stats, rng r);
    // The same with a copy of cfg of its own.
    tcp_sender(host_stack& host, uint32_t flow, int dst, const tcp_config& cfg, tcp_stats& stats, rng r)
        : tcp_sender(host, flow, dst, std::make_shared<const tcp_config>(cfg), stats, r) {}

    // The application adds bytes to send.
    void write(uint64_t bytes);
    // Frames of this flow arriving at the sender's host (ACKs). Others go to `other` if set.
    void on_frame(frame* f, uint64_t now_ps) override;
    void on_timer(uint32_t tag) override;
    void on_writable(uint64_t now_ps) override { try_send(now_ps); }
    void set_other_frames(flow_endpoint* other) { m_other = other; }
    const tcp_config& config() const { return m_cfg; }   // (shared: see the constructor)
    void set_listener(listener* l) { m_listener = l; }
    // o sees loss-recovery events; with every_ack, also each ACK's arrival (after it is processed).
    void set_observer(tcp_observer* o, bool every_ack = false) {
        m_observer = o;
        m_observe_acks = every_ack;
    }

    uint32_t flow() const { return m_flow; }
    uint64_t cwnd() const { return m_w.cwnd; }
    uint64_t ssthresh() const { return m_w.ssthresh; }
    uint64_t snd_una() const { return m_snd_una; }
    uint64_t snd_nxt() const { return m_snd_nxt; }
    uint64_t high_tx() const { return m_high_tx; }
    uint64_t recover() const { return m_recover; }
    uint32_t dupacks() const { return m_dupacks; }
    uint64_t rto_ps() const { return m_rto; }
    // The retransmission timer (with rack_tlp also the loss probe's and RACK's reorder timer): its deadline, 0 when
    // it is not running, and which it is.
    enum class timer_kind : uint8_t { rto, loss_probe, reorder };
    uint64_t rto_deadline_ps() const { return m_rto_armed ? m_rto_deadline : 0; }
    timer_kind timer() const { return m_timer_kind; }
    // Whether the window may grow (cwnd_validation: the flow was cwnd-limited in the last window; always otherwise).
    bool cwnd_limited() const;
    uint64_t pacing_rate_bps() const { return m_pacing_bps; }
    const rack_scoreboard& rack() const { return m_rack; }
    double srtt_ps() const { return m_rtt.srtt(); }
    double rttvar_ps() const { return m_rtt.rttvar(); }
    const tcp_congestion_control& congestion_control() const { return *m_cc; }
    bool in_fast_recovery() const { return m_in_fr; }
    // SACK scoreboard: bytes above snd_una the receiver has reported, and the RFC 6675 pipe estimate.
    uint64_t pipe() const;

    // RFC 6298 estimator step, exposed for tests: a new RTT sample r (ps).
    void rtt_sample(uint64_t r);

private:
    enum : uint32_t { timer_rto = 0, timer_jitter = 1, timer_kind_bits = 1 };
    struct ack_info {
        uint64_t ack;
        bool ece;
        bool dsack;   // the receiver got a duplicate ending at dsack_end
        uint64_t dsack_end;
        uint64_t tsecr;   // 0: none
        uint64_t echo;   // the send time of the segment answered (tcp_ack_event::delay_ps)
        int nsack;
        sack_scoreboard::range sack[max_sack_blocks];   // only the first nsack are set
    };
    void on_ack(const ack_info& a, uint64_t now);
    void on_new_ack(const ack_info& a, tcp_ack_event& ev, uint64_t now);
    void on_dupack(uint64_t now);
    void enter_recovery(uint64_t now);
    void try_send(uint64_t now);
    // direct: sent in immediate response to a duplicate or partial ACK (fast retransmit, NewReno partial-ACK
    // retransmission, limited transmit), as opposed to from the window
    void send_segment(uint64_t seq, uint32_t len, uint64_t now, bool direct = false);
    struct segment {
        uint64_t seq;
        uint32_t len;
        bool cwr;
        uint64_t t_ps;   // when TCP sent it (the frame's timestamp)
    };
    void to_nic(const segment& s);
    void arm_rto(uint64_t now);
    void set_timer(timer_kind kind, uint64_t deadline);
    void on_rto(uint64_t now);
    // whether the host takes len more payload bytes now (its reaction point's limiter, its small queue); if not,
    // it will say when (on_writable)
    bool host_takes(uint64_t len, bool retransmission);
    void restart_after_idle(uint64_t now);
    void cwnd_validate(bool cwnd_limited);
    void update_pacing_rate();
    // RACK-TLP (tcp_sender_rack.cpp)
    void on_ack_rack(const ack_info& a, uint64_t now);
    void rack_send(uint64_t now);
    uint64_t rack_detect(uint64_t now, bool* armed);   // armed: set the reorder timer if one waits (and say so)
    void rack_enter_recovery(uint64_t now);
    void rack_prr(uint64_t delivered, bool una_advanced, uint64_t newly_lost);
    void rack_arm_after_ack(uint64_t now);
    bool schedule_loss_probe(uint64_t now, bool advancing_rto);
    void rearm_rto_from_head(uint64_t now);
    void process_tlp_ack(const ack_info& a, bool advanced, uint64_t delivered);
    void on_loss_probe(uint64_t now);
    void on_reorder_timeout(uint64_t now);
    void rack_on_rto(uint64_t now);
    uint64_t flight() const { return m_snd_nxt - m_snd_una; }
    uint64_t loss_ssthresh() const;
    uint64_t window() const { return m_cfg.rwnd_bytes ? std::min(m_w.cwnd, m_cfg.rwnd_bytes) : m_w.cwnd; }
    void notify(tcp_event e, uint64_t now) {
        if (m_observer)
            m_observer->on_tcp_event(*this, e, now);
    }
    // RFC 6675
    uint64_t lost_below() const;
    int next_seg(uint64_t& seq, uint32_t& len) const;   // NextSeg(): the rule (1-4) that chose it, 0: none
    void sack_send(uint64_t now);   // step (C): send while cwnd - pipe >= 1 SMSS

    host_stack& m_host;
    trace_signal* m_tr_cwnd = nullptr;
    uint32_t m_flow;
    int m_dst;
    shared_tcp_config m_cfg_block;
    const tcp_config& m_cfg;   // *m_cfg_block
    tcp_stats& m_stats;
    rng m_rng;
    std::unique_ptr<tcp_congestion_control> m_cc;
    uint8_t m_ecn_codepoint;
    bool m_cc_on_acked;   // m_cc->wants_on_acked()
    bool m_cc_delay;   // m_cc->wants_delay_samples()
    flow_endpoint* m_other = nullptr;
    flow_endpoint* m_peer_ep = nullptr;   // the flow's receiver on m_dst, once bound (frame::endpoint)
    listener* m_listener = nullptr;
    tcp_observer* m_observer = nullptr;
    bool m_observe_acks = false;

    uint64_t m_app_end = 0;   // bytes the application has written
    uint64_t m_last_send_ps = 0;
    bool m_sent_any = false;
    uint64_t m_snd_una = 0, m_snd_nxt = 0, m_high_tx = 0;
    tcp_window m_w;
    uint32_t m_dupacks = 0;
    uint32_t m_limited_sent = 0;   // segments limited transmit sent since the last new ACK
    uint64_t m_limited_bytes = 0;
    bool m_in_fr = false;
    bool m_recover_valid = false;
    uint64_t m_recover = 0;   // RFC 6582 recover / RFC 6675 RecoveryPoint: HighData when recovery or an RTO began
    bool m_first_partial = true;
    sack_scoreboard m_sb;
    uint64_t m_high_rxt = 0;   // RFC 6675 HighRxt, as the byte after the highest retransmitted one
    bool m_rescue_valid = false;
    uint64_t m_rescue_rxt = 0;
    // RTT estimation (Karn: one timed segment, never a retransmitted one; or timestamps)
    bool m_timing = false;
    uint64_t m_rtt_seq = 0, m_rtt_start = 0;
    rtt_estimator m_rtt;
    uint64_t m_rto;
    // Lazy RTO timer: the deadline moves without rescheduling while a timer entry at or before it is pending; a
    // deadline earlier than the pending entry schedules a new entry (generation in the tag; stale ones do nothing).
    bool m_rto_armed = false, m_rto_entry_pending = false;
    uint64_t m_rto_deadline = 0, m_rto_entry_ps = 0;
    uint32_t m_rto_gen = 0;
    bool m_send_cwr = false;   // RFC 3168: CWR on the next segment
    timer_kind m_timer_kind = timer_kind::rto;
    // cwnd validation (Linux tcp_cwnd_validate): cwnd-limited in the current window, the most in flight
    bool m_is_cwnd_limited = false;
    uint64_t m_max_flight = 0, m_cwnd_usage_seq = 0;
    uint64_t m_pacing_bps = 0;
    bool m_host_shaped;   // the host accounts below TCP (host_nic::shaped): it wants the pacing rate
    // RACK-TLP: the segments in flight, loss state (after a timeout, until recover), PRR, the probe's episode
    rack_scoreboard m_rack;
    bool m_in_loss = false;
    uint64_t m_prr_delivered = 0, m_prr_out = 0, m_prior_cwnd = 0;
    uint64_t m_tlp_high_seq = 0;   // 0: no probe outstanding
    bool m_tlp_retrans = false;
    // send jitter: segments sent by TCP, not yet handed to the NIC (no frame exists for them yet, so that
    // every frame in the pool is in a queue or on a link)
    std::vector<segment> m_jitter_fifo;
    size_t m_jitter_head = 0;
    uint64_t m_jitter_last = 0;
};

}   // namespace cmswitch
#endif
