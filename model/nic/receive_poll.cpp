// SPDX-License-Identifier: Apache-2.0
#include "model/nic/receive_poll.h"

namespace cmswitch {

void receive_poll::configure(const receive_poll_config& cfg, receive_poll_owner* owner) {
    m_cfg = cfg;
    m_owner = owner;
    reset();
}

void receive_poll::reset() {
    m_ring = frame_fifo{};
    m_deadline = m_irq_at = UINT64_MAX;
    m_num_open = 0;
    m_polls = m_aggregates = m_merged_frames = 0;
}

void receive_poll::hold(frame* f, uint64_t now) {
    f->enq_ps = now;
    f->host_bits |= host_rx_held;
    m_ring.push(f);
    // CQE-based moderation: each completion restarts the period; the count cuts a burst
    m_deadline = m_cfg.coalesce_frames && m_ring.frames >= m_cfg.coalesce_frames ? now : now + m_cfg.coalesce_ps;
    if (m_irq_at == UINT64_MAX || m_deadline < m_irq_at) {
        m_irq_at = m_deadline;
        m_owner->rx_interrupt_at(m_deadline);
    }
}

void receive_poll::on_interrupt(uint64_t now) {
    if (now != m_irq_at)   // superseded by an earlier request
        return;
    if (now < m_deadline) {   // frames came since it was asked for: the period restarted
        m_irq_at = m_deadline;
        m_owner->rx_interrupt_at(m_deadline);
        return;
    }
    m_irq_at = m_deadline = UINT64_MAX;
    ++m_polls;
    poll();
}

void receive_poll::poll() {
    frame* f = m_ring.head;
    m_ring = frame_fifo{};
    while (f) {
        frame* next = f->next;
        f->next = nullptr;
        receive(f);
        f = next;
    }
    while (m_num_open > 0)   // napi_complete_done: everything held goes up, oldest first
        flush(0);
}

void receive_poll::receive(frame* f) {
    f->host_bits = static_cast<uint8_t>(f->host_bits & ~host_gro_more);
    if (!m_cfg.gro_max_bytes || f->kind != frame_kind::tcp || f->payload == 0) {
        m_owner->rx_deliver(f);
        return;
    }
    int i = 0;
    while (i < m_num_open && m_open[i].flow != f->flow)
        ++i;
    if (i == m_num_open) {
        open(f);
        return;
    }
    aggregate& a = m_open[i];
    if (f->seq != a.next_seq) {   // out of order or a retransmission: what was held goes up, then this alone
        flush(i);
        m_owner->rx_deliver(f);
        return;
    }
    if (f->ecn != a.ecn || f->payload > a.first_payload || (f->flags & tcp_cwr) ||
        a.bytes + f->payload > m_cfg.gro_max_bytes) {
        flush(i);
        open(f);
        return;
    }
    a.tail->host_bits |= host_gro_more;
    a.tail->next = f;
    a.tail = f;
    a.next_seq += f->payload;
    a.bytes += f->payload;
    ++a.frames;
    if (f->payload < a.first_payload || (f->flags & tcp_psh))   // a short segment or the end of a write ends it
        flush(i);
}

void receive_poll::open(frame* f) {
    if (!m_open)
        m_open = std::make_unique<aggregate[]>(max_open);
    if (m_num_open == max_open)
        flush(0);
    aggregate& a = m_open[m_num_open++];
    a = aggregate{};
    a.head = a.tail = f;
    a.flow = f->flow;
    a.next_seq = f->seq + f->payload;
    a.bytes = f->bytes;
    a.first_payload = f->payload;
    a.frames = 1;
    a.ecn = f->ecn;
    if (f->flags & (tcp_cwr | tcp_psh))   // Linux merges nothing onto a CWR segment, nor after a PSH one
        flush(m_num_open - 1);
}

void receive_poll::flush(int i) {
    const aggregate a = m_open[i];
    for (int k = i + 1; k < m_num_open; ++k)
        m_open[k - 1] = m_open[k];
    --m_num_open;
    if (a.frames > 1) {
        ++m_aggregates;
        m_merged_frames += a.frames;
    }
    for (frame* f = a.head; f;) {
        frame* next = f->next;   // (the stack may release f)
        f->next = nullptr;
        m_owner->rx_deliver(f);
        f = next;
    }
}

}   // namespace cmswitch
