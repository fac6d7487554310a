// SPDX-License-Identifier: Apache-2.0
#include "traffic/tcp/tcp_receiver.h"

#include "config/errors.h"

#include <algorithm>
#include <iterator>

namespace cmswitch {

tcp_receiver::tcp_receiver(host_stack& host, uint32_t flow, int peer, shared_tcp_config cfg, tcp_stats& stats)
    : m_host(host), m_flow(flow), m_peer(peer), m_cfg_block(std::move(cfg)),
      m_cfg(m_cfg_block ? *m_cfg_block : throw config_error("tcp_receiver: no tcp_config (a null shared_tcp_config)")),
      m_stats(stats), m_feedback(find_congestion_control(m_cfg.transport).feedback) {
    host.bind(flow, this);
}

// A data segment, in four steps: its arrival counted, the ECN echo updated, its place in the sequence space, then
// an ACK at once or delayed.
void tcp_receiver::on_frame(frame* f, uint64_t now) {
    if (f->kind != frame_kind::tcp || f->payload == 0) {
        m_host.nic().pool().release(f);
        return;
    }
    const uint64_t seq = f->seq, end = f->seq + f->payload;
    const uint32_t payload = f->payload;
    const uint64_t tsval = f->ts_ps;
    const bool ce = f->ecn == ecn_ce;
    const bool cwr = (f->flags & tcp_cwr) != 0;
    const bool gro_more = (f->host_bits & host_gro_more) != 0;
    const bool psh = (f->flags & tcp_psh) != 0;
    count_arrival(*f, now);
    m_host.nic().pool().release(f);

    const bool ce_changed = track_ce(ce, cwr, now);
    // RFC 7323 4.3: TS.Recent follows segments at or below the last ACK sent, so that an ACK echoes the
    // timestamp of the segment that moved the window (a hole-filling retransmission, not data beyond a hole)
    if (seq <= m_last_ack_sent && tsval >= m_ts_recent)   // RFC 7323 TS.Recent (echoed in every ACK, below)
        m_ts_recent = tsval;
    if (!m_started) {   // Linux: quick-ACK mode for the first segments of a connection
        m_started = true;
        m_quick = m_cfg.quickacks;
    }
    const uint64_t before = m_rcv_nxt;
    const placement at = place(seq, end);
    if (m_rcv_nxt > before) {
        m_stats.bytes_delivered += m_rcv_nxt - before;
        if (m_listener)
            m_listener->on_delivered(m_flow, m_rcv_nxt, now);
    }
    ++m_unacked;
    m_unacked_bytes += payload;
    const bool read = m_rcv_nxt > before;
    if (gro_more || m_skb_len) {   // a GRO aggregate (Linux sees one skb): one ACK decision at its last frame
        m_ack_now = m_ack_now || at.immediate || ce_changed;
        m_read = m_read || read;
        if (at.dsack_end)
            m_dsack_end = at.dsack_end;
        if (!m_skb_len)
            m_skb_len = payload;   // its first frame's size, as GRO's gso_size
        if (gro_more)
            return;
        ack_or_delay(now, m_ack_now, m_dsack_end, m_skb_len, psh, m_read);
        m_ack_now = m_read = false;
        m_dsack_end = 0;
        m_skb_len = 0;
        return;
    }
    ack_or_delay(now, at.immediate || ce_changed, at.dsack_end, payload, psh, read);
}

void tcp_receiver::ack_or_delay(uint64_t now, bool immediate, uint64_t dsack_end, uint32_t skb_len, bool psh,
                                bool read) {
    if (!m_cfg.delayed_ack) {   // every segment acknowledged
        send_ack(now, ece(), dsack_end);
        return;
    }
    measure_rcv_mss(skb_len, psh);
    if (immediate || dsack_end || m_quick > 0 || m_unacked_bytes > m_cfg.mss || (m_pushed && read && m_ooo.empty())) {
        send_ack(now, ece(), dsack_end);
    } else {
        m_delack_deadline = now + m_cfg.delack_ps;
        if (!m_delack_pending) {
            m_delack_pending = true;
            m_host.nic().schedule_timer(m_delack_deadline, this, 0);
        }
    }
}

// Linux tcp_measure_rcv_mss: the receiver's estimate of the sender's MSS (from 536 B, TCP_MSS_DEFAULT, up to the
// largest skb seen), and ICSK_ACK_PUSHED: an skb shorter than it, or a full one with PSH (the end of a write), asks
// for an ACK once the application has read everything (tcp_cleanup_rbuf: the application here reads at once, and
// the connection is not interactive). Linux keeps an skb as short as the previous short one from counting; every
// model sender sends full segments but the last of a write, so that rule never applies.
void tcp_receiver::measure_rcv_mss(uint32_t len, bool psh) {
    if (len >= m_rcv_mss) {
        m_rcv_mss = std::min(len, m_cfg.mss);
        m_pushed = m_pushed || psh;
    } else {
        m_pushed = true;
    }
}

void tcp_receiver::count_arrival(const frame& f, uint64_t now) {
    const uint64_t delay = now - f.created_ps;
    if (f.host_bits & host_rx_held)   // its wait in the NIC's receive ring, from its arrival to the poll
        m_stats.rx_ring_wait_sum_ps += now - m_host.nic().latency_ps() - f.enq_ps;
    m_stats.rx_data_frames++;
    m_stats.rx_data_wire_bytes += f.bytes;
    m_stats.rx_delay_sum_ps += delay;
    m_stats.rx_delay_max_ps = std::max(m_stats.rx_delay_max_ps, delay);
}

bool tcp_receiver::track_ce(bool ce, bool cwr, uint64_t now) {
    if (m_feedback == ecn_feedback::per_segment) {
        if (ce == m_ce_state)
            return false;
        // DCTCP (RFC 8257 3.2, Linux dctcp_ece_ack_update): on a change of CE state, acknowledge what came before
        // with the old state at once, and this segment at once too (ICSK_ACK_NOW)
        if (m_unacked > 0)
            send_ack(now, m_ce_state);
        m_ce_state = ce;
        return true;
    }
    if (cwr)
        m_ece_latch = false;
    if (ce && !m_ece_latch)   // Linux: a first CE mark is ACKed without delay (the sender may have a small cwnd)
        m_quick = std::max<uint32_t>(m_quick, std::min<uint32_t>(2, m_cfg.quickacks));
    if (ce)
        m_ece_latch = true;
    return false;
}

namespace {
// bytes of [seq, end) within [first, second)
uint64_t overlap(uint64_t seq, uint64_t end, const std::pair<uint64_t, uint64_t>& b) {
    return b.first < end && b.second > seq ? std::min(end, b.second) - std::max(seq, b.first) : 0;
}
}   // namespace

// (the bytes of the segment received before are counted where the blocks they overlap are visited anyway: a
// retransmission that was not needed)
tcp_receiver::placement tcp_receiver::place(uint64_t seq, uint64_t end) {
    placement at;
    if (seq <= m_rcv_nxt && end > m_rcv_nxt) {   // in order
        uint64_t dup = m_rcv_nxt - seq;
        m_rcv_nxt = end;
        while (!m_ooo.empty() && m_ooo.front().first <= m_rcv_nxt) {
            dup += overlap(seq, end, m_ooo.front());
            m_rcv_nxt = std::max(m_rcv_nxt, m_ooo.front().second);
            m_ooo.erase(m_ooo.begin());
            at.immediate = true;   // a hole was filled
        }
        m_stats.duplicate_bytes_received += dup;
    } else if (seq > m_rcv_nxt) {   // out of order: a duplicate ACK at once
        uint64_t dup = 0;
        for (const auto& b : m_ooo) {
            dup += overlap(seq, end, b);
            if (m_cfg.dsack && b.first <= seq && end <= b.second)
                at.dsack_end = end;
        }
        m_stats.duplicate_bytes_received += dup;
        insert_out_of_order(seq, end);
        at.immediate = true;
        m_quick = m_cfg.quickacks;   // (Linux: quick-ACK mode while the hole lasts and after)
    } else {   // old duplicate
        m_stats.duplicate_bytes_received += end - seq;
        at.immediate = true;
        if (m_cfg.dsack)
            at.dsack_end = end;
        m_quick = m_cfg.quickacks;
    }
    return at;
}

void tcp_receiver::insert_out_of_order(uint64_t seq, uint64_t end) {
    auto it = std::lower_bound(m_ooo.begin(), m_ooo.end(), std::make_pair(seq, end));
    it = m_ooo.insert(it, {seq, end});
    // merge with neighbours
    if (it != m_ooo.begin() && std::prev(it)->second >= it->first) {
        std::prev(it)->second = std::max(std::prev(it)->second, it->second);
        it = std::prev(m_ooo.erase(it));
    }
    while (std::next(it) != m_ooo.end() && std::next(it)->first <= it->second) {
        it->second = std::max(it->second, std::next(it)->second);
        m_ooo.erase(std::next(it));
    }
    if (m_cfg.sack) {   // RFC 2018: the block holding the segment that triggered this ACK goes first
        m_sack_recent.erase(std::remove_if(m_sack_recent.begin(), m_sack_recent.end(),
                                           [&](uint64_t x) { return x >= it->first && x < it->second; }),
                            m_sack_recent.end());
        m_sack_recent.insert(m_sack_recent.begin(), seq);
    }
}

void tcp_receiver::on_timer(uint32_t) {
    m_delack_pending = false;
    if (m_unacked == 0)
        return;
    const uint64_t now = now_ps();
    if (now < m_delack_deadline) {
        m_delack_pending = true;
        m_host.nic().schedule_timer(m_delack_deadline, this, 0);
        return;
    }
    send_ack(now, ece());
}

void tcp_receiver::send_ack(uint64_t now, bool ece, uint64_t dsack_end) {
    frame* f = m_host.nic().pool().acquire();
    f->kind = frame_kind::tcp;
    f->flags = static_cast<uint8_t>(tcp_ack | (ece ? tcp_ece : 0) | (dsack_end ? tcp_dsack : 0));
    f->seq = dsack_end;
    f->ack = m_rcv_nxt;
    int n = 0;
    if (m_cfg.sack) {
        // the most recently received blocks first, each once; blocks now below rcv_nxt are forgotten
        const int max_blocks = m_cfg.max_sack_blocks_per_ack();
        size_t keep = 0;
        for (size_t i = 0; i < m_sack_recent.size(); ++i) {
            const uint64_t x = m_sack_recent[i];
            auto it = std::upper_bound(m_ooo.begin(), m_ooo.end(), std::make_pair(x, UINT64_MAX));
            if (it == m_ooo.begin() || std::prev(it)->second <= x)
                continue;   // acknowledged cumulatively by now
            --it;
            bool seen = false;
            for (int k = 0; k < n; ++k)
                seen |= f->sack[k].begin == it->first - m_rcv_nxt;
            if (seen)
                continue;
            m_sack_recent[keep++] = x;
            if (n < max_blocks) {
                f->sack[n].begin = static_cast<uint32_t>(it->first - m_rcv_nxt);
                f->sack[n].end = static_cast<uint32_t>(it->second - m_rcv_nxt);
                ++n;
            }
        }
        m_sack_recent.resize(keep);
        f->sack_blocks = static_cast<uint8_t>(n);
    }
    f->bytes = m_cfg.header_bytes + (m_cfg.timestamps ? tcp_config::timestamp_option_bytes : 0) +
               tcp_config::sack_option_bytes(n);
    // the echo rides every ACK: with timestamps it is the option (its bytes counted above); without, it stands
    // for the send-time record a sender keeps per segment (Linux does), which the ACK does not carry
    f->ts_ps = m_ts_recent;
    f->src = static_cast<uint16_t>(m_host.host_id());
    f->dst = static_cast<uint16_t>(m_peer);
    f->flow = m_flow;
    f->prio = m_cfg.prio;
    f->created_ps = now;
    m_host.name_peer(f, m_peer_ep);
    m_last_ack_sent = m_rcv_nxt;
    m_quick -= std::min(m_quick, m_unacked);   // Linux tcp_dec_quickack_mode: by the segments this ACK covers
    m_pushed = false;   // (Linux clears icsk_ack.pending with the delayed-ACK timer when an ACK goes)
    m_unacked = 0;
    m_unacked_bytes = 0;
    m_stats.acks_sent++;
    m_host.nic().send(f);
}

}   // namespace cmswitch
