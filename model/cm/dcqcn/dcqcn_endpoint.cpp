// SPDX-License-Identifier: Apache-2.0
#include "model/cm/dcqcn/dcqcn_endpoint.h"

#include "config/errors.h"
#include "model/control_frames.h"

#include <algorithm>
#include <cmath>

namespace cmswitch {

dcqcn_endpoint::dcqcn_endpoint(const dcqcn_endpoint_config& cfg, double line_rate_bps)
    : m_cfg(cfg), m_cc(cfg.rp, line_rate_bps), m_tau_ps(cfg.np.cnp_interval_ps) {
    if (cfg.qp_buffer_bytes < cfg.rp.mtu_bytes)
        throw config_error("qp_buffer_bytes = " + std::to_string(cfg.qp_buffer_bytes) + ": must be >= the MTU, " +
                           std::to_string(cfg.rp.mtu_bytes) + " bytes");
    take_every_frame();
}

dcqcn_endpoint::qp& dcqcn_endpoint::add_qp(uint32_t flow) {
    const size_t old = m_qp.size();
    m_qp.resize(flow + 1);
    for (size_t i = old; i < m_qp.size(); ++i)
        m_cc.init(m_qp[i].cc);
    return m_qp[flow];
}

reaction_point::take_result dcqcn_endpoint::take(frame* f, uint64_t now, bool) {
    if (f->kind != frame_kind::rdma || f->flags != 0)
        return take_result::not_limited;   // ACKs, NACKs and anything else go straight to the queue
    qp& q = at(f->flow);
    q.queue.push(f);
    count_held(*f);
    if (!q.ready && !q.pace_pending)
        make_eligible(f->flow, now);
    pump(now);
    return take_result::taken;
}

void dcqcn_endpoint::make_eligible(uint32_t flow, uint64_t now) {
    qp& q = m_qp[flow];
    if (now >= q.next_tx_ps) {
        q.ready = true;
        m_ready.push_back(flow);
    } else {   // its rate limiter holds it: it waits, in time order, for a pump at or after next_tx
        q.pace_pending = true;
        m_pacing.push((static_cast<uint128>(q.next_tx_ps) << 32) | flow);
    }
}

void dcqcn_endpoint::flow_ring::grow() {
    std::vector<uint32_t> bigger(slots.size() * 2);
    for (size_t i = 0; i < count; ++i)
        bigger[i] = slots[(head + i) & (slots.size() - 1)];
    slots.swap(bigger);
    head = 0;
}

void dcqcn_endpoint::pump(uint64_t now) {
    if (m_pumping)
        return;
    m_pumping = true;
    for (;;) {
        while (!m_pacing.empty() && pacing_time(m_pacing.top()) <= now) {   // rate limiters that have let go
            const uint32_t flow = static_cast<uint32_t>(m_pacing.top());
            m_pacing.pop();
            m_qp[flow].pace_pending = false;
            m_qp[flow].ready = true;
            m_ready.push_back(flow);
        }
        if (m_ready.empty() || nic().egress_backlog_bytes() != 0 || nic().egress_free_at() > now)
            break;
        const uint32_t flow = m_ready.front();
        m_ready.pop_front();
        m_qp[flow].ready = false;
        if (m_qp[flow].queue.head)
            release(flow, now);
    }
    m_pumping = false;
    // nothing queued at the egress (a queued frame pumps again when its transmission starts): wake up when the
    // wire is free and a QP may send, the later of the two
    if ((!m_ready.empty() || !m_pacing.empty()) && nic().egress_backlog_bytes() == 0) {
        const uint64_t t = std::max(m_ready.empty() ? pacing_time(m_pacing.top()) : now, nic().egress_free_at());
        if (t < m_wake_at) {
            m_wake_at = t;
            schedule(t, 0, tag_pace);
        }
    }
}

void dcqcn_endpoint::release(uint32_t flow, uint64_t now) {
    qp& q = m_qp[flow];
    frame* f = q.queue.pop();
    count_released(*f);
    const uint32_t bytes = f->bytes;
    nic().transmit(f, now);
    advance_rate(q, now);
    m_cc.on_sent(q.cc, bytes);
    if (m_traced)
        trace_rate(flow, q, now);
    const double rate = q.cc.limited ? q.cc.rc : m_cc.line_rate();
    q.next_tx_ps = now + static_cast<uint64_t>(std::ceil(bytes * 8e12 / rate));
    if (q.waiting && room(flow) >= m_cfg.rp.mtu_bytes) {
        q.waiting = false;
        nic().flow_writable(flow, now);   // the sender may hand over its next frames (take)
    }
    if (q.queue.head && !q.ready && !q.pace_pending)
        make_eligible(flow, now);
}

void dcqcn_endpoint::trace_rate(uint32_t flow, const qp& q, uint64_t now) {
    if (flow >= m_tr_declared.size()) {
        m_tr_declared.resize(flow + 1, false);
        m_tr_rate.resize(flow + 1, nullptr);
    }
    if (!m_tr_declared[flow]) {
        m_tr_declared[flow] = true;
        m_tr_rate[flow] = model_trace::declare(
            "host" + std::to_string(nic().host_id()) + ".flow" + std::to_string(flow), "rate_mbps", 0);
    }
    if (trace_signal* s = m_tr_rate[flow])
        s->set_real(now, (q.cc.limited ? q.cc.rc : m_cc.line_rate()) / 1e6);
}

void dcqcn_endpoint::restart_rate_timer(qp& q, uint64_t now) {
    q.rate_next_ps = now + m_cc.rate_timer_period(q.cc);
}

void dcqcn_endpoint::advance_rate(qp& q, uint64_t now) const {
    // the rate timer's expiries up to now, in order, each restarting it (no event: the rate matters only when the
    // QP sends, gets a CNP or is read, and the state changes only at expiries, so applying them then is the same)
    while (q.rate_next_ps != 0 && q.rate_next_ps <= now) {
        const uint64_t t = q.rate_next_ps;
        m_cc.on_rate_timer(q.cc);
        q.rate_next_ps = m_cc.increasing(q.cc) ? t + m_cc.rate_timer_period(q.cc) : 0;
    }
}

double dcqcn_endpoint::rate_bps(uint32_t flow) const {
    if (flow >= m_qp.size() || !m_qp[flow].cc.limited)
        return m_cc.line_rate();
    qp q = m_qp[flow];   // a copy: reading the rate changes nothing
    q.queue = frame_fifo{};
    advance_rate(q, now_ps());
    return q.cc.rc;
}

void dcqcn_endpoint::on_notification(const frame& f, uint64_t now) {
    if (f.kind != frame_kind::cnp || m_cfg.rp.variant == dcqcn_variant::none)
        return;
    ++m_cnps_received;
    qp& q = at(f.flow);
    advance_rate(q, now);
    const bool decrease = m_cc.on_cnp(q.cc, now, static_cast<uint64_t>(f.ctl.cnp.period_ns) * 1000);
    if (m_traced)
        trace_rate(f.flow, q, now);
    if (m_cfg.rp.variant == dcqcn_variant::mlx) {
        if (decrease && !q.decrease_pending) {
            q.decrease_pending = true;
            schedule(m_cc.decrease_at(q.cc, now), f.flow, tag_decrease);
        }
        return;
    }
    restart_rate_timer(q, now);
}

void dcqcn_endpoint::on_timer(uint32_t tag) {
    const uint32_t flow = tag >> 2;
    const uint64_t now = now_ps();
    if ((tag & 3) == tag_pace) {
        if (now == m_wake_at)
            m_wake_at = UINT64_MAX;
        pump(now);
        return;
    }
    qp& q = m_qp[flow];
    if ((tag & 3) == tag_decrease) {   // mlx: the cut at the decrease timer's tick, then the rate timer restarts
        q.decrease_pending = false;
        advance_rate(q, now);
        m_cc.on_decrease_timer(q.cc, now);
        restart_rate_timer(q, now);
    }
}

void dcqcn_endpoint::count_np_flow(uint32_t flow, uint64_t now) {
    if (now >= m_window_end) {   // a new window: the last one's count sets tau
        m_np_flows_last = now >= m_window_end + m_cfg.np.window_ps ? 0 : m_np_flows;
        m_np_flows = 0;
        ++m_window;
        m_window_end = now + m_cfg.np.window_ps;
        const uint64_t demand = static_cast<uint64_t>(m_np_flows_last) * m_cfg.np.cnp_cost_ps;
        m_tau_ps = std::min(m_cfg.np.max_interval_ps, std::max(m_cfg.np.cnp_interval_ps, demand));
    }
    np_flow& s = m_np[flow];
    if (s.window != m_window) {
        s.window = m_window;
        ++m_np_flows;
    }
}

void dcqcn_endpoint::on_receive(const frame& f, uint64_t now) {
    if (!m_cfg.np.enabled || f.kind != frame_kind::rdma || f.flags != 0)
        return;
    if (f.flow >= m_np.size())
        m_np.resize(f.flow + 1);
    if (m_cfg.np.adaptive)
        count_np_flow(f.flow, now);
    if (f.ecn != ecn_ce)
        return;
    np_flow& s = m_np[f.flow];
    const uint64_t interval = m_cfg.np.adaptive ? m_tau_ps : m_cfg.np.cnp_interval_ps;
    if (s.sent && now - s.last_cnp_ps < interval)
        return;
    s.sent = true;
    s.last_cnp_ps = now;
    ++m_cnps_sent;
    const uint32_t period_ns = m_cfg.np.adaptive ? static_cast<uint32_t>(m_tau_ps / 1000) : 0;
    nic().send_own(make_cnp_frame(nic().frames(), f, period_ns, now));
}

}   // namespace cmswitch
