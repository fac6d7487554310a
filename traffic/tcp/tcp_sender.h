// SPDX-License-Identifier: Apache-2.0
// The sending end of one TCP flow: byte sequence numbers from 0, no handshake (the connection is taken as
// established; see tcp_config::initial_rto_ps). What every sender does, whatever finds its losses:
//  - the window is the congestion-control algorithm's (congestion_control.h: NewReno, DCTCP, CUBIC, ...); an ECN
//    echo outside loss recovery is its to answer (and CWR goes on the next segment, RFC 3168);
//  - RTT samples from one timed segment at a time under Karn's rule (RFC 6298), or from timestamps (RFC 7323) on
//    every ACK of new data; the retransmission timeout per RFC 6298 with a settable minimum and exponential
//    back-off; its common steps (ssthresh from the loss response, cwnd = 1 SMSS, recover = the highest byte sent);
//  - slow start after idle (RFC 5681 4.1); with cwnd_validation the window grows only while it is cwnd-limited
//    (Linux tcp_is_cwnd_limited);
//  - below TCP it tells its host its pacing rate (Linux: ratio x max(cwnd, flight) / SRTT) and waits when its host
//    holds too much of it (TCP small queues, model/nic/host_qdisc.h); an optional send jitter delays segments on
//    their way to the NIC.
// Loss recovery is a strategy of its own, chosen at construction (loss_recovery.h: newreno, rfc6675, rack-tlp): it
// answers ACKs and sends from the window. One timer serves the RTO, and for rack-tlp the loss probe and RACK's
// reorder timeout, as in Linux.
// The advertised window is a fixed setting (rwnd_segments), unlimited by default: the switch buffer is the limit.
#ifndef CMSWITCH_TRAFFIC_TCP_TCP_SENDER_H
#define CMSWITCH_TRAFFIC_TCP_TCP_SENDER_H

#include "model/rng.h"
#include "model/trace_signal.h"
#include "traffic/host_stack.h"
#include "traffic/rtt_estimator.h"
#include "traffic/tcp/congestion_control.h"
#include "traffic/tcp/loss_recovery.h"
#include "traffic/tcp/prr.h"
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

// Linux tcp_tso_autosize: the payload of one GSO segment, in whole SMSS: (pacing rate >> 10 in bytes/s) +
// (gso_max_bytes >> (min_rtt in us >> 9)), at most gso_max_bytes, at least 2 SMSS (tcp_min_tso_segs). Without a
// pacing rate or an RTT sample yet (Linux: an unlimited initial pacing rate), gso_max_bytes.
uint32_t tso_autosize_segments(uint64_t pacing_bps, uint64_t min_rtt_ps, uint64_t gso_max_bytes, uint32_t mss);

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
    using timer_kind = tcp_timer_kind;
    uint64_t rto_deadline_ps() const { return m_rto_armed ? m_rto_deadline : 0; }
    timer_kind timer() const { return m_timer_kind; }
    // Whether the window may grow (cwnd_validation: the flow was cwnd-limited in the last window; always otherwise).
    bool cwnd_limited() const;
    uint64_t pacing_rate_bps() const { return m_pacing_bps; }
    double srtt_ps() const { return m_rtt.srtt(); }
    double rttvar_ps() const { return m_rtt.rttvar(); }
    const tcp_congestion_control& congestion_control() const { return *m_cc; }
    bool in_fast_recovery() const { return m_in_fr; }
    bool in_cwr() const { return m_in_cwr; }   // reducing the window for ECN (tcp_config::ecn_reduction = cwr)
    // Bytes in the network by the loss recovery's estimate (RFC 6675 pipe; without SACK, the flight).
    uint64_t pipe() const { return m_recovery->pipe(); }

    // RFC 6298 estimator step, exposed for tests: a new RTT sample r (ps).
    void rtt_sample(uint64_t r);
    uint64_t min_rtt_ps() const { return m_min_rtt; }   // UINT64_MAX: no sample yet

private:
    friend class tcp_loss_recovery;
    friend class dupack_recovery;
    friend class newreno_recovery;
    friend class rfc6675_recovery;
    friend class rack_tlp_recovery;
    enum : uint32_t { timer_rto = 0, timer_jitter = 1, timer_kind_bits = 1 };
    void try_send(uint64_t now) { m_recovery->send(now); }
    // What the recovery strategies share. The ACK's event for the congestion control, with its delay sample.
    tcp_ack_event ack_event(const tcp_ack_info& a, uint64_t now) const;
    void take_rtt_sample(const tcp_ack_info& a, tcp_ack_event& ev, uint64_t now);   // an ACK of new data
    void grow_window(tcp_ack_event& ev);   // the algorithm's increase, if the flow is cwnd-limited
    void tell_acked(tcp_ack_event& ev);   // the algorithm's on_acked, if it wants it
    void answer_ecn_echo(tcp_ack_event& ev);   // the response to an ECN echo (ecn_reduction = cut: the algorithm's)
    // ecn_reduction = cwr, on an ACK of new data outside loss recovery, before the window grows: the end of a CWR
    // episode (cwnd = ssthresh), the start of one on ECN-Echo, and in one the reduction's step (prr.h). Returns
    // whether the ACK's window step was the reduction's (then the window does not grow).
    bool cwr_step(const tcp_ack_event& ev, uint64_t delivered, bool una_advanced, bool newly_lost);
    void enter_cwr();
    void ack_done(uint64_t now);   // the observer and the cwnd trace, after an ACK
    // direct: sent in immediate response to a duplicate or partial ACK (fast retransmit, NewReno partial-ACK
    // retransmission, limited transmit, a loss probe), as opposed to from the window
    void send_segment(uint64_t seq, uint32_t len, uint64_t now, bool direct = false);
    struct segment {
        uint64_t seq;
        uint32_t len;
        bool cwr;
        uint64_t t_ps;   // when TCP sent it (the frame's timestamp)
        bool gso_cont;   // continues the previous frame's GSO segment (frame::gso_cont)
    };
    // GSO: whether new data [seq, seq + len) sent now goes in the GSO segment begun last (same send, contiguous,
    // within its size), and the size of a new one
    bool continues_gso(uint64_t seq, uint64_t len, uint64_t now) const {
        return m_cfg.gso_max_bytes && seq == m_gso_end && seq == m_high_tx && now == m_gso_time &&
               m_gso_bytes + len <= m_gso_goal;
    }
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
    uint64_t flight() const { return m_snd_nxt - m_snd_una; }
    uint64_t loss_ssthresh() const;
    uint64_t window() const { return m_cfg.rwnd_bytes() ? std::min(m_w.cwnd, m_cfg.rwnd_bytes()) : m_w.cwnd; }
    void notify(tcp_event e, uint64_t now) {
        if (m_observer)
            m_observer->on_tcp_event(*this, e, now);
    }

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
    bool m_in_fr = false;
    bool m_recover_valid = false;
    uint64_t m_recover = 0;   // RFC 6582 recover / RFC 6675 RecoveryPoint: HighData when recovery or an RTO began
    // RTT estimation (Karn: one timed segment, never a retransmitted one; or timestamps)
    bool m_timing = false;
    uint64_t m_rtt_seq = 0, m_rtt_start = 0;
    rtt_estimator m_rtt;
    uint64_t m_rto;
    uint64_t m_min_rtt = UINT64_MAX;   // the least RTT sample (Linux tcp_min_rtt)
    // the GSO segment being built: its end, payload so far, size, and the time it was begun
    uint64_t m_gso_end = 0, m_gso_bytes = 0, m_gso_goal = 0, m_gso_time = 0;
    // Lazy RTO timer: the deadline moves without rescheduling while a timer entry at or before it is pending; a
    // deadline earlier than the pending entry schedules a new entry (generation in the tag; stale ones do nothing).
    bool m_rto_armed = false, m_rto_entry_pending = false;
    uint64_t m_rto_deadline = 0, m_rto_entry_ps = 0;
    uint32_t m_rto_gen = 0;
    bool m_send_cwr = false;   // RFC 3168: CWR on the next segment
    // a window reduction in progress: loss recovery with rack_tlp, or CWR (ecn_reduction = cwr) until an ACK passes
    // m_cwr_high
    tcp_prr m_prr;
    bool m_in_cwr = false;
    uint64_t m_cwr_high = 0;
    timer_kind m_timer_kind = timer_kind::rto;
    // cwnd validation (Linux tcp_cwnd_validate): cwnd-limited in the current window, the most in flight
    bool m_is_cwnd_limited = false;
    uint64_t m_max_flight = 0, m_cwnd_usage_seq = 0;
    uint64_t m_pacing_bps = 0;
    bool m_host_shaped;   // the host accounts below TCP (host_nic::shaped): it wants the pacing rate
    std::unique_ptr<tcp_loss_recovery> m_recovery;   // (made from m_cfg)
    // send jitter: segments sent by TCP, not yet handed to the NIC (no frame exists for them yet, so that
    // every frame in the pool is in a queue or on a link)
    std::vector<segment> m_jitter_fifo;
    size_t m_jitter_head = 0;
    uint64_t m_jitter_last = 0;
};

}   // namespace cmswitch
#endif
