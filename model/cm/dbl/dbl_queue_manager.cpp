// SPDX-License-Identifier: Apache-2.0
#include "model/cm/dbl/dbl_queue_manager.h"

#include <algorithm>
#include <cmath>

namespace cmswitch {

dbl_queue_manager::dbl_queue_manager(const dbl_config& cfg, rng r) : m_cfg(cfg), m_rng(r) {}

void dbl_queue_manager::attach(switch_services& sw) {
    switch_hook::attach(sw);
    m_ports.assign(static_cast<size_t>(sw.num_ports()), port_state{});
    for (int p = 0; p < sw.num_ports(); ++p) {
        const double t = std::ceil(m_cfg.congested_fraction * static_cast<double>(sw.port_limit_frames(p)));
        m_ports[static_cast<size_t>(p)].threshold = static_cast<uint32_t>(std::max(1.0, t));
    }
}

dbl_queue_manager::flow_state& dbl_queue_manager::find(port_state& p, uint32_t flow) {
    for (auto& s : p.flows)
        if (s.flow == flow)
            return s;
    p.flows.push_back({flow, 0, m_cfg.max_credits, false});
    return p.flows.back();
}

const dbl_queue_manager::flow_state* dbl_queue_manager::find(const port_state& p, uint32_t flow) const {
    for (const auto& s : p.flows)
        if (s.flow == flow)
            return &s;
    return nullptr;
}

uint32_t dbl_queue_manager::credits(int port, uint32_t flow) const {
    const flow_state* s = find(m_ports[static_cast<size_t>(port)], flow);
    return s ? s->credits : m_cfg.max_credits;
}

bool dbl_queue_manager::aggressive(int port, uint32_t flow) const {
    const flow_state* s = find(m_ports[static_cast<size_t>(port)], flow);
    return s && s->aggressive;
}

drop_reason dbl_queue_manager::on_admit(const queue_view& q, frame& f, uint64_t) {
    port_state& p = m_ports[static_cast<size_t>(q.port)];
    const bool congested = q.port_frames >= p.threshold;
    if (congested != p.congested) {
        // a new congestion episode issues fresh credits to every flow; its end forgets them
        p.congested = congested;
        for (auto& s : p.flows) {
            s.credits = m_cfg.max_credits;
            s.aggressive = false;
        }
        p.flows.erase(std::remove_if(p.flows.begin(), p.flows.end(), [](const flow_state& s) { return s.queued == 0; }),
                      p.flows.end());
    }
    if (!congested)
        return drop_reason::none;
    flow_state& s = find(p, key(f));
    if (s.credits > 0)
        --s.credits;
    if (s.credits <= m_cfg.aggressive_credits)
        s.aggressive = true;
    if (!s.aggressive)
        return drop_reason::none;
    if (s.queued >= m_cfg.aggressive_buffers) {
        ++m_drops;
        return drop_reason::aqm;
    }
    const double pr = m_cfg.exceed_probability;
    if (!(pr >= 1.0 || (pr > 0.0 && m_rng.uniform() < pr)))
        return drop_reason::none;
    if (m_cfg.exceed_ecn && f.ecn != ecn_not_ect) {
        if (f.ecn != ecn_ce) {
            f.ecn = ecn_ce;
            ++m_marks;
            services().count_mark(q.port);
        }
        return drop_reason::none;
    }
    ++m_drops;
    return drop_reason::aqm;
}

void dbl_queue_manager::on_enqueue(const queue_view& q, frame& f, uint64_t) {
    ++find(m_ports[static_cast<size_t>(q.port)], key(f)).queued;
}

void dbl_queue_manager::on_dequeue(const queue_view& q, frame& f, uint64_t) {
    if (f.kind == frame_kind::pause || f.kind == frame_kind::cnm)
        return;   // control frames the switch made itself never passed on_enqueue
    port_state& p = m_ports[static_cast<size_t>(q.port)];
    const uint32_t k = key(f);
    for (size_t i = 0; i < p.flows.size(); ++i) {
        flow_state& s = p.flows[i];
        if (s.flow != k)
            continue;
        if (s.queued > 0)
            --s.queued;
        if (s.queued == 0 && !p.congested) {   // nothing left to remember outside congestion
            s = p.flows.back();
            p.flows.pop_back();
        }
        return;
    }
}

}   // namespace cmswitch
