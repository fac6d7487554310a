// SPDX-License-Identifier: Apache-2.0
#include "model/switch/ethernet_switch.h"

#include "config/errors.h"

#include <algorithm>
#include <cassert>
#include <string>

namespace cmswitch {

ethernet_switch::ethernet_switch(sc_core::sc_module_name name, int num_ports, int num_hosts,
                                 const buffer_config& buffer, frame_pool& pool, event_domain& events, int id)
    : sc_module(name), m_pool(pool), m_events(events), m_buffer(make_buffer_manager(buffer, num_ports)),
      m_fib(basename(), num_hosts, num_ports), m_id(id), m_pg_map(buffer.pg_map), m_forwarding(buffer.forwarding),
      m_name(basename()) {
    if (num_hosts < 1)
        throw config_error("hosts = " + std::to_string(num_hosts) + ": a network needs at least 1 host");
    if (num_ports < 1 || num_ports > INT16_MAX)
        throw config_error(std::string(basename()) + ": ports = " + std::to_string(num_ports) + " outside [1, " +
                           std::to_string(INT16_MAX) + "]");
    if (m_forwarding.pipeline_ns > 1000000)
        throw config_error("pipeline_ns = " + std::to_string(m_forwarding.pipeline_ns) +
                           ": allowed range [0, 1000000]");
    if (m_forwarding.cut_through &&
        (m_forwarding.cut_through_bytes < min_frame_bytes || m_forwarding.cut_through_bytes > max_frame_bytes))
        throw config_error("cut_through_bytes = " + std::to_string(m_forwarding.cut_through_bytes) +
                           ": allowed range [" + std::to_string(min_frame_bytes) + ", " +
                           std::to_string(max_frame_bytes) + "]");
    m_cut_through = m_forwarding.cut_through;
    const size_t n = static_cast<size_t>(num_ports);
    m_ports.resize(n);
    m_counters.resize(n);
    // (the arrival path is the first base, at the start of the object: the handler is the switch's first line)
    assert(static_cast<const void*>(static_cast<event_handler*>(this)) == static_cast<const void*>(this));
    m_port_array = m_ports.data();   // (the vector does not change size again)
    m_buffer_account = m_buffer.get();
    m_rx.resize(n);
    m_tx.resize(n);
    for (size_t i = 0; i < n; ++i) {
        m_ports[i].attach(&m_events, this, static_cast<uint32_t>(i), m_buffer.get());
        m_ports[i].configure_pause(0, ev_pause_expiry);
        m_ports[i].set_queue_map(buffer.queue_map);
        if (buffer.dwrr_queues) {
            uint32_t quanta[num_priorities];
            for (int q = 0; q < num_priorities; ++q)
                quanta[q] = buffer.dwrr_quantum[static_cast<size_t>(q)];
            m_ports[i].set_dwrr(buffer.dwrr_queues, quanta);
        }
    }
    reset();
    if (model_trace::active())
        for (size_t i = 0; i < n; ++i)
            m_ports[i].trace_as(m_name + ".port" + std::to_string(i));
}

frame_target_socket<ethernet_switch>& ethernet_switch::rx(int port) {
    auto& s = m_rx.at(static_cast<size_t>(port));
    if (!s) {
        s = make_child<frame_target_socket<ethernet_switch>>(this, ("rx_" + std::to_string(port)).c_str());
        s->register_b_transport(this, &ethernet_switch::receive, port);
    }
    return *s;
}

frame_initiator_socket& ethernet_switch::tx(int port) {
    auto& s = m_tx.at(static_cast<size_t>(port));
    if (!s) {
        s = make_child<frame_initiator_socket>(this, ("tx_" + std::to_string(port)).c_str());
        m_ports[static_cast<size_t>(port)].bind_socket(s.get());
    }
    return *s;
}

void ethernet_switch::reset() {
    // (the ports' statistics are in bytes: the capacity's memory)
    const uint64_t bin = m_buffer->units().to_bytes(m_buffer->port_capacity()) / occupancy_stats::num_bins + 1;
    for (auto& p : m_ports)
        p.reset(0, bin);
    for (auto& c : m_counters)
        c = port_counters{};
    for (auto& a : m_arrived)
        a = arrived_count{};
    m_ct_frames = m_ct_stored = 0;
    m_buffer->reset();
}

void ethernet_switch::count_arrivals() {
    if (m_arrived_array)
        return;
    m_arrived.assign(m_ports.size(), arrived_count{});
    m_arrived_array = m_arrived.data();
}

ethernet_switch::arrived_count ethernet_switch::arrivals(int port) const {
    if (!m_arrived_array)
        throw model_error(std::string(basename()) + ": arrivals are counted only after count_arrivals()");
    if (port < 0 || port >= num_ports())
        throw model_error(std::string(basename()) + ": port " + std::to_string(port) + " outside [0, " +
                          std::to_string(num_ports() - 1) + "]");
    return m_arrived[static_cast<size_t>(port)];
}

void ethernet_switch::insert_hook(std::unique_ptr<switch_hook> h) {
    switch_hook* raw = h.get();
    raw->attach(*this);   // may refuse (config_error): then the switch is unchanged
    const auto at = std::upper_bound(m_hooks.begin(), m_hooks.end(), raw->stage(),
                                     [](int s, const std::unique_ptr<switch_hook>& x) { return s < x->stage(); });
    m_hooks.insert(at, std::move(h));
    for (auto& v : m_stage_hooks)
        v.clear();
    m_dequeue_hooks.clear();
    m_drop_hooks.clear();
    for (const auto& x : m_hooks) {
        const uint8_t e = x->events();
        if (e & switch_hook::on_ingress_event)
            m_stage_hooks[ingress_stage].push_back(x.get());
        if (e & switch_hook::on_admit_event)
            m_stage_hooks[admit_stage].push_back(x.get());
        if (e & switch_hook::on_enqueue_event)
            m_stage_hooks[enqueue_stage].push_back(x.get());
        if (e & switch_hook::on_dequeue_event)
            m_dequeue_hooks.push_back(x.get());
        if (e & switch_hook::on_drop_event)
            m_drop_hooks.push_back(x.get());
    }
    m_more_hooks = 0;
    for (int st = 0; st < num_arrival_stages; ++st) {
        const auto& v = m_stage_hooks[st];
        m_first_hook[st] = v.empty() ? nullptr : v.front();
        if (v.size() > 1)
            m_more_hooks = static_cast<uint8_t>(m_more_hooks | (1u << st));
    }
    // the transmitters tell the switch of dequeues only when a hook wants them (one call per frame otherwise)
    for (auto& p : m_ports)
        p.set_dequeue_listener(m_dequeue_hooks.empty() ? nullptr : this);
}

void ethernet_switch::send_control(int port, frame* f, uint64_t now) {
    ++m_originated_frames;
    m_originated_bytes += f->bytes;
    m_ports[static_cast<size_t>(port)].enqueue(f, now);   // control priority, outside buffer accounting
}

void ethernet_switch::flush_routed(int port, uint64_t now) {
    for (size_t i = 0; i < m_routed.size(); ++i) {   // (a routed control frame makes none itself; index anyway)
        frame* f = m_routed[i];
        ++m_originated_frames;
        m_originated_bytes += f->bytes;
        switch_frame(port, f, now);
    }
    m_routed.clear();
    m_routed_pending = false;
}

void ethernet_switch::receive(int port, frame& f, sc_core::sc_time& delay) {
    // (the socket's call carries the last bit: a cut-through switch stores what comes this way)
    const uint64_t pipeline = f.kind == frame_kind::pause ? 0 : uint64_t{m_forwarding.pipeline_ns} * 1000;
    m_events.schedule(now_ps() + delay.value() + pipeline, this, m_cut_through ? ev_stored_arrival : ev_arrival,
                      static_cast<uint32_t>(port) | (m_cut_through ? 0xffff0000u : 0u), &f);
}

void ethernet_switch::on_event(uint32_t kind, uint32_t index, void* ptr) {
    const uint64_t now = now_ps();
    switch (kind) {
    case ev_routed_arrival:
        if (m_cut_through)   // (its first bytes are in: forward now, or store it)
            cut_through_arrival(static_cast<int>(index & 0xffff), static_cast<frame*>(ptr), now,
                                static_cast<int>(index >> 16));
        else
            forward(static_cast<int>(index & 0xffff), static_cast<frame*>(ptr), now, static_cast<int>(index >> 16));
        break;
    case ev_arrival:
        if (m_cut_through)
            cut_through_arrival(static_cast<int>(index), static_cast<frame*>(ptr), now, -1);
        else
            forward(static_cast<int>(index), static_cast<frame*>(ptr), now, -1);
        break;
    case ev_stored_arrival: {   // a frame a cut-through switch stored: taken at its last bit
        const uint32_t out = index >> 16;
        forward(static_cast<int>(index & 0xffff), static_cast<frame*>(ptr), now,
                out == 0xffff ? -1 : static_cast<int>(out));
        break;
    }
    case ev_pause_expiry: m_ports[index].on_pause_expiry(now); break;
    default: static_cast<switch_hook*>(ptr)->on_timer(index, now); break;
    }
}

void ethernet_switch::on_dequeue(uint32_t port, frame& f, uint64_t now) {
    const int qi = m_ports[port].queue_of(f.prio);
    const queue_view q = view(static_cast<int>(port), qi);
    for (switch_hook* h : m_dequeue_hooks)
        h->on_dequeue(q, f, now);
}

void ethernet_switch::cut_through_arrival(int in_port, frame* f, uint64_t now, int out) {
    if (f->kind == frame_kind::pause || cut_through_now(in_port, f, now, out))   // (PAUSE acts at its last bit)
        forward(in_port, f, now, out);
}

bool ethernet_switch::cut_through_now(int in_port, frame* f, uint64_t now, int& out) {
    if (out < 0)
        out = route_of(*f);
    if (out < 0)
        return true;   // (dropped as no_route on the way: no frame to store)
    egress_port& ep = m_port_array[out];
    const egress_port& in = m_port_array[in_port];
    const uint64_t rate_out = ep.rate_bps(), rate_in = in.rate_bps();
    const uint64_t pipeline = uint64_t{m_forwarding.pipeline_ns} * 1000;
    const uint64_t last_bit = f->enq_ps;   // (set by the transmitter: timed_arrival)
    if (rate_out != 0 && rate_out >= rate_in && ep.idle_for(now, ep.queue_of(f->prio))) {
        ++m_ct_frames;
        if (rate_out > rate_in) {   // into a faster port: start no earlier than the last bit allows
            const uint64_t out_ps = serialization_ps(f->bytes, rate_out);
            if (last_bit + pipeline > now + out_ps)
                ep.hold_until(last_bit + pipeline - out_ps);
        }
        return true;
    }
    ++m_ct_stored;   // busy, paused or slower: stored, taken at the last bit as store-and-forward takes it
    m_events.schedule(last_bit + pipeline, this, ev_stored_arrival,
                      static_cast<uint32_t>(in_port) | (static_cast<uint32_t>(out) << 16), f);
    return false;
}

void ethernet_switch::forward(int in_port, frame* f, uint64_t now, int out) {
    // what this frame will touch, fetched at once: the stages' first hooks, and for a routed arrival the egress
    // port's buffer account and the next hop's route
    __builtin_prefetch(m_first_hook[ingress_stage]);
    __builtin_prefetch(m_first_hook[admit_stage]);
    __builtin_prefetch(m_first_hook[enqueue_stage]);
    if (out >= 0) {
        m_buffer_account->prefetch(out);
        m_port_array[out].prefetch_route(*f);
    }
    if (m_arrived_array) {
        arrived_count& in = m_arrived_array[in_port];
        in.frames++;
        in.bytes += f->bytes;
    }
    if (f->kind == frame_kind::pause) {   // for this port's transmitter; goes no further
        m_ports[static_cast<size_t>(in_port)].on_pause(f->ctl.pause.class_enable, f->ctl.pause.quanta, now);
        ++m_consumed_frames;
        m_consumed_bytes += f->bytes;
        m_pool.release(f);
        return;
    }
    drop_reason why = drop_reason::none;
    if (!each_hook(ingress_stage, [&](switch_hook* h) {
            why = h->on_ingress(in_port, *f, now);
            return why == drop_reason::none;
        })) {
        drop(in_port, f, why);
        return;
    }
    switch_frame(in_port, f, now, out >= 0 ? out : route_of(*f));
}

void ethernet_switch::switch_frame(int in_port, frame* f, uint64_t now, int out) {
    if (out < 0) {
        drop(in_port, f, drop_reason::no_route);
        return;
    }
    egress_port& ep = m_port_array[out];
    if (f->kind == frame_kind::cnm) {
        // 802.1Qau: notifications bypass congestion control, in the control priority and outside the buffer's
        // accounting (like PAUSE): a congested buffer never drops the message that reports its congestion
        ep.enqueue(f, now);
        return;
    }
    const int qi = ep.queue_of(f->prio);
    drop_reason why = drop_reason::none;
    // the queue as the admit and enqueue hooks see it: before the frame's admission (it is not counted)
    queue_view q{};
    if (m_first_hook[admit_stage] || m_first_hook[enqueue_stage])
        q = view(out, qi);
    if (m_first_hook[admit_stage]) {
        if (!each_hook(admit_stage, [&](switch_hook* h) {
                why = h->on_admit(q, *f, now);
                return why == drop_reason::none;
            })) {
            drop(out, f, why);
            return;
        }
    }
    why = m_buffer_account->admit(in_port, out, qi, *f);
    if (why != drop_reason::none) {
        drop(out, f, why);
        return;
    }
    if (m_first_hook[enqueue_stage]) {
        each_hook(enqueue_stage, [&](switch_hook* h) {
            h->on_enqueue(q, *f, now);
            return true;
        });
    }
    ep.enqueue(f, now, qi);
    if (m_routed_pending)
        flush_routed(out, now);
}

void ethernet_switch::drop(int port, frame* f, drop_reason why) {
    port_counters& c = m_counters[static_cast<size_t>(port)];
    c.drop_frames[static_cast<size_t>(why)]++;
    c.drop_bytes[static_cast<size_t>(why)] += f->bytes;
    c.drop_frames_by_prio[f->prio & 7]++;
    for (switch_hook* h : m_drop_hooks)
        h->on_drop(port, *f, why, now_ps());
    m_pool.release(f);
}

void ethernet_switch::track_queue_occupancy() {
    const uint64_t bin = m_buffer->units().to_bytes(m_buffer->port_capacity()) / occupancy_stats::num_bins + 1;
    for (auto& p : m_ports)
        p.track_queues(now_ps(), bin);
}

void ethernet_switch::queued(uint64_t& frames, uint64_t& bytes) const {
    for (const auto& p : m_ports) {
        frames += p.frames();
        bytes += p.bytes();
    }
}

void ethernet_switch::check_buffer() const {
    uint64_t units = 0, bytes = 0;
    const buffer_units& u = m_buffer->units();
    for (const auto& p : m_ports)
        p.for_each_queued([&](const frame& f) {
            if (f.kind == frame_kind::pause || f.kind == frame_kind::cnm)   // the switch's own: outside the buffer
                return;
            units += u.charge(f.bytes);
            bytes += f.bytes;
        });
    m_buffer->check_accounting(m_name, units, bytes);
}

}   // namespace cmswitch
