// SPDX-License-Identifier: Apache-2.0
#include "traffic/sctp_incast.h"

#include "config/errors.h"

namespace cmswitch {

sctp_incast_client::sctp_incast_client(host_nic& nic, std::vector<sctp_receiver*> receivers, uint64_t sends,
                                       uint64_t send_bytes, uint64_t start_ps)
    : m_rx(std::move(receivers)), m_reply_bytes(sends * send_bytes), m_pending(m_rx.size(), false) {
    if (m_rx.empty())
        throw config_error("incast client: no peers");
    m_base_flow = m_rx.front()->flow();
    for (size_t i = 0; i < m_rx.size(); ++i) {
        if (m_rx[i]->flow() != m_base_flow + i)
            throw model_error("incast client: the peers' flows must be consecutive");
        m_rx[i]->set_listener(this);
    }
    nic.schedule_timer(start_ps, this, 0);
}

void sctp_incast_client::start_round(uint64_t now) {
    ++m_round;
    m_round_start = now;
    m_remaining = m_rx.size();
    for (size_t i = 0; i < m_rx.size(); ++i) {
        m_pending[i] = true;
        m_rx[i]->connect(8);   // the request: two 4-byte fields (number of sends, their size)
    }
}

void sctp_incast_client::on_delivered(uint32_t flow, uint64_t in_order_bytes, uint64_t now) {
    const size_t i = flow - m_base_flow;
    if (i >= m_rx.size() || !m_pending[i] || in_order_bytes < m_reply_bytes)
        return;
    m_pending[i] = false;
    m_done.push_back({m_round_start, now - m_round_start, static_cast<int>(i)});
    if (--m_remaining == 0)
        start_round(now);
}

std::vector<sctp_incast_client::request_record> sctp_incast_client::unfinished(uint64_t now) const {
    std::vector<request_record> out;
    if (m_round == 0)
        return out;
    for (size_t i = 0; i < m_rx.size(); ++i)
        if (m_pending[i])
            out.push_back({m_round_start, now - m_round_start, static_cast<int>(i)});
    return out;
}

}   // namespace cmswitch
