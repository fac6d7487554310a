// SPDX-License-Identifier: Apache-2.0
#include "traffic/udp_source.h"

#include "config/errors.h"

#include <cmath>

namespace cmswitch {

namespace {
void send_udp(host_stack& host, flow_stats& st, uint32_t bytes, uint8_t prio, uint64_t now) {
    frame* f = host.nic().pool().acquire();
    f->kind = frame_kind::udp;
    f->bytes = bytes;
    f->payload = bytes > udp_ip_header_bytes ? bytes - udp_ip_header_bytes : 0;
    f->src = static_cast<uint16_t>(st.src);
    f->dst = static_cast<uint16_t>(st.dst);
    f->flow = st.flow;
    f->prio = prio;
    f->seq = st.sent_frames;
    f->created_ps = now;
    st.sent_frames++;
    st.sent_bytes += f->bytes;
    st.sent_payload += f->payload;
    host.nic().send(f);
}
}   // namespace

cbr_source::cbr_source(host_stack& host, flow_stats& stats, const cbr_params& p)
    : m_host(host), m_stats(stats), m_p(p) {
    if (m_p.start_ps < m_p.stop_ps)
        m_host.nic().schedule_timer(m_p.start_ps, this, 0);
}

uint64_t cbr_source::time_of(uint64_t k) const {
    const uint128 bits_ps = static_cast<uint128>(m_p.frame_bytes) * 8u * 1000000000000ull;
    if (bits_ps % m_p.rate_bps == 0)   // exact interval: no wide division per frame
        return m_p.start_ps + k * static_cast<uint64_t>(bits_ps / m_p.rate_bps);
    return m_p.start_ps + static_cast<uint64_t>(bits_ps * k / m_p.rate_bps);
}

void cbr_source::on_timer(uint32_t) {
    const uint64_t now = now_ps();
    send_udp(m_host, m_stats, m_p.frame_bytes, m_p.prio, now);
    const uint64_t next = time_of(++m_k);
    if (next < m_p.stop_ps)
        m_host.nic().schedule_timer(next, this, 0);
}

arrival_process parse_arrival_process(const std::string& name) {
    if (name == "poisson")
        return arrival_process::poisson;
    if (name == "bernoulli")
        return arrival_process::bernoulli;
    throw config_error("arrival process = '" + name + "': allowed values are poisson, bernoulli");
}

transaction_source::transaction_source(host_stack& host, std::vector<flow_stats*> flows, const transaction_params& p,
                                       rng r)
    : m_host(host), m_flows(std::move(flows)), m_p(p), m_clock(p, r) {
    if (m_flows.empty())
        throw config_error("transaction source on host " + std::to_string(host.host_id()) + ": no destination");
    m_next_ps = m_p.start_ps + m_clock.next_gap_ps();
    if (m_next_ps < m_p.stop_ps)
        m_host.nic().schedule_timer(m_next_ps, this, 0);
}

uint64_t arrival_clock::next_gap_ps() {
    const double txn_ps = static_cast<double>(m_p.txn_bytes) * 8e12 / static_cast<double>(m_p.rate_bps);
    if (m_p.arrivals == arrival_process::poisson)
        return static_cast<uint64_t>(std::llround(m_rng.exponential(txn_ps)));
    // Bernoulli: each slot carries a transaction with probability p = slot / mean gap; the number of slots to
    // the next success is geometric.
    const double p = static_cast<double>(m_p.slot_ps) / txn_ps;
    if (p >= 1.0)
        return m_p.slot_ps;
    const double u = 1.0 - m_rng.uniform();   // (0, 1]
    const uint64_t slots = 1 + static_cast<uint64_t>(std::floor(std::log(u) / std::log1p(-p)));
    return slots * m_p.slot_ps;
}

void transaction_source::on_timer(uint32_t) {
    const uint64_t now = now_ps();
    flow_stats& st = *m_flows[m_flows.size() == 1 ? 0 : m_clock.random().below(m_flows.size())];
    uint32_t left = m_p.txn_bytes;
    while (left > 0) {
        uint32_t b = left < m_p.frame_bytes ? left : m_p.frame_bytes;
        left -= b;
        if (b < min_frame_bytes)
            b = min_frame_bytes;
        send_udp(m_host, st, b, m_p.prio, now);
    }
    m_next_ps = now + m_clock.next_gap_ps();
    if (m_next_ps < m_p.stop_ps)
        m_host.nic().schedule_timer(m_next_ps, this, 0);
}

}   // namespace cmswitch
