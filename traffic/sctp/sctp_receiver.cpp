// SPDX-License-Identifier: Apache-2.0
#include "traffic/sctp/sctp_receiver.h"

#include <algorithm>

namespace cmswitch {

sctp_receiver::sctp_receiver(host_stack& host, uint32_t flow, int peer, const sctp_config& cfg, sctp_stats& stats)
    : sctp_endpoint(host, flow, peer, cfg, stats) {}

void sctp_receiver::on_new_association(uint32_t initial_tsn, uint64_t) {
    if (initial_tsn == 0)
        return;   // the connecting end before it knows the sender's TSNs
    m_next = initial_tsn;
    m_ooo.clear();
    m_delivered = 0;
    m_unacked = 0;
    m_ecne = false;
    m_ce_count = 0;
}

void sctp_receiver::on_frame(frame* f, uint64_t now) {
    if (f->kind != frame_kind::sctp) {
        m_host.nic().pool().release(f);
        return;
    }
    if (f->flags & (sctp_init | sctp_init_ack | sctp_cookie_echo | sctp_cookie_ack)) {
        on_handshake(f, now);
        return;
    }
    const uint8_t flags = f->flags;
    const uint32_t first = static_cast<uint32_t>(f->seq), n = f->ctl.sctp.chunks;
    const uint32_t cwr_tsn = f->ctl.sctp.tsn;
    const uint64_t payload = f->payload;
    const bool ce = f->ecn == ecn_ce;
    m_host.nic().pool().release(f);
    if (m_state == state::cookie_echoed)
        set_established(0, now);   // data proves the association up (the COOKIE-ACK may be lost)
    if ((flags & sctp_cwr) && m_ecne && cwr_tsn >= m_ecne_tsn) {
        m_ecne = false;
        m_ce_count = 0;
    }
    if (!(flags & sctp_data) || n == 0)
        return;
    const uint32_t end = first + n;
    if (ce) {
        m_ecne = true;
        m_ecne_tsn = std::max(m_ecne_tsn, end - 1);
        ++m_ce_count;
    }
    bool immediate = false;
    const uint64_t before = m_delivered;
    if (end <= m_next) {
        immediate = true;   // duplicate
    } else if (first <= m_next) {
        m_delivered += payload;   // (a packet is never split across the cumulative point: chunks go whole)
        m_next = end;
        while (!m_ooo.empty() && m_ooo.front().begin <= m_next) {
            if (m_ooo.front().end > m_next) {
                m_next = m_ooo.front().end;
                m_delivered += m_ooo.front().bytes;
            }
            m_ooo.erase(m_ooo.begin());
            immediate = true;   // a gap filled
        }
    } else {
        auto it =
            std::lower_bound(m_ooo.begin(), m_ooo.end(), first, [](const range& r, uint32_t t) { return r.end < t; });
        if (it != m_ooo.end() && it->begin <= first && it->end >= end) {
            // duplicate inside a block
        } else if (it != m_ooo.end() && it->end == first) {
            it->end = end;
            it->bytes += payload;
            auto nx = std::next(it);
            if (nx != m_ooo.end() && nx->begin == it->end) {
                it->end = nx->end;
                it->bytes += nx->bytes;
                m_ooo.erase(nx);
            }
        } else if (it != m_ooo.end() && it->begin == end) {
            it->begin = first;
            it->bytes += payload;
        } else {
            m_ooo.insert(it, range{first, end, payload});
        }
        immediate = true;   // out of order: report the gap at once
    }
    if (m_delivered > before) {
        m_stats.bytes_delivered += m_delivered - before;
        if (m_listener)
            m_listener->on_delivered(m_flow, m_delivered, now);
    }
    ++m_unacked;
    if (immediate || !m_cfg.delayed_sack || m_unacked >= 2 || !m_ooo.empty()) {
        send_sack(now);
    } else if (!m_sack_pending) {
        m_sack_pending = true;
        ++m_sack_gen;
        m_host.nic().schedule_timer(now + m_cfg.sack_delay_ps, this, timer_sack | (m_sack_gen << timer_kind_bits));
    }
}

void sctp_receiver::on_timer_kind(uint32_t kind, uint32_t gen, uint64_t now) {
    if (kind != timer_sack || !m_sack_pending || gen != (m_sack_gen & (~0u >> timer_kind_bits)))
        return;
    send_sack(now);
}

void sctp_receiver::send_sack(uint64_t) {
    m_sack_pending = false;
    ++m_sack_gen;
    m_unacked = 0;
    const int n = std::min<int>(static_cast<int>(m_ooo.size()), sctp_config::max_gap_blocks);
    uint32_t bytes = sctp_config::packet_header_bytes + sctp_config::sack_chunk_bytes + 4 * static_cast<uint32_t>(n);
    if (m_ecne)
        bytes += sctp_config::ecne_chunk_bytes;
    frame* f = make_packet(static_cast<uint8_t>(sctp_sack | (m_ecne ? sctp_ecne : 0)), bytes);
    f->ack = m_next;
    f->sack_blocks = static_cast<uint8_t>(n);
    for (int i = 0; i < n; ++i)
        f->sack[i] = {m_ooo[static_cast<size_t>(i)].begin - m_next, m_ooo[static_cast<size_t>(i)].end - m_next};
    if (m_ecne) {
        f->ctl.sctp.tsn = m_ecne_tsn;
        f->ctl.sctp.ce_packets = m_ce_count;
    }
    ++m_stats.sacks_sent;
    m_host.nic().send(f);
}

}   // namespace cmswitch
