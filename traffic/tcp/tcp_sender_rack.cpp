// SPDX-License-Identifier: Apache-2.0
// Loss recovery as Linux runs it (tcp_config::rack_tlp, with SACK): RACK marks losses by time (RFC 8985 section
// 6, traffic/tcp/rack.h), recovery retransmits the lost segments first and paces the window down by proportional
// rate reduction (RFC 6937, Linux tcp_cwnd_reduction), a tail loss probe goes out 2 SRTT after the last send
// (RFC 8985 section 7, Linux tcp_schedule_loss_probe / tcp_send_loss_probe), and a timeout marks every segment
// not SACKed lost and resends them from cwnd = 1 SMSS (Linux tcp_enter_loss). One timer serves the RTO, the probe
// and RACK's reorder timeout, as in Linux.
#include "traffic/tcp/tcp_sender.h"

#include <algorithm>

namespace cmswitch {

namespace {
constexpr uint32_t dup_thresh = 3;   // RACK's reordering window is 0 with this many segments SACKed
constexpr uint64_t initial_pto_ps = 1000000000000ull;   // 1 s (Linux TCP_TIMEOUT_INIT) before an RTT sample
}   // namespace

void tcp_sender::on_ack_rack(const ack_info& a, uint64_t now) {
    if (a.ack > m_high_tx || a.ack < m_snd_una)
        return;   // acknowledges what was never sent, or an old ACK overtaken by a newer one
    if (a.dsack)
        m_stats.dsacks++;
    rack_scoreboard::range blocks[max_sack_blocks];
    for (int i = 0; i < a.nsack; ++i)
        blocks[i] = {a.sack[i].first, a.sack[i].second};
    const uint64_t delivered = m_rack.on_ack(a.ack, blocks, a.nsack, now, a.tsecr);
    tcp_ack_event ev{now, a.ack, 0, 0, 0, 0, a.ece, false};
    if (m_cc_delay && a.echo && a.echo <= now)
        ev.delay_ps = now - a.echo;
    const bool advanced = a.ack > m_snd_una;
    if (advanced) {
        ev.newly_acked = a.ack - m_snd_una;
        if (a.tsecr != 0 && a.tsecr <= now) {
            ev.rtt_ps = now - a.tsecr;
            rtt_sample(ev.rtt_ps);
        } else if (m_timing && a.ack > m_rtt_seq) {
            ev.rtt_ps = now - m_rtt_start;
            rtt_sample(ev.rtt_ps);
            m_timing = false;
        }
        m_snd_una = a.ack;
        m_snd_nxt = std::max(m_snd_nxt, m_snd_una);
        m_dupacks = 0;
    } else if (delivered > 0) {
        ++m_dupacks;
    }
    if (m_tlp_high_seq)
        process_tlp_ack(a, advanced, delivered);
    bool reorder_armed = false;   // (then the ACK leaves the timer to RACK, as Linux)
    const uint64_t newly_lost = m_rack.advanced() ? rack_detect(now, &reorder_armed) : 0;
    // the recovery state: out of recovery or loss once the ACK covers what was out when it began; into recovery
    // when RACK found a loss
    bool exited = false;
    if (m_in_fr && m_snd_una >= m_recover) {
        m_w.cwnd = m_w.ssthresh;
        m_in_fr = false;
        exited = true;
        notify(tcp_event::recovery_exit, now);
    }
    if (m_in_loss && m_snd_una >= m_recover)
        m_in_loss = false;
    if (!m_in_fr && !m_in_loss && m_rack.lost_bytes() > 0)
        rack_enter_recovery(now);
    if (m_snd_una == m_high_tx)
        m_rto_armed = false;   // everything acknowledged: no timer
    else if (advanced && !reorder_armed)
        rack_arm_after_ack(now);
    // the window: proportional rate reduction in recovery, growth (if cwnd-limited) otherwise
    if (m_in_fr) {
        rack_prr(delivered, advanced, newly_lost);
    } else if (advanced && !exited) {
        ev.snd_nxt = m_snd_nxt;
        if (cwnd_limited())
            m_cc->on_increase(m_w, ev);
    }
    if (advanced && m_cc_on_acked) {
        ev.snd_nxt = m_snd_nxt;
        ev.in_recovery = m_in_fr;
        m_cc->on_acked(m_w, ev);
    }
    if (a.ece && !m_in_fr) {
        ev.snd_nxt = m_snd_nxt;
        const tcp_congestion_control::ecn_response r = m_cc->on_ecn_echo(m_w, ev);
        if (r.reduced)
            m_stats.ecn_reductions++;
        if (r.send_cwr)
            m_send_cwr = true;
    }
    if (advanced && m_snd_una == m_high_tx && m_listener && m_snd_una == m_app_end)
        m_listener->on_send_complete(m_flow, now);
    rack_send(now);
    if (m_observe_acks)
        notify(tcp_event::ack, now);
    if (m_tr_cwnd)
        m_tr_cwnd->set(now, m_w.cwnd);
}

uint64_t tcp_sender::rack_detect(uint64_t now, bool* armed) {
    uint64_t wait = 0;
    const uint64_t srtt = static_cast<uint64_t>(m_rtt.srtt());
    const uint64_t lost = m_rack.detect_loss(now, m_rack.reo_wnd(m_in_fr, srtt, dup_thresh), &wait);
    if (lost)
        m_stats.rack_losses += (lost + m_cfg.mss - 1) / m_cfg.mss;
    if (armed && wait > 0) {   // Linux adds its 2 ms timer floor (TCP_TIMEOUT_MIN_US) to the wait
        set_timer(timer_kind::reorder, now + wait + m_cfg.tlp_min_ps);
        *armed = true;
    }
    return lost;
}

void tcp_sender::rack_enter_recovery(uint64_t now) {
    notify(tcp_event::fast_retransmit, now);   // with the state that found the loss
    m_stats.fast_retransmits++;
    m_prior_cwnd = m_w.cwnd;
    m_prr_delivered = m_prr_out = 0;
    m_w.ssthresh = loss_ssthresh();
    m_recover = m_high_tx;
    m_recover_valid = true;
    m_in_fr = true;
    m_tlp_high_seq = 0;
}

// RFC 6937 PRR with slow-start reduction bound, in bytes (Linux tcp_cwnd_reduction, in segments).
void tcp_sender::rack_prr(uint64_t delivered, bool una_advanced, uint64_t newly_lost) {
    if (delivered == 0 || m_prior_cwnd == 0)
        return;
    const auto mss = static_cast<int64_t>(m_cfg.mss);
    m_prr_delivered += delivered;
    const uint64_t pipe = m_rack.pipe();
    int64_t sndcnt;
    if (pipe > m_w.ssthresh) {   // proportional: ssthresh / prior_cwnd of what was delivered, less what was sent
        const uint128 dividend = static_cast<uint128>(m_w.ssthresh) * m_prr_delivered + m_prior_cwnd - 1;
        sndcnt = static_cast<int64_t>(dividend / m_prior_cwnd) - static_cast<int64_t>(m_prr_out);
    } else {   // slow-start reduction bound: back up to ssthresh no faster than slow start
        const int64_t delta = static_cast<int64_t>(m_w.ssthresh) - static_cast<int64_t>(pipe);
        sndcnt = std::max(static_cast<int64_t>(m_prr_delivered) - static_cast<int64_t>(m_prr_out),
                          static_cast<int64_t>(delivered));
        if (una_advanced && newly_lost == 0)
            sndcnt += mss;
        sndcnt = std::min(delta, sndcnt);
    }
    sndcnt = std::max<int64_t>(sndcnt, m_prr_out ? 0 : mss);   // the first retransmission goes at once
    m_w.cwnd = pipe + static_cast<uint64_t>(std::max<int64_t>(sndcnt, 0));
}

void tcp_sender::rearm_rto_from_head(uint64_t now) {
    if (m_high_tx == m_snd_una) {
        m_rto_armed = false;
        return;
    }
    uint64_t deadline = now + m_rto;
    if (m_rto_armed && m_timer_kind != timer_kind::rto && !m_rack.empty())   // Linux: the RTO of the head segment
        deadline = std::max(m_rack.head().xmit_ps + m_rto, now + 1);
    set_timer(timer_kind::rto, deadline);
}

void tcp_sender::rack_arm_after_ack(uint64_t now) {
    if (!schedule_loss_probe(now, true))
        rearm_rto_from_head(now);
}

bool tcp_sender::schedule_loss_probe(uint64_t now, bool advancing_rto) {
    if (m_in_fr || m_in_loss || m_high_tx == m_snd_una)
        return false;
    const double srtt = m_rtt.srtt();
    uint64_t pto = initial_pto_ps;
    if (srtt > 0)   // 2 SRTT, and a delayed ACK's worst case when only one segment is out (RFC 8985 7.2; Linux)
        pto = static_cast<uint64_t>(2 * srtt) +
              (m_high_tx - m_snd_una <= m_cfg.mss ? m_cfg.min_rto_ps : m_cfg.tlp_min_ps);
    uint64_t rto_left = m_rto;   // no later than the RTO would fire
    if (!advancing_rto && !m_rack.empty())
        rto_left = m_rack.head().xmit_ps + m_rto > now ? m_rack.head().xmit_ps + m_rto - now : 0;
    if (rto_left > 0)
        pto = std::min(pto, rto_left);
    set_timer(timer_kind::loss_probe, now + pto);
    return true;
}

void tcp_sender::rack_send(uint64_t now) {
    restart_after_idle(now);
    const uint64_t wnd = window();
    const uint64_t mss = m_cfg.mss;
    bool sent = false, sent_new = false, window_full = false;
    auto fits = [&](uint64_t len) {
        const uint64_t p = m_rack.pipe();
        return p == 0 || p + len <= wnd;
    };
    // the lost segments first (Linux tcp_xmit_retransmit_queue)
    uint64_t seq = 0, len = 0, from = m_snd_una;
    while (m_rack.next_lost(from, seq, len)) {
        len = std::min(len, mss);
        if (!fits(len)) {
            window_full = true;
            break;
        }
        if (!host_takes(len, true))
            break;
        send_segment(seq, static_cast<uint32_t>(len), now, m_in_fr);
        from = seq + len;
        sent = true;
    }
    // then new data
    while (!window_full && m_high_tx < m_app_end) {
        len = std::min<uint64_t>(mss, m_app_end - m_high_tx);
        if (!fits(len)) {
            window_full = true;
            break;
        }
        if (m_cfg.rwnd_bytes && m_high_tx + len - m_snd_una > m_cfg.rwnd_bytes)
            break;
        if (!host_takes(len, false))
            break;
        send_segment(m_high_tx, static_cast<uint32_t>(len), now);
        m_snd_nxt = m_high_tx;
        sent = sent_new = true;
    }
    if (m_cfg.cwnd_validation && (sent || window_full))
        cwnd_validate(window_full || m_rack.pipe() + mss > wnd);
    if (sent_new)
        schedule_loss_probe(now, false);
}

void tcp_sender::process_tlp_ack(const ack_info& a, bool advanced, uint64_t delivered) {
    if (a.ack < m_tlp_high_seq)
        return;
    if (!m_tlp_retrans || (a.dsack && a.dsack_end == m_tlp_high_seq)) {
        m_tlp_high_seq = 0;   // a probe of new data, or the original and the probe both arrived: no loss
        return;
    }
    if (a.ack > m_tlp_high_seq) {   // the probe repaired a loss: the window goes down once (Linux: CWR)
        m_w.ssthresh = loss_ssthresh();
        m_w.cwnd = m_w.ssthresh;
        m_stats.tlp_recoveries++;
        m_tlp_high_seq = 0;
        return;
    }
    if (!advanced && delivered == 0)
        m_tlp_high_seq = 0;   // a pure duplicate ACK: the original and the probe both arrived
}

void tcp_sender::on_loss_probe(uint64_t now) {
    bool sent = false;
    if (m_tlp_high_seq == 0 && !m_in_fr && !m_in_loss) {
        const uint64_t mss = m_cfg.mss;
        if (m_high_tx < m_app_end &&
            (!m_cfg.rwnd_bytes || m_high_tx + std::min<uint64_t>(mss, m_app_end - m_high_tx) - m_snd_una <=
                                      m_cfg.rwnd_bytes)) {   // new data, whatever the window
            const uint64_t len = std::min<uint64_t>(mss, m_app_end - m_high_tx);
            if (host_takes(len, false)) {
                send_segment(m_high_tx, static_cast<uint32_t>(len), now);
                m_snd_nxt = m_high_tx;
                m_tlp_retrans = false;
                sent = true;
            }
        } else if (!m_rack.empty() && m_host.nic().qdisc().below_bytes(m_flow) == 0) {
            // the last segment again, unless it is still in the host's queues (Linux skb_still_in_host_queue)
            const rack_scoreboard::segment& t = m_rack.tail();
            const uint64_t seq = t.end - std::min(t.end - t.begin, mss);
            send_segment(seq, static_cast<uint32_t>(t.end - seq), now, true);
            m_tlp_retrans = true;
            sent = true;
        }
        if (sent) {
            m_tlp_high_seq = m_high_tx;
            m_stats.loss_probes++;
            notify(tcp_event::loss_probe, now);
            m_rto_armed = false;   // the RTO counts from the probe
        }
    }
    rearm_rto_from_head(now);
}

void tcp_sender::on_reorder_timeout(uint64_t now) {
    const uint64_t prior_pipe = m_rack.pipe();
    const uint64_t lost = rack_detect(now, nullptr);
    if (m_rack.pipe() != prior_pipe) {
        if (!m_in_fr && !m_in_loss) {
            rack_enter_recovery(now);
            rack_prr(m_cfg.mss, false, lost);
        }
        rack_send(now);
    }
    if (!(m_rto_armed && m_timer_kind == timer_kind::rto))
        rearm_rto_from_head(now);
}

void tcp_sender::rack_on_rto(uint64_t now) {
    notify(tcp_event::timeout, now);   // with the state the timeout found
    m_stats.timeouts++;
    if (!m_in_loss)   // (a repeated timeout of the same episode keeps the ssthresh of the first)
        m_w.ssthresh = loss_ssthresh();
    m_recover = m_high_tx;
    m_recover_valid = true;
    m_in_fr = false;
    m_in_loss = true;
    m_dupacks = 0;
    m_rack.mark_all_lost();
    m_w.cwnd = m_cfg.mss;
    m_tlp_high_seq = 0;
    m_timing = false;
    m_rto = std::min(2 * m_rto, m_cfg.max_rto_ps);   // exponential back-off until a new RTT sample
    m_rto_armed = false;
    m_cc->on_timeout();
    if (m_tr_cwnd)
        m_tr_cwnd->set(now, m_w.cwnd);
    rack_send(now);
}

}   // namespace cmswitch
