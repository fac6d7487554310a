// SPDX-License-Identifier: Apache-2.0
#include "model/nic/host_nic.h"

namespace cmswitch {

host_nic::host_nic(sc_core::sc_module_name name, int host_id, uint64_t queue_limit_bytes, frame_pool& pool,
                   event_domain& events)
    : sc_module(name), m_limit(queue_limit_bytes), m_pool(pool), m_events(events) {
    m_host = host_id;
    m_port.attach(&m_events, this, 0);
    m_port.configure_pause(0, ev_pause_expiry);
    reset();
    if (model_trace::active())
        m_port.trace_as(std::string(basename()) + ".tx");
}

frame_initiator_socket& host_nic::tx() {
    if (!m_tx) {
        m_tx = make_child<frame_initiator_socket>(this, "tx");   // hostN.tx
        m_port.bind_socket(m_tx.get());
    }
    return *m_tx;
}

frame_target_socket<host_nic>& host_nic::rx() {
    if (!m_rx) {
        m_rx = make_child<frame_target_socket<host_nic>>(this, "rx");
        m_rx->register_b_transport(this, &host_nic::receive);
    }
    return *m_rx;
}

void host_nic::reset() {
    m_port.reset(0, m_limit / occupancy_stats::num_bins + 1);
    m_offered_frames = m_offered_bytes = 0;
    m_delivered_frames = m_delivered_bytes = 0;
    m_dropped_frames = m_dropped_bytes = 0;
    m_held_frames = m_held_bytes = 0;
    for (auto& d : m_drop_frames)
        d = 0;
    m_qdisc.reset();
    m_poll.reset();
}

void host_nic::set_reaction_point(std::unique_ptr<reaction_point> rp) {
    if (rp)
        rp->attach(*this);
    m_rp = std::move(rp);
    const uint8_t ev = m_rp ? m_rp->nic_events() : 0;
    m_rp_receives = (ev & reaction_point::on_receive_event) != 0;
    m_rp_dequeues = (ev & reaction_point::on_egress_dequeue_event) != 0;
    update_dequeue_listener();
}

void host_nic::configure_egress(const host_egress_config& cfg) {
    m_qdisc.configure(cfg, this);
    m_poll.configure(cfg.receive, this);
    m_shaped = cfg.active();
    m_latency_ps = cfg.latency_ps;
    m_rx_slow = cfg.receive.active() || m_latency_ps > 0;
    update_dequeue_listener();
}

void host_nic::update_dequeue_listener() {
    m_port.set_dequeue_listener(m_shaped || m_rp_dequeues ? this : nullptr);
}

bool host_nic::send_now(frame* f, bool backpressured) {   // (inlined into send: the path of every frame)
    if (m_shaped) {
        m_qdisc.enqueue(f, now_ps());
        return true;
    }
    return admit(f, now_ps(), backpressured);
}

bool host_nic::send(frame* f, bool backpressured) {
    m_offered_frames++;
    m_offered_bytes += f->bytes;
    if (m_latency_ps) {
        send_later(f, backpressured);
        return true;
    }
    return send_now(f, backpressured);
}

void host_nic::send_own(frame* f) {
    m_offered_frames++;
    m_offered_bytes += f->bytes;
    send_now(f, false);
}

void host_nic::send_later(frame* f, bool backpressured) {
    if (m_shaped)   // below its socket from now: the small queue sees the frames in the latency too
        m_qdisc.account(f);
    ++m_held_frames;
    m_held_bytes += f->bytes;
    m_events.schedule(now_ps() + m_latency_ps, this, ev_sent, backpressured ? 1 : 0, f);
}

bool host_nic::admit(frame* f, uint64_t now, bool backpressured) {
    const uint64_t held = m_port.bytes() + (m_rp ? m_rp->queued_bytes() : 0);
    if (held + f->bytes > m_limit) {
        m_qdisc.forget(*f);
        drop(f, drop_reason::nic_queue_full);
        return false;
    }
    if (m_rp && m_rp->limiting(f->flow)) {
        const auto taken = m_rp->take(f, now, backpressured);
        if (taken == reaction_point::take_result::taken)
            return true;
        if (taken == reaction_point::take_result::over_limit) {   // the flow's rate limiter is full
            m_qdisc.forget(*f);
            drop(f, drop_reason::rate_limiter_full);
            return false;
        }
    }
    m_port.enqueue(f, now);
    return true;
}

void host_nic::drop(frame* f, drop_reason why) {
    m_dropped_frames++;
    m_dropped_bytes += f->bytes;
    m_drop_frames[static_cast<size_t>(why)]++;
    if (m_drop_log && m_drop_log->size() < m_drop_log_limit)
        m_drop_log->push_back(drop_record{now_ps(), f->seq, f->flow, f->bytes, f->kind, f->flags, why});
    m_pool.release(f);
}

void host_nic::receive(int, frame& f, sc_core::sc_time& delay) {
    m_events.schedule(now_ps() + delay.value(), this, ev_arrival, 0, &f);
}

void host_nic::on_event(uint32_t kind, uint32_t index, void* ptr) {
    switch (kind) {
    case ev_arrival: arrive(static_cast<frame*>(ptr)); break;
    case ev_sent:
    case ev_received: {
        frame* f = static_cast<frame*>(ptr);
        --m_held_frames;
        m_held_bytes -= f->bytes;
        if (kind == ev_sent)
            send_now(f, index != 0);
        else
            deliver(f);
        break;
    }
    case ev_pause_expiry: m_port.on_pause_expiry(now_ps()); break;
    case ev_qdisc: m_qdisc.on_timer(now_ps()); break;
    case ev_tx_interrupt: m_qdisc.on_tx_interrupt(now_ps()); break;
    case ev_rx_interrupt: m_poll.on_interrupt(now_ps()); break;
    default: static_cast<timer_client*>(ptr)->on_timer(index); break;
    }
}

// A frame's last bit is in. PAUSE stops the transmitter and congestion notifications go to the reaction point
// (the NIC consumes both at once); the rest goes up to the stack, through the receive poll and the host's
// latency where they are on. A frame counts as delivered when the stack gets it (deliver).
void host_nic::arrive(frame* f) {
    if (f->kind == frame_kind::pause) {   // 802.3x / 802.1Qbb: stops this NIC's transmitter
        m_delivered_frames++;
        m_delivered_bytes += f->bytes;
        m_port.on_pause(f->ctl.pause.class_enable, f->ctl.pause.quanta, now_ps());
        ++m_consumed_frames;
        m_pool.release(f);
        return;
    }
    if ((f->kind == frame_kind::cnm || f->kind == frame_kind::cnp) && m_rp) {
        m_delivered_frames++;
        m_delivered_bytes += f->bytes;
        m_rp->on_notification(*f, now_ps());   // 802.1Qau CNM, RoCEv2 CNP: the reaction point consumes it
        m_pool.release(f);
        return;
    }
    if (m_rp_receives)
        m_rp->on_receive(*f, now_ps());
    if (!m_rx_slow)
        deliver(f);
    else if (m_poll.config().active())
        m_poll.hold(f, now_ps());
    else
        to_stack(f);
}

void host_nic::to_stack(frame* f) {
    if (!m_latency_ps) {
        deliver(f);
        return;
    }
    ++m_held_frames;
    m_held_bytes += f->bytes;
    m_events.schedule(now_ps() + m_latency_ps, this, ev_received, 0, f);
}

void host_nic::deliver(frame* f) {
    m_delivered_frames++;
    m_delivered_bytes += f->bytes;
    if (m_upper)
        m_upper->receive(f, now_ps());
    else
        m_pool.release(f);
}

void host_nic::queued(uint64_t& frames, uint64_t& bytes) const {
    frames += m_port.frames() + m_qdisc.queued_frames() + m_held_frames + m_poll.queued_frames();
    bytes += m_port.bytes() + m_qdisc.queued_bytes() + m_held_bytes + m_poll.queued_bytes();
    if (m_rp) {
        frames += m_rp->queued_frames();
        bytes += m_rp->queued_bytes();
    }
}

}   // namespace cmswitch
