// SPDX-License-Identifier: Apache-2.0
// TCP for one flow: a sender (data) and a receiver (ACKs), byte sequence numbers from 0, no handshake (the
// connection is taken as established; see initial_rto_ps).
//  - Sender: slow start and congestion avoidance (RFC 5681), fast retransmit and NewReno fast recovery with
//    partial ACKs (RFC 6582), retransmission timer per RFC 6298 with a settable minimum, exponential back-off
//    and Karn's rule; go-back-N from snd_una after a timeout. ECN (RFC 3168: halve once per window on ECE) or
//    DCTCP (RFC 8257: alpha with gain g, cwnd x (1 - alpha/2) once per window).
//  - Receiver: cumulative ACKs, out-of-order buffering, immediate ACK for out-of-order data, optional delayed
//    ACK (every 2nd segment or a timeout), ECE echo (RFC 3168 latch until CWR, or the DCTCP CE state machine).
// The advertised window is a fixed setting (rwnd_bytes), unlimited by default: the switch buffer is the limit.
#ifndef CMSWITCH_TRAFFIC_TCP_H
#define CMSWITCH_TRAFFIC_TCP_H

#include "model/rng.h"
#include "traffic/host_stack.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cmswitch {

struct tcp_config {
    uint32_t mss = 1460;             // payload bytes per segment
    uint32_t header_bytes = 40;      // IPv4 + TCP: a full segment is a 1500-byte frame, a pure ACK 40 bytes
    uint32_t initial_cwnd = 2;       // segments
    uint64_t rwnd_bytes = 0;         // receiver's advertised window; 0: unlimited (the switch buffer is the limit)
    uint64_t min_rto_ps = 200000000000ull;   // 200 ms
    uint64_t max_rto_ps = 60000000000000ull; // 60 s
    uint64_t initial_rto_ps = 0;     // before the first RTT sample; 0: min_rto (a handshake's datacentre RTT sample)
    enum class cc { newreno, dctcp } congestion_control = cc::newreno;
    bool ecn = false;                // newreno: ECN-capable with the RFC 3168 response (dctcp always is)
    double dctcp_g = 1.0 / 16;
    bool delayed_ack = false;
    uint64_t delayed_ack_ps = 40000000000ull;   // 40 ms
    uint64_t jitter_ps = 0;          // random delay in [0, jitter] before each segment reaches the NIC
    uint8_t prio = 0;
};

struct tcp_stats {
    uint64_t segments_sent = 0, bytes_sent = 0;       // data segments/bytes handed to the NIC, retransmissions included
    uint64_t timeouts = 0, fast_retransmits = 0;
    uint64_t retransmitted_segments = 0, retransmitted_bytes = 0;
    uint64_t ecn_reductions = 0;
    uint64_t acks_sent = 0;
    uint64_t bytes_delivered = 0;                     // in-order payload bytes at the receiver
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

    uint64_t cwnd() const { return m_cwnd; }
    uint64_t ssthresh() const { return m_ssthresh; }
    uint64_t snd_una() const { return m_snd_una; }
    uint64_t snd_nxt() const { return m_snd_nxt; }
    uint64_t rto_ps() const { return m_rto; }
    double srtt_ps() const { return m_srtt; }
    double rttvar_ps() const { return m_rttvar; }
    double dctcp_alpha() const { return m_alpha; }
    bool in_fast_recovery() const { return m_in_fr; }
    uint64_t app_bytes() const { return m_app_end; }

    // RFC 6298 estimator step, exposed for tests: a new RTT sample r (ps).
    void rtt_sample(uint64_t r);

private:
    enum : uint32_t { timer_rto = 0, timer_jitter = 1 };
    void on_ack(uint64_t ack, bool ece, uint64_t now);
    void try_send(uint64_t now);
    void send_segment(uint64_t seq, uint32_t len, uint64_t now);
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

    host_stack& m_host;
    uint32_t m_flow;
    int m_dst;
    tcp_config m_cfg;
    tcp_stats& m_stats;
    rng m_rng;
    flow_endpoint* m_other = nullptr;
    listener* m_listener = nullptr;

    uint64_t m_app_end = 0;      // bytes the application has written
    uint64_t m_snd_una = 0, m_snd_nxt = 0, m_high_tx = 0;
    uint64_t m_cwnd, m_ssthresh = UINT64_MAX;
    uint32_t m_dupacks = 0;
    bool m_in_fr = false;
    bool m_recover_valid = false;
    uint64_t m_recover = 0;
    bool m_first_partial = true;
    // RTT estimation (Karn: one timed segment, never a retransmitted one)
    bool m_timing = false;
    uint64_t m_rtt_seq = 0, m_rtt_start = 0;
    bool m_have_rtt = false;
    double m_srtt = 0, m_rttvar = 0;
    uint64_t m_rto;
    // lazy RTO timer: one pending timer entry at most; the deadline moves without rescheduling
    bool m_rto_armed = false, m_rto_timer_pending = false;
    uint64_t m_rto_deadline = 0;
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
    bool m_ece_latch = false;   // RFC 3168
    bool m_ce_state = false;    // DCTCP
    uint32_t m_unacked = 0;
    bool m_delack_pending = false;
    uint64_t m_delack_deadline = 0;
};

tcp_config::cc parse_congestion_control(const std::string& name);   // throws config_error

} // namespace cmswitch
#endif
