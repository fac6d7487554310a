// SPDX-License-Identifier: Apache-2.0
#include "traffic/tcp/dupack_recovery.h"

#include "traffic/tcp/tcp_sender.h"

namespace cmswitch {

void dupack_recovery::process_ack(const tcp_ack_info& a, bool dup, uint64_t now) {
    tcp_sender& s = m_s;
    if (a.ack > s.m_snd_nxt)
        s.m_snd_nxt = a.ack;   // after a go-back-N the receiver may already hold data beyond snd_nxt
    tcp_ack_event ev = s.ack_event(a, now);
    if (a.ack > s.m_snd_una)
        on_new_ack(a, ev, now);
    else if (s.m_high_tx > s.m_snd_una && dup)
        on_dupack(now);
    if (a.ece && !s.m_in_fr)   // a congestion signal by ECN, not during loss recovery
        s.answer_ecn_echo(ev);
}

void dupack_recovery::on_new_ack(const tcp_ack_info& a, tcp_ack_event& ev, uint64_t now) {
    tcp_sender& s = m_s;
    const uint64_t ack = a.ack;
    const uint64_t newly = ack - s.m_snd_una;
    ev.newly_acked = newly;
    s.take_rtt_sample(a, ev, now);
    bool restart_timer = true;
    s.m_dupacks = 0;
    m_limited_sent = 0;
    m_limited_bytes = 0;
    if (!s.m_in_fr) {
        s.m_snd_una = ack;
        if (!s.cwr_step(ev, newly, true, false))
            s.grow_window(ev);
    } else if (ack >= s.m_recover) {   // full ACK: leave loss recovery
        // RFC 6582 option (2), as Linux and ns-2 do (not cut to FlightSize + 1 SMSS, which after the last
        // segment of an application write leaves 2 SMSS for the next one)
        s.m_w.cwnd = s.m_w.ssthresh;
        s.m_in_fr = false;
        s.m_snd_una = ack;
        s.notify(tcp_event::recovery_exit, now);
    } else {
        on_partial_ack(ack, newly, now, restart_timer);
    }
    if (s.m_snd_una == s.m_high_tx) {
        s.m_rto_armed = false;   // everything acknowledged: the timer stops (RFC 6298 5.2)
        if (s.m_listener && s.m_snd_una == s.m_app_end)
            s.m_listener->on_send_complete(s.m_flow, now);
    } else if (restart_timer) {
        s.arm_rto(now);   // RFC 6298 5.3
    }
    s.tell_acked(ev);
}

bool dupack_recovery::may_recover() const {
    return !m_s.m_recover_valid || m_s.m_snd_una > m_s.m_recover;
}

void dupack_recovery::begin_recovery(uint64_t now) {
    tcp_sender& s = m_s;
    s.notify(tcp_event::fast_retransmit, now);   // with the state the third duplicate ACK found
    s.m_in_cwr = false;   // (the loss response replaces a CWR reduction)
    s.m_w.ssthresh = s.loss_ssthresh();
    s.m_recover = s.m_high_tx;   // RFC 6582 recover / RFC 6675 RecoveryPoint = HighData
    s.m_recover_valid = true;
    s.m_stats.fast_retransmits++;
    s.m_in_fr = true;
}

void dupack_recovery::count_limited_transmit(uint64_t len, uint64_t now) {
    m_s.m_stats.limited_transmits++;
    m_limited_sent++;
    m_limited_bytes += len;
    m_s.notify(tcp_event::limited_transmit, now);
}

void dupack_recovery::on_timeout() {
    m_limited_sent = 0;
    m_limited_bytes = 0;
    m_s.m_snd_nxt = m_s.m_snd_una;   // go back N
}

uint64_t dupack_recovery::flight_size() const {
    return m_s.m_high_tx - m_s.m_snd_una - m_limited_bytes;
}

}   // namespace cmswitch
