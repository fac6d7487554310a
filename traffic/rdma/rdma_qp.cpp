// SPDX-License-Identifier: Apache-2.0
#include "traffic/rdma/rdma_qp.h"

#include "model/control_frames.h"
#include "model/frame_protocol.h"

#include <algorithm>

namespace cmswitch {

rdma_sender::rdma_sender(host_stack& host, uint32_t flow, int dst, const rdma_config& cfg, rdma_stats& stats)
    : m_host(host), m_flow(flow), m_dst(dst), m_cfg(cfg), m_stats(stats) {
    host.bind(flow, this);
}

void rdma_sender::start(uint64_t at_ps) {
    m_host.nic().schedule_timer(at_ps, this, tag_start);
}

void rdma_sender::send(uint64_t now) {
    if (!m_started)
        return;
    host_nic& nic = m_host.nic();
    const uint32_t full = m_cfg.frame_bytes();
    while (m_nxt < end()) {
        if (nic.room(m_flow) < full) {
            nic.want_room(m_flow);
            return;
        }
        const uint32_t payload = static_cast<uint32_t>(std::min<uint64_t>(m_cfg.mtu, end() - m_nxt));
        frame* f = nic.pool().acquire();
        f->kind = frame_kind::rdma;
        f->bytes = payload + rdma_config::header_bytes;
        f->payload = payload;
        f->src = static_cast<uint16_t>(m_host.host_id());
        f->dst = static_cast<uint16_t>(m_dst);
        f->prio = m_cfg.prio;
        f->ecn = ecn_ect0;
        f->flow = m_flow;
        f->seq = m_nxt;
        f->created_ps = now;
        if (m_nxt < m_high)
            m_stats.retransmitted_bytes += payload;
        m_stats.bytes_sent += payload;
        m_nxt += payload;
        m_high = std::max(m_high, m_nxt);
        if (m_rto_deadline == 0)
            arm_rto(now);
        if (!nic.send(f, true))
            return;   // the NIC's queue limit dropped it: go-back-N recovers at the timeout (and the loop ends)
    }
}

void rdma_sender::arm_rto(uint64_t now) {
    m_rto_deadline = now + m_cfg.rto_ps;
    if (m_rto_deadline < m_rto_entry) {
        m_rto_entry = m_rto_deadline;
        m_host.nic().schedule_timer(m_rto_deadline, this, tag_rto);
    }
}

void rdma_sender::on_frame(frame* f, uint64_t now) {
    const uint64_t ack = f->ack;
    const bool nack = (f->flags & rdma_nack) != 0;
    m_host.nic().pool().release(f);
    if (ack > m_una && ack <= m_high) {
        m_una = ack;
        if (m_nxt < m_una)
            m_nxt = m_una;
        m_rto_deadline = 0;
        if (m_una < m_high)
            arm_rto(now);
        if (m_una == end() && !m_stats.done_ps)
            m_stats.done_ps = now;
    }
    if (nack && ack == m_una && m_nxt > m_una) {   // go back to the first byte the responder is missing
        ++m_stats.nacks;
        m_nxt = m_una;
        send(now);
    }
}

void rdma_sender::on_timer(uint32_t tag) {
    const uint64_t now = now_ps();
    if (tag == tag_start) {
        m_started = true;
        m_stats.start_ps = now;
        send(now);
        return;
    }
    if (now == m_rto_entry)
        m_rto_entry = UINT64_MAX;
    if (m_rto_deadline == 0)
        return;
    if (now < m_rto_deadline) {
        if (m_rto_deadline < m_rto_entry) {
            m_rto_entry = m_rto_deadline;
            m_host.nic().schedule_timer(m_rto_deadline, this, tag_rto);
        }
        return;
    }
    ++m_stats.timeouts;   // no progress for rto: go back to the first unacknowledged byte
    m_rto_deadline = 0;
    m_nxt = m_una;
    arm_rto(now);
    send(now);
}

rdma_receiver::rdma_receiver(host_stack& host, uint32_t flow, const rdma_config& cfg, rdma_stats& stats)
    : m_host(host), m_cfg(cfg), m_stats(stats) {
    host.bind(flow, this);
}

void rdma_receiver::reply(const frame& about, uint8_t flags, uint64_t now) {
    frame* a = m_host.nic().pool().acquire();
    a->kind = frame_kind::rdma;
    a->flags = flags;
    a->bytes = min_frame_bytes;
    a->src = about.dst;
    a->dst = about.src;
    a->prio = control_priority;
    a->flow = about.flow;
    a->ack = m_expected;
    a->created_ps = now;
    m_host.nic().send(a, false);
}

void rdma_receiver::on_frame(frame* f, uint64_t now) {
    if (f->seq == m_expected) {
        m_expected += f->payload;
        m_stats.bytes_delivered += f->payload;
        const bool last = m_cfg.message_bytes && m_expected >= m_cfg.message_bytes;
        if (++m_unacked >= m_cfg.ack_every || last) {
            m_unacked = 0;
            reply(*f, rdma_ack, now);
        }
        m_dup_acked = false;
    } else if (f->seq > m_expected) {
        if (m_nacked != m_expected) {   // a gap: ask once for what is missing
            m_nacked = m_expected;
            reply(*f, rdma_nack, now);
        }
    } else if (!m_dup_acked) {   // a duplicate: the requester missed an ACK and went back; tell it once
        m_dup_acked = true;
        reply(*f, rdma_ack, now);
    }
    m_host.nic().pool().release(f);
}

}   // namespace cmswitch
