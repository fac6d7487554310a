// SPDX-License-Identifier: Apache-2.0
// RoCEv2 reliable-connection queue pairs, as far as congestion control sees them: a requester that sends a
// message (or an endless stream, as ib_send_bw) in packets of at most mtu payload bytes, paced by its NIC (the
// sender hands packets to the NIC while its QP has room there; the NIC's engine, dcqcn_endpoint, rate-limits and
// schedules them), and a responder that acknowledges. No window: the rate limiter is the only brake.
//
// Reliability as ConnectX NICs do it, so that a lossy network (PFC off) works too: go-back-N. The responder
// accepts only the next expected packet; an out-of-order one makes one NACK (per expected sequence) and is
// dropped; in-order data is ACKed every ack_every packets and at the end of the message. A NACK, or no progress
// for rto while data is outstanding, rewinds the requester to the first unacknowledged byte.
//
// Frames: data in priority `prio` (RoCE's lossless class, 3 in the paper's testbed), ECN-capable; ACK/NACK as
// 64-byte frames in the control priority. Sizes on the wire are payload + header_bytes (Ethernet 14 + FCS 4 +
// IPv4 20 + UDP 8 + BTH 12 + ICRC 4 = 62).
#ifndef CMSWITCH_TRAFFIC_RDMA_RDMA_QP_H
#define CMSWITCH_TRAFFIC_RDMA_RDMA_QP_H

#include "traffic/host_stack.h"

#include <cstdint>

namespace cmswitch {

struct rdma_config {
    static constexpr uint32_t header_bytes = 62;
    uint32_t mtu = 1024;   // payload bytes per packet
    uint8_t prio = 3;
    uint64_t message_bytes = 0;   // 0: endless
    uint32_t ack_every = 64;   // in-order packets per ACK (64 KB of 1 KB packets: ib_send_bw's message)
    uint64_t rto_ps = 1000000000;   // 1 ms
    uint32_t frame_bytes() const { return mtu + header_bytes; }
};

struct rdma_stats {
    uint64_t bytes_sent = 0;   // payload handed to the NIC, retransmissions included
    uint64_t bytes_delivered = 0;   // in-order payload at the responder
    uint64_t retransmitted_bytes = 0;
    uint64_t nacks = 0, timeouts = 0;
    uint64_t start_ps = 0, done_ps = 0;   // message flows: first packet, last byte acknowledged (0: not yet)
};

class rdma_sender final : public flow_endpoint, public timer_client {
public:
    rdma_sender(host_stack& host, uint32_t flow, int dst, const rdma_config& cfg, rdma_stats& stats);
    void start(uint64_t at_ps);   // schedules the first packet
    void on_frame(frame* f, uint64_t now_ps) override;   // ACK / NACK
    void on_writable(uint64_t now_ps) override { send(now_ps); }
    void on_timer(uint32_t tag) override;
    uint64_t acked() const { return m_una; }

private:
    enum : uint32_t { tag_start = 0, tag_rto = 1 };
    void send(uint64_t now);
    void arm_rto(uint64_t now);
    uint64_t end() const { return m_cfg.message_bytes ? m_cfg.message_bytes : UINT64_MAX; }

    host_stack& m_host;
    uint32_t m_flow;
    int m_dst;
    rdma_config m_cfg;
    rdma_stats& m_stats;
    uint64_t m_una = 0, m_nxt = 0, m_high = 0;   // first unacknowledged, next to send, highest sent
    bool m_started = false;
    uint64_t m_rto_deadline = 0, m_rto_entry = UINT64_MAX;
};

class rdma_receiver final : public flow_endpoint {
public:
    rdma_receiver(host_stack& host, uint32_t flow, const rdma_config& cfg, rdma_stats& stats);
    void on_frame(frame* f, uint64_t now_ps) override;

private:
    void reply(const frame& about, uint8_t flags, uint64_t now);

    host_stack& m_host;
    rdma_config m_cfg;
    rdma_stats& m_stats;
    uint64_t m_expected = 0;
    uint32_t m_unacked = 0;
    uint64_t m_nacked = UINT64_MAX;   // the sequence the last NACK asked for
    bool m_dup_acked = false;   // a duplicate has been answered since the last in-order packet
};

}   // namespace cmswitch
#endif
