// SPDX-License-Identifier: Apache-2.0
#include "model/cm/dcqcn/dcqcn_rp.h"

#include "config/errors.h"

#include <algorithm>
#include <cmath>

namespace cmswitch {

dcqcn_variant parse_dcqcn_variant(const std::string& name) {
    if (name == "paper")
        return dcqcn_variant::paper;
    if (name == "ns3-rdma")
        return dcqcn_variant::ns3_rdma;
    if (name == "mlx")
        return dcqcn_variant::mlx;
    throw config_error("dcqcn_rp_variant = '" + name + "': allowed values are paper, ns3-rdma, mlx");
}

void dcqcn_rp_config::validate() const {
    auto bad = [](const std::string& field, const std::string& what) { throw config_error(field + " " + what); };
    if (!(g > 0 && g <= 1))
        bad("dcqcn_g", "must be in (0, 1]");
    if (!(alpha_init >= 0 && alpha_init <= 1))
        bad("dcqcn_alpha_init", "must be in [0, 1]");
    if (alpha_timer_ps == 0)
        bad("dcqcn_alpha_timer_us", "must be > 0");
    if (rate_timer_ps == 0 && variant != dcqcn_variant::plus)
        bad("dcqcn_rate_timer_us", "must be > 0");
    if (fast_recovery == 0)
        bad("dcqcn_fast_recovery", "must be >= 1");
    if (!(min_rate_bps > 0))
        bad("dcqcn_min_rate_mbps", "must be > 0");
    if (variant == dcqcn_variant::mlx && decrease_period_ps == 0)
        bad("dcqcn_decrease_period_us", "must be > 0");
    if (!(rate_on_first_cnp > 0 && rate_on_first_cnp <= 1))
        bad("dcqcn_rate_on_first_cnp", "must be in (0, 1]");
    if (!(lambda > 0))
        bad("dcqcnp_lambda", "must be > 0");
}

dcqcn_rp_config dcqcn_variant_defaults(dcqcn_variant v, double line_rate_bps) {
    dcqcn_rp_config c;   // the paper's (HiNA-DCN_INET DCQCN.ned, htsim dcqcn.cpp)
    c.variant = v;
    switch (v) {
    case dcqcn_variant::none:
    case dcqcn_variant::paper: break;
    case dcqcn_variant::ns3_rdma:   // ns3-rdma's config.txt and constructor
        c.alpha_first = true;
        c.alpha_init = 0.5;
        c.rate_timer_ps = 60000000;   // 60 us
        c.byte_counter_bytes = 300000000;   // 300 MB: effectively off
        c.rhai_bps = 200e6;
        break;
    case dcqcn_variant::mlx:   // ConnectX firmware values (mlxconfig -q dump), HPCC run.py scaling of R_AI/R_HAI
        c.alpha_timer_ps = 1000000;   // DCE_TCP_RTT 1 us
        c.rate_timer_ps = 300000000;   // RPG_TIME_RESET 300 us
        c.byte_counter_bytes = 0;   // the HPCC mlx mode has no byte counter
        c.fast_recovery = 1;   // RPG_THRESHOLD
        c.rai_bps = 5e6 * line_rate_bps / 25e9;
        c.rhai_bps = 50e6 * line_rate_bps / 25e9;
        c.min_rate_bps = 1e6;   // RPG_MIN_RATE 1 Mb/s
        c.decrease_period_ps = 4000000;   // RATE_REDUCE_MONITOR_PERIOD 4 us
        break;
    case dcqcn_variant::plus:   // DCQCN+: the paper's CNP response and alpha timer, no byte counter
        c.byte_counter_bytes = 0;
        break;
    }
    return c;
}

dcqcn_rate_control::dcqcn_rate_control(const dcqcn_rp_config& cfg, double line_rate_bps)
    : m_cfg(cfg), m_line(line_rate_bps) {
    cfg.validate();
}

void dcqcn_rate_control::init(dcqcn_flow& f) const {
    f = dcqcn_flow{};
    f.rc = f.rt = m_line;
    f.alpha = m_cfg.alpha_init;
}

double dcqcn_rate_control::alpha_at(const dcqcn_flow& f, uint64_t now) const {
    if (!f.limited || now <= f.alpha_ref_ps)
        return f.alpha;
    const uint64_t k = (now - f.alpha_ref_ps) / m_cfg.alpha_timer_ps;
    if (k == 0)
        return f.alpha;
    const double keep = 1 - m_cfg.g;
    // keep^n: by multiplication for the usual n of 1 or 2 (the same double pow returns), pow beyond
    auto power = [keep](uint64_t n) {
        return n == 0 ? 1.0 : n == 1 ? keep : n == 2 ? keep * keep : std::pow(keep, static_cast<double>(n));
    };
    if (m_cfg.variant == dcqcn_variant::mlx)   // the first tick sees the CNP flag, the others decay
        return (keep * f.alpha + (f.alpha_cnp ? m_cfg.g : 0.0)) * power(k - 1);
    return f.alpha * power(k);
}

void dcqcn_rate_control::advance_alpha(dcqcn_flow& f, uint64_t now) const {
    if (!f.limited || now <= f.alpha_ref_ps)
        return;
    const uint64_t k = (now - f.alpha_ref_ps) / m_cfg.alpha_timer_ps;
    if (k == 0)
        return;
    f.alpha = alpha_at(f, now);
    f.alpha_ref_ps += k * m_cfg.alpha_timer_ps;
    f.alpha_cnp = false;
}

void dcqcn_rate_control::cut(dcqcn_flow& f) const {
    f.rt = f.rc;
    f.rc = std::max(m_cfg.min_rate_bps, f.rc * (1 - f.alpha / 2));
}

bool dcqcn_rate_control::on_cnp(dcqcn_flow& f, uint64_t now, uint64_t tau_ps) const {
    ++f.cnps;
    if (tau_ps)
        f.tau_ps = tau_ps;
    if (m_cfg.variant == dcqcn_variant::mlx) {
        if (!f.limited) {   // first CNP: alpha = initial, rates from the first-CNP rule, timers start
            f.limited = true;
            f.alpha = m_cfg.alpha_init;
            f.alpha_cnp = false;
            f.rc = f.rt = m_cfg.rate_on_first_cnp * f.rc;
            f.alpha_ref_ps = now;
            f.decrease_ref_ps = now + 1000;   // the decrease timer's first tick 1 ns later
            f.decrease_cnp = true;
            return true;
        }
        advance_alpha(f, now);
        f.alpha_cnp = true;
        const bool schedule = !f.decrease_cnp;
        f.decrease_cnp = true;
        return schedule;
    }
    if (!f.limited) {
        f.limited = true;
        f.alpha_ref_ps = now;
    }
    advance_alpha(f, now);
    const double keep = 1 - m_cfg.g;
    if (m_cfg.alpha_first) {
        f.alpha = keep * f.alpha + m_cfg.g;
        cut(f);
    } else {
        cut(f);
        f.alpha = keep * f.alpha + m_cfg.g;
    }
    f.alpha_ref_ps = now;   // the alpha timer restarts
    f.t_stage = f.bc_stage = f.hai_i = 0;
    f.byte_count = 0;
    f.stage = 0;
    return false;
}

uint64_t dcqcn_rate_control::decrease_at(const dcqcn_flow& f, uint64_t now) const {
    if (now <= f.decrease_ref_ps)
        return f.decrease_ref_ps;
    const uint64_t p = m_cfg.decrease_period_ps;
    return f.decrease_ref_ps + (now - f.decrease_ref_ps + p - 1) / p * p;
}

void dcqcn_rate_control::on_decrease_timer(dcqcn_flow& f, uint64_t now) const {
    advance_alpha(f, now);
    if (!f.decrease_cnp)
        return;
    if (m_cfg.clamp_target_rate || f.stage != 0)   // CLAMP_TGT_RATE, or _AFTER_TIME_INC (an increase came last)
        f.rt = f.rc;
    f.rc = std::max(m_cfg.min_rate_bps, f.rc * (1 - f.alpha / 2));
    f.stage = 0;
    f.decrease_cnp = false;
}

uint64_t dcqcn_rate_control::rate_timer_period(const dcqcn_flow& f) const {
    const uint32_t th = m_cfg.fast_recovery;
    switch (m_cfg.variant) {
    case dcqcn_variant::ns3_rdma:
        return f.t_stage >= th && f.bc_stage >= th ? m_cfg.rate_timer_ps / 2 : m_cfg.rate_timer_ps;
    case dcqcn_variant::plus: {
        const double mtu_time_ps = static_cast<double>(m_cfg.mtu_bytes) * 8e12 / f.rc;
        const double k = m_cfg.lambda * std::max(static_cast<double>(f.tau_ps), mtu_time_ps);
        return std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(k)));
    }
    default: return m_cfg.rate_timer_ps;
    }
}

uint64_t dcqcn_rate_control::byte_threshold(const dcqcn_flow& f) const {
    const uint32_t th = m_cfg.fast_recovery;
    if (m_cfg.variant == dcqcn_variant::ns3_rdma && f.t_stage >= th && f.bc_stage >= th)
        return m_cfg.byte_counter_bytes / 2;
    return m_cfg.byte_counter_bytes;
}

void dcqcn_rate_control::on_rate_timer(dcqcn_flow& f) const {
    if (!f.limited)
        return;
    if (m_cfg.variant == dcqcn_variant::paper || m_cfg.variant == dcqcn_variant::ns3_rdma)
        ++f.t_stage;
    else if (m_cfg.variant == dcqcn_variant::plus)
        ++f.stage;
    increase(f);
}

void dcqcn_rate_control::on_sent(dcqcn_flow& f, uint32_t bytes) const {
    if (!f.limited || m_cfg.byte_counter_bytes == 0 ||
        (m_cfg.variant != dcqcn_variant::paper && m_cfg.variant != dcqcn_variant::ns3_rdma))
        return;
    f.byte_count += bytes;
    if (f.byte_count >= byte_threshold(f)) {
        f.byte_count = 0;
        ++f.bc_stage;
        increase(f);
    }
}

void dcqcn_rate_control::increase(dcqcn_flow& f) const {
    const uint32_t F = m_cfg.fast_recovery;
    switch (m_cfg.variant) {
    case dcqcn_variant::none: return;
    case dcqcn_variant::paper:
        if (std::max(f.t_stage, f.bc_stage) < F) {
        } else if (std::min(f.t_stage, f.bc_stage) > F) {
            ++f.hai_i;
            f.rt = std::min(f.rt + f.hai_i * m_cfg.rhai_bps, m_line);
        } else {
            f.rt = std::min(f.rt + m_cfg.rai_bps, m_line);
        }
        f.rc = (f.rt + f.rc) / 2;
        return;
    case dcqcn_variant::ns3_rdma:
        if ((f.t_stage == 1 || f.bc_stage == 1) && f.rt > 10 * f.rc) {
            f.rt /= 8;   // TR guard after a deep cut
        } else if (f.t_stage >= F && f.bc_stage >= F) {
            f.rt += m_cfg.rhai_bps * (std::min(f.t_stage, f.bc_stage) - F + 1);
        } else if (f.t_stage >= F || f.bc_stage >= F) {
            f.rt += m_cfg.rai_bps;
        }
        f.rc = std::min((f.rc + f.rt) / 2, m_line);
        return;
    case dcqcn_variant::mlx:
        if (f.stage == F)
            f.rt = std::min(f.rt + m_cfg.rai_bps, m_line);
        else if (f.stage > F)
            f.rt = std::min(f.rt + m_cfg.rhai_bps, m_line);
        f.rc = (f.rc + f.rt) / 2;
        ++f.stage;
        return;
    case dcqcn_variant::plus: {
        const double rl = m_cfg.rl_bps > 0 ? m_cfg.rl_bps : m_line;
        if (f.stage >= 4 * F)
            f.rt += std::min(f.rc, static_cast<double>(f.stage - 4 * F) / 100 * rl);
        else if (f.stage >= F)
            f.rt += std::min(f.rc / 10, rl / 100);
        f.rt = std::min(f.rt, m_line);
        f.rc = (f.rc + f.rt) / 2;
        return;
    }
    }
}

}   // namespace cmswitch
