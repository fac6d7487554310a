// SPDX-License-Identifier: Apache-2.0
#include "traffic/tcp.h"

#include "model/errors.h"

#include <algorithm>
#include <cmath>

namespace cmswitch {

tcp_config::cc parse_congestion_control(const std::string& name) {
    if (name == "newreno")
        return tcp_config::cc::newreno;
    if (name == "dctcp")
        return tcp_config::cc::dctcp;
    throw config_error("transport = '" + name + "': allowed values are newreno, dctcp");
}

const char* tcp_event_name(tcp_event e) {
    switch (e) {
    case tcp_event::timeout: return "timeout";
    case tcp_event::fast_retransmit: return "fast_retransmit";
    case tcp_event::recovery_exit: return "recovery_exit";
    case tcp_event::limited_transmit: return "limited_transmit";
    case tcp_event::ack: return "ack";
    }
    return "?";
}

namespace {
constexpr uint32_t dup_thresh = 3;   // RFC 5681 / RFC 6675 DupThresh
}

// ---------------------------------------------------------------------------------------------- sender

tcp_sender::tcp_sender(host_stack& host, uint32_t flow, int dst, const tcp_config& cfg, tcp_stats& stats, rng r)
    : m_host(host), m_flow(flow), m_dst(dst), m_cfg(cfg), m_stats(stats), m_rng(r),
      m_cwnd(static_cast<uint64_t>(cfg.initial_cwnd) * cfg.mss),
      m_rto(cfg.initial_rto_ps ? std::max(cfg.initial_rto_ps, cfg.min_rto_ps) : cfg.min_rto_ps) {
    host.bind(flow, this);
}

void tcp_sender::write(uint64_t bytes) {
    m_app_end += bytes;
    try_send(now_ps());
}

void tcp_sender::on_frame(frame* f, uint64_t now) {
    if (f->kind != frame_kind::tcp) {
        if (m_other)
            m_other->on_frame(f, now);
        else
            m_host.nic().pool().release(f);
        return;
    }
    ack_info a;
    a.ack = f->ack;
    a.ece = (f->flags & tcp_ece) != 0;
    a.tsecr = m_cfg.timestamps ? f->ts_ps : 0;
    a.nsack = m_cfg.sack ? std::min<int>(f->sack_blocks, max_sack_blocks) : 0;
    for (int i = 0; i < a.nsack; ++i)
        a.sack[i] = {f->ack + f->sack[i].begin, f->ack + f->sack[i].end};
    m_host.nic().pool().release(f);
    on_ack(a, now);
}

void tcp_sender::rtt_sample(uint64_t r) {
    const double rr = static_cast<double>(r);
    if (!m_have_rtt) {
        m_srtt = rr;
        m_rttvar = rr / 2;
        m_have_rtt = true;
    } else {
        m_rttvar = 0.75 * m_rttvar + 0.25 * std::fabs(m_srtt - rr);   // uses the old SRTT
        m_srtt = 0.875 * m_srtt + 0.125 * rr;
    }
    const double rto = m_srtt + 4 * m_rttvar;   // clock granularity G: the model's 1 ps, negligible
    m_rto = std::min(m_cfg.max_rto_ps, std::max(m_cfg.min_rto_ps, static_cast<uint64_t>(std::ceil(rto))));
}

uint64_t tcp_sender::loss_ssthresh() const {
    uint64_t x;
    if (m_cfg.ssthresh_from == tcp_config::ssthresh_rule::flight)
        x = m_high_tx - m_snd_una - m_limited_bytes;           // RFC 5681 FlightSize, without limited transmit
    else
        x = m_in_fr ? std::min(m_cwnd, m_ssthresh) : m_cwnd;  // the window without fast-recovery inflation
    return std::max(x / 2, 2 * static_cast<uint64_t>(m_cfg.mss));
}

void tcp_sender::on_ack(const ack_info& a, uint64_t now) {
    if (a.ack > m_high_tx || a.ack < m_snd_una)
        return;   // acknowledges what was never sent, or an old ACK overtaken by a newer one
    const bool sack_new = m_cfg.sack && sack_update(a);
    if (a.ack > m_snd_nxt)
        m_snd_nxt = a.ack;   // after a go-back-N the receiver may already hold data beyond snd_nxt
    if (a.ack > m_snd_una)
        on_new_ack(a, now);
    else if (m_high_tx > m_snd_una && (!m_cfg.sack || sack_new))
        on_dupack(now);   // RFC 5681 duplicate ACK; with SACK (RFC 6675) only if it SACKs new data

    // congestion signal by ECN: at most one reduction per window of data, not during loss recovery
    const uint64_t mss = m_cfg.mss;
    if (a.ece && !m_in_fr) {
        if (m_cfg.congestion_control == tcp_config::cc::dctcp) {
            if (m_cwr_end == 0) {
                m_ssthresh = std::max(static_cast<uint64_t>(static_cast<double>(m_cwnd) * (1 - m_alpha / 2)),
                                      2 * mss);
                m_cwnd = m_ssthresh;
                m_cwr_end = 1;
                m_stats.ecn_reductions++;
            }
        } else if (m_cfg.ecn && a.ack >= m_cwr_end) {
            m_ssthresh = std::max(m_cwnd / 2, 2 * mss);
            m_cwnd = m_ssthresh;
            m_cwr_end = m_snd_nxt + 1;
            m_send_cwr = true;
            m_stats.ecn_reductions++;
        }
    }
    if (m_in_fr && m_cfg.sack)
        sack_send(now);
    else
        try_send(now);
    if (m_observe_acks)
        notify(tcp_event::ack, now);
}

void tcp_sender::on_new_ack(const ack_info& a, uint64_t now) {
    const uint64_t mss = m_cfg.mss;
    const uint64_t ack = a.ack;
    const uint64_t newly = ack - m_snd_una;
    const bool dctcp = m_cfg.congestion_control == tcp_config::cc::dctcp;
    if (dctcp) {
        m_acked += newly;
        if (a.ece)
            m_marked += newly;
    }
    if (a.tsecr != 0 && a.tsecr <= now) {
        rtt_sample(now - a.tsecr);   // RFC 7323: every ACK of new data, retransmissions included
    } else if (m_timing && ack > m_rtt_seq) {
        rtt_sample(now - m_rtt_start);
        m_timing = false;
    }
    bool restart_timer = true;
    m_dupacks = 0;
    m_limited_sent = 0;
    m_limited_bytes = 0;
    if (m_in_fr) {
        if (ack >= m_recover) {   // full ACK: leave loss recovery
            // RFC 6582 option (2), as Linux and ns-2 do (not cut to FlightSize + 1 SMSS, which after the last
            // segment of an application write leaves 2 SMSS for the next one); RFC 6675 keeps cwnd = ssthresh
            m_cwnd = m_ssthresh;
            m_in_fr = false;
            m_snd_una = ack;
            notify(tcp_event::recovery_exit, now);
        } else if (!m_cfg.sack) {   // NewReno partial ACK: retransmit the next hole, deflate, stay
            m_snd_una = ack;
            send_segment(ack, static_cast<uint32_t>(std::min<uint64_t>(mss, m_high_tx - ack)), now, true);
            m_cwnd = newly < m_cwnd ? m_cwnd - newly : 0;
            if (newly >= mss)
                m_cwnd += mss;
            if (m_cwnd < mss)
                m_cwnd = mss;
            restart_timer = m_first_partial;   // RFC 6582 "impatient": restart on the first partial ACK only
            m_first_partial = false;
        } else {   // RFC 6675 partial ACK: the scoreboard and pipe decide what goes next (sack_send)
            m_snd_una = ack;
        }
    } else {
        if (m_cwnd < m_ssthresh)
            m_cwnd += std::min(newly, mss);                        // slow start (RFC 5681, L = 1 SMSS)
        else
            m_cwnd += std::max<uint64_t>(1, mss * mss / m_cwnd);   // congestion avoidance: ~1 SMSS per RTT
        m_snd_una = ack;
    }
    if (m_high_rxt < m_snd_una)
        m_high_rxt = m_snd_una;
    if (m_snd_una == m_high_tx) {
        m_rto_armed = false;      // everything acknowledged: the timer stops (RFC 6298 5.2)
        if (m_listener && m_snd_una == m_app_end)
            m_listener->on_send_complete(m_flow, now);
    } else if (restart_timer) {
        arm_rto(now);             // RFC 6298 5.3
    }
    if (dctcp && ack > m_window_end) {   // one observation window (about one RTT) has ended
        const double frac = m_acked ? static_cast<double>(m_marked) / static_cast<double>(m_acked) : 0.0;
        m_alpha = (1 - m_cfg.dctcp_g) * m_alpha + m_cfg.dctcp_g * frac;
        m_window_end = m_snd_nxt;
        m_acked = m_marked = 0;
        m_cwr_end = 0;   // a new reduction is allowed in the new window
    }
}

void tcp_sender::on_dupack(uint64_t now) {
    const uint64_t mss = m_cfg.mss;
    ++m_dupacks;
    if (m_in_fr) {
        if (!m_cfg.sack)
            m_cwnd += mss;   // NewReno: each further duplicate ACK means one segment has left the network
        return;
    }
    // RFC 6582 "careful" variant (ns-2, Linux, FreeBSD): no new fast retransmit until the cumulative ACK covers
    // more than recover, the highest byte sent when the last recovery or timeout began
    const bool may_recover = !m_recover_valid || m_snd_una > m_recover;
    const bool loss = m_cfg.sack ? (m_dupacks >= dup_thresh || lost_below() > m_snd_una)
                                 : m_dupacks == dup_thresh;
    if (loss && may_recover) {
        enter_recovery(now);
        return;
    }
    if (!m_cfg.limited_transmit || m_dupacks >= dup_thresh)
        return;
    // RFC 3042 limited transmit: one segment beyond the window on each of the 1st and 2nd duplicate ACK (from
    // snd_nxt, which after a go-back-N may be data sent before); with SACK, RFC 6675 step (3) by pipe
    if (m_cfg.sack)
        m_high_rxt = m_snd_una;
    while (m_snd_nxt < m_app_end) {
        if (m_cfg.sack)
            m_snd_nxt = skip_sacked(m_snd_nxt);
        if (m_snd_nxt >= m_app_end)
            break;
        uint64_t len = std::min<uint64_t>(mss, m_app_end - m_snd_nxt);
        if (m_snd_nxt < m_high_tx)
            len = std::min(len, m_high_tx - m_snd_nxt);
        if (m_cfg.sack) {
            if (m_cwnd < pipe() + mss)
                break;
        } else if (flight() + len > m_cwnd + 2 * mss) {
            break;
        }
        if (m_cfg.rwnd_bytes && m_snd_nxt + len - m_snd_una > m_cfg.rwnd_bytes)
            break;
        if (m_host.nic().room(m_flow) < len + m_cfg.header_bytes) {
            m_host.nic().want_room(m_flow);
            break;
        }
        send_segment(m_snd_nxt, static_cast<uint32_t>(len), now, true);
        m_snd_nxt += len;
        m_stats.limited_transmits++;
        m_limited_sent++;
        m_limited_bytes += len;
        notify(tcp_event::limited_transmit, now);
        if (!m_cfg.sack)
            break;   // RFC 3042: one segment per duplicate ACK
    }
}

void tcp_sender::enter_recovery(uint64_t now) {
    const uint64_t mss = m_cfg.mss;
    notify(tcp_event::fast_retransmit, now);   // with the state the third duplicate ACK found
    m_ssthresh = loss_ssthresh();
    m_recover = m_high_tx;   // RFC 6582 recover / RFC 6675 RecoveryPoint = HighData
    m_recover_valid = true;
    m_stats.fast_retransmits++;
    m_in_fr = true;
    m_first_partial = true;
    uint64_t len = std::min<uint64_t>(mss, m_high_tx - m_snd_una);
    if (!m_cfg.sack) {
        send_segment(m_snd_una, static_cast<uint32_t>(len), now, true);
        // RFC 5681 inflates by the three segments that left the network; limited transmit already sent one
        // segment for each of the first two (FreeBSD's snd_limited accounting), so they are not counted again
        m_cwnd = m_ssthresh + (dup_thresh - std::min(dup_thresh, m_limited_sent)) * mss;
        return;
    }
    // RFC 6675 (4): cwnd = ssthresh; retransmit the first segment presumed lost; HighRxt after it; then step (C)
    m_cwnd = m_ssthresh;
    m_rescue_valid = false;
    for (const auto& b : m_sacked)
        if (b.first > m_snd_una) {
            len = std::min(len, b.first - m_snd_una);
            break;
        }
    send_segment(m_snd_una, static_cast<uint32_t>(len), now, true);
    m_high_rxt = m_snd_una + len;
    sack_send(now);
}

// ----------------------------------------------------------------------------------- SACK (RFC 6675)

bool tcp_sender::sack_update(const ack_info& a) {
    uint64_t fresh = 0;
    for (int i = 0; i < a.nsack; ++i) {
        const uint64_t b = std::max(a.sack[i].first, a.ack);
        const uint64_t e = std::min(a.sack[i].second, m_high_tx);
        if (e <= b)
            continue;
        fresh += (e - b) - sacked_in(b, e);
        auto it = std::lower_bound(m_sacked.begin(), m_sacked.end(), std::make_pair(b, e));
        if (it != m_sacked.begin() && std::prev(it)->second >= b)
            --it;
        // merge every interval touching [b, e)
        uint64_t nb = b, ne = e;
        auto first = it;
        while (it != m_sacked.end() && it->first <= ne) {
            nb = std::min(nb, it->first);
            ne = std::max(ne, it->second);
            ++it;
        }
        it = m_sacked.erase(first, it);
        m_sacked.insert(it, {nb, ne});
    }
    // forget what the cumulative ACK now covers
    size_t drop = 0;
    while (drop < m_sacked.size() && m_sacked[drop].second <= a.ack)
        ++drop;
    m_sacked.erase(m_sacked.begin(), m_sacked.begin() + static_cast<std::ptrdiff_t>(drop));
    if (!m_sacked.empty() && m_sacked.front().first < a.ack)
        m_sacked.front().first = a.ack;
    return fresh > 0;
}

uint64_t tcp_sender::sacked_bytes() const {
    uint64_t n = 0;
    for (const auto& b : m_sacked)
        n += b.second - b.first;
    return n;
}

uint64_t tcp_sender::sacked_in(uint64_t b, uint64_t e) const {
    uint64_t n = 0;
    for (const auto& s : m_sacked) {
        const uint64_t lo = std::max(b, s.first), hi = std::min(e, s.second);
        if (hi > lo)
            n += hi - lo;
    }
    return n;
}

uint64_t tcp_sender::lost_below() const {
    // IsLost(s) for an unSACKed s: more than (DupThresh - 1) SMSS SACKed above s, or DupThresh discontiguous
    // SACKed blocks above it. Both grow as s falls, so the lost bytes are those under one boundary.
    uint64_t bytes = 0;
    uint32_t blocks = 0;
    for (auto it = m_sacked.rbegin(); it != m_sacked.rend(); ++it) {
        bytes += it->second - it->first;
        if (bytes > (dup_thresh - 1) * static_cast<uint64_t>(m_cfg.mss) || ++blocks >= dup_thresh)
            return it->first;
    }
    return m_snd_una;
}

uint64_t tcp_sender::pipe() const {
    if (m_high_tx <= m_snd_una)
        return 0;
    // RFC 6675 SetPipe(): each unSACKed byte in [HighACK, HighData) counts once if not lost and once more if it
    // was retransmitted (at or under HighRxt)
    const uint64_t lost = std::min(std::max(lost_below(), m_snd_una), m_high_tx);
    const uint64_t rxt = std::min(std::max(m_high_rxt, m_snd_una), m_high_tx);
    return (m_high_tx - lost - sacked_in(lost, m_high_tx)) + (rxt - m_snd_una - sacked_in(m_snd_una, rxt));
}

uint64_t tcp_sender::skip_sacked(uint64_t seq) const {
    for (const auto& b : m_sacked)
        if (b.first <= seq && seq < b.second)
            return b.second;
    return seq;
}

int tcp_sender::next_seg(uint64_t& seq, uint32_t& len) const {
    const uint64_t mss = m_cfg.mss;
    const uint64_t high_sacked = m_sacked.empty() ? 0 : m_sacked.back().second;
    const uint64_t s = skip_sacked(std::max(m_high_rxt, m_snd_una));
    auto clip = [&](uint64_t from) {
        uint64_t end = std::min(from + mss, m_high_tx);
        for (const auto& b : m_sacked)
            if (b.first > from) {
                end = std::min(end, b.first);
                break;
            }
        return static_cast<uint32_t>(end - from);
    };
    // (1) the first unSACKed byte above HighRxt, below the highest SACKed byte, that IsLost
    if (s < high_sacked && s < lost_below()) {
        seq = s;
        len = clip(s);
        return 1;
    }
    // (2) new data, if the receiver's window allows
    if (m_high_tx < m_app_end) {
        const uint64_t n = std::min<uint64_t>(mss, m_app_end - m_high_tx);
        if (!m_cfg.rwnd_bytes || m_high_tx + n - m_snd_una <= m_cfg.rwnd_bytes) {
            seq = m_high_tx;
            len = static_cast<uint32_t>(n);
            return 2;
        }
    }
    // (3) the same unSACKed byte as (1) without the loss test
    if (s < high_sacked) {
        seq = s;
        len = clip(s);
        return 3;
    }
    // (4) one rescue retransmission per recovery: the segment ending at the highest unSACKed byte
    if (!m_rescue_valid || m_snd_una > m_rescue_rxt) {
        uint64_t top = m_high_tx;
        if (!m_sacked.empty() && m_sacked.back().second == m_high_tx)
            top = m_sacked.back().first;
        if (top > m_snd_una) {
            seq = top - std::min(top - m_snd_una, mss);
            len = static_cast<uint32_t>(top - seq);
            return 4;
        }
    }
    return 0;
}

void tcp_sender::sack_send(uint64_t now) {
    const uint64_t mss = m_cfg.mss;
    while (m_cwnd >= pipe() + mss) {   // RFC 6675 (C): while cwnd - pipe >= 1 SMSS
        uint64_t seq;
        uint32_t len;
        const int rule = next_seg(seq, len);
        if (rule == 0)
            break;
        if (m_host.nic().room(m_flow) < len + m_cfg.header_bytes) {
            m_host.nic().want_room(m_flow);
            break;
        }
        send_segment(seq, len, now);
        if (seq + len > m_snd_nxt)
            m_snd_nxt = seq + len;
        if (rule == 1 || rule == 3)
            m_high_rxt = std::max(m_high_rxt, seq + len);   // (C.2)
        else if (rule == 4) {
            m_rescue_valid = true;                          // HighRxt is not moved by the rescue
            m_rescue_rxt = m_recover;
        }
    }
}

// ---------------------------------------------------------------------------------------------- sending

void tcp_sender::try_send(uint64_t now) {
    if (m_cfg.slow_start_after_idle && m_sent_any && m_snd_una == m_high_tx && m_snd_nxt < m_app_end &&
        now - m_last_send_ps > m_rto) {
        const uint64_t iw = static_cast<uint64_t>(m_cfg.initial_cwnd) * m_cfg.mss;
        if (m_cwnd > iw) {
            m_cwnd = iw;   // RFC 5681 4.1: restart window min(IW, cwnd); ssthresh stays
            m_stats.idle_restarts++;
        }
    }
    const uint64_t wnd = window();
    while (m_snd_nxt < m_app_end) {
        if (m_cfg.sack && m_snd_nxt < m_high_tx) {   // go-back-N after a timeout: skip what the receiver has
            m_snd_nxt = skip_sacked(m_snd_nxt);
            if (m_snd_nxt >= m_app_end)
                break;
        }
        uint64_t len = std::min<uint64_t>(m_cfg.mss, m_app_end - m_snd_nxt);
        if (m_cfg.sack && m_snd_nxt < m_high_tx)
            for (const auto& b : m_sacked)
                if (b.first > m_snd_nxt) {
                    len = std::min(len, b.first - m_snd_nxt);
                    break;
                }
        const uint64_t in_flight = m_cfg.sack ? flight() - sacked_in(m_snd_una, m_snd_nxt) : flight();
        if (in_flight > 0 && in_flight + len > wnd)
            break;
        if (m_host.nic().room(m_flow) < len + m_cfg.header_bytes) {   // our QCN rate limiter is full: wait
            m_host.nic().want_room(m_flow);
            break;
        }
        send_segment(m_snd_nxt, static_cast<uint32_t>(len), now);
        m_snd_nxt += len;
    }
}

void tcp_sender::send_segment(uint64_t seq, uint32_t len, uint64_t now, bool direct) {
    const segment seg{seq, len, m_send_cwr, now};
    m_send_cwr = false;
    m_last_send_ps = now;
    m_sent_any = true;
    m_stats.segments_sent++;
    m_stats.bytes_sent += len;
    if (seq < m_high_tx) {
        m_stats.retransmitted_segments++;
        m_stats.retransmitted_bytes += std::min<uint64_t>(len, m_high_tx - seq);
        if (m_timing && seq <= m_rtt_seq && m_rtt_seq < seq + len)
            m_timing = false;   // Karn (RFC 6298 3): no sample from a segment that was retransmitted
    } else if (!m_timing) {
        m_timing = true;
        m_rtt_seq = seq;
        m_rtt_start = now;
    }
    if (seq + len > m_high_tx)
        m_high_tx = seq + len;
    if (!m_rto_armed)
        arm_rto(now);   // RFC 6298 5.1
    if (m_cfg.jitter_ps == 0 || (direct && m_cfg.jitter_scope == tcp_config::jitter_scope_t::window_sends)) {
        to_nic(seg);
        return;
    }
    const uint64_t release = std::max(m_jitter_last, now + m_rng.below(m_cfg.jitter_ps + 1));
    m_jitter_last = release;
    m_jitter_fifo.push_back(seg);
    m_host.nic().schedule_timer(release, this, timer_jitter);
}

void tcp_sender::to_nic(const segment& seg) {
    frame* f = m_host.nic().pool().acquire();
    f->kind = frame_kind::tcp;
    f->bytes = seg.len + m_cfg.header_bytes + (m_cfg.timestamps ? tcp_config::timestamp_option_bytes : 0);
    f->payload = seg.len;
    f->seq = seg.seq;
    f->src = static_cast<uint16_t>(m_host.host_id());
    f->dst = static_cast<uint16_t>(m_dst);
    f->flow = m_flow;
    f->prio = m_cfg.prio;
    f->ecn = (m_cfg.ecn || m_cfg.congestion_control == tcp_config::cc::dctcp) ? ecn_ect0 : ecn_not_ect;
    f->flags = seg.cwr ? tcp_cwr : 0;
    f->ts_ps = seg.t_ps;
    f->created_ps = seg.t_ps;
    m_host.nic().send(f, true);
}

// ------------------------------------------------------------------------------------ retransmission timer

void tcp_sender::arm_rto(uint64_t now) {
    // RFC 6298 5.1/5.3: the timer expires one current RTO from now, earlier or later than before
    m_rto_armed = true;
    m_rto_deadline = now + m_rto;
    if (m_rto_entry_pending && m_rto_entry_ps <= m_rto_deadline)
        return;   // that entry will find the later deadline and move itself there
    ++m_rto_gen;
    m_rto_entry_pending = true;
    m_rto_entry_ps = m_rto_deadline;
    m_host.nic().schedule_timer(m_rto_deadline, this, timer_rto | (m_rto_gen << timer_kind_bits));
}

void tcp_sender::on_timer(uint32_t tag) {
    const uint64_t now = now_ps();
    if ((tag & ((1u << timer_kind_bits) - 1)) == timer_jitter) {
        to_nic(m_jitter_fifo[m_jitter_head++]);
        if (m_jitter_head == m_jitter_fifo.size()) {
            m_jitter_fifo.clear();
            m_jitter_head = 0;
        }
        return;
    }
    if ((tag >> timer_kind_bits) != (m_rto_gen & (~0u >> timer_kind_bits)))
        return;   // an entry superseded by an earlier deadline
    m_rto_entry_pending = false;
    if (!m_rto_armed)
        return;
    if (now < m_rto_deadline) {   // the deadline moved later since this entry was scheduled
        ++m_rto_gen;
        m_rto_entry_pending = true;
        m_rto_entry_ps = m_rto_deadline;
        m_host.nic().schedule_timer(m_rto_deadline, this, timer_rto | (m_rto_gen << timer_kind_bits));
        return;
    }
    on_rto(now);
}

void tcp_sender::on_rto(uint64_t now) {
    const uint64_t mss = m_cfg.mss;
    notify(tcp_event::timeout, now);   // with the state the timeout found
    m_stats.timeouts++;
    m_ssthresh = loss_ssthresh();
    m_recover = m_high_tx;   // no fast retransmit until the ACK passes what was sent before the timeout
    m_recover_valid = true;
    m_in_fr = false;
    m_dupacks = 0;
    m_limited_sent = 0;
    m_limited_bytes = 0;
    m_cwnd = mss;
    m_snd_nxt = m_snd_una;   // go back N (SACKed data is skipped)
    m_high_rxt = m_snd_una;
    m_timing = false;
    m_rto = std::min(2 * m_rto, m_cfg.max_rto_ps);   // exponential back-off until a new RTT sample
    m_rto_armed = false;
    m_cwr_end = 0;
    try_send(now);
}

// -------------------------------------------------------------------------------------------- receiver

tcp_receiver::tcp_receiver(host_stack& host, uint32_t flow, int peer, const tcp_config& cfg, tcp_stats& stats)
    : m_host(host), m_flow(flow), m_peer(peer), m_cfg(cfg), m_stats(stats) {
    host.bind(flow, this);
}

void tcp_receiver::on_frame(frame* f, uint64_t now) {
    if (f->kind != frame_kind::tcp || f->payload == 0) {
        m_host.nic().pool().release(f);
        return;
    }
    const uint64_t seq = f->seq, end = f->seq + f->payload;
    const uint64_t tsval = f->ts_ps;
    const bool ce = f->ecn == ecn_ce;
    const bool cwr = (f->flags & tcp_cwr) != 0;
    m_host.nic().pool().release(f);

    const bool dctcp = m_cfg.congestion_control == tcp_config::cc::dctcp;
    if (dctcp) {
        if (ce != m_ce_state) {
            // DCTCP: on a change of CE state, acknowledge what came before with the old state at once
            if (m_unacked > 0)
                send_ack(now, m_ce_state);
            m_ce_state = ce;
        }
    } else {
        if (cwr)
            m_ece_latch = false;
        if (ce)
            m_ece_latch = true;
    }
    // RFC 7323 4.3: TS.Recent follows segments at or below the last ACK sent, so that an ACK echoes the
    // timestamp of the segment that moved the window (a hole-filling retransmission, not data beyond a hole)
    if (m_cfg.timestamps && seq <= m_last_ack_sent && tsval >= m_ts_recent)
        m_ts_recent = tsval;

    bool immediate = false;
    const uint64_t before = m_rcv_nxt;
    if (seq <= m_rcv_nxt && end > m_rcv_nxt) {
        m_rcv_nxt = end;
        while (!m_ooo.empty() && m_ooo.front().first <= m_rcv_nxt) {
            m_rcv_nxt = std::max(m_rcv_nxt, m_ooo.front().second);
            m_ooo.erase(m_ooo.begin());
            immediate = true;   // a hole was filled
        }
    } else if (seq > m_rcv_nxt) {
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
        immediate = true;   // out of order: a duplicate ACK at once
    } else {
        immediate = true;   // old duplicate
    }
    if (m_rcv_nxt > before) {
        m_stats.bytes_delivered += m_rcv_nxt - before;
        if (m_listener)
            m_listener->on_delivered(m_flow, m_rcv_nxt, now);
    }
    ++m_unacked;
    const bool ece = dctcp ? m_ce_state : m_ece_latch;
    if (!m_cfg.delayed_ack || immediate || m_unacked >= 2) {
        send_ack(now, ece);
    } else {
        m_delack_deadline = now + m_cfg.delayed_ack_ps;
        if (!m_delack_pending) {
            m_delack_pending = true;
            m_host.nic().schedule_timer(m_delack_deadline, this, 0);
        }
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
    send_ack(now, m_cfg.congestion_control == tcp_config::cc::dctcp ? m_ce_state : m_ece_latch);
}

void tcp_receiver::send_ack(uint64_t now, bool ece) {
    frame* f = m_host.nic().pool().acquire();
    f->kind = frame_kind::tcp;
    f->flags = static_cast<uint8_t>(tcp_ack | (ece ? tcp_ece : 0));
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
    if (m_cfg.timestamps)
        f->ts_ps = m_ts_recent;
    f->src = static_cast<uint16_t>(m_host.host_id());
    f->dst = static_cast<uint16_t>(m_peer);
    f->flow = m_flow;
    f->prio = m_cfg.prio;
    f->created_ps = now;
    m_last_ack_sent = m_rcv_nxt;
    m_unacked = 0;
    m_stats.acks_sent++;
    m_host.nic().send(f);
}

} // namespace cmswitch
