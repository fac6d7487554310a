// SPDX-License-Identifier: Apache-2.0
#include "traffic/sctp_elephant.h"

#include "config/errors.h"

namespace cmswitch {

sctp_elephant_source::sctp_elephant_source(host_nic& nic, std::vector<sctp_sender*> senders,
                                           std::vector<sctp_receiver*> sinks, uint64_t min_bytes, uint64_t max_bytes,
                                           rng r, uint64_t start_ps)
    : m_tx(std::move(senders)), m_rx(std::move(sinks)), m_min(min_bytes), m_max(max_bytes), m_rng(r) {
    if (m_tx.empty() || m_tx.size() != m_rx.size())
        throw config_error("elephant source: no peers");
    m_base_flow = m_tx.front()->flow();
    for (size_t i = 0; i < m_tx.size(); ++i) {
        if (m_tx[i]->flow() != m_base_flow + i || m_rx[i]->flow() != m_tx[i]->flow())
            throw model_error("elephant source: the peers' flows must be consecutive");
        m_tx[i]->set_listener(this);
        m_tx[i]->set_setup_listener(this);
        m_rx[i]->set_listener(this);
    }
    nic.schedule_timer(start_ps, this, 0);
}

void sctp_elephant_source::next(uint64_t now) {
    if (m_peer == 0)   // a new pass: a new size (paper: one size for the whole distribution to the peers)
        m_round_bytes = m_min + m_rng.below(m_max - m_min + 1);
    const size_t i = m_peer;
    m_peer = (m_peer + 1) % m_tx.size();
    m_transfers.push_back({static_cast<int>(i), m_round_bytes, now, 0, 0, 0});
    m_tx[i]->connect();
}

void sctp_elephant_source::on_established(uint32_t flow, uint32_t, uint64_t) {
    m_tx[flow - m_base_flow]->write(m_round_bytes);
}

void sctp_elephant_source::on_send_complete(uint32_t, uint64_t now) {
    next(now);
}

void sctp_elephant_source::on_delivered(uint32_t flow, uint64_t in_order_bytes, uint64_t now) {
    if (m_transfers.empty())
        return;
    transfer& t = m_transfers.back();
    if (static_cast<uint32_t>(t.peer) != flow - m_base_flow)
        return;   // (a late duplicate of an earlier transfer)
    const uint64_t add = in_order_bytes - t.delivered;
    if (t.delivered == 0 && in_order_bytes > 0)
        t.first_byte_ps = now;
    t.delivered = in_order_bytes;
    if (t.delivered >= t.bytes && t.last_byte_ps == 0)
        t.last_byte_ps = now;
    if (m_bin_ps && !m_class.empty()) {
        auto& bins = m_bins[m_class[static_cast<size_t>(t.peer)]];
        const size_t b = static_cast<size_t>(now / m_bin_ps);
        if (bins.size() <= b)
            bins.resize(b + 1, 0);
        bins[b] += add;
    }
}

}   // namespace cmswitch
