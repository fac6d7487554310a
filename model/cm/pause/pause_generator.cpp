// SPDX-License-Identifier: Apache-2.0
#include "model/cm/pause/pause_generator.h"

#include <algorithm>

#include "config/errors.h"
#include "model/control_frames.h"
#include "model/types.h"

#include <string>
#include <utility>

namespace cmswitch {

pause_generator::pause_generator(const pause_config& cfg, std::vector<uint64_t> port_rate_bps,
                                 std::vector<uint64_t> port_delay_ps)
    : m_cfg(cfg), m_pfc(cfg.mode == "pfc"), m_rate(std::move(port_rate_bps)), m_delay(std::move(port_delay_ps)) {
    if (cfg.mode != "pause" && cfg.mode != "pfc")
        throw config_error("pause mode = '" + cfg.mode + "': allowed values are pause, pfc");
    if (cfg.xon_bytes + cfg.mtu_bytes > cfg.xoff_bytes)
        throw config_error("pause_xon = " + std::to_string(cfg.xon_bytes) +
                           " B, pause_xoff = " + std::to_string(cfg.xoff_bytes) +
                           " B: XOFF - XON must be at least one MTU (" + std::to_string(cfg.mtu_bytes) + " B)");
    if (!(cfg.xoff_alpha >= 0 && cfg.xoff_alpha <= 64))
        throw config_error("pause_xoff_alpha = " + std::to_string(cfg.xoff_alpha) + ": allowed range [0, 64]");
    if (!cfg.xoff_alpha_by_pg.empty() && cfg.xoff_alpha_by_pg.size() != static_cast<size_t>(num_priorities))
        throw config_error("pause_xoff_alpha_by_pg: " + std::to_string(cfg.xoff_alpha_by_pg.size()) +
                           " entries; give 8 (one per priority group) or none");
    for (int g = 0; g < num_priorities; ++g) {
        m_alpha[g] = cfg.xoff_alpha_by_pg.empty() ? cfg.xoff_alpha : cfg.xoff_alpha_by_pg[static_cast<size_t>(g)];
        if (!(m_alpha[g] >= 0 && m_alpha[g] <= 64) || (!cfg.xoff_alpha_by_pg.empty() && g < 7 && m_alpha[g] == 0))
            throw config_error("pause_xoff_alpha_by_pg[" + std::to_string(g) + "] = " + std::to_string(m_alpha[g]) +
                               ": allowed range (0, 64]");
    }
    m_dynamic = cfg.dynamic_xoff();
    m_pool = cfg.headroom_pool_bytes > 0;
    if (cfg.pause_quanta == 0 || cfg.pause_quanta > 65535)
        throw config_error("pause_quanta = " + std::to_string(cfg.pause_quanta) + ": allowed range [1, 65535]");
}

void pause_generator::attach(switch_services& sw) {
    switch_hook::attach(sw);
    const int ports = sw.num_ports();
    if (static_cast<int>(m_rate.size()) != ports || static_cast<int>(m_delay.size()) != ports)
        throw config_error(sw.switch_name() + ": PAUSE needs the rate and delay of each of its " +
                           std::to_string(ports) + " ports");
    m_ingress.assign(static_cast<size_t>(ports) * num_priorities, ingress_class{});
    m_limit.assign(static_cast<size_t>(ports), 0);
    // priority groups: a PFC frame for a group names its lossless priorities; a group is all lossless or all not
    for (int g = 0; g < num_priorities; ++g)
        m_group_prios[g] = 0;
    for (int p = 0; p < num_priorities; ++p) {
        m_pg[p] = static_cast<uint8_t>(m_pfc ? sw.priority_group(p) : 0);
        if (!m_pfc || p == num_priorities - 1)
            continue;
        const bool lossless = (m_cfg.pfc_classes >> p) & 1;
        for (int o = 0; o < p; ++o)
            if (m_pg[o] == m_pg[p] && ((m_cfg.pfc_classes >> o) & 1) != lossless)
                throw config_error(sw.switch_name() + ": pg_map puts priorities " + std::to_string(o) + " and " +
                                   std::to_string(p) + " in group " + std::to_string(m_pg[p]) +
                                   " but only one of them is lossless (pfc classes): a group pauses as one");
        if (lossless)
            m_group_prios[m_pg[p]] |= static_cast<uint8_t>(1u << p);
    }
    for (auto& o : m_group_occ)
        o.reset(now_ps(), 1);

    if (model_trace::active())
        declare_traces(sw);
    if (sw.buffer().capabilities() & cap_ingress_flow_control) {
        attach_to_buffer_book(sw);
        return;
    }
    // the book counts in the switch's units: every threshold converted once (buffer_units.h)
    const buffer_units& u = sw.units();
    m_mtu_u = u.charge(m_cfg.mtu_bytes);
    m_xoff_u = u.threshold(m_cfg.xoff_bytes);
    m_xon_u = u.threshold(m_cfg.xon_bytes);
    m_reserved_u = u.memory(m_cfg.reserved_bytes);
    m_headroom_pool_u = u.memory(m_cfg.headroom_pool_bytes);
    const uint32_t caps = sw.buffer().capabilities();
    if (m_dynamic && !(caps & cap_shared_pool))
        throw config_error(sw.switch_name() +
                           ": pause_xoff_alpha needs a buffer with a shared pool (buffer_policy "
                           "shared), not '" +
                           sw.buffer().name() + "'");
    if (m_pool && !(caps & cap_lossless_queues))
        throw config_error(sw.switch_name() +
                           ": pause_headroom_pool_kb needs buffer_policy shared (the pool lives "
                           "beside its shared pool), not '" +
                           sw.buffer().name() + "'");
    if (m_pool) {   // the shared headroom pool replaces the per-port limits
        m_limit.assign(static_cast<size_t>(ports), UINT64_MAX);
        return;
    }
    if (m_dynamic)
        throw config_error(sw.switch_name() +
                           ": pause_xoff_alpha needs a shared headroom pool "
                           "(pause_headroom_pool_kb > 0): a dynamic XOFF has no fixed per-port limit to check");
    for (int p = 0; p < ports; ++p) {
        const uint64_t rate = m_rate[static_cast<size_t>(p)], delay = m_delay[static_cast<size_t>(p)];
        const uint64_t need = pause_headroom_bytes(rate, delay, m_cfg.mtu_bytes);
        const uint64_t lim = m_cfg.ingress_limit_bytes;
        if (lim == 0) {   // (the headroom is in-flight frames of an MTU each: their charge)
            m_limit[static_cast<size_t>(p)] = m_reserved_u + m_xoff_u + u.frames(need, m_cfg.mtu_bytes);
        } else if (lim < m_cfg.reserved_bytes + m_cfg.xoff_bytes + need) {
            throw config_error(
                sw.switch_name() + " port " + std::to_string(p) + ": ingress limit " + std::to_string(lim) +
                " B leaves " + std::to_string(lim > m_cfg.xoff_bytes ? lim - m_cfg.xoff_bytes : 0) + " B above XOFF " +
                std::to_string(m_cfg.xoff_bytes) + " B, but the port needs " + std::to_string(need) +
                " B of headroom (" + std::to_string(rate / 1000000) + " Mb/s, " + std::to_string(delay / 1000000) +
                " us cable each way, 2 x " + std::to_string(m_cfg.mtu_bytes) + " B frames, " +
                std::to_string(pause_response_quanta(rate)) + " quanta response)");
        } else {
            m_limit[static_cast<size_t>(p)] = u.memory(lim);
        }
    }
}

void pause_generator::attach_to_buffer_book(switch_services& sw) {
    // the buffer's priority-group profiles decide XOFF, headroom and XON: none of the generator's own
    if (m_dynamic || m_pool || m_cfg.reserved_bytes > 0 || m_cfg.ingress_limit_bytes > 0)
        throw config_error(sw.switch_name() + ": buffer_policy " + sw.buffer().name() +
                           " decides PAUSE/PFC from its priority-group profiles (pg_dynamic_th, xoff_kb, xon_kb, "
                           "headroom_pool_kb): pause_xoff_alpha, pause_headroom_pool_kb and pause_reserved_kb "
                           "have no effect there");
    uint8_t groups = 0;
    for (int p = 0; p < num_priorities - 1; ++p)
        if (!m_pfc || ((m_cfg.pfc_classes >> p) & 1))
            groups = static_cast<uint8_t>(groups | (1u << sw.priority_group(p)));
    if (!m_pfc)   // 802.3x: every group pauses the whole port, and one frame stops every priority
        m_paused_groups.assign(static_cast<size_t>(sw.num_ports()), 0);
    m_buffer_fc = sw.buffer().flow_control();
    m_buffer_fc->set_lossless_groups(groups, this);
}

void pause_generator::on_xoff(int port, int group, uint64_t now) {
    int cls = group;
    if (!m_pfc) {
        uint8_t& g = m_paused_groups[static_cast<size_t>(port)];
        const bool first = g == 0;
        g = static_cast<uint8_t>(g | (1u << group));
        if (!first)
            return;
        cls = 0;
    }
    ingress_class& ic = m_ingress[static_cast<size_t>(port * num_priorities + cls)];
    ic.xoff = true;
    send_pause(port, cls, m_cfg.pause_quanta, now);
    if (m_traced)
        trace_class(port, cls, ic, now);
}

void pause_generator::on_xon(int port, int group, uint64_t now) {
    int cls = group;
    if (!m_pfc) {
        uint8_t& g = m_paused_groups[static_cast<size_t>(port)];
        g = static_cast<uint8_t>(g & ~(1u << group));
        if (g != 0)
            return;
        cls = 0;
    }
    ingress_class& ic = m_ingress[static_cast<size_t>(port * num_priorities + cls)];
    ic.xoff = false;
    send_pause(port, cls, 0, now);
    if (m_traced)
        trace_class(port, cls, ic, now);
}

void pause_generator::declare_traces(switch_services& sw) {
    // <switch>.port<p>.xoff<c>: 1 while an XOFF is in force at the peer (sent, no XON yet);
    // <switch>.port<p>.ingress<c>_bytes: the bytes charged to that ingress class; <switch>.port<p>.pause_tx:
    // PAUSE/PFC frames sent (XOFF, refresh and XON); <switch>.headroom_bytes: the shared headroom pool's fill
    const int ports = sw.num_ports();
    m_tr.assign(static_cast<size_t>(ports) * num_priorities, ingress_traces{});
    m_tr_sent.assign(static_cast<size_t>(ports), nullptr);
    m_sent.assign(static_cast<size_t>(ports), 0);
    for (int p = 0; p < ports; ++p) {
        const std::string scope = sw.switch_name() + ".port" + std::to_string(p);
        for (int c = 0; c < num_priorities - 1; ++c) {
            if (m_pfc ? !((m_cfg.pfc_classes >> c) & 1) : c != 0)
                continue;
            ingress_traces& t = m_tr[static_cast<size_t>(p * num_priorities + c)];
            t.xoff = model_trace::declare(scope, "xoff" + std::to_string(c), 1);
            t.bytes = model_trace::declare(scope, "ingress" + std::to_string(c) + "_bytes", 32);
            if (t.xoff)
                t.xoff->set(now_ps(), 0);
            if (t.bytes)
                t.bytes->set(now_ps(), 0);
            m_traced = m_traced || t.xoff || t.bytes;
        }
        m_tr_sent[static_cast<size_t>(p)] = model_trace::declare(scope, "pause_tx", 32);
        if (m_tr_sent[static_cast<size_t>(p)]) {
            m_tr_sent[static_cast<size_t>(p)]->set(now_ps(), 0);
            m_traced = true;
        }
    }
    m_tr_headroom = model_trace::declare(sw.switch_name(), "headroom_bytes", 32);
    if (m_tr_headroom) {
        m_tr_headroom->set(now_ps(), 0);
        m_traced = true;
    }
}

void pause_generator::trace_class(int port, int cls, const ingress_class& ic, uint64_t now) {
    const ingress_traces& t = m_tr[static_cast<size_t>(port * num_priorities + cls)];
    if (t.bytes)   // the level first, then the state it caused: in that order in the dump too
        t.bytes->set(now, ic.units);
    if (t.xoff)
        t.xoff->set(now, ic.xoff);
    if (m_tr_headroom)
        m_tr_headroom->set(now, m_headroom_used);
}

drop_reason pause_generator::on_ingress(int in_port, frame& f, uint64_t) {
    if (f.prio >= num_priorities - 1 || (m_pfc && !((m_cfg.pfc_classes >> f.prio) & 1)))
        return drop_reason::none;   // control frames and classes that are not lossless
    const ingress_class& ic = m_ingress[static_cast<size_t>(in_port * num_priorities + pause_class(f.prio))];
    const uint32_t u = services().units().charge(f.bytes);
    if (m_pool) {
        if (ic.xoff && m_headroom_used + u > m_headroom_pool_u)
            return drop_reason::ingress_limit;   // the shared headroom pool is full
    } else if (ic.units + u > m_limit[static_cast<size_t>(in_port)]) {
        return drop_reason::ingress_limit;
    }
    f.ingress = static_cast<uint16_t>(in_port);
    return drop_reason::none;
}

void pause_generator::on_enqueue(const queue_view&, frame& f, uint64_t now) {
    if (f.ingress == 0xffff)
        return;
    const int cls = pause_class(f.prio);
    ingress_class& ic = m_ingress[static_cast<size_t>(f.ingress * num_priorities + cls)];
    const uint32_t u = services().units().charge(f.bytes);
    const uint64_t res_before = m_reserved_u ? reserved_part(ic) : 0;
    ic.units += u;
    if (m_pool && ic.xoff) {   // arrived after the pause was decided: headroom
        ic.headroom += u;
        m_headroom_used += u;
        if (m_headroom_used > m_headroom_peak)
            m_headroom_peak = m_headroom_used;
        m_headroom_occ.set(now, m_headroom_used);
    }
    if (const uint64_t res = m_reserved_u ? reserved_part(ic) : 0; res != res_before) {
        m_reserved_used += res - res_before;
        m_reserved_peak = std::max(m_reserved_peak, m_reserved_used);
        services().buffer().add_ingress_reserved_used(static_cast<int64_t>(res - res_before));
    }
    if (m_track_groups)
        account_group(cls, static_cast<int64_t>(u), now);
    if (!ic.xoff && ic.units >= xoff_threshold(cls)) {
        ic.xoff = true;
        send_pause(f.ingress, cls, m_cfg.pause_quanta, now);
    }
    if (m_traced)
        trace_class(f.ingress, cls, ic, now);
}

void pause_generator::on_dequeue(const queue_view&, frame& f, uint64_t now) {
    if (f.ingress == 0xffff)
        return;
    const int cls = pause_class(f.prio);
    ingress_class& ic = m_ingress[static_cast<size_t>(f.ingress * num_priorities + cls)];
    const uint32_t u = services().units().charge(f.bytes);
    const uint64_t res_before = m_reserved_u ? reserved_part(ic) : 0;
    ic.units -= u;
    if (ic.headroom) {   // a class's departures drain its headroom first
        const uint64_t h = ic.headroom < u ? ic.headroom : u;
        ic.headroom -= h;
        m_headroom_used -= h;
        m_headroom_occ.set(now, m_headroom_used);
    }
    if (const uint64_t res = m_reserved_u ? reserved_part(ic) : 0; res != res_before) {   // the reserve last
        m_reserved_used -= res_before - res;
        services().buffer().add_ingress_reserved_used(-static_cast<int64_t>(res_before - res));
    }
    if (m_track_groups)
        account_group(cls, -static_cast<int64_t>(u), now);
    uint64_t xon = m_reserved_u + m_xon_u;
    if (m_dynamic) {
        const uint64_t t = xoff_threshold(cls), gap = 2ull * m_mtu_u;
        xon = t > gap ? t - gap : 0;
    }
    if (ic.xoff && ic.units <= xon) {
        ic.xoff = false;
        // what is left of its headroom now fits under its threshold: shared bytes again, so that the next
        // XOFF of this class has the full headroom its in-flight bytes need (a dynamic threshold that grew
        // while the class was paused lets XON come before departures drained the headroom; left there, those
        // bytes made a class hold more than one in-flight's worth and overflowed the pool at high alpha)
        if (ic.headroom) {
            const uint64_t res_held = m_reserved_u ? reserved_part(ic) : 0;
            m_headroom_used -= ic.headroom;
            ic.headroom = 0;
            m_headroom_occ.set(now, m_headroom_used);
            if (const uint64_t res = m_reserved_u ? reserved_part(ic) : 0; res != res_held) {
                m_reserved_used += res - res_held;   // (the bytes fill the reserve from the bottom)
                m_reserved_peak = std::max(m_reserved_peak, m_reserved_used);
                services().buffer().add_ingress_reserved_used(static_cast<int64_t>(res - res_held));
            }
        }
        send_pause(f.ingress, cls, 0, now);
    }
    if (m_traced)
        trace_class(f.ingress, cls, ic, now);
}

void pause_generator::check_accounting() const {
    if (m_buffer_fc)   // (the buffer's own book: checked with the buffer)
        return;
    uint64_t headroom = 0, reserved = 0;
    for (const ingress_class& ic : m_ingress) {
        if (ic.headroom > ic.units)
            throw model_error(services().switch_name() + ": an ingress class holds more headroom than units");
        headroom += ic.headroom;
        reserved += m_reserved_u ? reserved_part(ic) : 0;
    }
    if (headroom != m_headroom_used || reserved != m_reserved_used ||
        reserved != services().buffer().ingress_reserved_used())
        throw model_error(services().switch_name() + ": PFC accounting does not add up (units): headroom " +
                          std::to_string(headroom) + " in the classes, " + std::to_string(m_headroom_used) +
                          " in the pool; reserves " + std::to_string(reserved) + " in the classes, " +
                          std::to_string(m_reserved_used) + " counted, " +
                          std::to_string(services().buffer().ingress_reserved_used()) + " in the buffer");
}

void pause_generator::account_group(int cls, int64_t delta, uint64_t now) {
    m_group_units[cls] += static_cast<uint64_t>(delta);
    m_group_occ[static_cast<size_t>(cls)].set(now, m_group_units[cls]);
}

uint64_t pause_generator::xoff_threshold(int cls) const {
    if (!m_dynamic)
        return m_reserved_u + m_xoff_u;
    const buffer_manager& b = services().buffer();
    // the shared pool's use without the headroom pool's and the ingress reserves' units (the egress accounts
    // them as shared)
    const uint64_t pool_used = b.shared_pool_used();
    const uint64_t used = pool_used > m_headroom_used ? pool_used - m_headroom_used : 0;
    const uint64_t size = b.shared_pool_size();
    const double free_bytes = used < size ? static_cast<double>(size - used) : 0.0;
    return m_reserved_u + static_cast<uint64_t>(m_alpha[cls] * free_bytes);
}

void pause_generator::on_timer(uint32_t index, uint64_t now) {   // refresh of an XOFF still in force
    const ingress_class& ic = m_ingress[index];
    if (ic.xoff && now >= ic.refresh_at)
        send_pause(static_cast<int>(index / num_priorities), static_cast<int>(index % num_priorities),
                   m_cfg.pause_quanta, now);
}

void pause_generator::send_pause(int port, int cls, uint32_t quanta, uint64_t now) {
    const auto classes = static_cast<uint8_t>(m_pfc ? m_group_prios[cls] : 0xffu);
    frame* f = make_pause_frame(services().pool(), classes, static_cast<uint16_t>(quanta), now);
    ingress_class& ic = m_ingress[static_cast<size_t>(port * num_priorities + cls)];
    services().count_pause(port, quanta != 0);
    if (m_traced && m_tr_sent[static_cast<size_t>(port)]) {
        ++m_sent[static_cast<size_t>(port)];
        m_tr_sent[static_cast<size_t>(port)]->set(now, m_sent[static_cast<size_t>(port)]);
    }
    if (quanta) {
        // repeat while still above XON, at half the pause time; for short pauses sooner, so that a refresh that
        // waits behind a full frame on the wire still arrives before the pause in force ends (pause_scheme
        // refuses quanta too short for that)
        const uint64_t rate = m_rate[static_cast<size_t>(port)];
        const uint64_t pause_ps =
            static_cast<uint64_t>((static_cast<uint128>(quanta) * 512u * 1000000000000ull) / rate);
        const uint64_t late_ps =   // a full frame ahead of the refresh, and the refresh itself
            static_cast<uint64_t>((static_cast<uint128>(m_cfg.mtu_bytes + 64) * 8u * 1000000000000ull) / rate);
        const uint64_t frame_ps = static_cast<uint64_t>((uint128{64} * 8u * 1000000000000ull) / rate);
        uint64_t every = pause_ps / 2;
        if (pause_ps > late_ps && pause_ps - late_ps < every)
            every = std::max(pause_ps - late_ps, frame_ps);   // (never more often than PAUSE frames fit)
        ic.refresh_at = now + every;
        services().schedule(ic.refresh_at, this, static_cast<uint32_t>(port * num_priorities + cls));
    }
    services().send_control(port, f, now);
}

}   // namespace cmswitch
