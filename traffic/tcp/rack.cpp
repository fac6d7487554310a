// SPDX-License-Identifier: Apache-2.0
#include "traffic/tcp/rack.h"

#include <algorithm>

namespace cmswitch {

void rack_scoreboard::clear() {
    m_segs.clear();
    m_sacked = m_lost = m_rexmit_out = m_unrepaired = 0;
    m_sacked_segs = 0;
    m_retrans_top = m_high_sacked = 0;
    m_xmit = m_end = m_rtt = 0;
    m_min_rtt = UINT64_MAX;
    m_advanced = m_reord = false;
}

size_t rack_scoreboard::first_at_or_above(uint64_t seq) const {
    return m_segs.partition_point([seq](const segment& s) { return s.end <= seq; });
}

void rack_scoreboard::split(size_t i, uint64_t at) {
    segment upper = m_segs[i];
    m_segs[i].end = at;
    upper.begin = at;
    m_segs.insert(i + 1, upper);
}

void rack_scoreboard::set_flags(segment& s, uint8_t flags) {
    const uint64_t len = s.end - s.begin;
    auto count = [&](uint8_t f, int sign) {
        const auto add = [sign, len](uint64_t& c) { c = sign > 0 ? c + len : c - len; };
        if (f & sacked) {
            add(m_sacked);
            m_sacked_segs = sign > 0 ? m_sacked_segs + 1 : m_sacked_segs - 1;
        } else {
            if (f & lost)
                add(m_lost);
            if (f & rexmit_out)
                add(m_rexmit_out);
            else if (f & lost)
                add(m_unrepaired);
        }
    };
    count(s.flags, -1);
    s.flags = flags;
    count(s.flags, +1);
}

void rack_scoreboard::on_send(uint64_t seq, uint64_t len, uint64_t now, bool retransmission) {
    const uint64_t end = seq + len;
    if (m_segs.empty() || seq >= m_segs.back().end) {
        m_segs.push_back({seq, end, now, 0});
        return;
    }
    size_t i = first_at_or_above(seq);
    if (i < m_segs.size() && m_segs[i].begin < seq)
        split(i++, seq);
    for (; i < m_segs.size() && m_segs[i].begin < end; ++i) {
        if (m_segs[i].end > end)
            split(i, end);
        segment& s = m_segs[i];
        s.xmit_ps = now;
        if (!(s.flags & sacked))
            set_flags(s, static_cast<uint8_t>(s.flags | (retransmission ? retransmitted | rexmit_out : 0)));
        m_retrans_top = std::max(m_retrans_top, s.end);
    }
    if (end > m_segs.back().end)   // (a retransmission reaching past the data sent: the rest is new)
        m_segs.push_back({m_segs.back().end, end, now, 0});
}

void rack_scoreboard::delivered(const segment& s, uint64_t now, uint64_t tsecr) {
    if (s.xmit_ps > now)
        return;
    const uint64_t rtt = now - s.xmit_ps;
    if (s.flags & retransmitted) {
        // ambiguous: the ACK may answer an earlier transmission (RFC 8985 6.2 step 2)
        if ((tsecr && tsecr < s.xmit_ps) || (m_min_rtt != UINT64_MAX && rtt < m_min_rtt))
            return;
    } else {
        m_min_rtt = std::min(m_min_rtt, rtt);
    }
    m_rtt = rtt;
    m_advanced = true;
    if (s.xmit_ps > m_xmit || (s.xmit_ps == m_xmit && s.end > m_end)) {
        m_xmit = s.xmit_ps;
        m_end = s.end;
    }
}

uint64_t rack_scoreboard::on_ack(uint64_t ack, const range* sack, int n, uint64_t now, uint64_t tsecr) {
    m_advanced = false;
    uint64_t newly = 0;
    const uint64_t high_sacked_before = m_high_sacked;
    auto deliver = [&](segment& s) {
        if (s.flags & sacked)
            return;
        newly += s.end - s.begin;
        if (!(s.flags & retransmitted) && s.end <= high_sacked_before)
            m_reord = true;   // an original transmission delivered after data sent later: reordering
        delivered(s, now, tsecr);
    };
    if (!m_segs.empty() && m_segs.front().begin < ack && m_segs.front().end > ack)
        split(0, ack);
    while (!m_segs.empty() && m_segs.front().end <= ack) {
        deliver(m_segs.front());
        set_flags(m_segs.front(), 0);
        m_segs.pop_front();
    }
    if (m_segs.empty() || m_segs.front().begin >= m_retrans_top)
        m_retrans_top = 0;
    for (int k = 0; k < n; ++k) {
        const uint64_t b = std::max(sack[k].begin, ack);
        const uint64_t e = sack[k].end;
        if (e <= b)
            continue;
        size_t i = first_at_or_above(b);
        if (i < m_segs.size() && m_segs[i].begin < b && !(m_segs[i].flags & sacked))
            split(i++, b);
        for (; i < m_segs.size() && m_segs[i].begin < e; ++i) {
            if (m_segs[i].end > e) {
                if (m_segs[i].flags & sacked)
                    break;
                split(i, e);
            }
            segment& s = m_segs[i];
            deliver(s);
            if (!(s.flags & sacked))
                set_flags(s, static_cast<uint8_t>((s.flags | sacked) & ~(lost | rexmit_out)));
        }
        m_high_sacked = std::max(m_high_sacked, e);
    }
    return newly;
}

uint64_t rack_scoreboard::detect_loss(uint64_t now, uint64_t reo_wnd_ps, uint64_t* timeout_ps) {
    uint64_t newly = 0, wait = 0;
    for (size_t i = 0; i < m_segs.size(); ++i) {
        segment& s = m_segs[i];
        if (s.flags & sacked)
            continue;
        const bool sent_before_rack = s.xmit_ps < m_xmit || (s.xmit_ps == m_xmit && s.end < m_end);
        if (!sent_before_rack) {
            // original transmissions go out in sequence order: past this one, only retransmissions can be older
            if (!(s.flags & retransmitted) && s.begin >= m_retrans_top)
                break;
            continue;
        }
        if ((s.flags & lost) && !(s.flags & rexmit_out))
            continue;   // lost already, not retransmitted since
        const uint64_t deadline = s.xmit_ps + m_rtt + reo_wnd_ps;
        if (deadline <= now) {
            newly += s.end - s.begin;
            set_flags(s, static_cast<uint8_t>((s.flags | lost) & ~rexmit_out));
        } else {
            wait = std::max(wait, deadline - now);
        }
    }
    if (timeout_ps)
        *timeout_ps = wait;
    return newly;
}

void rack_scoreboard::mark_all_lost() {
    for (size_t i = 0; i < m_segs.size(); ++i) {
        segment& s = m_segs[i];
        if (!(s.flags & sacked))
            set_flags(s, static_cast<uint8_t>((s.flags | lost) & ~rexmit_out));
    }
}

uint64_t rack_scoreboard::reo_wnd(bool in_recovery, uint64_t srtt_ps, uint32_t dup_thresh) const {
    if (!m_reord && (in_recovery || m_sacked_segs >= dup_thresh))
        return 0;
    const uint64_t quarter = m_min_rtt == UINT64_MAX ? srtt_ps : m_min_rtt / 4;
    return std::min(quarter, srtt_ps);
}

bool rack_scoreboard::next_lost(uint64_t from, uint64_t& seq, uint64_t& len) const {
    if (m_unrepaired == 0)
        return false;   // nothing waits (the common case: no search per ACK)
    for (size_t i = first_at_or_above(from); i < m_segs.size(); ++i) {
        const segment& s = m_segs[i];
        if ((s.flags & lost) && !(s.flags & (sacked | rexmit_out))) {
            seq = std::max(s.begin, from);
            len = s.end - seq;
            return true;
        }
    }
    return false;
}

}   // namespace cmswitch
