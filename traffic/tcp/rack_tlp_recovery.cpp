// SPDX-License-Identifier: Apache-2.0
#include "traffic/tcp/rack_tlp_recovery.h"

#include "traffic/tcp/tcp_sender.h"

#include <algorithm>

namespace cmswitch {

namespace {
constexpr uint32_t dup_thresh = 3;   // RACK's reordering window is 0 with this many segments SACKed
constexpr uint64_t initial_pto_ps = 1000000000000ull;   // 1 s (Linux TCP_TIMEOUT_INIT) before an RTT sample
}   // namespace

void rack_tlp_recovery::on_ack(const tcp_ack_info& a, uint64_t now) {
    tcp_sender& s = m_s;
    if (a.dsack)
        s.m_stats.dsacks++;
    rack_scoreboard::range blocks[max_sack_blocks];
    for (int i = 0; i < a.nsack; ++i)
        blocks[i] = {a.sack[i].first, a.sack[i].second};
    const uint64_t delivered = m_rack.on_ack(a.ack, blocks, a.nsack, now, a.tsecr);   // (1)
    tcp_ack_event ev = s.ack_event(a, now);
    const bool advanced = a.ack > s.m_snd_una;
    if (advanced) {
        ev.newly_acked = a.ack - s.m_snd_una;
        s.take_rtt_sample(a, ev, now);
        s.m_snd_una = a.ack;
        s.m_snd_nxt = std::max(s.m_snd_nxt, s.m_snd_una);
        s.m_dupacks = 0;
    } else if (delivered > 0) {
        ++s.m_dupacks;
    }
    if (m_tlp_high_seq)
        process_probe_ack(a, advanced, delivered);
    bool reorder_armed = false;   // (then the ACK leaves the timer to RACK, as Linux)
    const uint64_t newly_lost = m_rack.advanced() ? detect(now, &reorder_armed) : 0;   // (2)
    bool exited = false;
    update_recovery_state(now, exited);
    if (s.m_snd_una == s.m_high_tx)
        s.m_rto_armed = false;   // everything acknowledged: no timer
    else if (advanced && !reorder_armed)
        arm_after_ack(now);
    // the window: proportional rate reduction in recovery, growth (if cwnd-limited) otherwise
    if (s.m_in_fr)
        s.m_prr.on_ack(s.m_w.cwnd, delivered, m_rack.pipe(), s.m_w.ssthresh, s.m_cfg.mss, advanced, newly_lost > 0);
    else if (s.cwr_step(ev, delivered, advanced, newly_lost > 0))
        ;   // (the reduction set the window)
    else if (advanced && !exited)
        s.grow_window(ev);
    if (advanced)
        s.tell_acked(ev);
    if (a.ece && !s.m_in_fr)
        s.answer_ecn_echo(ev);
    if (advanced && s.m_snd_una == s.m_high_tx && s.m_listener && s.m_snd_una == s.m_app_end)
        s.m_listener->on_send_complete(s.m_flow, now);
    send(now);
    s.ack_done(now);
}

// (3) out of recovery or loss once the ACK covers what was out when it began; into recovery when RACK found a loss
void rack_tlp_recovery::update_recovery_state(uint64_t now, bool& exited) {
    tcp_sender& s = m_s;
    if (s.m_in_fr && s.m_snd_una >= s.m_recover) {
        s.m_w.cwnd = s.m_w.ssthresh;
        s.m_in_fr = false;
        exited = true;
        s.notify(tcp_event::recovery_exit, now);
    }
    if (m_in_loss && s.m_snd_una >= s.m_recover)
        m_in_loss = false;
    if (!s.m_in_fr && !m_in_loss && m_rack.lost_bytes() > 0)
        enter_recovery(now);
}

void rack_tlp_recovery::transmit(uint64_t seq, uint32_t len, uint64_t now, bool direct) {
    tcp_sender& s = m_s;
    m_rack.on_send(seq, len, now, seq < s.m_high_tx);
    s.send_segment(seq, len, now, direct);
}

uint64_t rack_tlp_recovery::detect(uint64_t now, bool* armed) {
    tcp_sender& s = m_s;
    uint64_t wait = 0;
    const uint64_t srtt = static_cast<uint64_t>(s.m_rtt.srtt());
    const uint64_t lost = m_rack.detect_loss(now, m_rack.reo_wnd(s.m_in_fr, srtt, dup_thresh), &wait);
    if (lost)
        s.m_stats.rack_losses += (lost + s.m_cfg.mss - 1) / s.m_cfg.mss;
    if (armed && wait > 0) {   // Linux adds its 2 ms timer floor (TCP_TIMEOUT_MIN_US) to the wait
        s.set_timer(tcp_timer_kind::reorder, now + wait + s.m_cfg.tlp_min_ps);
        *armed = true;
    }
    return lost;
}

void rack_tlp_recovery::enter_recovery(uint64_t now) {
    tcp_sender& s = m_s;
    s.notify(tcp_event::fast_retransmit, now);   // with the state that found the loss
    s.m_stats.fast_retransmits++;
    if (!s.m_in_cwr) {   // (a recovery that begins in CWR goes on with its reduction, as Linux)
        s.m_prr.begin(s.m_w.cwnd);
        s.m_w.ssthresh = s.loss_ssthresh();
    }
    s.m_in_cwr = false;
    s.m_recover = s.m_high_tx;
    s.m_recover_valid = true;
    s.m_in_fr = true;
    m_tlp_high_seq = 0;
}

void rack_tlp_recovery::rearm_rto_from_head(uint64_t now) {
    tcp_sender& s = m_s;
    if (s.m_high_tx == s.m_snd_una) {
        s.m_rto_armed = false;
        return;
    }
    uint64_t deadline = now + s.m_rto;
    if (s.m_rto_armed && s.m_timer_kind != tcp_timer_kind::rto &&
        !m_rack.empty())   // Linux: the RTO of the head segment
        deadline = std::max(m_rack.head().xmit_ps + s.m_rto, now + 1);
    s.set_timer(tcp_timer_kind::rto, deadline);
}

void rack_tlp_recovery::arm_after_ack(uint64_t now) {
    if (!schedule_loss_probe(now, true))
        rearm_rto_from_head(now);
}

bool rack_tlp_recovery::schedule_loss_probe(uint64_t now, bool advancing_rto) {
    tcp_sender& s = m_s;
    if (s.m_in_fr || m_in_loss || s.m_high_tx == s.m_snd_una)
        return false;
    const double srtt = s.m_rtt.srtt();
    uint64_t pto = initial_pto_ps;
    if (srtt > 0)   // 2 SRTT, and a delayed ACK's worst case when only one segment is out (RFC 8985 7.2; Linux)
        pto = static_cast<uint64_t>(2 * srtt) +
              (s.m_high_tx - s.m_snd_una <= s.m_cfg.mss ? s.m_cfg.min_rto_ps : s.m_cfg.tlp_min_ps);
    uint64_t rto_left = s.m_rto;   // no later than the RTO would fire
    if (!advancing_rto && !m_rack.empty())
        rto_left = m_rack.head().xmit_ps + s.m_rto > now ? m_rack.head().xmit_ps + s.m_rto - now : 0;
    if (rto_left > 0)
        pto = std::min(pto, rto_left);
    s.set_timer(tcp_timer_kind::loss_probe, now + pto);
    return true;
}

void rack_tlp_recovery::send(uint64_t now) {
    tcp_sender& s = m_s;
    s.restart_after_idle(now);
    const uint64_t wnd = s.window();
    const uint64_t mss = s.m_cfg.mss;
    bool sent = false, sent_new = false, window_full = false;
    auto fits = [&](uint64_t len) {
        const uint64_t p = m_rack.pipe();
        return p == 0 || p + len <= wnd;
    };
    // the lost segments first (Linux tcp_xmit_retransmit_queue)
    uint64_t seq = 0, len = 0, from = s.m_snd_una;
    while (m_rack.next_lost(from, seq, len)) {
        len = std::min(len, mss);
        if (!fits(len)) {
            window_full = true;
            break;
        }
        if (!s.host_takes(len, true))
            break;
        transmit(seq, static_cast<uint32_t>(len), now, s.m_in_fr);
        from = seq + len;
        sent = true;
    }
    // then new data
    while (!window_full && s.m_high_tx < s.m_app_end) {
        len = std::min<uint64_t>(mss, s.m_app_end - s.m_high_tx);
        if (!fits(len)) {
            window_full = true;
            break;
        }
        if (s.m_cfg.rwnd_bytes() && s.m_high_tx + len - s.m_snd_una > s.m_cfg.rwnd_bytes())
            break;
        if (!s.host_takes(len, false))
            break;
        transmit(s.m_high_tx, static_cast<uint32_t>(len), now);
        s.m_snd_nxt = s.m_high_tx;
        sent = sent_new = true;
    }
    if (s.m_cfg.cwnd_validation && (sent || window_full))
        s.cwnd_validate(window_full || m_rack.pipe() + mss > wnd);
    if (sent_new)
        schedule_loss_probe(now, false);
}

void rack_tlp_recovery::process_probe_ack(const tcp_ack_info& a, bool advanced, uint64_t delivered) {
    tcp_sender& s = m_s;
    if (a.ack < m_tlp_high_seq)
        return;
    if (!m_tlp_retrans || (a.dsack && a.dsack_end == m_tlp_high_seq)) {
        m_tlp_high_seq = 0;   // a probe of new data, or the original and the probe both arrived: no loss
        return;
    }
    if (a.ack > m_tlp_high_seq) {   // the probe repaired a loss: the window goes down once (Linux: CWR)
        s.m_w.ssthresh = s.loss_ssthresh();
        s.m_w.cwnd = s.m_w.ssthresh;
        s.m_stats.tlp_recoveries++;
        m_tlp_high_seq = 0;
        return;
    }
    if (!advanced && delivered == 0)
        m_tlp_high_seq = 0;   // a pure duplicate ACK: the original and the probe both arrived
}

void rack_tlp_recovery::on_loss_probe(uint64_t now) {
    tcp_sender& s = m_s;
    bool sent = false;
    if (m_tlp_high_seq == 0 && !s.m_in_fr && !m_in_loss) {
        const uint64_t mss = s.m_cfg.mss;
        if (s.m_high_tx < s.m_app_end &&
            (!s.m_cfg.rwnd_bytes() || s.m_high_tx + std::min<uint64_t>(mss, s.m_app_end - s.m_high_tx) - s.m_snd_una <=
                                          s.m_cfg.rwnd_bytes())) {   // new data, whatever the window
            const uint64_t len = std::min<uint64_t>(mss, s.m_app_end - s.m_high_tx);
            if (s.host_takes(len, false)) {
                transmit(s.m_high_tx, static_cast<uint32_t>(len), now);
                s.m_snd_nxt = s.m_high_tx;
                m_tlp_retrans = false;
                sent = true;
            }
        } else if (!m_rack.empty() && s.m_host.nic().qdisc().below_bytes(s.m_flow) == 0) {
            // the last segment again, unless it is still in the host's queues (Linux skb_still_in_host_queue)
            const rack_scoreboard::segment& t = m_rack.tail();
            const uint64_t seq = t.end - std::min(t.end - t.begin, mss);
            transmit(seq, static_cast<uint32_t>(t.end - seq), now, true);
            s.m_stats.probe_retransmitted_bytes += t.end - seq;
            m_tlp_retrans = true;
            sent = true;
        }
        if (sent) {
            m_tlp_high_seq = s.m_high_tx;
            s.m_stats.loss_probes++;
            s.notify(tcp_event::loss_probe, now);
            s.m_rto_armed = false;   // the RTO counts from the probe
        }
    }
    rearm_rto_from_head(now);
}

void rack_tlp_recovery::on_reorder_timeout(uint64_t now) {
    tcp_sender& s = m_s;
    const uint64_t prior_pipe = m_rack.pipe();
    const uint64_t lost = detect(now, nullptr);
    if (m_rack.pipe() != prior_pipe) {
        if (!s.m_in_fr && !m_in_loss) {
            enter_recovery(now);
            s.m_prr.on_ack(s.m_w.cwnd, s.m_cfg.mss, m_rack.pipe(), s.m_w.ssthresh, s.m_cfg.mss, false, lost > 0);
        }
        send(now);
    }
    if (!(s.m_rto_armed && s.m_timer_kind == tcp_timer_kind::rto))
        rearm_rto_from_head(now);
}

void rack_tlp_recovery::on_timer(tcp_timer_kind kind, uint64_t now) {
    if (kind == tcp_timer_kind::loss_probe)
        on_loss_probe(now);
    else if (kind == tcp_timer_kind::reorder)
        on_reorder_timeout(now);
}

void rack_tlp_recovery::on_timeout() {   // (7), after the sender's common steps
    m_in_loss = true;
    m_rack.mark_all_lost();
    m_tlp_high_seq = 0;
}

}   // namespace cmswitch
