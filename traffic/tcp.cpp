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
    const uint64_t ack = f->ack;
    const bool ece = (f->flags & tcp_ece) != 0;
    m_host.nic().pool().release(f);
    on_ack(ack, ece, now);
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

void tcp_sender::on_ack(uint64_t ack, bool ece, uint64_t now) {
    const uint64_t mss = m_cfg.mss;
    const bool dctcp = m_cfg.congestion_control == tcp_config::cc::dctcp;
    if (ack > m_high_tx)
        return;   // acknowledges what was never sent: ignore
    if (ack > m_snd_nxt)
        m_snd_nxt = ack;   // after a go-back-N the receiver may already hold data beyond snd_nxt

    if (ack > m_snd_una) {
        const uint64_t newly = ack - m_snd_una;
        if (dctcp) {
            m_acked += newly;
            if (ece)
                m_marked += newly;
        }
        if (m_timing && ack > m_rtt_seq) {
            rtt_sample(now - m_rtt_start);
            m_timing = false;
        }
        bool restart_timer = true;
        if (m_in_fr) {
            if (ack >= m_recover) {   // full ACK: leave fast recovery
                const uint64_t flight_after = m_snd_nxt - ack;
                m_cwnd = std::min(m_ssthresh, std::max(flight_after, mss) + mss);
                m_in_fr = false;
                m_dupacks = 0;
                m_snd_una = ack;
            } else {                  // partial ACK: retransmit the next hole, deflate, stay
                m_snd_una = ack;
                send_segment(ack, static_cast<uint32_t>(std::min<uint64_t>(mss, m_snd_nxt - ack)), now);
                m_cwnd = newly < m_cwnd ? m_cwnd - newly : 0;
                if (newly >= mss)
                    m_cwnd += mss;
                if (m_cwnd < mss)
                    m_cwnd = mss;
                restart_timer = m_first_partial;
                m_first_partial = false;
            }
        } else {
            m_dupacks = 0;
            if (m_cwnd < m_ssthresh)
                m_cwnd += std::min(newly, mss);                   // slow start (RFC 5681, L = 1 SMSS)
            else
                m_cwnd += std::max<uint64_t>(1, mss * mss / m_cwnd);   // congestion avoidance: ~1 SMSS per RTT
            m_snd_una = ack;
        }
        if (m_snd_una == m_snd_nxt && m_snd_nxt == m_high_tx) {
            m_rto_armed = false;      // everything acknowledged
            if (m_listener && m_snd_una == m_app_end)
                m_listener->on_send_complete(m_flow, now);
        }
        else if (restart_timer)
            arm_rto(now);
        if (dctcp && ack > m_window_end) {   // one observation window (about one RTT) has ended
            const double frac = m_acked ? static_cast<double>(m_marked) / static_cast<double>(m_acked) : 0.0;
            m_alpha = (1 - m_cfg.dctcp_g) * m_alpha + m_cfg.dctcp_g * frac;
            m_window_end = m_snd_nxt;
            m_acked = m_marked = 0;
            m_cwr_end = 0;   // a new reduction is allowed in the new window
        }
    } else if (ack == m_snd_una && m_snd_nxt > m_snd_una) {
        ++m_dupacks;
        if (!m_in_fr && m_dupacks == 3 && (!m_recover_valid || ack >= m_recover)) {
            m_recover = m_snd_nxt;   // RFC 6582 "recover" = highest sequence sent; full ACK covers it
            m_recover_valid = true;
            m_ssthresh = std::max(flight() / 2, 2 * mss);
            m_stats.fast_retransmits++;
            send_segment(m_snd_una, static_cast<uint32_t>(std::min<uint64_t>(mss, m_snd_nxt - m_snd_una)), now);
            m_cwnd = m_ssthresh + 3 * mss;
            m_in_fr = true;
            m_first_partial = true;
        } else if (m_in_fr) {
            m_cwnd += mss;   // each further duplicate ACK: one segment has left the network
        }
    }

    // congestion signal by ECN: at most one reduction per window of data, not during loss recovery
    if (ece && !m_in_fr) {
        if (dctcp) {
            if (m_cwr_end == 0) {
                m_ssthresh = std::max(static_cast<uint64_t>(static_cast<double>(m_cwnd) * (1 - m_alpha / 2)),
                                      2 * mss);
                m_cwnd = m_ssthresh;
                m_cwr_end = 1;
                m_stats.ecn_reductions++;
            }
        } else if (m_cfg.ecn && ack >= m_cwr_end) {
            m_ssthresh = std::max(m_cwnd / 2, 2 * mss);
            m_cwnd = m_ssthresh;
            m_cwr_end = m_snd_nxt + 1;
            m_send_cwr = true;
            m_stats.ecn_reductions++;
        }
    }
    try_send(now);
}

void tcp_sender::try_send(uint64_t now) {
    const uint64_t wnd = m_cfg.rwnd_bytes ? std::min(m_cwnd, m_cfg.rwnd_bytes) : m_cwnd;
    while (m_snd_nxt < m_app_end) {
        const uint64_t len = std::min<uint64_t>(m_cfg.mss, m_app_end - m_snd_nxt);
        if (flight() > 0 && flight() + len > wnd)
            break;
        if (m_host.nic().room(m_flow) < len + m_cfg.header_bytes) {   // our QCN rate limiter is full: wait
            m_host.nic().want_room(m_flow);
            break;
        }
        send_segment(m_snd_nxt, static_cast<uint32_t>(len), now);
        m_snd_nxt += len;
    }
}

void tcp_sender::send_segment(uint64_t seq, uint32_t len, uint64_t now) {
    const segment seg{seq, len, m_send_cwr, now};
    m_send_cwr = false;
    m_stats.segments_sent++;
    m_stats.bytes_sent += len;
    if (seq < m_high_tx) {
        m_stats.retransmitted_segments++;
        m_stats.retransmitted_bytes += len;
        m_timing = false;   // Karn: no sample across a retransmission
    } else if (!m_timing) {
        m_timing = true;
        m_rtt_seq = seq;
        m_rtt_start = now;
    }
    if (seq + len > m_high_tx)
        m_high_tx = seq + len;
    if (!m_rto_armed)
        arm_rto(now);
    if (m_cfg.jitter_ps == 0) {
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
    f->bytes = seg.len + m_cfg.header_bytes;
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

void tcp_sender::arm_rto(uint64_t now) {
    m_rto_armed = true;
    m_rto_deadline = now + m_rto;
    if (!m_rto_timer_pending) {
        m_rto_timer_pending = true;
        m_host.nic().schedule_timer(m_rto_deadline, this, timer_rto);
    }
}

void tcp_sender::on_timer(uint32_t tag) {
    const uint64_t now = now_ps();
    if (tag == timer_jitter) {
        to_nic(m_jitter_fifo[m_jitter_head++]);
        if (m_jitter_head == m_jitter_fifo.size()) {
            m_jitter_fifo.clear();
            m_jitter_head = 0;
        }
        return;
    }
    // the RTO timer entry: the deadline may have moved later since it was scheduled (lazy restart)
    m_rto_timer_pending = false;
    if (!m_rto_armed)
        return;
    if (now < m_rto_deadline) {
        m_rto_timer_pending = true;
        m_host.nic().schedule_timer(m_rto_deadline, this, timer_rto);
        return;
    }
    on_rto(now);
}

void tcp_sender::on_rto(uint64_t now) {
    const uint64_t mss = m_cfg.mss;
    m_stats.timeouts++;
    m_recover = m_snd_nxt;
    m_recover_valid = true;
    m_in_fr = false;
    m_dupacks = 0;
    m_ssthresh = std::max(flight() / 2, 2 * mss);
    m_cwnd = mss;
    m_snd_nxt = m_snd_una;   // go back N
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
    f->bytes = m_cfg.header_bytes;
    f->flags = static_cast<uint8_t>(tcp_ack | (ece ? tcp_ece : 0));
    f->ack = m_rcv_nxt;
    f->src = static_cast<uint16_t>(m_host.host_id());
    f->dst = static_cast<uint16_t>(m_peer);
    f->flow = m_flow;
    f->prio = m_cfg.prio;
    f->created_ps = now;
    m_unacked = 0;
    m_stats.acks_sent++;
    m_host.nic().send(f);
}

} // namespace cmswitch
