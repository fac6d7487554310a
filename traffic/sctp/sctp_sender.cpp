// SPDX-License-Identifier: Apache-2.0
#include "traffic/sctp/sctp_sender.h"

#include <algorithm>

namespace cmswitch {

sctp_sender::sctp_sender(host_stack& host, uint32_t flow, int dst, const sctp_config& cfg, sctp_stats& stats)
    : sctp_endpoint(host, flow, dst, cfg, stats), m_cc(make_sctp_congestion_control(cfg.congestion_control)) {
    on_new_association(m_next_tsn, 0);
}

void sctp_sender::on_new_association(uint32_t, uint64_t) {
    // a new association starts from the next TSN; what the old one left unacknowledged is forgotten (an
    // association ends only when all its data is acknowledged, so the applications here never leave any)
    m_chunks.clear();
    m_base = m_next_tsn;
    m_highest_sent = m_next_tsn - 1;
    m_flight = 0;
    m_rtx_count = 0;
    m_gaps = sack_scoreboard();
    m_in_fr = false;
    m_timing = false;
    m_t3_armed = false;
    const uint64_t mtu = m_cfg.mtu;
    m_w.cwnd =
        m_cfg.initial_cwnd_mtus ? m_cfg.initial_cwnd_mtus * mtu : std::min(4 * mtu, std::max<uint64_t>(2 * mtu, 4380));
    m_w.ssthresh = UINT32_MAX;   // "arbitrarily high" (the peer's receive window: unlimited here)
    m_pba = 0;
    m_cwr_window_tsn = m_highest_sent;
    m_ce_seen = 0;
    m_cwr_pending = false;
}

void sctp_sender::write(uint64_t size, uint64_t count) {
    if (size == 0 || count == 0)
        return;
    if (!m_app.empty() && m_app.back().size == size && (m_app.size() > 1 || m_app.back().offset == 0))
        m_app.back().count += count;
    else
        m_app.push_back({size, count, 0});
    m_app_bytes += size * count;
    if (established())
        try_send(now_ps());
}

uint32_t sctp_sender::next_chunk_len() const {
    const message_run& r = m_app.front();
    return static_cast<uint32_t>(std::min<uint64_t>(r.size - r.offset, m_cfg.max_chunk_payload()));
}

void sctp_sender::take_chunk(uint32_t len) {
    message_run& r = m_app.front();
    r.offset += len;
    m_app_bytes -= len;
    if (r.offset == r.size) {
        r.offset = 0;
        if (--r.count == 0)
            m_app.pop_front();
    }
}

void sctp_sender::on_frame(frame* f, uint64_t now) {
    if (f->kind != frame_kind::sctp) {
        m_host.nic().pool().release(f);
        return;
    }
    if (f->flags & (sctp_init | sctp_init_ack | sctp_cookie_echo | sctp_cookie_ack)) {
        const bool was_up = established();
        on_handshake(f, now);
        if (!was_up && established())
            try_send(now);
        return;
    }
    if (f->flags & sctp_sack) {
        on_sack(f, now);
        return;
    }
    m_host.nic().pool().release(f);
}

// ------------------------------------------------------------------------------------------------ sending

uint32_t sctp_sender::send_packet(uint32_t tsn, bool rtx, uint64_t now) {
    const uint32_t mtu = m_cfg.mtu;
    uint32_t bytes = sctp_config::packet_header_bytes;
    const bool cwr = m_cwr_pending;
    if (cwr)
        bytes += sctp_config::cwr_chunk_bytes;
    const uint32_t first = tsn;
    uint32_t n = 0, payload = 0;
    for (;;) {
        uint32_t len;
        if (rtx) {
            if (tsn >= m_next_tsn || !chunk_at(tsn).rtx)
                break;
            len = chunk_at(tsn).len;
        } else {
            if (m_app_bytes == 0)
                break;
            len = next_chunk_len();
        }
        const uint32_t size = sctp_config::data_chunk_header_bytes + ((len + 3) & ~3u);
        if (n > 0 && (rtx || bytes + size > mtu))
            break;   // retransmissions go one chunk per packet, so that no packet overlaps what arrived
        if (!rtx) {
            take_chunk(len);
            m_chunks.push_back(chunk{len, 0, 0, 0, 0, false, false, false, false});
            ++m_next_tsn;
        }
        chunk& c = chunk_at(tsn);
        if (rtx) {
            c.rtx = false;
            --m_rtx_count;
            ++m_stats.retransmitted_chunks;
            if (m_timing && m_timed_tsn == tsn)
                m_timing = false;   // Karn
        } else if (!m_timing) {
            m_timing = true;
            m_timed_tsn = tsn;
            m_timed_ps = now;
        }
        ++c.sends;
        c.sent_ps = now;
        c.cwnd_at_send = static_cast<uint32_t>(std::min<uint64_t>(m_w.cwnd, UINT32_MAX));
        c.in_flight = true;
        c.misses = 0;
        m_flight += len;
        bytes += size;
        payload += len;
        ++n;
        ++tsn;
    }
    if (n == 0)
        return tsn;
    m_highest_sent = std::max(m_highest_sent, tsn - 1);
    frame* f = make_packet(static_cast<uint8_t>(sctp_data | (cwr ? sctp_cwr : 0)), bytes);
    f->seq = first;
    f->payload = payload;
    f->ctl.sctp.chunks = n;
    f->ctl.sctp.tsn = m_highest_sent;
    f->ecn = m_cc->ecn_capable() ? ecn_ect0 : ecn_not_ect;
    f->ts_ps = now;
    m_cwr_pending = false;
    ++m_stats.packets_sent;
    m_stats.data_chunks_sent += n;
    m_stats.bytes_sent += payload;
    m_host.nic().send(f);
    if (!m_t3_armed)
        arm_t3(now);
    return tsn;
}

void sctp_sender::try_send(uint64_t now, bool force_one) {
    if (!established())
        return;
    // retransmissions first (7.2.4 step 3 / 6.3.3 E3: the first packet goes whatever cwnd says)
    uint32_t scan = m_base;
    while (m_rtx_count > 0) {
        if (!force_one && m_flight >= m_w.cwnd)
            return;
        while (scan < m_next_tsn && !chunk_at(scan).rtx)
            ++scan;
        if (scan >= m_next_tsn)
            break;
        scan = send_packet(scan, true, now);
        force_one = false;
    }
    while (m_app_bytes > 0 && (force_one || m_flight < m_w.cwnd)) {   // 6.1 rule B
        send_packet(m_next_tsn, false, now);
        force_one = false;
    }
    if (m_cwr_pending && m_app_bytes == 0 && m_rtx_count == 0) {   // no data will carry it: a packet of its own
        frame* f = make_packet(sctp_cwr, sctp_config::packet_header_bytes + sctp_config::cwr_chunk_bytes);
        f->ctl.sctp.tsn = m_highest_sent;
        m_host.nic().send(f);
        m_cwr_pending = false;
    }
}

// ------------------------------------------------------------------------------------------------ SACK

void sctp_sender::on_ecne(uint32_t tsn, uint32_t count, uint64_t) {
    m_cwr_pending = true;   // every ECNE is answered (the receiver repeats it until a CWR covers its TSN)
    const uint32_t marked = count > m_ce_seen ? count - m_ce_seen : (count < m_ce_seen ? count : 0);
    m_ce_seen = count;
    if (marked == 0 || !m_cc->ecn_capable())
        return;
    ++m_stats.ecn_echoes;
    sctp_ecn_echo e;
    e.in_window = tsn <= m_cwr_window_tsn;
    e.marked = marked;
    e.cwnd_at_send = tsn >= m_base && tsn < m_next_tsn ? chunk_at(tsn).cwnd_at_send : 0;
    e.local_lan = local_lan();
    const bool dccc = m_cc->per_mark(e);
    if (m_cc->on_ecn_echo(m_w, e, m_cfg.mtu))
        m_rto = std::min(2 * m_rto, m_cfg.rto_max_ps);
    if (!e.in_window) {
        m_cwr_window_tsn = m_highest_sent;
        ++m_stats.ecn_window_cuts;
    } else if (dccc) {
        ++m_stats.ecn_in_window_cuts;
    }
}

void sctp_sender::on_sack(frame* f, uint64_t now) {
    const uint32_t ack = static_cast<uint32_t>(f->ack);   // next TSN expected
    const int nblocks = std::min<int>(f->sack_blocks, sctp_config::max_gap_blocks);
    sack_scoreboard::range blocks[sctp_config::max_gap_blocks];
    for (int i = 0; i < nblocks; ++i)
        blocks[i] = {uint64_t{ack} + f->sack[i].begin, uint64_t{ack} + f->sack[i].end};
    const bool ecne = (f->flags & sctp_ecne) != 0;
    const uint32_t ecne_tsn = f->ctl.sctp.tsn, ecne_count = f->ctl.sctp.ce_packets;
    m_host.nic().pool().release(f);
    if (!established())
        return;
    if (ecne)   // before the chunks it may name are freed
        on_ecne(ecne_tsn, ecne_count, now);
    if (ack < m_base || ack > m_next_tsn) {   // an old SACK (6.2.1: ignored) or nonsense
        try_send(now);
        return;
    }
    const uint64_t flight_before = m_flight;
    const bool cum_advanced = ack > m_base;
    sack_progress got;
    ack_cumulative(ack, now, got);
    ack_gap_blocks(blocks, nblocks, now, got);
    m_gaps.update(m_base, m_next_tsn, blocks, nblocks);
    const bool fast = got.have_htna && !m_gaps.empty() && count_misses(got.htna);
    if (m_in_fr && m_base > m_fr_exit)
        m_in_fr = false;
    if (fast && !m_in_fr)
        enter_fast_recovery();
    if (cum_advanced && !m_in_fr)
        grow_window(got.bytes_acked, flight_before);
    if (m_chunks.empty())
        m_pba = 0;
    // T3 (6.3.2 R2, R3)
    if (m_flight == 0 && m_rtx_count == 0)
        m_t3_armed = false;
    else if (cum_advanced)
        arm_t3(now);
    try_send(now, fast);
    if (cum_advanced && idle() && m_listener)
        m_listener->on_send_complete(m_flow, now);
}

// The chunks below the cumulative TSN ack leave the send queue.
void sctp_sender::ack_cumulative(uint32_t ack, uint64_t now, sack_progress& got) {
    const bool advanced = ack > m_base;
    while (m_base < ack) {
        chunk& c = m_chunks.front();
        if (!c.gap_acked)
            got.bytes_acked += c.len;
        if (c.in_flight)
            m_flight -= c.len;
        if (c.rtx)
            --m_rtx_count;
        if (m_timing && m_timed_tsn == m_base) {
            if (c.sends == 1)
                rtt_sample(now - m_timed_ps);
            m_timing = false;
        }
        m_chunks.pop_front();
        ++m_base;
    }
    if (advanced) {
        got.htna = ack - 1;
        got.have_htna = true;
    }
}

// Gap blocks: visits only TSNs not gap-acked before (the scoreboard holds those that were).
void sctp_sender::ack_gap_blocks(const sack_scoreboard::range* blocks, int nblocks, uint64_t now, sack_progress& got) {
    for (int i = 0; i < nblocks; ++i) {
        const uint64_t b = std::max<uint64_t>(blocks[i].first, m_base);
        const uint64_t e = std::min<uint64_t>(blocks[i].second, m_next_tsn);
        for (uint64_t t = m_gaps.skip(b); t < e; t = m_gaps.skip(t)) {
            const uint64_t stop = m_gaps.clip(t, e);
            for (; t < stop; ++t) {
                chunk& c = chunk_at(static_cast<uint32_t>(t));
                if (c.gap_acked)
                    continue;
                c.gap_acked = true;
                got.bytes_acked += c.len;
                if (c.in_flight) {
                    m_flight -= c.len;
                    c.in_flight = false;
                }
                if (c.rtx) {
                    c.rtx = false;
                    --m_rtx_count;
                }
                if (m_timing && m_timed_tsn == t) {
                    if (c.sends == 1)
                        rtt_sample(now - m_timed_ps);
                    m_timing = false;
                }
                got.htna = std::max(got.htna, static_cast<uint32_t>(t));
                got.have_htna = true;
            }
        }
    }
}

// 7.2.4: a miss indication for every chunk in flight below the highest TSN newly acknowledged; the third marks it
// for fast retransmission (once). True if any was marked.
bool sctp_sender::count_misses(uint32_t htna) {
    bool fast = false;
    for (uint64_t t = m_gaps.skip(m_base); t < htna; t = m_gaps.skip(t)) {
        const uint64_t stop = m_gaps.clip(t, htna);
        for (; t < stop; ++t) {
            chunk& c = chunk_at(static_cast<uint32_t>(t));
            if (!c.in_flight)
                continue;
            if (++c.misses >= 3 && !c.fast_retransmitted) {
                c.fast_retransmitted = true;
                c.in_flight = false;
                c.rtx = true;
                m_flight -= c.len;
                ++m_rtx_count;
                fast = true;
            }
        }
    }
    return fast;
}

// 7.2.4: ssthresh = max(cwnd / 2, 4 MTU), cwnd = ssthresh, until the highest TSN sent now is acknowledged.
void sctp_sender::enter_fast_recovery() {
    m_in_fr = true;
    m_fr_exit = m_highest_sent;
    m_w.ssthresh = std::max(m_w.cwnd / 2, 4 * uint64_t{m_cfg.mtu});
    m_w.cwnd = m_w.ssthresh;
    m_pba = 0;
    ++m_stats.fast_retransmits;
}

// 7.2.1 slow start (by at most abc_l MTU per SACK) and 7.2.2 congestion avoidance (one MTU per cwnd acknowledged),
// only while the window was in full use.
void sctp_sender::grow_window(uint64_t bytes_acked, uint64_t flight_before) {
    const uint64_t mtu = m_cfg.mtu;
    if (m_w.cwnd <= m_w.ssthresh) {
        if (flight_before >= m_w.cwnd)
            m_w.cwnd += std::min<uint64_t>(bytes_acked, m_cfg.abc_l * mtu);
    } else {
        m_pba += bytes_acked;
        if (m_pba >= m_w.cwnd && flight_before >= m_w.cwnd) {
            m_pba -= m_w.cwnd;
            m_w.cwnd += mtu;
        }
    }
}

// ------------------------------------------------------------------------------------------------ T3-rtx

void sctp_sender::arm_t3(uint64_t now) {
    m_t3_armed = true;
    m_t3_deadline = now + m_rto;
    if (m_t3_entry_pending && m_t3_entry_ps <= m_t3_deadline)
        return;   // that entry moves itself to the later deadline
    ++m_t3_gen;
    m_t3_entry_pending = true;
    m_t3_entry_ps = m_t3_deadline;
    m_host.nic().schedule_timer(m_t3_deadline, this, timer_t3 | (m_t3_gen << timer_kind_bits));
}

void sctp_sender::on_timer_kind(uint32_t kind, uint32_t gen, uint64_t now) {
    if (kind != timer_t3 || gen != (m_t3_gen & (~0u >> timer_kind_bits)))
        return;
    m_t3_entry_pending = false;
    if (!m_t3_armed)
        return;
    if (now < m_t3_deadline) {
        ++m_t3_gen;
        m_t3_entry_pending = true;
        m_t3_entry_ps = m_t3_deadline;
        m_host.nic().schedule_timer(m_t3_deadline, this, timer_t3 | (m_t3_gen << timer_kind_bits));
        return;
    }
    on_t3(now);
}

void sctp_sender::on_t3(uint64_t now) {
    ++m_stats.t3_timeouts;
    const uint64_t mtu = m_cfg.mtu;
    m_w.ssthresh = std::max(m_w.cwnd / 2, 4 * mtu);   // 7.2.3
    m_w.cwnd = mtu;
    m_pba = 0;
    m_rto = std::min(2 * m_rto, m_cfg.rto_max_ps);   // 6.3.3 E2
    for (uint32_t t = m_base; t < m_next_tsn; ++t) {   // E3: every outstanding chunk is marked
        chunk& c = chunk_at(t);
        if (c.in_flight) {
            c.in_flight = false;
            c.rtx = true;
            m_flight -= c.len;
            ++m_rtx_count;
        }
        c.misses = 0;
    }
    m_in_fr = false;
    m_timing = false;
    m_t3_armed = false;
    // one packet now (E3), the rest as cwnd allows when SACKs arrive
    uint32_t t = m_base;
    while (t < m_next_tsn && !chunk_at(t).rtx)
        ++t;
    if (t < m_next_tsn)
        send_packet(t, true, now);
    else
        try_send(now, true);
}

}   // namespace cmswitch
