// SPDX-License-Identifier: Apache-2.0
#include "traffic/tcp/rfc6675_recovery.h"

#include "traffic/tcp/tcp_sender.h"

#include <algorithm>

namespace cmswitch {

void rfc6675_recovery::on_ack(const tcp_ack_info& a, uint64_t now) {
    tcp_sender& s = m_s;
    const bool sacked_new = m_sb.update(a.ack, s.m_high_tx, a.sack, a.nsack);   // (1)
    process_ack(a, sacked_new, now);
    if (m_high_rxt < s.m_snd_una)
        m_high_rxt = s.m_snd_una;
    if (s.m_in_fr)
        sack_send(now);   // (5)
    else
        send(now);
    s.ack_done(now);
}

uint64_t rfc6675_recovery::lost_below() const {
    return m_sb.lost_below(m_s.m_snd_una, m_s.m_cfg.mss, dup_thresh);
}

uint64_t rfc6675_recovery::pipe() const {
    const tcp_sender& s = m_s;
    if (s.m_high_tx <= s.m_snd_una)
        return 0;
    const uint64_t lost = std::min(std::max(lost_below(), s.m_snd_una), s.m_high_tx);   // (6)
    const uint64_t rxt = std::min(std::max(m_high_rxt, s.m_snd_una), s.m_high_tx);
    return (s.m_high_tx - lost - m_sb.sacked_in(lost, s.m_high_tx)) +
           (rxt - s.m_snd_una - m_sb.sacked_in(s.m_snd_una, rxt));
}

void rfc6675_recovery::on_dupack(uint64_t now) {
    tcp_sender& s = m_s;
    ++s.m_dupacks;
    if (s.m_in_fr)
        return;
    if ((s.m_dupacks >= dup_thresh || lost_below() > s.m_snd_una) && may_recover()) {
        enter_recovery(now);   // (2)
        return;
    }
    if (s.m_cfg.limited_transmit && s.m_dupacks < dup_thresh)
        limited_transmit(now);   // (3)
}

void rfc6675_recovery::limited_transmit(uint64_t now) {
    tcp_sender& s = m_s;
    const uint64_t mss = s.m_cfg.mss;
    m_high_rxt = s.m_snd_una;
    while (s.m_snd_nxt < s.m_app_end) {   // from snd_nxt, which after a go-back-N may be data sent before
        s.m_snd_nxt = m_sb.skip(s.m_snd_nxt);
        if (s.m_snd_nxt >= s.m_app_end)
            break;
        uint64_t len = std::min<uint64_t>(mss, s.m_app_end - s.m_snd_nxt);
        if (s.m_snd_nxt < s.m_high_tx)
            len = std::min(len, s.m_high_tx - s.m_snd_nxt);
        if (s.m_w.cwnd < pipe() + mss)
            break;
        if (s.m_cfg.rwnd_bytes() && s.m_snd_nxt + len - s.m_snd_una > s.m_cfg.rwnd_bytes())
            break;
        if (!s.host_takes(len, s.m_snd_nxt < s.m_high_tx))
            break;
        s.send_segment(s.m_snd_nxt, static_cast<uint32_t>(len), now, true);
        s.m_snd_nxt += len;
        count_limited_transmit(len, now);
    }
}

void rfc6675_recovery::enter_recovery(uint64_t now) {
    tcp_sender& s = m_s;
    begin_recovery(now);
    s.m_w.cwnd = s.m_w.ssthresh;   // (4)
    m_rescue_valid = false;
    const uint64_t len =
        m_sb.clip(s.m_snd_una, s.m_snd_una + std::min<uint64_t>(s.m_cfg.mss, s.m_high_tx - s.m_snd_una)) - s.m_snd_una;
    s.send_segment(s.m_snd_una, static_cast<uint32_t>(len), now, true);
    m_high_rxt = s.m_snd_una + len;
    sack_send(now);
}

void rfc6675_recovery::on_partial_ack(uint64_t ack, uint64_t, uint64_t, bool&) {
    m_s.m_snd_una = ack;   // the scoreboard and pipe decide what goes next (sack_send)
}

int rfc6675_recovery::next_seg(uint64_t& seq, uint32_t& len) const {
    const tcp_sender& s = m_s;
    const uint64_t mss = s.m_cfg.mss;
    const uint64_t high_sacked = m_sb.highest_end();
    const uint64_t from = m_sb.skip(std::max(m_high_rxt, s.m_snd_una));
    auto clip = [&](uint64_t b) { return static_cast<uint32_t>(m_sb.clip(b, std::min(b + mss, s.m_high_tx)) - b); };
    if (from < high_sacked && from < lost_below()) {   // (1)
        seq = from;
        len = clip(from);
        return 1;
    }
    if (s.m_high_tx < s.m_app_end) {   // (2), if the receiver's window allows
        const uint64_t n = std::min<uint64_t>(mss, s.m_app_end - s.m_high_tx);
        if (!s.m_cfg.rwnd_bytes() || s.m_high_tx + n - s.m_snd_una <= s.m_cfg.rwnd_bytes()) {
            seq = s.m_high_tx;
            len = static_cast<uint32_t>(n);
            return 2;
        }
    }
    if (from < high_sacked) {   // (3)
        seq = from;
        len = clip(from);
        return 3;
    }
    if (!m_rescue_valid || s.m_snd_una > m_rescue_rxt) {   // (4): the segment ending at the highest unSACKed byte
        uint64_t top = s.m_high_tx;
        if (!m_sb.empty() && m_sb.highest_end() == s.m_high_tx)
            top = m_sb.highest_begin();
        if (top > s.m_snd_una) {
            seq = top - std::min(top - s.m_snd_una, mss);
            len = static_cast<uint32_t>(top - seq);
            return 4;
        }
    }
    return 0;
}

void rfc6675_recovery::sack_send(uint64_t now) {
    tcp_sender& s = m_s;
    while (s.m_w.cwnd >= pipe() + s.m_cfg.mss) {
        uint64_t seq;
        uint32_t len;
        const int rule = next_seg(seq, len);
        if (rule == 0)
            break;
        if (!s.host_takes(len, seq < s.m_high_tx))
            break;
        s.send_segment(seq, len, now);
        if (seq + len > s.m_snd_nxt)
            s.m_snd_nxt = seq + len;
        if (rule == 1 || rule == 3)
            m_high_rxt = std::max(m_high_rxt, seq + len);   // (C.2)
        else if (rule == 4) {
            m_rescue_valid = true;   // HighRxt is not moved by the rescue
            m_rescue_rxt = s.m_recover;
        }
    }
}

void rfc6675_recovery::send(uint64_t now) {
    tcp_sender& s = m_s;
    s.restart_after_idle(now);
    const uint64_t wnd = s.window();
    bool sent = false, window_full = false;
    while (s.m_snd_nxt < s.m_app_end) {
        if (s.m_snd_nxt < s.m_high_tx) {   // go-back-N after a timeout: skip what the receiver has
            s.m_snd_nxt = m_sb.skip(s.m_snd_nxt);
            if (s.m_snd_nxt >= s.m_app_end)
                break;
        }
        uint64_t len = std::min<uint64_t>(s.m_cfg.mss, s.m_app_end - s.m_snd_nxt);
        if (s.m_snd_nxt < s.m_high_tx)
            len = m_sb.clip(s.m_snd_nxt, s.m_snd_nxt + len) - s.m_snd_nxt;
        const uint64_t in_flight = s.flight() - m_sb.sacked_in(s.m_snd_una, s.m_snd_nxt);
        if (in_flight > 0 && in_flight + len > wnd) {
            window_full = true;
            break;
        }
        if (!s.host_takes(len, s.m_snd_nxt < s.m_high_tx))
            break;
        s.send_segment(s.m_snd_nxt, static_cast<uint32_t>(len), now);
        s.m_snd_nxt += len;
        sent = true;
    }
    if (s.m_cfg.cwnd_validation && (sent || window_full))
        s.cwnd_validate(window_full || s.flight() + s.m_cfg.mss > wnd);
}

void rfc6675_recovery::on_timeout() {
    dupack_recovery::on_timeout();
    m_high_rxt = m_s.m_snd_una;
}

}   // namespace cmswitch
