// SPDX-License-Identifier: Apache-2.0
#include "model/switch/ethernet_switch.h"

#include "model/control_frames.h"
#include "model/errors.h"

#include <string>

namespace cmswitch {

ethernet_switch::ethernet_switch(sc_core::sc_module_name name, int num_ports, int num_hosts,
                                 const buffer_config& buffer, frame_pool& pool, event_domain& events)
    : sc_module(name), m_buffer(make_buffer_manager(buffer, num_ports)), m_pool(pool), m_events(events) {
    if (num_hosts < 1)
        throw config_error("hosts = " + std::to_string(num_hosts) + ": a network needs at least 1 host");
    const size_t n = static_cast<size_t>(num_ports);
    m_ports.resize(n);
    m_counters.resize(n);
    m_routes.assign(static_cast<size_t>(num_hosts), -1);
    for (size_t i = 0; i < n; ++i) {
        const std::string idx = std::to_string(i);
        m_rx.emplace_back(new frame_target_socket<ethernet_switch>(("rx_" + idx).c_str()));
        m_tx.emplace_back(new frame_initiator_socket(("tx_" + idx).c_str()));
        m_rx.back()->register_b_transport(this, &ethernet_switch::receive, static_cast<int>(i));
        m_ports[i].attach(m_tx.back().get(), &m_events, this, ev_tx_done, static_cast<uint32_t>(i), m_buffer.get());
        m_ports[i].configure_pause(0, ev_pause_expiry);
    }
    reset();
}

void ethernet_switch::reset() {
    const uint64_t bin = m_buffer->port_capacity_bytes() / occupancy_stats::num_bins + 1;
    for (auto& p : m_ports)
        p.reset(0, bin);
    for (auto& c : m_counters)
        c = port_counters{};
    m_buffer->reset();
}

void ethernet_switch::enable_qcn(const qcn_cp_config& cfg, int id, rng r) {
    cfg.validate();
    m_id = id;
    m_cps.clear();
    for (int p = 0; p < num_ports(); ++p)
        for (int prio = 0; prio < num_priorities; ++prio)
            m_cps.emplace_back(cfg, m_buffer->port_capacity_bytes(),
                               rng(r.next(), static_cast<uint64_t>(p * num_priorities + prio)));
}

frame* ethernet_switch::make_cnm(const frame& about, int port, const qcn_feedback& fb, uint64_t now) {
    const uint32_t cpid = (static_cast<uint32_t>(m_id) << 16) | (static_cast<uint32_t>(port) << 3) | about.prio;
    frame* c = make_cnm_frame(m_pool, about,
                              cnm_fields{static_cast<int32_t>(fb.qoff), static_cast<int32_t>(fb.qdelta), cpid,
                                         fb.qntz_fb},
                              now);
    ++m_originated_frames;
    m_originated_bytes += c->bytes;
    m_counters[static_cast<size_t>(port)].cnms++;
    return c;
}

void ethernet_switch::set_route(int dst_host, int port) {
    if (dst_host < 0 || dst_host >= static_cast<int>(m_routes.size()))
        throw config_error(std::string(name()) + ": route destination host " + std::to_string(dst_host) +
                           " outside [0, " + std::to_string(m_routes.size() - 1) + "]");
    if (port < 0 || port >= num_ports())
        throw config_error(std::string(name()) + ": route port " + std::to_string(port) + " outside [0, " +
                           std::to_string(num_ports() - 1) + "]");
    m_routes[static_cast<size_t>(dst_host)] = port;
}

void ethernet_switch::receive(int port, frame& f, sc_core::sc_time& delay) {
    m_events.schedule(now_ps() + delay.value(), this, ev_arrival, static_cast<uint32_t>(port), &f);
}

void ethernet_switch::on_event(uint32_t kind, uint32_t index, void* ptr) {
    const uint64_t now = now_ps();
    switch (kind) {
    case ev_arrival:
        forward(static_cast<int>(index), static_cast<frame*>(ptr), now);
        break;
    case ev_tx_done:
        m_ports[index].on_tx_done(now);
        break;
    case ev_pause_expiry:
        m_ports[index].on_pause_expiry(now);
        break;
    default: {   // refresh of an XOFF still in force
        ingress_class& ic = m_ingress[index];
        if (ic.xoff && now >= ic.refresh_at)
            send_pause(static_cast<int>(index / num_priorities), static_cast<int>(index % num_priorities),
                       m_pause.pause_quanta, now);
        break;
    }
    }
}

void ethernet_switch::enable_pause(const pause_config& cfg, const std::vector<uint64_t>& port_rate_bps,
                                   const std::vector<uint64_t>& port_delay_ps) {
    if (cfg.mode != "pause" && cfg.mode != "pfc")
        throw config_error("pause mode = '" + cfg.mode + "': allowed values are pause, pfc");
    if (cfg.xon_bytes + cfg.mtu_bytes > cfg.xoff_bytes)
        throw config_error("pause_xon = " + std::to_string(cfg.xon_bytes) + " B, pause_xoff = " +
                           std::to_string(cfg.xoff_bytes) + " B: XOFF - XON must be at least one MTU (" +
                           std::to_string(cfg.mtu_bytes) + " B)");
    if (cfg.pause_quanta == 0 || cfg.pause_quanta > 65535)
        throw config_error("pause_quanta = " + std::to_string(cfg.pause_quanta) + ": allowed range [1, 65535]");
    m_pause = cfg;
    m_pfc = cfg.mode == "pfc";
    m_ingress.assign(static_cast<size_t>(num_ports()) * num_priorities, ingress_class{});
    m_ingress_limit.assign(static_cast<size_t>(num_ports()), 0);
    m_port_rate = port_rate_bps;
    for (int p = 0; p < num_ports(); ++p) {
        const uint64_t need = pause_headroom_bytes(port_rate_bps[static_cast<size_t>(p)],
                                                   port_delay_ps[static_cast<size_t>(p)], cfg.mtu_bytes);
        if (cfg.ingress_limit_bytes == 0) {
            m_ingress_limit[static_cast<size_t>(p)] = cfg.xoff_bytes + need;
        } else if (cfg.ingress_limit_bytes < cfg.xoff_bytes + need) {
            throw config_error(std::string(name()) + " port " + std::to_string(p) + ": ingress limit " +
                               std::to_string(cfg.ingress_limit_bytes) + " B leaves " +
                               std::to_string(cfg.ingress_limit_bytes > cfg.xoff_bytes
                                                  ? cfg.ingress_limit_bytes - cfg.xoff_bytes : 0) +
                               " B above XOFF " + std::to_string(cfg.xoff_bytes) + " B, but the port needs " +
                               std::to_string(need) + " B of headroom (" +
                               std::to_string(port_rate_bps[static_cast<size_t>(p)] / 1000000) + " Mb/s, " +
                               std::to_string(port_delay_ps[static_cast<size_t>(p)] / 1000000) +
                               " us cable each way, 2 x " + std::to_string(cfg.mtu_bytes) + " B frames, " +
                               std::to_string(pause_response_quanta(port_rate_bps[static_cast<size_t>(p)])) +
                               " quanta response)");
        } else {
            m_ingress_limit[static_cast<size_t>(p)] = cfg.ingress_limit_bytes;
        }
        m_ports[static_cast<size_t>(p)].set_dequeue_listener(this);
    }
}

void ethernet_switch::send_pause(int port, int cls, uint32_t quanta, uint64_t now) {
    const uint8_t classes = m_pfc ? static_cast<uint8_t>(1u << cls) : 0xff;
    frame* f = make_pause_frame(m_pool, classes, static_cast<uint16_t>(quanta), now);
    ++m_originated_frames;
    m_originated_bytes += f->bytes;
    port_counters& c = m_counters[static_cast<size_t>(port)];
    ingress_class& ic = m_ingress[static_cast<size_t>(port * num_priorities + cls)];
    if (quanta) {
        c.pause_sent++;
        // repeat at half the pause time while still above XON
        const uint64_t rate = m_port_rate[static_cast<size_t>(port)];
        const uint64_t half = static_cast<uint64_t>((static_cast<uint128>(quanta) * 256u * 1000000000000ull) / rate);
        ic.refresh_at = now + half;
        m_events.schedule(ic.refresh_at, this, ev_pause_refresh,
                          static_cast<uint32_t>(port * num_priorities + cls), nullptr);
    } else {
        c.xon_sent++;
    }
    m_ports[static_cast<size_t>(port)].enqueue(f, now);   // control priority, outside buffer accounting
}

void ethernet_switch::on_dequeue(const frame& f, uint64_t now) {
    if (f.ingress == 0xffff || m_ingress.empty())
        return;
    const int cls = pause_class(f.prio);
    ingress_class& ic = m_ingress[static_cast<size_t>(f.ingress * num_priorities + cls)];
    ic.bytes -= f.bytes;
    if (ic.xoff && ic.bytes <= m_pause.xon_bytes) {
        ic.xoff = false;
        send_pause(f.ingress, cls, 0, now);
    }
}

void ethernet_switch::forward(int in_port, frame* f, uint64_t now) {
    port_counters& in = m_counters[static_cast<size_t>(in_port)];
    in.rx_frames++;
    in.rx_bytes += f->bytes;
    if (f->kind == frame_kind::pause) {   // for this port's transmitter; goes no further
        m_ports[static_cast<size_t>(in_port)].on_pause(f->ctl.pause.class_enable, f->ctl.pause.quanta, now);
        ++m_consumed_frames;
        m_consumed_bytes += f->bytes;
        m_pool.release(f);
        return;
    }
    if (!m_ingress.empty() && f->prio < num_priorities - 1 && (!m_pfc || (m_pause.pfc_classes >> f->prio) & 1)) {
        ingress_class& ic = m_ingress[static_cast<size_t>(in_port * num_priorities + pause_class(f->prio))];
        if (ic.bytes + f->bytes > m_ingress_limit[static_cast<size_t>(in_port)]) {
            drop(in_port, f, drop_reason::ingress_limit);
            return;
        }
        f->ingress = static_cast<uint16_t>(in_port);
    }
    switch_frame(in_port, f, now);
}

void ethernet_switch::switch_frame(int in_port, frame* f, uint64_t now) {
    const int out = f->dst < m_routes.size() ? m_routes[f->dst] : -1;
    if (out < 0) {
        drop(in_port, f, drop_reason::no_route);
        return;
    }
    egress_port& ep = m_ports[static_cast<size_t>(out)];
    if (f->kind == frame_kind::cnm) {
        // 802.1Qau: CNMs bypass congestion control, in the control priority and outside the buffer's accounting
        // (like PAUSE): a congested buffer never drops the message that reports its congestion
        ep.enqueue(f, now);
        return;
    }
    const drop_reason why = m_buffer->admit(out, f->prio, f->bytes);
    if (why != drop_reason::none) {
        drop(out, f, why);
        return;
    }
    if (f->ingress != 0xffff) {   // charged to its ingress class until its transmission starts
        const int cls = pause_class(f->prio);
        ingress_class& ic = m_ingress[static_cast<size_t>(f->ingress * num_priorities + cls)];
        ic.bytes += f->bytes;
        if (!ic.xoff && ic.bytes >= m_pause.xoff_bytes) {
            ic.xoff = true;
            send_pause(f->ingress, cls, m_pause.pause_quanta, now);
        }
    }
    frame* cnm = nullptr;
    if (!m_cps.empty() && f->prio < num_priorities - 1 &&
        (f->kind == frame_kind::tcp || f->kind == frame_kind::udp)) {
        // 802.1Qau CP: every frame enqueued, with the queue including it (a dropped frame is never sampled)
        const uint64_t qlen = ep.bytes(f->prio) + f->bytes;
        const qcn_feedback fb =
            m_cps[static_cast<size_t>(out * num_priorities + f->prio)].on_arrival(f->bytes, qlen, now);
        if (fb.send)
            cnm = make_cnm(*f, out, fb, now);
    }
    if (m_marker && f->ecn != ecn_not_ect && f->ecn != ecn_ce && m_marker->should_mark(ep.bytes(), m_rng)) {
        f->ecn = ecn_ce;
        m_counters[static_cast<size_t>(out)].marks++;
    }
    ep.enqueue(f, now);
    if (cnm)
        switch_frame(out, cnm, now);   // to the sampled frame's source
}

void ethernet_switch::drop(int port, frame* f, drop_reason why) {
    port_counters& c = m_counters[static_cast<size_t>(port)];
    c.drop_frames[static_cast<size_t>(why)]++;
    c.drop_bytes[static_cast<size_t>(why)] += f->bytes;
    if (m_drop_observer)
        m_drop_observer->on_drop(port, *f, why, now_ps());
    m_pool.release(f);
}

void ethernet_switch::queued(uint64_t& frames, uint64_t& bytes) const {
    for (const auto& p : m_ports) {
        frames += p.frames();
        bytes += p.bytes();
    }
}

void ethernet_switch::in_flight(uint64_t& frames, uint64_t& bytes) const {
    for (const auto& e : m_events.pending())
        if (e.handler == this && e.kind == ev_arrival) {
            ++frames;
            bytes += static_cast<const frame*>(e.ptr)->bytes;
        }
}

} // namespace cmswitch
