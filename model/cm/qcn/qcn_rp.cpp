// SPDX-License-Identifier: Apache-2.0
#include "model/cm/qcn/qcn_rp.h"

#include "config/errors.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace cmswitch {

void qcn_rp_config::validate() const {
    auto bad = [](const std::string& field, double v, const std::string& range) {
        std::ostringstream m;
        m << field << " = " << v << ": allowed range " << range;
        throw config_error(m.str());
    };
    if (variant != "sef1" && variant != "ns3-rdma")
        throw config_error("qcn_rp_variant = '" + variant + "': allowed values are sef1, ns3-rdma");
    if (!(gd > 0 && gd <= 1))
        bad("qcn_gd", gd, "(0, 1]");
    if (!(min_rate_bps > 0))
        bad("qcn_min_rate_mbps", min_rate_bps / 1e6, "> 0");
    if (byte_counter_bytes == 0)
        bad("qcn_byte_counter_kb", 0, "> 0");
    if (timer_ps == 0)
        bad("qcn_timer_ms", 0, "> 0");
    if (!(jitter >= 0 && jitter < 1))
        bad("qcn_jitter", jitter, "[0, 1)");
    if (queue_limit_bytes < 9216)
        bad("qcn_rl_queue_kb", static_cast<double>(queue_limit_bytes) / 1024, ">= 9 KB");
}

qcn_reaction_point::qcn_reaction_point(const qcn_rp_config& cfg, double line_rate_bps, rng r)
    : m_cfg(cfg), m_ns3(cfg.variant == "ns3-rdma"), m_c(line_rate_bps), m_rng(r) {
    cfg.validate();
}

qcn_reaction_point::take_result qcn_reaction_point::take(frame* f, uint64_t now, bool backpressured) {
    if (f->flow >= m_rl.size() || !m_rl[f->flow].active)
        return take_result::not_limited;
    limiter& rl = m_rl[f->flow];
    if (!backpressured && rl.queue.bytes + f->bytes > m_cfg.queue_limit_bytes)
        return take_result::over_limit;
    rl.queue.push(f);
    count_held(*f);
    if (!rl.release_pending) {
        if (now >= rl.next_release_ps) {
            release(f->flow, now);
        } else {
            rl.release_pending = true;
            schedule(rl.next_release_ps, f->flow, 0);
        }
    }
    return take_result::taken;
}

void qcn_reaction_point::release(uint32_t flow, uint64_t now) {
    limiter& rl = m_rl[flow];
    frame* f = rl.queue.pop();
    count_released(*f);
    const uint32_t bytes = f->bytes;
    rl.next_release_ps = now + static_cast<uint64_t>(std::ceil(bytes * 8e12 / rl.cr));
    nic().transmit(f, now);
    after_transmit(flow, bytes, now);
    if (rl.waiting && (!rl.active || rl.queue.bytes <= m_cfg.queue_limit_bytes / 2)) {
        rl.waiting = false;
        nic().flow_writable(flow, now);
    }
    if (rl.queue.head && !rl.release_pending) {
        rl.release_pending = true;
        schedule(std::max(rl.next_release_ps, now), flow, 0);
    }
}

void qcn_reaction_point::on_cnm(uint32_t flow, uint8_t q, uint64_t now) {
    if (q == 0)
        return;
    ++m_cnms;
    if (flow >= m_rl.size())
        m_rl.resize(flow + 1);
    limiter& rl = m_rl[flow];
    ++rl.cnms;
    if (!rl.active) {   // first CNM: install a limiter at line rate
        if (!rl.tr_rate && model_trace::active()) {
            rl.tr_rate = model_trace::declare("host" + std::to_string(nic().host_id()) + ".flow" + std::to_string(flow),
                                              "rate_mbps", 0);
            if (rl.tr_rate)
                rl.tr_rate->set_real(now, m_c / 1e6);
        }
        rl.active = true;
        set_limiting(flow, true);
        rl.cr = rl.tr = m_c;
        rl.si_count = rl.timer_scount = 0;
        rl.tx_bcount = static_cast<int64_t>(m_cfg.byte_counter_bytes);
        rl.next_release_ps = now;
    }
    if (rl.si_count != 0) {   // outside the first byte-counter cycle: remember the rate before the cut
        rl.tr = rl.cr;
        rl.tx_bcount = static_cast<int64_t>(m_cfg.byte_counter_bytes);
    }
    rl.si_count = 0;
    rl.timer_scount = 0;
    if (m_cfg.adaptive_rai)
        rl.memory += q;
    const double f = std::max(1.0 - m_cfg.gd * q, m_cfg.min_dec_factor);
    rl.cr = std::max(rl.cr * f, m_cfg.min_rate_bps);
    if (rl.tr_rate)
        rl.tr_rate->set_real(now, rl.cr / 1e6);
    restart_timer(flow, now);
}

void qcn_reaction_point::restart_timer(uint32_t flow, uint64_t now) {
    limiter& rl = m_rl[flow];
    const uint32_t th = m_cfg.fast_recovery_cycles;
    const bool halve = m_ns3 ? (rl.si_count >= th && rl.timer_scount >= th) : rl.timer_scount >= th;
    const double base = static_cast<double>(m_cfg.timer_ps) / (halve ? 2.0 : 1.0);
    rl.timer_deadline = now + static_cast<uint64_t>(base * jit());
    if (rl.timer_deadline < rl.timer_entry_at) {   // lazy timer: one entry at or before the deadline
        rl.timer_entry_at = rl.timer_deadline;
        schedule(rl.timer_deadline, flow, 1);
    }
}

void qcn_reaction_point::on_timer(uint32_t tag) {
    const uint32_t flow = tag >> 1;
    const uint64_t now = now_ps();
    limiter& rl = m_rl[flow];
    if ((tag & 1) == 0) {   // release
        rl.release_pending = false;
        if (rl.queue.head)
            release(flow, now);
        return;
    }
    if (now == rl.timer_entry_at)
        rl.timer_entry_at = UINT64_MAX;
    if (!rl.active)
        return;
    if (now < rl.timer_deadline) {
        if (rl.timer_deadline < rl.timer_entry_at) {
            rl.timer_entry_at = rl.timer_deadline;
            schedule(rl.timer_deadline, flow, 1);
        }
        return;
    }
    ++rl.timer_scount;
    if (m_cfg.adaptive_rai)
        rl.memory = std::max(0.0, rl.memory - 1);
    self_increase(rl);
    if (rl.tr_rate)
        rl.tr_rate->set_real(now, rl.cr / 1e6);
    restart_timer(flow, now);
}

void qcn_reaction_point::after_transmit(uint32_t flow, uint32_t bytes, uint64_t now) {
    limiter& rl = m_rl[flow];
    if (!m_ns3 && rl.cr >= m_c && !rl.queue.head) {   // back at line rate: remove the limiter
        rl.active = false;
        set_limiting(flow, false);
        rl.cr = rl.tr = m_c;
        rl.si_count = rl.timer_scount = 0;
        rl.tx_bcount = static_cast<int64_t>(m_cfg.byte_counter_bytes);
        rl.timer_deadline = 0;   // a pending timer entry finds the limiter inactive
        if (rl.tr_rate)
            rl.tr_rate->set_real(now, rl.cr / 1e6);
        return;
    }
    rl.tx_bcount -= bytes;
    if (rl.tx_bcount < 0) {
        ++rl.si_count;
        const uint32_t th = m_cfg.fast_recovery_cycles;
        const bool halve = m_ns3 ? (rl.si_count >= th && rl.timer_scount >= th) : rl.si_count >= th;
        const double base = static_cast<double>(m_cfg.byte_counter_bytes) / (halve ? 2.0 : 1.0);
        rl.tx_bcount = static_cast<int64_t>(base * jit());
        self_increase(rl);
        if (rl.tr_rate)
            rl.tr_rate->set_real(now, rl.cr / 1e6);
    }
}

void qcn_reaction_point::self_increase(limiter& rl) {
    const uint32_t th = m_cfg.fast_recovery_cycles;
    const uint32_t n = std::min(rl.si_count, rl.timer_scount);
    const double scale = m_cfg.adaptive_rai ? std::max(1.0, rl.memory / 64.0) : 1.0;
    double ri = 0;
    if (m_ns3) {
        if (rl.si_count >= th && rl.timer_scount >= th)
            ri = m_cfg.rhai_bps * (n - th + 1) / scale;
        else if (rl.si_count >= th || rl.timer_scount >= th)
            ri = m_cfg.rai_bps / scale;
    } else if (rl.si_count > th || rl.timer_scount > th) {
        ri = (rl.si_count > th && rl.timer_scount > th) ? m_cfg.rhai_bps * (n - th) / scale : m_cfg.rai_bps / scale;
    }
    if ((rl.si_count == 1 || rl.timer_scount == 1) && rl.tr > 10 * rl.cr)
        rl.tr /= 8;   // TR guard after a deep cut
    else
        rl.tr += ri;
    rl.cr = std::min((rl.cr + rl.tr) / 2, m_c);
}

}   // namespace cmswitch
