// SPDX-License-Identifier: Apache-2.0
#include "traffic/tcp/newreno_recovery.h"

#include "traffic/tcp/tcp_sender.h"

#include <algorithm>

namespace cmswitch {

void newreno_recovery::on_ack(const tcp_ack_info& a, uint64_t now) {
    process_ack(a, true, now);   // (1)
    send(now);
    m_s.ack_done(now);
}

uint64_t newreno_recovery::pipe() const {
    return m_s.m_high_tx - m_s.m_snd_una;
}

void newreno_recovery::on_dupack(uint64_t now) {
    tcp_sender& s = m_s;
    ++s.m_dupacks;
    if (s.m_in_fr) {
        s.m_w.cwnd += s.m_cfg.mss;   // (4)
        return;
    }
    if (s.m_dupacks == dup_thresh && may_recover()) {
        enter_recovery(now);   // (3)
        return;
    }
    if (s.m_cfg.limited_transmit && s.m_dupacks < dup_thresh)
        limited_transmit(now);   // (2)
}

void newreno_recovery::limited_transmit(uint64_t now) {
    tcp_sender& s = m_s;
    const uint64_t mss = s.m_cfg.mss;
    // from snd_nxt, which after a go-back-N may be data sent before
    if (s.m_snd_nxt >= s.m_app_end)
        return;
    uint64_t len = std::min<uint64_t>(mss, s.m_app_end - s.m_snd_nxt);
    if (s.m_snd_nxt < s.m_high_tx)
        len = std::min(len, s.m_high_tx - s.m_snd_nxt);
    if (s.flight() + len > s.m_w.cwnd + 2 * mss)
        return;
    if (s.m_cfg.rwnd_bytes() && s.m_snd_nxt + len - s.m_snd_una > s.m_cfg.rwnd_bytes())
        return;
    if (!s.host_takes(len, s.m_snd_nxt < s.m_high_tx))
        return;
    s.send_segment(s.m_snd_nxt, static_cast<uint32_t>(len), now, true);
    s.m_snd_nxt += len;
    count_limited_transmit(len, now);
}

void newreno_recovery::enter_recovery(uint64_t now) {
    tcp_sender& s = m_s;
    const uint64_t mss = s.m_cfg.mss;
    begin_recovery(now);
    m_first_partial = true;
    s.send_segment(s.m_snd_una, static_cast<uint32_t>(std::min<uint64_t>(mss, s.m_high_tx - s.m_snd_una)), now, true);
    s.m_w.cwnd = s.m_w.ssthresh + (dup_thresh - std::min(dup_thresh, m_limited_sent)) * mss;
}

void newreno_recovery::on_partial_ack(uint64_t ack, uint64_t newly, uint64_t now, bool& restart_timer) {
    tcp_sender& s = m_s;
    const uint64_t mss = s.m_cfg.mss;
    s.m_snd_una = ack;   // (5)
    s.send_segment(ack, static_cast<uint32_t>(std::min<uint64_t>(mss, s.m_high_tx - ack)), now, true);
    uint64_t& cwnd = s.m_w.cwnd;
    cwnd = newly < cwnd ? cwnd - newly : 0;
    if (newly >= mss)
        cwnd += mss;
    if (cwnd < mss)
        cwnd = mss;
    restart_timer = m_first_partial;
    m_first_partial = false;
}

void newreno_recovery::send(uint64_t now) {
    tcp_sender& s = m_s;
    s.restart_after_idle(now);
    const uint64_t wnd = s.window();
    bool sent = false, window_full = false;
    while (s.m_snd_nxt < s.m_app_end) {
        const uint64_t len = std::min<uint64_t>(s.m_cfg.mss, s.m_app_end - s.m_snd_nxt);
        const uint64_t in_flight = s.flight();
        if (in_flight > 0 && in_flight + len > wnd) {
            window_full = true;
            break;
        }
        if (!s.host_takes(len, s.m_snd_nxt < s.m_high_tx))   // the NIC's rate limiter or small queue is full: wait
            break;
        s.send_segment(s.m_snd_nxt, static_cast<uint32_t>(len), now);
        s.m_snd_nxt += len;
        sent = true;
    }
    if (s.m_cfg.cwnd_validation && (sent || window_full))
        s.cwnd_validate(window_full || s.flight() + s.m_cfg.mss > wnd);
}

}   // namespace cmswitch
