// SPDX-License-Identifier: Apache-2.0
// Fixed-size transactions over TCP (the IEEE QCN baselines with TCP sources): transactions arrive as in
// transaction_source (Poisson or Bernoulli), each goes to a destination drawn uniformly from a list, and is
// written as txn_bytes into the persistent TCP connection to that destination.
#ifndef CMSWITCH_TRAFFIC_TRANSACTION_APP_H
#define CMSWITCH_TRAFFIC_TRANSACTION_APP_H

#include "traffic/tcp/tcp_receiver.h"
#include "traffic/tcp/tcp_sender.h"
#include "traffic/udp_source.h"

#include <vector>

namespace cmswitch {

class tcp_transaction_source final : public timer_client {
public:
    // senders[i]: the connection to destination i. p.frame_bytes is unused (TCP segments by MSS).
    tcp_transaction_source(host_nic& nic, std::vector<tcp_sender*> senders, const transaction_params& p, rng r)
        : m_nic(nic), m_senders(std::move(senders)), m_p(p), m_clock(p, r) {
        const uint64_t first = m_p.start_ps + m_clock.next_gap_ps();
        if (!m_senders.empty() && first < m_p.stop_ps)
            m_nic.schedule_timer(first, this, 0);
    }
    void on_timer(uint32_t) override {
        const uint64_t now = now_ps();
        const size_t i = m_senders.size() == 1 ? 0 : m_clock.random().below(m_senders.size());
        m_senders[i]->write(m_p.txn_bytes);
        ++m_transactions;
        const uint64_t next = now + m_clock.next_gap_ps();
        if (next < m_p.stop_ps)
            m_nic.schedule_timer(next, this, 0);
    }
    uint64_t transactions() const { return m_transactions; }

private:
    host_nic& m_nic;
    std::vector<tcp_sender*> m_senders;
    transaction_params m_p;
    arrival_clock m_clock;
    uint64_t m_transactions = 0;
};

}   // namespace cmswitch
#endif
