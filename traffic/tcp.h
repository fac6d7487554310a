// SPDX-License-Identifier: Apache-2.0
// TCP for one flow: a sender (data) and a receiver (ACKs), byte sequence numbers from 0, no handshake (the
// connection is taken as established; see initial_rto_ps).
//  - Sender: slow start and congestion avoidance (RFC 5681); loss recovery either NewReno (fast retransmit on the
//    3rd duplicate ACK, partial ACKs per RFC 6582, the "careful" recover check) or, with SACK, RFC 6675 (scoreboard,
//    IsLost, pipe, NextSeg with its rescue retransmission); limited transmit (RFC 3042) on the 1st and 2nd
//    duplicate ACK; retransmission timer per RFC 6298 with a settable minimum, exponential back-off and Karn's
//    rule, or RTT samples from timestamps (RFC 7323) on every ACK of new data; go-back-N from snd_una after a
//    timeout (skipping SACKed data). ECN (RFC 3168: halve once per window on ECE) or DCTCP (RFC 8257: alpha
//    with gain g, cwnd x (1 - alpha/2) once per window).
//  - Receiver: cumulative ACKs, out-of-order buffering, immediate ACK for out-of-order data, optional delayed
//    ACK (every 2nd segment or a timeout), SACK blocks (RFC 2018: the newest first), timestamp echo (RFC 7323
//    TS.Recent rules), ECE echo (RFC 3168 latch until CWR, or the DCTCP CE state machine).
// The advertised window is a fixed setting (rwnd_bytes), unlimited by default: the switch buffer is the limit.
#ifndef CMSWITCH_TRAFFIC_TCP_H
#define CMSWITCH_TRAFFIC_TCP_H

#include "model/rng.h"
#include "traffic/host_stack.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cmswitch {

struct tcp_config {
    uint32_t mss = 1460;             // payload bytes per segment
    uint32_t header_bytes = 40;      // IPv4 + TCP without options: a full segment is a 1500-byte frame
    uint32_t initial_cwnd = 2;       // segments
    uint64_t rwnd_bytes = 0;         // receiver's advertised window; 0: unlimited (the switch buffer is the limit)
    uint64_t min_rto_ps = 200000000000ull;   // 200 ms
    uint64_t max_rto_ps = 60000000000000ull; // 60 s
    uint64_t initial_rto_ps = 0;     // before the first RTT sample; 0: min_rto (a handshake's datacentre RTT sample)
    enum class cc { newreno, dctcp } congestion_control = cc::newreno;
    bool ecn = false;                // newreno: ECN-capable with the RFC 3168 response (dctcp always is)
    double dctcp_g = 1.0 / 16;
    // Loss response: ssthresh = max(x / 2, 2 SMSS) with x the congestion window (Linux, FreeBSD and ns-2 do
    // this) or the FlightSize (RFC 5681 eq. 4). They differ when the sender is application-limited.
    enum class ssthresh_rule { cwnd, flight } ssthresh_from = ssthresh_rule::cwnd;
    bool limited_transmit = true;    // RFC 3042: one segment on each of the 1st and 2nd duplicate ACK
    // RFC 5681 4.1: after more than an RTO without sending, restart from min(initial window, cwnd) (Linux
    // tcp_slow_start_after_idle, FreeBSD and ns-2's slow_start_restart_ do this too)
    bool slow_start_after_idle = true;
    bool sack = false;               // RFC 2018 SACK blocks with RFC 6675 loss recovery
    bool timestamps = false;         // RFC 7323: RTT samples from every ACK of new data, retransmissions included
    bool delayed_ack = false;
    uint64_t delayed_ack_ps = 40000000000ull;   // 40 ms
    uint64_t jitter_ps = 0;          // random delay in [0, jitter] before each segment reaches the NIC
    // Which segments the jitter delays: all of them, or only those sent from the window (new data, timeout
    // retransmissions), not those sent in direct response to a duplicate or partial ACK -- the semantics of
    // ns-2's TCP overhead_, for like-for-like comparisons with ns-2
    enum class jitter_scope_t { all, window_sends } jitter_scope = jitter_scope_t::all;
    uint8_t prio = 0;

    static constexpr uint32_t timestamp_option_bytes = 12;   // 10 bytes + 2 NOPs, on every segment
    // Bytes the SACK option adds to an ACK carrying n blocks: kind, length, 8 per block, 2 NOPs of padding.
    static constexpr uint32_t sack_option_bytes(int n) { return n ? 4 + 8 * static_cast<uint32_t>(n) : 0; }
    // SACK blocks one ACK can carry in the 40 option bytes: 4, or 3 beside the timestamp option.
    int max_sack_blocks_per_ack() const { return timestamps ? 3 : 4; }
};

struct tcp_stats {
    uint64_t segments_sent = 0, bytes_sent = 0;       // data segments/bytes handed to the NIC, retransmissions included
    uint64_t timeouts = 0, fast_retransmits = 0;      // fast_retransmits: loss recoveries entered by duplicate ACKs
    uint64_t limited_transmits = 0;                   // segments sent by limited transmit (RFC 3042)
    uint64_t idle_restarts = 0;                       // windows cut back after an idle period (RFC 5681 4.1)
    uint64_t retransmitted_segments = 0, retransmitted_bytes = 0;
    uint64_t ecn_reductions = 0;
    uint64_t acks_sent = 0;
    uint64_t bytes_delivered = 0;                     // in-order payload bytes at the receiver
};

// What a sender did, for recorders (traces of loss recovery). Called synchronously; must not call back. A timeout
// or fast retransmit is reported with the state that triggered it (before the sender reacts); the others after.
enum class tcp_event : uint8_t { timeout, fast_retransmit, recovery_exit, limited_transmit, ack };
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
    class listener {
    public:
        virtual void on_send_complete(uint32_t flow, uint64_t now_ps) = 0;
    protected:
        ~listener() = default;
    };

    // Sends flow `flow` from host.host_id() to dst. stats outlives the sender. r: for the send jitter.
    tcp_sender(host_stack& host, uint32_t flow, int dst, const tcp_config& cfg, tcp_stats& stats, rng r);

    // The application adds bytes to send.
    void write(uint64_t bytes);
    // Frames of this flow arriving at the sender's host (ACKs). Others go to `other` if set.
    void on_frame(frame* f, uint64_t now_ps) override;
    void on_timer(uint32_t tag) override;
    void on_writable(uint64_t now_ps) override { try_send(now_ps); }
    void set_other_frames(flow_endpoint* other) { m_other = other; }
    void set_listener(listener* l) { m_listener = l; }
    // o sees loss-recovery events; with every_ack, also each ACK's arrival (after it is processed).
    void set_observer(tcp_observer* o, bool every_ack = false) {
        m_observer = o;
        m_observe_acks = every_ack;
    }

    uint32_t flow() const { return m_flow; }
    uint64_t cwnd() const { return m_cwnd; }
    uint64_t ssthresh() const { return m_ssthresh; }
    uint64_t snd_una() const { return m_snd_una; }
    uint64_t snd_nxt() const { return m_snd_nxt; }
    uint64_t high_tx() const { return m_high_tx; }
    uint64_t recover() const { return m_recover; }
    uint32_t dupacks() const { return m_dupacks; }
    uint64_t rto_ps() const { return m_rto; }
    uint64_t rto_deadline_ps() const { return m_rto_armed ? m_rto_deadline : 0; }   // 0: timer not running
    double srtt_ps() const { return m_srtt; }
    double rttvar_ps() const { return m_rttvar; }
    double dctcp_alpha() const { return m_alpha; }
    bool in_fast_recovery() const { return m_in_fr; }
    uint64_t app_bytes() const { return m_app_end; }
    // SACK scoreboard: bytes above snd_una the receiver has reported, and the RFC 6675 pipe estimate.
    uint64_t sacked_bytes() const;
    uint64_t pipe() const;

    // RFC 6298 estimator step, exposed for tests: a new RTT sample r (ps).
    void rtt_sample(uint64_t r);

private:
    enum : uint32_t { timer_rto = 0, timer_jitter = 1, timer_kind_bits = 1 };
    struct ack_info {
        uint64_t ack;
        bool ece;
        uint64_t tsecr;   // 0: none
        int nsack;
        struct range {
            uint64_t first, second;
        } sack[max_sack_blocks];   // only the first nsack are set
    };
    void on_ack(const ack_info& a, uint64_t now);
    void on_new_ack(const ack_info& a, uint64_t now);
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
    void on_rto(uint64_t now);
    uint64_t flight() const { return m_snd_nxt - m_snd_una; }
    uint64_t loss_ssthresh() const;
    uint64_t window() const { return m_cfg.rwnd_bytes ? std::min(m_cwnd, m_cfg.rwnd_bytes) : m_cwnd; }
    void notify(tcp_event e, uint64_t now) {
        if (m_observer)
            m_observer->on_tcp_event(*this, e, now);
    }
    // SACK (RFC 6675)
    bool sack_update(const ack_info& a);            // true if it SACKed bytes not SACKed before
    uint64_t sacked_in(uint64_t b, uint64_t e) const;
    uint64_t lost_below() const;                    // unSACKed bytes under this are lost (IsLost)
    int next_seg(uint64_t& seq, uint32_t& len) const;   // NextSeg(): the rule (1-4) that chose it, 0: none
    void sack_send(uint64_t now);                   // step (C): send while cwnd - pipe >= 1 SMSS
    uint64_t skip_sacked(uint64_t seq) const;       // first byte >= seq that is not SACKed

    host_stack& m_host;
    uint32_t m_flow;
    int m_dst;
    tcp_config m_cfg;
    tcp_stats& m_stats;
    rng m_rng;
    flow_endpoint* m_other = nullptr;
    listener* m_listener = nullptr;
    tcp_observer* m_observer = nullptr;
    bool m_observe_acks = false;

    uint64_t m_app_end = 0;      // bytes the application has written
    uint64_t m_last_send_ps = 0;
    bool m_sent_any = false;
    uint64_t m_snd_una = 0, m_snd_nxt = 0, m_high_tx = 0;
    uint64_t m_cwnd, m_ssthresh = UINT64_MAX;
    uint32_t m_dupacks = 0;
    uint32_t m_limited_sent = 0;    // segments limited transmit sent since the last new ACK
    uint64_t m_limited_bytes = 0;
    bool m_in_fr = false;
    bool m_recover_valid = false;
    uint64_t m_recover = 0;      // RFC 6582 recover / RFC 6675 RecoveryPoint: HighData when recovery or an RTO began
    bool m_first_partial = true;
    // SACK scoreboard: SACKed [begin, end) above snd_una, sorted and disjoint
    std::vector<std::pair<uint64_t, uint64_t>> m_sacked;
    uint64_t m_high_rxt = 0;     // RFC 6675 HighRxt, as the byte after the highest retransmitted one
    bool m_rescue_valid = false;
    uint64_t m_rescue_rxt = 0;
    // RTT estimation (Karn: one timed segment, never a retransmitted one; or timestamps)
    bool m_timing = false;
    uint64_t m_rtt_seq = 0, m_rtt_start = 0;
    bool m_have_rtt = false;
    double m_srtt = 0, m_rttvar = 0;
    uint64_t m_rto;
    // Lazy RTO timer: the deadline moves without rescheduling while a timer entry at or before it is pending; a
    // deadline earlier than the pending entry schedules a new entry (generation in the tag; stale ones do nothing).
    bool m_rto_armed = false, m_rto_entry_pending = false;
    uint64_t m_rto_deadline = 0, m_rto_entry_ps = 0;
    uint32_t m_rto_gen = 0;
    // ECN
    uint64_t m_cwr_end = 0;      // no further reduction until an ACK passes this sequence
    bool m_send_cwr = false;
    // DCTCP
    double m_alpha = 1.0;
    uint64_t m_window_end = 0, m_acked = 0, m_marked = 0;
    // send jitter: segments sent by TCP, not yet handed to the NIC (no frame exists for them yet, so that
    // every frame in the pool is in a queue or on a link)
    std::vector<segment> m_jitter_fifo;
    size_t m_jitter_head = 0;
    uint64_t m_jitter_last = 0;
};

class tcp_receiver final : public flow_endpoint, public timer_client {
public:
    // Called with the in-order byte count each time it grows.
    class listener {
    public:
        virtual void on_delivered(uint32_t flow, uint64_t in_order_bytes, uint64_t now_ps) = 0;
    protected:
        ~listener() = default;
    };

    tcp_receiver(host_stack& host, uint32_t flow, int peer, const tcp_config& cfg, tcp_stats& stats);
    void set_listener(listener* l) { m_listener = l; }
    void on_frame(frame* f, uint64_t now_ps) override;
    void on_timer(uint32_t tag) override;
    uint64_t rcv_nxt() const { return m_rcv_nxt; }
    const std::vector<std::pair<uint64_t, uint64_t>>& out_of_order() const { return m_ooo; }

private:
    void send_ack(uint64_t now, bool ece);

    host_stack& m_host;
    uint32_t m_flow;
    int m_peer;
    tcp_config m_cfg;
    tcp_stats& m_stats;
    listener* m_listener = nullptr;
    uint64_t m_rcv_nxt = 0;
    std::vector<std::pair<uint64_t, uint64_t>> m_ooo;   // received [begin, end) above rcv_nxt, sorted, disjoint
    std::vector<uint64_t> m_sack_recent;   // a byte of each reported block, most recently received first
    uint64_t m_ts_recent = 0;              // RFC 7323 TS.Recent
    uint64_t m_last_ack_sent = 0;          // RFC 7323 Last.ACK.sent
    bool m_ece_latch = false;   // RFC 3168
    bool m_ce_state = false;    // DCTCP
    uint32_t m_unacked = 0;
    bool m_delack_pending = false;
    uint64_t m_delack_deadline = 0;
};

tcp_config::cc parse_congestion_control(const std::string& name);   // throws config_error

} // namespace cmswitch
#endif
