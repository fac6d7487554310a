// SPDX-License-Identifier: Apache-2.0
#include "model/egress_port.h"

namespace cmswitch {

void egress_port::reset(uint64_t now_ps, uint64_t histogram_bin_bytes) {
    for (auto& q : m_q)
        q = frame_fifo{};
    m_nonempty = 0;
    m_paused = 0;
    m_wakeup_pending = false;
    m_bytes = 0;
    m_frames = 0;
    m_busy_until = now_ps;
    m_cnt = counters{};
    m_occ.reset(now_ps, histogram_bin_bytes);
}

void egress_port::try_transmit(uint64_t now) {
    const uint8_t ready = m_nonempty & static_cast<uint8_t>(~m_paused);
    if (!ready)
        return;
    const int prio = 31 - __builtin_clz(static_cast<unsigned>(ready));   // strict priority: highest first
    frame_fifo& q = m_q[prio];
    frame* f = q.pop();
    if (!q.head)
        m_nonempty &= static_cast<uint8_t>(~(1u << prio));
    m_bytes -= f->bytes;
    --m_frames;
    if (m_buffer)
        m_buffer->release(static_cast<int>(m_index), prio, f->bytes);
    m_occ.set(now, m_bytes);
    const uint64_t wait = now - f->enq_ps;
    m_cnt.wait_sum_ps += wait;
    if (wait > m_cnt.wait_max_ps)
        m_cnt.wait_max_ps = wait;
    m_cnt.tx_frames++;
    m_cnt.tx_bytes += f->bytes;

    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    (*m_socket)->b_transport(*f, delay);   // f now belongs to the receiver
    m_busy_until = now + delay.value();
    request_wakeup();
}

} // namespace cmswitch
