// SPDX-License-Identifier: Apache-2.0
// The receiving end of one TCP flow: cumulative ACKs, out-of-order buffering, immediate ACK for out-of-order
// data, optional delayed ACK as Linux does it (an ACK once more than one full segment is unacknowledged, or once the
// application has read a short segment or one that ends a write (PSH) and nothing waits out of order; else after
// the delayed-ACK timeout; quick-ACK mode, every segment ACKed, for the first `quickacks` segments and again after
// out-of-order or duplicate data or a first CE mark), SACK blocks (RFC 2018: the newest first), D-SACK (RFC 2883:
// an immediate ACK saying a segment arrived twice), timestamp echo (RFC 7323 TS.Recent rules), and the ECN echo its
// congestion-control algorithm asks for (ecn_feedback: the RFC 3168 latch until CWR, or DCTCP's per-segment CE
// state machine). The frames of a GRO aggregate (model/nic/receive_poll.h: every one but the last marked
// host_gro_more) are acknowledged as one segment: one ACK decision at the last.
#ifndef CMSWITCH_TRAFFIC_TCP_TCP_RECEIVER_H
#define CMSWITCH_TRAFFIC_TCP_TCP_RECEIVER_H

#include "traffic/host_stack.h"
#include "traffic/tcp/congestion_control.h"
#include "traffic/tcp/tcp_config.h"
#include "traffic/transport_listener.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace cmswitch {

class tcp_receiver final : public flow_endpoint, public timer_client {
public:
    using listener = delivery_listener;   // told the in-order byte count each time it grows

    // Throws config_error for an unknown congestion-control algorithm.
    // cfg: shared with the flow's other connections (not null).
    tcp_receiver(host_stack& host, uint32_t flow, int peer, shared_tcp_config cfg, tcp_stats& stats);
    // The same with a copy of cfg of its own.
    tcp_receiver(host_stack& host, uint32_t flow, int peer, const tcp_config& cfg, tcp_stats& stats)
        : tcp_receiver(host, flow, peer, std::make_shared<const tcp_config>(cfg), stats) {}
    void set_listener(listener* l) { m_listener = l; }
    const tcp_config& config() const { return m_cfg; }   // (shared: see the constructor)
    void on_frame(frame* f, uint64_t now_ps) override;
    void on_timer(uint32_t tag) override;
    uint64_t rcv_nxt() const { return m_rcv_nxt; }

private:
    // Where a segment fell: whether it asks for an ACK at once, and the end of a duplicate to report (0: none).
    struct placement {
        bool immediate = false;
        uint64_t dsack_end = 0;
    };
    void count_arrival(const frame& f, uint64_t now);
    void measure_rcv_mss(uint32_t len, bool psh);
    // the ACK for an skb (a segment, or a GRO aggregate of them): at once, or by the delayed-ACK timer
    void ack_or_delay(uint64_t now, bool immediate, uint64_t dsack_end, uint32_t skb_len, bool psh, bool read);
    // the ECN echo's state (before the segment is placed); returns whether this segment is to be ACKed at once
    bool track_ce(bool ce, bool cwr, uint64_t now);
    placement place(uint64_t seq, uint64_t end);   // rcv_nxt and the out-of-order blocks
    void insert_out_of_order(uint64_t seq, uint64_t end);   // merged with its neighbours; the SACK order
    void send_ack(uint64_t now, bool ece, uint64_t dsack_end = 0);
    bool ece() const { return m_feedback == ecn_feedback::per_segment ? m_ce_state : m_ece_latch; }

    host_stack& m_host;
    uint32_t m_flow;
    int m_peer;
    flow_endpoint* m_peer_ep = nullptr;   // the flow's sender on m_peer, once bound (frame::endpoint)
    shared_tcp_config m_cfg_block;
    const tcp_config& m_cfg;   // *m_cfg_block
    tcp_stats& m_stats;
    ecn_feedback m_feedback;
    listener* m_listener = nullptr;
    uint64_t m_rcv_nxt = 0;
    std::vector<std::pair<uint64_t, uint64_t>> m_ooo;   // received [begin, end) above rcv_nxt, sorted, disjoint
    std::vector<uint64_t> m_sack_recent;   // a byte of each reported block, most recently received first
    uint64_t m_ts_recent = 0;   // RFC 7323 TS.Recent
    uint64_t m_last_ack_sent = 0;   // RFC 7323 Last.ACK.sent
    bool m_ece_latch = false;   // RFC 3168
    bool m_ce_state = false;   // per segment (DCTCP)
    uint32_t m_unacked = 0;   // segments since the last ACK
    uint64_t m_unacked_bytes = 0;
    uint32_t m_quick = 0;   // quick-ACK mode: segments still to ACK at once
    bool m_started = false;
    bool m_delack_pending = false;
    // GRO: what the frames of an aggregate so far ask of its one ACK (immediate; in-order data read; a duplicate's
    // end to report) and its first frame's payload (Linux's gso_size of the skb)
    bool m_ack_now = false;
    bool m_read = false;
    uint64_t m_dsack_end = 0;
    uint32_t m_skb_len = 0;
    // delayed ACK as Linux: the sender's MSS as this end estimates it, and a pushed skb waiting for its read
    uint32_t m_rcv_mss = 536;
    bool m_pushed = false;
    uint64_t m_delack_deadline = 0;
};

}   // namespace cmswitch
#endif
