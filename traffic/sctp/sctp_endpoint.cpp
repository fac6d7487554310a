// SPDX-License-Identifier: Apache-2.0
#include "traffic/sctp/sctp_endpoint.h"

#include <algorithm>
#include <cmath>

namespace cmswitch {

sctp_endpoint::sctp_endpoint(host_stack& host, uint32_t flow, int peer, const sctp_config& cfg, sctp_stats& stats)
    : m_host(host), m_flow(flow), m_peer(peer), m_cfg(cfg), m_stats(stats), m_rto(cfg.rto_initial_ps) {
    host.bind(flow, this);
}

void sctp_endpoint::reset_rto() {
    m_rto = m_cfg.rto_initial_ps;
    m_rtt.reset();
    m_first_rtt = 0;
}

void sctp_endpoint::rtt_sample(uint64_t r) {
    const double rr = static_cast<double>(r);
    if (!m_rtt.have_sample())
        m_first_rtt = r;
    const double rto = m_rtt.sample(rr);   // RTO.Alpha 1/8, RTO.Beta 1/4; rounded to the nearest ps
    m_rto = std::clamp(static_cast<uint64_t>(std::llround(rto)), m_cfg.rto_min_ps, m_cfg.rto_max_ps);
    ++m_stats.rtt_samples;
    m_stats.rtt_sum_ps += rr;
}

frame* sctp_endpoint::make_packet(uint8_t flags, uint32_t bytes) {
    frame* f = m_host.nic().pool().acquire();
    f->kind = frame_kind::sctp;
    f->flags = flags;
    f->bytes = bytes;
    f->src = static_cast<uint16_t>(m_host.host_id());
    f->dst = static_cast<uint16_t>(m_peer);
    f->flow = m_flow;
    f->prio = m_cfg.prio;
    f->ecn = ecn_not_ect;   // control chunks are never ECN-capable (RFC 4960 appendix A)
    f->ctl.sctp = sctp_fields{0, 0, 0, 0};
    f->created_ps = now_ps();
    return f;
}

void sctp_endpoint::connect(uint32_t request) {
    const uint64_t now = now_ps();
    m_request = request;
    m_state = state::cookie_wait;
    reset_rto();
    on_new_association(initial_tsn(), now);
    m_t1_rto = m_cfg.rto_initial_ps;
    m_t1_retransmitted = false;
    send_handshake(sctp_init, now);
    arm_t1(now);
}

void sctp_endpoint::send_handshake(uint8_t flag, uint64_t now) {
    uint32_t bytes = sctp_config::packet_header_bytes;
    frame* f = nullptr;
    switch (flag) {
    case sctp_init:
        f = make_packet(flag, bytes + sctp_config::init_chunk_bytes);
        f->ctl.sctp.tsn = initial_tsn();
        m_t1_sent = now;
        break;
    case sctp_init_ack:
        f = make_packet(flag, bytes + sctp_config::init_chunk_bytes + sctp_config::cookie_bytes);
        f->ctl.sctp.tsn = initial_tsn();
        break;
    case sctp_cookie_echo: {
        // the request travels as one DATA chunk bundled with the cookie
        const uint32_t req = m_request ? sctp_config::data_chunk_header_bytes + ((m_request + 3) & ~3u) : 0;
        f = make_packet(flag, bytes + 4 + sctp_config::cookie_bytes + req);
        f->ctl.sctp.request = m_request;
        m_t1_sent = now;
        break;
    }
    default: f = make_packet(flag, bytes + sctp_config::cookie_ack_chunk_bytes); break;
    }
    m_host.nic().send(f);
}

void sctp_endpoint::arm_t1(uint64_t now) {
    ++m_t1_gen;
    m_host.nic().schedule_timer(now + m_t1_rto, this, timer_t1 | (m_t1_gen << timer_kind_bits));
}

void sctp_endpoint::on_timer(uint32_t tag) {
    const uint32_t kind = tag & ((1u << timer_kind_bits) - 1);
    const uint64_t now = now_ps();
    if (kind != timer_t1) {
        on_timer_kind(kind, tag >> timer_kind_bits, now);
        return;
    }
    if ((tag >> timer_kind_bits) != (m_t1_gen & (~0u >> timer_kind_bits)))
        return;   // superseded
    if (m_state != state::cookie_wait && m_state != state::cookie_echoed)
        return;
    // RFC 4960 6.3.3 / 5.1: retransmit with the timer doubled (up to RTO.max)
    ++m_stats.t1_timeouts;
    m_t1_rto = std::min(2 * m_t1_rto, m_cfg.rto_max_ps);
    m_t1_retransmitted = true;
    send_handshake(m_state == state::cookie_wait ? sctp_init : sctp_cookie_echo, now);
    arm_t1(now);
}

void sctp_endpoint::set_established(uint32_t request, uint64_t now) {
    if (m_state == state::established)
        return;
    m_state = state::established;
    ++m_t1_gen;   // stops T1
    if (m_setup_listener)
        m_setup_listener->on_established(m_flow, request, now);
}

void sctp_endpoint::on_handshake(frame* f, uint64_t now) {
    const uint8_t flag = f->flags;
    const uint32_t tsn = f->ctl.sctp.tsn;
    const uint32_t request = f->ctl.sctp.request;
    m_host.nic().pool().release(f);
    switch (flag) {
    case sctp_init:
        // the other end starts a new association (or retransmits its INIT): answer with a cookie, statelessly
        if (m_state == state::init_received) {
            m_init_ack_retransmitted = true;   // a repeated INIT: the RTT of this exchange is ambiguous (Karn)
        } else {
            m_state = state::init_received;
            reset_rto();
            on_new_association(tsn, now);
            m_init_ack_retransmitted = false;
        }
        m_init_ack_sent = now;
        send_handshake(sctp_init_ack, now);
        break;
    case sctp_init_ack:
        if (m_state != state::cookie_wait)
            return;   // a duplicate
        if (!m_t1_retransmitted)
            rtt_sample(now - m_t1_sent);
        on_new_association(tsn, now);   // the data sender's TSNs (no-op at a data sender)
        m_state = state::cookie_echoed;
        m_t1_rto = m_rto;
        m_t1_retransmitted = false;
        send_handshake(sctp_cookie_echo, now);
        arm_t1(now);
        break;
    case sctp_cookie_echo:
        send_handshake(sctp_cookie_ack, now);
        if (m_state == state::init_received) {
            if (!m_rtt.have_sample() && !m_init_ack_retransmitted)
                rtt_sample(now - m_init_ack_sent);
            set_established(request, now);
        }
        break;
    case sctp_cookie_ack:
        if (m_state == state::cookie_echoed)
            set_established(0, now);
        break;
    default: break;
    }
}

}   // namespace cmswitch
