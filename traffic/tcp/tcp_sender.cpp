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

namespace {
constexpr uint32_t dup_thresh = 3;   // RFC 5681 / RFC 6675 DupThresh
}

tcp_sender::tcp_sender(host_stack& host, uint32_t flow, int dst, shared_tcp_config cfg, tcp_stats& stats, rng r)
    : m_host(host), m_flow(flow), m_dst(dst), m_cfg_block(std::move(cfg)),
      m_cfg(m_cfg_block ? *m_cfg_block : throw config_error("tcp_sender: no tcp_config (a null shared_tcp_config)")),
      m_stats(stats), m_rng(r), m_cc(make_congestion_control(m_cfg)),
      m_ecn_codepoint(m_cc->ecn_capable() ? ecn_ect0 : ecn_not_ect), m_cc_on_acked(m_cc->wants_on_acked()),
      m_cc_delay(m_cc->wants_delay_samples()), m_w{static_cast<uint64_t>(m_cfg.initial_cwnd) * m_cfg.mss, UINT64_MAX},
      m_rto(m_cfg.initial_rto_ps ? std::max(m_cfg.initial_rto_ps, m_cfg.min_rto_ps) : m_cfg.min_rto_ps),
      m_host_shaped(host.nic().shaped()) {
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
    if (!m_sent_any && m_host_shaped)
        update_pacing_rate();
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
    a.dsack = (f->flags & tcp_dsack) != 0;
    a.dsack_end = f->seq;
    a.tsecr = m_cfg.timestamps ? f->ts_ps : 0;
    a.echo = f->ts_ps;
    a.nsack = m_cfg.sack ? std::min<int>(f->sack_blocks, max_sack_blocks) : 0;
    for (int i = 0; i < a.nsack; ++i)
        a.sack[i] = {f->ack + f->sack[i].begin, f->ack + f->sack[i].end};
    m_host.nic().pool().release(f);
    if (m_cfg.rack_tlp)
        on_ack_rack(a, now);
    else
        on_ack(a, now);
    if (m_host_shaped)
        update_pacing_rate();
}

void tcp_sender::rtt_sample(uint64_t r) {
    const double rto = m_rtt.sample(static_cast<double>(r));   // rounded up, as Linux's jiffies
    m_rto = std::min(m_cfg.max_rto_ps, std::max(m_cfg.min_rto_ps, static_cast<uint64_t>(std::ceil(rto))));
}

uint64_t tcp_sender::loss_ssthresh() const {
    uint64_t x;
    if (m_cfg.ssthresh_from == tcp_config::ssthresh_rule::flight)
        x = m_high_tx - m_snd_una - m_limited_bytes;   // RFC 5681 FlightSize, without limited transmit
    else
        x = m_in_fr ? std::min(m_w.cwnd, m_w.ssthresh) : m_w.cwnd;   // the window without fast-recovery inflation
    return m_cc->loss_ssthresh(x);
}

void tcp_sender::on_ack(const ack_info& a, uint64_t now) {
    if (a.ack > m_high_tx || a.ack < m_snd_una)
        return;   // acknowledges what was never sent, or an old ACK overtaken by a newer one
    const bool sack_new = m_cfg.sack && m_sb.update(a.ack, m_high_tx, a.sack, a.nsack);
    if (a.ack > m_snd_nxt)
        m_snd_nxt = a.ack;   // after a go-back-N the receiver may already hold data beyond snd_nxt
    tcp_ack_event ev{now, a.ack, 0, 0, 0, 0, a.ece, false};   // what the congestion control is told
    if (m_cc_delay && a.echo && a.echo <= now)
        ev.delay_ps = now - a.echo;
    if (a.ack > m_snd_una)
        on_new_ack(a, ev, now);
    else if (m_high_tx > m_snd_una && (!m_cfg.sack || sack_new))
        on_dupack(now);   // RFC 5681 duplicate ACK; with SACK (RFC 6675) only if it SACKs new data

    // congestion signal by ECN (not during loss recovery): the algorithm's response
    if (a.ece && !m_in_fr) {
        ev.snd_nxt = m_snd_nxt;
        const tcp_congestion_control::ecn_response r = m_cc->on_ecn_echo(m_w, ev);
        if (r.reduced)
            m_stats.ecn_reductions++;
        if (r.send_cwr)
            m_send_cwr = true;
    }
    if (m_in_fr && m_cfg.sack)
        sack_send(now);
    else
        try_send(now);
    if (m_observe_acks)
        notify(tcp_event::ack, now);
    if (m_tr_cwnd)
        m_tr_cwnd->set(now, m_w.cwnd);
}

void tcp_sender::on_new_ack(const ack_info& a, tcp_ack_event& ev, uint64_t now) {
    const uint64_t mss = m_cfg.mss;
    const uint64_t ack = a.ack;
    const uint64_t newly = ack - m_snd_una;
    ev.newly_acked = newly;
    if (a.tsecr != 0 && a.tsecr <= now) {
        ev.rtt_ps = now - a.tsecr;   // RFC 7323: every ACK of new data, retransmissions included
        rtt_sample(ev.rtt_ps);
    } else if (m_timing && ack > m_rtt_seq) {
        ev.rtt_ps = now - m_rtt_start;
        rtt_sample(ev.rtt_ps);
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
            m_w.cwnd = m_w.ssthresh;
            m_in_fr = false;
            m_snd_una = ack;
            notify(tcp_event::recovery_exit, now);
        } else if (!m_cfg.sack) {   // NewReno partial ACK: retransmit the next hole, deflate, stay
            m_snd_una = ack;
            send_segment(ack, static_cast<uint32_t>(std::min<uint64_t>(mss, m_high_tx - ack)), now, true);
            m_w.cwnd = newly < m_w.cwnd ? m_w.cwnd - newly : 0;
            if (newly >= mss)
                m_w.cwnd += mss;
            if (m_w.cwnd < mss)
                m_w.cwnd = mss;
            restart_timer = m_first_partial;   // RFC 6582 "impatient": restart on the first partial ACK only
            m_first_partial = false;
        } else {   // RFC 6675 partial ACK: the scoreboard and pipe decide what goes next (sack_send)
            m_snd_una = ack;
        }
    } else {
        ev.snd_nxt = m_snd_nxt;
        if (cwnd_limited())
            m_cc->on_increase(m_w, ev);
        m_snd_una = ack;
    }
    if (m_high_rxt < m_snd_una)
        m_high_rxt = m_snd_una;
    if (m_snd_una == m_high_tx) {
        m_rto_armed = false;   // everything acknowledged: the timer stops (RFC 6298 5.2)
        if (m_listener && m_snd_una == m_app_end)
            m_listener->on_send_complete(m_flow, now);
    } else if (restart_timer) {
        arm_rto(now);   // RFC 6298 5.3
    }
    if (m_cc_on_acked) {
        ev.snd_nxt = m_snd_nxt;
        ev.in_recovery = m_in_fr;
        m_cc->on_acked(m_w, ev);
    }
}

void tcp_sender::on_dupack(uint64_t now) {
    const uint64_t mss = m_cfg.mss;
    ++m_dupacks;
    if (m_in_fr) {
        if (!m_cfg.sack)
            m_w.cwnd += mss;   // NewReno: each further duplicate ACK means one segment has left the network
        return;
    }
    // RFC 6582 "careful" variant (ns-2, Linux, FreeBSD): no new fast retransmit until the cumulative ACK covers
    // more than recover, the highest byte sent when the last recovery or timeout began
    const bool may_recover = !m_recover_valid || m_snd_una > m_recover;
    const bool loss = m_cfg.sack ? (m_dupacks >= dup_thresh || lost_below() > m_snd_una) : m_dupacks == dup_thresh;
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
            m_snd_nxt = m_sb.skip(m_snd_nxt);
        if (m_snd_nxt >= m_app_end)
            break;
        uint64_t len = std::min<uint64_t>(mss, m_app_end - m_snd_nxt);
        if (m_snd_nxt < m_high_tx)
            len = std::min(len, m_high_tx - m_snd_nxt);
        if (m_cfg.sack) {
            if (m_w.cwnd < pipe() + mss)
                break;
        } else if (flight() + len > m_w.cwnd + 2 * mss) {
            break;
        }
        if (m_cfg.rwnd_bytes && m_snd_nxt + len - m_snd_una > m_cfg.rwnd_bytes)
            break;
        if (!host_takes(len, m_snd_nxt < m_high_tx))
            break;
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
    m_w.ssthresh = loss_ssthresh();
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
        m_w.cwnd = m_w.ssthresh + (dup_thresh - std::min(dup_thresh, m_limited_sent)) * mss;
        return;
    }
    // RFC 6675 (4): cwnd = ssthresh; retransmit the first segment presumed lost; HighRxt after it; then step (C)
    m_w.cwnd = m_w.ssthresh;
    m_rescue_valid = false;
    len = m_sb.clip(m_snd_una, m_snd_una + len) - m_snd_una;
    send_segment(m_snd_una, static_cast<uint32_t>(len), now, true);
    m_high_rxt = m_snd_una + len;
    sack_send(now);
}

// ----------------------------------------------------------------------------------- SACK (RFC 6675)

uint64_t tcp_sender::lost_below() const {
    return m_sb.lost_below(m_snd_una, m_cfg.mss, dup_thresh);
}

uint64_t tcp_sender::pipe() const {
    if (m_cfg.rack_tlp)
        return m_rack.pipe();
    if (m_high_tx <= m_snd_una)
        return 0;
    // RFC 6675 SetPipe(): each unSACKed byte in [HighACK, HighData) counts once if not lost and once more if it
    // was retransmitted (at or under HighRxt)
    const uint64_t lost = std::min(std::max(lost_below(), m_snd_una), m_high_tx);
    const uint64_t rxt = std::min(std::max(m_high_rxt, m_snd_una), m_high_tx);
    return (m_high_tx - lost - m_sb.sacked_in(lost, m_high_tx)) + (rxt - m_snd_una - m_sb.sacked_in(m_snd_una, rxt));
}

int tcp_sender::next_seg(uint64_t& seq, uint32_t& len) const {
    const uint64_t mss = m_cfg.mss;
    const uint64_t high_sacked = m_sb.highest_end();
    const uint64_t s = m_sb.skip(std::max(m_high_rxt, m_snd_una));
    auto clip = [&](uint64_t from) {
        return static_cast<uint32_t>(m_sb.clip(from, std::min(from + mss, m_high_tx)) - from);
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
        if (!m_sb.empty() && m_sb.highest_end() == m_high_tx)
            top = m_sb.highest_begin();
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
    while (m_w.cwnd >= pipe() + mss) {   // RFC 6675 (C): while cwnd - pipe >= 1 SMSS
        uint64_t seq;
        uint32_t len;
        const int rule = next_seg(seq, len);
        if (rule == 0)
            break;
        if (!host_takes(len, seq < m_high_tx))
            break;
        send_segment(seq, len, now);
        if (seq + len > m_snd_nxt)
            m_snd_nxt = seq + len;
        if (rule == 1 || rule == 3)
            m_high_rxt = std::max(m_high_rxt, seq + len);   // (C.2)
        else if (rule == 4) {
            m_rescue_valid = true;   // HighRxt is not moved by the rescue
            m_rescue_rxt = m_recover;
        }
    }
}

// ---------------------------------------------------------------------------------------------- sending

void tcp_sender::restart_after_idle(uint64_t now) {
    if (m_cfg.slow_start_after_idle && m_sent_any && m_snd_una == m_high_tx && m_snd_nxt < m_app_end &&
        now - m_last_send_ps > m_rto) {
        const uint64_t iw = static_cast<uint64_t>(m_cfg.initial_cwnd) * m_cfg.mss;
        if (m_w.cwnd > iw) {
            m_w.cwnd = iw;   // RFC 5681 4.1: restart window min(IW, cwnd); ssthresh stays
            m_stats.idle_restarts++;
        }
    }
}

bool tcp_sender::host_takes(uint64_t len, bool retransmission) {
    host_nic& nic = m_host.nic();
    // Linux sends whatever the small queue holds when at most one segment is unacknowledged
    const bool exempt = m_host_shaped && m_high_tx - m_snd_una <= m_cfg.mss;
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

void tcp_sender::try_send(uint64_t now) {
    if (m_cfg.rack_tlp) {
        rack_send(now);
        return;
    }
    restart_after_idle(now);
    const uint64_t wnd = window();
    bool sent = false, window_full = false;
    while (m_snd_nxt < m_app_end) {
        if (m_cfg.sack && m_snd_nxt < m_high_tx) {   // go-back-N after a timeout: skip what the receiver has
            m_snd_nxt = m_sb.skip(m_snd_nxt);
            if (m_snd_nxt >= m_app_end)
                break;
        }
        uint64_t len = std::min<uint64_t>(m_cfg.mss, m_app_end - m_snd_nxt);
        if (m_cfg.sack && m_snd_nxt < m_high_tx)
            len = m_sb.clip(m_snd_nxt, m_snd_nxt + len) - m_snd_nxt;
        const uint64_t in_flight = m_cfg.sack ? flight() - m_sb.sacked_in(m_snd_una, m_snd_nxt) : flight();
        if (in_flight > 0 && in_flight + len > wnd) {
            window_full = true;
            break;
        }
        if (!host_takes(len, m_snd_nxt < m_high_tx))   // our NIC's rate limiter or small queue is full: wait
            break;
        send_segment(m_snd_nxt, static_cast<uint32_t>(len), now);
        m_snd_nxt += len;
        sent = true;
    }
    if (m_cfg.cwnd_validation && (sent || window_full))
        cwnd_validate(window_full || flight() + m_cfg.mss > wnd);
}

void tcp_sender::send_segment(uint64_t seq, uint32_t len, uint64_t now, bool direct) {
    const segment seg{seq, len, m_send_cwr, now};
    m_send_cwr = false;
    m_last_send_ps = now;
    m_sent_any = true;
    m_stats.segments_sent++;
    m_stats.bytes_sent += len;
    if (m_cfg.rack_tlp) {
        m_rack.on_send(seq, len, now, seq < m_high_tx);
        if (m_in_fr)
            m_prr_out += len;
    }
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
    f->flags = seg.cwr ? tcp_cwr : 0;
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
    if (m_timer_kind == timer_kind::loss_probe)
        on_loss_probe(now);
    else if (m_timer_kind == timer_kind::reorder)
        on_reorder_timeout(now);
    else if (m_cfg.rack_tlp)
        rack_on_rto(now);
    else
        on_rto(now);
}

void tcp_sender::on_rto(uint64_t now) {
    const uint64_t mss = m_cfg.mss;
    notify(tcp_event::timeout, now);   // with the state the timeout found
    m_stats.timeouts++;
    m_w.ssthresh = loss_ssthresh();
    m_recover = m_high_tx;   // no fast retransmit until the ACK passes what was sent before the timeout
    m_recover_valid = true;
    m_in_fr = false;
    m_dupacks = 0;
    m_limited_sent = 0;
    m_limited_bytes = 0;
    m_w.cwnd = mss;
    m_snd_nxt = m_snd_una;   // go back N (SACKed data is skipped)
    m_high_rxt = m_snd_una;
    m_timing = false;
    m_rto = std::min(2 * m_rto, m_cfg.max_rto_ps);   // exponential back-off until a new RTT sample
    m_rto_armed = false;
    m_cc->on_timeout();
    if (m_tr_cwnd)
        m_tr_cwnd->set(now, m_w.cwnd);
    try_send(now);
}

}   // namespace cmswitch
