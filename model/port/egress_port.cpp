// SPDX-License-Identifier: Apache-2.0
#include "model/port/egress_port.h"

#include "model/switch/buffer_manager.h"

#include "config/errors.h"

#include <algorithm>
#include <cstddef>

namespace cmswitch {

void egress_port::reset(uint64_t now_ps, uint64_t histogram_bin_bytes) {
    // The hot lines as the class lays them out (offsetof of a class with a virtual function: GCC and Clang give
    // it, with a warning that the layout is the compiler's; these checks are about that layout).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
    static_assert(offsetof(egress_port, m_busy_until) / 64 == 0 && offsetof(egress_port, m_buffer) / 64 == 0,
                  "line 1: what every visit reads");
    static_assert(offsetof(egress_port, m_events) / 64 == 1 && (offsetof(egress_port, m_tx_frames) + 7) / 64 == 1,
                  "line 2: the domain, the peer and the frame count");
    static_assert(offsetof(egress_port, m_link) / 64 == 2 && (offsetof(egress_port, m_wait_max_ps) + 7) / 64 == 2,
                  "line 3: the link's timing and the counters");
    static_assert(offsetof(egress_port, m_occ) == 3 * 64, "line 4: the occupancy statistics' update");
    static_assert(offsetof(egress_port, m_q) + sizeof(frame_fifo) == 5 * 64, "line 5 ends with queue 0");
#pragma GCC diagnostic pop
    for (auto& q : m_q)
        q = frame_fifo{};
    m_nonempty = 0;
    m_paused = 0;
    m_qpaused = 0;
    m_wakeup_pending = false;
    m_bytes = 0;
    m_frames = 0;
    m_busy_until = now_ps;
    m_pause.reset();
    m_tx_frames = m_tx_bytes = m_wait_max_ps = 0;
    m_wait_sum_ps = 0;
    m_occ.reset(now_ps, histogram_bin_bytes);
    if (m_features & feature_queue_stats)
        m_qshadow = -1;   // (m_occ too starts now, empty, with the same bands)
}

const std::vector<uint64_t>& egress_port::pause_episodes_ps(int prio) const {
    static const std::vector<uint64_t> none;
    return m_pause ? m_pause->episodes[prio] : none;
}

occupancy_stats egress_port::queue_occupancy(int queue) const {
    if (!(m_features & feature_queue_stats))
        return occupancy_stats{};
    if (queue == m_qshadow)
        return m_occ;
    if (m_qshadow == -2)
        return m_obs->qocc[queue];
    occupancy_stats zero;   // another queue alone, or none, has held frames: this one has stayed at zero
    zero.reset(m_occ.start_ps(), m_occ.bin_bytes());
    zero.set(m_occ.start_ps(), 0);
    return zero;
}

void egress_port::track_every_queue(uint64_t start_ps, uint64_t bin_bytes, bool at_zero) {
    observers& o = obs();
    for (int q = 0; q < num_priorities; ++q) {
        o.qocc[q].reset(start_ps, bin_bytes);
        o.qocc[q].set(start_ps, at_zero ? 0 : m_q[q].bytes);
    }
    m_qshadow = -2;
}

void egress_port::track_queues(uint64_t now_ps, uint64_t histogram_bin_bytes) {
    m_features |= feature_queue_stats;
    // an empty port whose own statistics start now with the same bands: its first queue can share them, and
    // nothing per queue is kept until a second queue holds a frame
    if (m_bytes == 0 && m_occ.start_ps() == now_ps &&
        m_occ.bin_bytes() == occupancy_stats::bin_for(histogram_bin_bytes))
        m_qshadow = -1;
    else
        track_every_queue(now_ps, histogram_bin_bytes, false);
}

void egress_port::observe_queue(uint64_t now, int queue) {
    // Called for a change of `queue`, before the port's own statistics (m_occ) take it in.
    if (m_features & feature_queue_stats) {
        if (m_qshadow == -1) {
            m_qshadow = static_cast<int8_t>(queue);   // the first queue used: its statistics are the port's
        } else if (m_qshadow >= 0 && m_qshadow != queue) {
            // a second queue: every queue tracked on its own from here on, all at zero since the start but the
            // first one, whose statistics so far are the port's up to this change
            const int first = m_qshadow;
            track_every_queue(m_occ.start_ps(), m_occ.bin_bytes(), true);
            m_obs->qocc[first] = m_occ;
        }
        if (m_qshadow == -2)
            m_obs->qocc[queue].set(now, m_q[queue].bytes);
    }
    if (m_features & feature_waveforms)
        trace_levels(now, queue);
}

void egress_port::try_transmit(uint64_t now) {
    const uint8_t ready = m_nonempty & static_cast<uint8_t>(~m_qpaused);
    if (!ready)
        return;
    const uint8_t strict = ready & static_cast<uint8_t>(~m_dwrr);
    const int prio = strict ? 31 - __builtin_clz(static_cast<unsigned>(strict))   // strict priority: highest first
                            : pick_dwrr(ready);
    frame_fifo& q = m_q[prio];
    frame* f = q.pop();
    if (!q.head)
        m_nonempty &= static_cast<uint8_t>(~(1u << prio));
    else
        __builtin_prefetch(q.head);   // a deep queue's next frame has gone cold since it was queued: fetch it now
    m_bytes -= f->bytes;
    --m_frames;
    depart<true>(f, now, prio);
}

void egress_port::pass_through(frame* f, uint64_t now, int qi) {
    // what enqueue and try_transmit would do at one instant with every queue empty: the level touches the frame's
    // bytes (the maximum sees it) and is back at zero with no time spent there
    f->enq_ps = now;
    m_occ.touch(f->bytes);
    depart<false>(f, now, qi);
}

template <bool level_moved>
inline void egress_port::depart(frame* f, uint64_t now, int prio) {
    prefetch_route(*f);   // wanted at the end
    if (m_buffer && f->kind != frame_kind::pause && f->kind != frame_kind::cnm)   // control frames: no admission
        m_buffer->release(static_cast<int>(m_index), prio, *f);
    if (m_has_dequeue) {
        // the listener may queue a frame here (a NIC's scheduler pulls the next one): it must wait for this one
        const bool pending = m_wakeup_pending;
        m_wakeup_pending = true;
        notify_dequeue(*f, now);
        m_wakeup_pending = pending;
    }
    if (m_features && ((m_features & feature_waveforms) || m_qshadow != prio))
        observe_queue(now, prio);
    // A frame passing an idle port waited no time and left the level at zero (a frame that a listener queued into
    // the empty port meanwhile set the level itself).
    if constexpr (level_moved) {
        m_occ.set(now, m_bytes);
        const uint64_t wait = now - f->enq_ps;
        m_wait_sum_ps += wait;
        if (wait > m_wait_max_ps)
            m_wait_max_ps = wait;
    }
    m_tx_frames++;
    m_tx_bytes += f->bytes;

    if (m_peer.events) {
        const uint64_t ser = m_link.serialization_ps(f->bytes, now);
        // the receiver's arrival: its last bit in (f now belongs to the receiver)
        event_handler* to = m_peer.handler;
        uint32_t kind = m_peer.kind;
        if (m_peer.routes && f->dst < m_peer.num_routes && f->kind != frame_kind::pause) {
            const int out = m_peer.routes[f->dst];
            if (out >= 0) {
                to = &m_peer.ports[out];
                kind = frame_sink::routed_kind;
            }
        }
        uint64_t at = now + ser + m_link.delay_ps();
        if ((m_peer.pipeline_ns | m_peer.cut_through_bytes) && f->kind != frame_kind::pause)
            at = timed_arrival(*f, now, at);
        m_peer.events->schedule(at, to, kind, m_peer.index, f);
        m_busy_until = now + ser;
    } else {
        if (!m_socket)
            unconnected();
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        (*m_socket)->b_transport(*f, delay);   // f now belongs to the receiver
        m_busy_until = now + delay.value();
    }
    request_wakeup();
}

uint64_t egress_port::timed_arrival(frame& f, uint64_t now, uint64_t last_bit_ps) {
    const uint64_t pipeline = uint64_t{m_peer.pipeline_ns} * 1000;
    if (!m_peer.cut_through_bytes)
        return last_bit_ps + pipeline;
    // cut-through: the switch acts once the first cut_through_bytes are in (at the rate this frame started at)
    f.enq_ps = last_bit_ps;
    const uint32_t head = f.bytes < m_peer.cut_through_bytes ? f.bytes : m_peer.cut_through_bytes;
    return now + m_link.delay_ps() + m_link.current_serialization_ps(head) + pipeline;
}

void egress_port::bad_attach(uint32_t index) {
    throw config_error("egress port: port index " + std::to_string(index) + " outside [0, 65535]");
}

void egress_port::unconnected() const {
    throw model_error("a frame was sent out of port " + std::to_string(m_index) +
                      ", which is connected to no link (egress_port::connect or bind_socket)");
}

void egress_port::set_dwrr(uint8_t dwrr_mask, const uint32_t (&quantum)[num_priorities]) {
    dwrr_mask &= static_cast<uint8_t>(~(1u << (num_priorities - 1)));   // the control priority stays strict
    for (int p = 0; p < num_priorities; ++p)
        if (((dwrr_mask >> p) & 1) && quantum[p] < 1500)
            throw config_error("DWRR quantum of priority " + std::to_string(p) + " = " + std::to_string(quantum[p]) +
                               " B: at least 1500 B");
    m_dwrr = dwrr_mask;
    m_dwrr_state = std::make_unique<dwrr_state>();
    for (int p = 0; p < num_priorities; ++p)
        m_dwrr_state->quantum[p] = quantum[p];
}

int egress_port::pick_dwrr(uint8_t ready) {
    // deficit round robin: the class whose turn it is gets its quantum once per turn and sends while its
    // deficit covers the head frame; an empty class forgets its deficit
    dwrr_state& d = *m_dwrr_state;
    for (;;) {
        const int c = d.rr;
        if ((m_dwrr >> c) & 1) {
            if (!((m_nonempty >> c) & 1)) {
                d.deficit[c] = 0;
            } else if ((ready >> c) & 1) {
                if (!d.rr_credited) {
                    d.deficit[c] += d.quantum[c];
                    d.rr_credited = true;
                }
                const uint32_t head = m_q[c].head->bytes;
                if (d.deficit[c] >= head) {
                    d.deficit[c] -= head;
                    return c;
                }
            }
        }
        d.rr = (d.rr + 1) % num_priorities;
        d.rr_credited = false;
    }
}

void egress_port::notify_dequeue(frame& f, uint64_t now) {
    m_dequeue->on_dequeue(m_index, f, now);
}

void egress_port::trace_as(const std::string& scope) {
    trace_signal* bytes = model_trace::declare(scope, "bytes", 32);
    trace_signal* q[num_priorities];
    trace_signal* paused[num_priorities];
    bool traced = bytes != nullptr;
    for (int p = 0; p < num_priorities; ++p) {
        q[p] = model_trace::declare(scope, "q" + std::to_string(p) + "_bytes", 32);
        paused[p] = p == num_priorities - 1 ? nullptr   // control frames are never paused
                                            : model_trace::declare(scope, "paused" + std::to_string(p), 1);
        traced = traced || q[p] || paused[p];
    }
    if (!traced)   // nothing of this port in the trace: no state for it
        return;
    observers& o = obs();
    m_features |= feature_waveforms;
    o.tr_bytes = bytes;
    for (int p = 0; p < num_priorities; ++p) {
        o.tr_q[p] = q[p];
        o.tr_paused[p] = paused[p];
    }
    const uint64_t now = now_ps();
    for (int p = 0; p < num_priorities; ++p)   // initial values at the time of declaration
        if (o.tr_paused[p])
            o.tr_paused[p]->set(now, (m_paused >> p) & 1);
    for (int p = 0; p < num_priorities; ++p)
        trace_levels(now, p);
}

void egress_port::trace_levels(uint64_t now, int prio) {
    const observers& o = *m_obs;
    if (o.tr_bytes)
        o.tr_bytes->set(now, m_bytes);
    if (o.tr_q[prio])
        o.tr_q[prio]->set(now, m_q[prio].bytes);
}

void egress_port::set_paused(uint8_t mask, uint64_t now) {
    pause_state& ps = *m_pause;
    if (mask && !m_paused)
        ps.since = now;
    else if (!mask && m_paused)
        ps.total_ps += now - ps.since;
    if (const uint8_t changed = mask ^ m_paused) {   // pause episodes per class: from XOFF to its end
        for (int p = 0; p < num_priorities; ++p) {
            if (!((changed >> p) & 1))
                continue;
            if ((mask >> p) & 1)
                ps.episode_start[p] = now;
            else
                ps.episodes[p].push_back(now - ps.episode_start[p]);
        }
    }
    if (m_features & feature_waveforms)
        for (int p = 0; p < num_priorities; ++p)
            if (m_obs->tr_paused[p])
                m_obs->tr_paused[p]->set(now, (mask >> p) & 1);
    m_paused = mask;
    m_qpaused = 0;
    for (int p = 0; p < num_priorities; ++p)
        if ((mask >> p) & 1)
            m_qpaused |= static_cast<uint8_t>(1u << m_qmap[p]);
    if (!m_wakeup_pending && m_busy_until <= now)
        try_transmit(now);
    else if (!m_wakeup_pending)
        request_wakeup();
}

void egress_port::on_pause(uint8_t class_mask, uint32_t quanta, uint64_t now) {
    if (!m_pause)
        m_pause = std::make_unique<pause_state>();
    ++m_pause->received;
    const uint64_t duration =
        m_rate_bps ? static_cast<uint64_t>((static_cast<uint128>(quanta) * 512u * 1000000000000ull) / m_rate_bps) : 0;
    class_mask &= static_cast<uint8_t>(~(1u << (num_priorities - 1)));   // control frames are never paused
    for (int p = 0; p < num_priorities; ++p)
        if (class_mask & (1u << p))
            m_pause->until[p] = now + duration;
    on_pause_expiry(now);
}

void egress_port::on_pause_expiry(uint64_t now) {
    // One expiry event pending per port: a refreshed pause (the usual XOFF train) moves the end later, and the
    // pending event re-arms for it when it fires; only an earlier end schedules another. An event that fires
    // after an earlier one replaced it only recomputes the mask (unchanged).
    if (!m_pause)   // (an expiry from before a reset)
        return;
    pause_state& ps = *m_pause;   // made by the pause that scheduled this expiry
    if (now == ps.expiry_at)
        ps.expiry_at = UINT64_MAX;
    uint8_t mask = 0;
    uint64_t next = UINT64_MAX;
    for (int p = 0; p < num_priorities; ++p)
        if (ps.until[p] > now) {
            mask |= static_cast<uint8_t>(1u << p);
            next = std::min(next, ps.until[p]);
        }
    if (next < ps.expiry_at) {
        ps.expiry_at = next;
        m_events->schedule(next, m_owner, m_kind_pause_expiry, m_index, nullptr);
    }
    set_paused(mask, now);
}

}   // namespace cmswitch
