// SPDX-License-Identifier: Apache-2.0
#include "traffic/tcp/tcp_sender.h"

#include "config/errors.h"

#include <algorithm>
#include <cmath>

namespace cmswitch {

const char* tcp_event_name(tcp_event e) {
    switch (e) {
    case tcp_event::timeout: return "timeout";
    case tcp_event::fast_retransmit: return "fast_retransmit";
    case tcp_event::recovery_exit: return "recovery_exit";
    case tcp_event::limited_transmit: return "limited_transmit";
    case tcp_event::ack: return "ack";
    case tcp_event::loss_probe: return "loss_probe";
    }
    return "?";
}

tcp_sender::tcp_sender(host_stack& host, uint32_t flow, int dst, shared_tcp_config cfg, tcp_stats& stats, rng r)
    : m_host(host), m_flow(flow), m_dst(dst), m_cfg_block(std::move(cfg)),
      m_cfg(m_cfg_block ? *m_cfg_block : throw config_error("tcp_sender: no tcp_config (a null shared_tcp_config)")),
      m_stats(stats), m_rng(r), m_cc(make_congestion_control(m_cfg)),
      m_ecn_codepoint(m_cc->ecn_capable() ? ecn_ect0 : ecn_not_ect), m_cc_on_acked(m_cc->wants_on_acked()),
      m_cc_delay(m_cc->wants_delay_samples()), m_w{static_cast<uint64_t>(m_cfg.init_cwnd) * m_cfg.mss, UINT64_MAX},
      m_rto(m_cfg.initial_rto_ps ? std::max(m_cfg.initial_rto_ps, m_cfg.min_rto_ps) : m_cfg.min_rto_ps),
      m_host_shaped(host.nic().shaped()), m_recovery(make_loss_recovery(*this, m_cfg)) {
    host.bind(flow, this);
    // waveform: host<h>.flow<f>.cwnd (bytes), if a trace selects it
    if (model_trace::active())   // (no name is built for a run without a trace)
        m_tr_cwnd =
            model_trace::declare("host" + std::to_string(host.host_id()) + ".flow" + std::to_string(flow), "cwnd", 32);
    if (m_tr_cwnd)
        m_tr_cwnd->set(now_ps(), m_w.cwnd);
}

void tcp_sender::write(uint64_t bytes) {
    m_app_end += bytes;
    if (!m_sent_any && m_host_shaped) {
        const host_egress_config& e = m_host.nic().qdisc().config();
        m_cc->set_paced(e.qdisc == host_egress_config::qdisc_kind::fq && e.pacing);
        update_pacing_rate();
    }
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
    tcp_ack_info a;
    a.ack = f->ack;
    a.ece = (f->flags & tcp_ece) != 0;
    a.dsack = (f->flags & tcp_dsack) != 0;
    a.dsack_end = f->seq;
    a.tsecr = m_cfg.timestamps ? f->ts_ps : 0;
    a.echo = f->ts_ps;
    a.nsack = m_cfg.sack ? std::min<int>(f->sack_blocks, max_sack_blocks) : 0;
    for (int i = 0; i < a.nsack; ++i)
        a.sack[i] = {f->ack + f->sack[i].begin, f->ack + f->sack[i].end};
    m_host.nic().pool().release(f);
    // (an ACK of what was never sent, or an old ACK overtaken by a newer one, is ignored)
    if (a.ack <= m_high_tx && a.ack >= m_snd_una)
        m_recovery->on_ack(a, now);
    if (m_host_shaped)
        update_pacing_rate();
}

uint32_t tso_autosize_segments(uint64_t pacing_bps, uint64_t min_rtt_ps, uint64_t gso_max_bytes, uint32_t mss) {
    uint64_t bytes = gso_max_bytes;
    if (pacing_bps > 0 && min_rtt_ps != UINT64_MAX) {
        bytes = (pacing_bps / 8) >> 10;   // sk_pacing_rate >> sk_pacing_shift
        const uint64_t r = (min_rtt_ps / 1000000) >> 9;   // tcp_min_rtt >> tcp_tso_rtt_log
        if (r < 32)
            bytes += gso_max_bytes >> r;
        bytes = std::min<uint64_t>(bytes, gso_max_bytes);
    }
    return std::max<uint32_t>(static_cast<uint32_t>(bytes / mss), 2);
}

void tcp_sender::rtt_sample(uint64_t r) {
    m_min_rtt = std::min(m_min_rtt, r);
    const double rto = m_rtt.sample(static_cast<double>(r));   // SRTT + 4 RTTVAR, rounded up as Linux's jiffies
    if (m_cfg.rto_rule == tcp_config::rto_rule_t::linux_tcp) {   // SRTT + max(4 RTTVAR, min_rto)
        const double srtt = m_rtt.srtt(), min_rto = static_cast<double>(m_cfg.min_rto_ps);
        m_rto = std::min(m_cfg.max_rto_ps, static_cast<uint64_t>(std::ceil(srtt + std::max(rto - srtt, min_rto))));
        return;
    }
    m_rto = std::min(m_cfg.max_rto_ps, std::max(m_cfg.min_rto_ps, static_cast<uint64_t>(std::ceil(rto))));
}

uint64_t tcp_sender::loss_ssthresh() const {
    uint64_t x;
    if (m_cfg.ssthresh_from == tcp_config::ssthresh_rule::flight)
        x = m_recovery->flight_size();   // RFC 5681 FlightSize
    else
        x = m_in_fr ? std::min(m_w.cwnd, m_w.ssthresh) : m_w.cwnd;   // the window without fast-recovery inflation
    return m_cc->loss_ssthresh(x);
}

tcp_ack_event tcp_sender::ack_event(const tcp_ack_info& a, uint64_t now) const {
    tcp_ack_event ev{now, a.ack, 0, 0, 0, 0, a.ece, false, m_pacing_bps};   // what the congestion control is told
    if (m_cc_delay && a.echo && a.echo <= now)
        ev.delay_ps = now - a.echo;
    return ev;
}

void tcp_sender::take_rtt_sample(const tcp_ack_info& a, tcp_ack_event& ev, uint64_t now) {
    if (a.tsecr != 0 && a.tsecr <= now) {
        ev.rtt_ps = now - a.tsecr;   // RFC 7323: every ACK of new data, retransmissions included
        rtt_sample(ev.rtt_ps);
    } else if (m_timing && a.ack > m_rtt_seq) {
        ev.rtt_ps = now - m_rtt_start;
        rtt_sample(ev.rtt_ps);
        m_timing = false;
    }
}

void tcp_sender::grow_window(tcp_ack_event& ev) {
    ev.snd_nxt = m_snd_nxt;
    if (cwnd_limited())
        m_cc->on_increase(m_w, ev);
}

void tcp_sender::tell_acked(tcp_ack_event& ev) {
    if (!m_cc_on_acked)
        return;
    ev.snd_nxt = m_snd_nxt;
    ev.in_recovery = m_in_fr;
    m_cc->on_acked(m_w, ev);
}

void tcp_sender::answer_ecn_echo(tcp_ack_event& ev) {
    if (m_cfg.ecn_reduction == tcp_config::ecn_reduction_t::cwr) {
        if (!m_in_cwr)   // (an ECN-Echo on an ACK of new data began it in cwr_step already)
            enter_cwr();
        return;
    }
    ev.snd_nxt = m_snd_nxt;
    const tcp_congestion_control::ecn_response r = m_cc->on_ecn_echo(m_w, ev);
    if (r.reduced)
        m_stats.ecn_reductions++;
    if (r.send_cwr)
        m_send_cwr = true;
}

// Linux tcp_fastretrans_alert (the CWR state's exit, tcp_try_to_open's tcp_enter_cwr), then tcp_cong_control (in
// a reduction, tcp_cwnd_reduction; otherwise growth)
bool tcp_sender::cwr_step(const tcp_ack_event& ev, uint64_t delivered, bool una_advanced, bool newly_lost) {
    if (m_cfg.ecn_reduction != tcp_config::ecn_reduction_t::cwr)
        return false;
    if (m_in_cwr && ev.ack > m_cwr_high) {   // tcp_end_cwnd_reduction
        m_in_cwr = false;
        m_w.cwnd = m_w.ssthresh;
    }
    if (ev.ece && !m_in_cwr)
        enter_cwr();
    if (!m_in_cwr)
        return false;
    m_prr.on_ack(m_w.cwnd, delivered, m_recovery->pipe(), m_w.ssthresh, m_cfg.mss, una_advanced, newly_lost);
    return true;
}

void tcp_sender::enter_cwr() {   // Linux tcp_enter_cwr, tcp_init_cwnd_reduction
    m_in_cwr = true;
    m_cwr_high = m_high_tx;
    m_prr.begin(m_w.cwnd);
    m_w.ssthresh = m_cc->ecn_ssthresh(m_w.cwnd);
    m_send_cwr = true;   // (tcp_ecn_queue_cwr; a DCTCP receiver ignores it)
    m_stats.ecn_reductions++;
}

void tcp_sender::ack_done(uint64_t now) {
    if (m_observe_acks)
        notify(tcp_event::ack, now);
    if (m_tr_cwnd)
        m_tr_cwnd->set(now, m_w.cwnd);
}

// ---------------------------------------------------------------------------------------------- sending

void tcp_sender::restart_after_idle(uint64_t now) {
    if (m_cfg.slow_start_after_idle && m_sent_any && m_snd_una == m_high_tx && m_snd_nxt < m_app_end &&
        now - m_last_send_ps > m_rto) {
        const uint64_t iw = static_cast<uint64_t>(m_cfg.init_cwnd) * m_cfg.mss;
        if (m_w.cwnd > iw) {
            m_w.cwnd = iw;   // RFC 5681 4.1: restart window min(IW, cwnd); ssthresh stays
            m_stats.idle_restarts++;
        }
    }
}

bool tcp_sender::host_takes(uint64_t len, bool retransmission) {
    host_nic& nic = m_host.nic();
    // Linux sends whatever the small queue holds when at most one segment is unacknowledged
    // (and the rest of a GSO segment goes with its first frame: Linux checks the small queue per skb)
    const bool exempt = m_host_shaped && (m_high_tx - m_snd_una <= m_cfg.mss ||
                                          (!retransmission && continues_gso(m_high_tx, len, now_ps())));
    if (nic.room(m_flow, retransmission, exempt) >= len + m_cfg.header_bytes)
        return true;
    nic.want_room(m_flow);
    return false;
}

bool tcp_sender::cwnd_limited() const {
    if (!m_cfg.cwnd_validation || m_is_cwnd_limited)
        return true;
    return m_w.cwnd < m_w.ssthresh && m_w.cwnd < 2 * m_max_flight;   // slow start: up to twice what was out
}

void tcp_sender::cwnd_validate(bool cwnd_limited) {
    // Linux tcp_cwnd_validate: the strongest signal of the window's use over the current window of data
    const uint64_t flight = m_high_tx - m_snd_una;
    if (m_snd_una >= m_cwnd_usage_seq || cwnd_limited || (!m_is_cwnd_limited && flight > m_max_flight)) {
        m_is_cwnd_limited = cwnd_limited;
        m_max_flight = flight;
        m_cwnd_usage_seq = m_snd_nxt;
    }
}

void tcp_sender::update_pacing_rate() {
    const double srtt = m_rtt.srtt();
    if (srtt <= 0) {
        m_pacing_bps = 0;   // no RTT yet: unpaced (Linux: a rate without the division)
    } else {
        const double ratio = m_w.cwnd < m_w.ssthresh / 2 ? m_cfg.pacing_ss_ratio : m_cfg.pacing_ca_ratio;
        const double bytes = static_cast<double>(std::max(m_w.cwnd, m_high_tx - m_snd_una));
        m_pacing_bps = static_cast<uint64_t>(ratio * bytes * 8 / (srtt * 1e-12));
    }
    m_host.nic().set_pacing_rate(m_flow, m_pacing_bps);
}

void tcp_sender::send_segment(uint64_t seq, uint32_t len, uint64_t now, bool direct) {
    bool gso_cont = false;
    if (m_cfg.gso_max_bytes) {
        gso_cont = continues_gso(seq, len, now);
        if (!gso_cont) {   // a new GSO segment (or a retransmission, alone in its own)
            const uint64_t segs = tso_autosize_segments(m_pacing_bps, m_min_rtt, m_cfg.gso_max_bytes, m_cfg.mss);
            m_gso_goal = seq == m_high_tx ? segs * m_cfg.mss : 0;
            m_gso_bytes = 0;
            m_gso_time = now;
        }
        m_gso_bytes += len;
        m_gso_end = seq + len;
    }
    const segment seg{seq, len, m_send_cwr, now, gso_cont};
    m_send_cwr = false;
    m_last_send_ps = now;
    m_sent_any = true;
    m_stats.segments_sent++;
    m_stats.bytes_sent += len;
    if (m_in_fr || m_in_cwr)
        m_prr.out += len;   // (read by the reductions that use it: rack_tlp recovery, CWR)
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
    f->ecn = m_ecn_codepoint;
    f->flags = static_cast<uint8_t>((seg.cwr ? tcp_cwr : 0) | (seg.seq + seg.len == m_app_end ? tcp_psh : 0));
    f->host_bits = seg.gso_cont ? host_gso_cont : 0;
    f->ts_ps = seg.t_ps;
    f->created_ps = seg.t_ps;
    m_host.name_peer(f, m_peer_ep);
    m_host.nic().send(f, true);
}

// ------------------------------------------------------------------------------------ retransmission timer

void tcp_sender::arm_rto(uint64_t now) {
    // RFC 6298 5.1/5.3: the timer expires one current RTO from now, earlier or later than before
    set_timer(timer_kind::rto, now + m_rto);
}

void tcp_sender::set_timer(timer_kind kind, uint64_t deadline) {
    m_timer_kind = kind;
    m_rto_armed = true;
    m_rto_deadline = deadline;
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
    if (m_timer_kind == timer_kind::rto)
        on_rto(now);
    else
        m_recovery->on_timer(m_timer_kind, now);
}

void tcp_sender::on_rto(uint64_t now) {
    notify(tcp_event::timeout, now);   // with the state the timeout found
    m_stats.timeouts++;
    if (!m_recovery->in_loss())
        m_w.ssthresh = loss_ssthresh();
    m_recover = m_high_tx;   // no new recovery until the ACK passes what was sent before the timeout
    m_recover_valid = true;
    m_in_fr = false;
    m_in_cwr = false;
    m_dupacks = 0;
    m_w.cwnd = m_cfg.mss;
    m_timing = false;
    m_rto = std::min(2 * m_rto, m_cfg.max_rto_ps);   // exponential back-off until a new RTT sample
    m_rto_armed = false;
    m_recovery->on_timeout();
    m_cc->on_timeout();
    if (m_tr_cwnd)
        m_tr_cwnd->set(now, m_w.cwnd);
    try_send(now);
}

}   // namespace cmswitch
