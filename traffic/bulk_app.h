// SPDX-License-Identifier: Apache-2.0
// Bulk transfers over one TCP connection: a long-lived flow (always data to send), or elephant flows of random
// size drawn uniformly from [min_bytes, max_bytes] (Stewart et al. 2011: 100-512 MB), the next starting as soon as the
// previous one is fully acknowledged.
#ifndef CMSWITCH_TRAFFIC_BULK_APP_H
#define CMSWITCH_TRAFFIC_BULK_APP_H

#include "traffic/tcp/tcp_receiver.h"
#include "traffic/tcp/tcp_sender.h"

#include <cstdint>

namespace cmswitch {

class bulk_app final : public tcp_sender::listener, public timer_client {
public:
    // min_bytes == 0: long-lived. Starts at start_ps.
    bulk_app(tcp_sender& sender, host_nic& nic, uint64_t min_bytes, uint64_t max_bytes, rng r, uint64_t start_ps)
        : m_sender(sender), m_min(min_bytes), m_max(max_bytes), m_rng(r) {
        sender.set_listener(this);
        nic.schedule_timer(start_ps, this, 0);
    }
    void on_timer(uint32_t) override { next(); }
    void on_send_complete(uint32_t, uint64_t) override {
        ++m_completed;
        next();
    }
    uint64_t completed() const { return m_completed; }

private:
    void next() {
        if (m_min == 0)
            m_sender.write(uint64_t{1} << 50);   // never runs dry within any simulated time
        else
            m_sender.write(m_min + m_rng.below(m_max - m_min + 1));
    }
    tcp_sender& m_sender;
    uint64_t m_min, m_max;
    rng m_rng;
    uint64_t m_completed = 0;
};

}   // namespace cmswitch
#endif
