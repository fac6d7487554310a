// SPDX-License-Identifier: Apache-2.0
// A host NIC's receive path below the stack, as a Linux server runs it: the NIC's receive ring with interrupt
// moderation, and the NAPI poll the interrupt starts, which merges a flow's in-order TCP segments by GRO
// (net/core/gro.c, net/ipv4/tcp_offload.c) before the stack sees them.
//  1. Moderation (mlx5's CQE-based mode, the default where the device has it): an arriving frame waits in the
//     ring; the interrupt comes once coalesce_ps pass with no new frame (each arrival restarts the period) or once
//     coalesce_frames frames wait (0: no count). A burst at line rate is therefore cut by the count alone.
//  2. The poll takes every waiting frame in arrival order. A TCP data frame joins its flow's open aggregate when it
//     continues it (its first byte is the aggregate's next), carries the same ECN field, and keeps the aggregate
//     within gro_max_bytes (one header and the payloads, as skb->len); else that aggregate is flushed (delivered)
//     first. A frame that does not continue its flow's aggregate (out of order, a retransmission) is delivered
//     alone at once, as Linux's GRO does. A segment shorter than its aggregate's first, or one with PSH (the end
//     of a write), ends it (Linux flushes after either). At most max_open aggregates are open at once: opening another flushes the oldest
//     (Linux MAX_GRO_SKBS). Other frames (ACKs without payload, UDP, RDMA, SCTP) are delivered in their turn.
//  3. At the end of the poll every open aggregate is flushed, oldest first (napi_complete_done with no flush
//     timer). An aggregate's frames go up one by one in order, every one but the last marked host_gro_more: the
//     transport takes the aggregate as one segment (tcp_receiver acknowledges at its last frame).
// Rules the path relies on: the frames of an aggregate are chained through frame::next while they wait, so the
// poll moves no frame; one interrupt event is pending at a time and a moved deadline re-arms it when it fires (an
// event per coalescing period of a busy ring, not per frame).
// Not a module: the NIC owns it (host_nic.h) and gives it its frames and its interrupt event.
#ifndef CMSWITCH_MODEL_NIC_RECEIVE_POLL_H
#define CMSWITCH_MODEL_NIC_RECEIVE_POLL_H

#include "model/frame.h"
#include "model/port/egress_port.h"

#include <cstdint>
#include <memory>

namespace cmswitch {

struct receive_poll_config {
    uint64_t coalesce_ps = 0;   // 0: no moderation, every frame goes up as it arrives (and GRO merges nothing)
    uint32_t coalesce_frames = 0;   // 0: no count
    uint64_t gro_max_bytes = 0;   // 0: no GRO
    bool active() const { return coalesce_ps > 0; }
};

// What the poll needs of its NIC.
class receive_poll_owner {
public:
    // Calls receive_poll::on_interrupt at t_ps (>= now; one request pending at a time, a later one replaces it).
    virtual void rx_interrupt_at(uint64_t t_ps) = 0;
    // A frame the poll hands to the stack (ownership passes).
    virtual void rx_deliver(frame* f) = 0;

protected:
    ~receive_poll_owner() = default;
};

class receive_poll {
public:
    static constexpr int max_open = 8;   // Linux MAX_GRO_SKBS

    void configure(const receive_poll_config& cfg, receive_poll_owner* owner);
    const receive_poll_config& config() const { return m_cfg; }
    void reset();

    // f arrived now: it waits in the ring for the interrupt (its enq_ps is its arrival).
    void hold(frame* f, uint64_t now);
    // The interrupt asked for with rx_interrupt_at: the poll, unless the deadline moved (then it is re-armed).
    void on_interrupt(uint64_t now);

    uint64_t queued_frames() const { return m_ring.frames; }
    uint64_t queued_bytes() const { return m_ring.bytes; }
    uint64_t interrupts() const { return m_polls; }
    uint64_t aggregates() const { return m_aggregates; }   // GRO skbs of more than one frame delivered
    uint64_t merged_frames() const { return m_merged_frames; }   // the frames those carried

private:
    struct aggregate {
        frame* head = nullptr;
        frame* tail = nullptr;
        uint64_t next_seq = 0;
        uint32_t flow = 0;
        uint64_t bytes = 0;   // one header and the payloads
        uint32_t first_payload = 0;
        uint32_t frames = 0;
        uint8_t ecn = 0;
    };
    void poll();
    void receive(frame* f);   // one frame of the poll through GRO
    void flush(int i);   // delivers open aggregate i and closes it
    void open(frame* f);

    receive_poll_config m_cfg;
    receive_poll_owner* m_owner = nullptr;
    frame_fifo m_ring;
    uint64_t m_deadline = UINT64_MAX;   // when the interrupt is due
    uint64_t m_irq_at = UINT64_MAX;   // when the pending interrupt event runs
    // the open aggregates, oldest first; allocated at the first (a host that never receives holds none: 384 bytes)
    std::unique_ptr<aggregate[]> m_open;
    int m_num_open = 0;
    uint64_t m_polls = 0, m_aggregates = 0, m_merged_frames = 0;
};

}   // namespace cmswitch
#endif
