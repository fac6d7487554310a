// SPDX-License-Identifier: Apache-2.0
#include "model/cm/dcqcn/dcqcn_scheme.h"

#include "config/errors.h"
#include "model/nic/host_nic.h"
#include "model/switch/ethernet_switch.h"
#include "model/units.h"

#include <memory>

namespace cmswitch {

namespace {
// The congestion point: one hook per switch; marks at enqueue or (AtDequeue) as the frame leaves.
template <bool AtDequeue>
class dcqcn_marking final : public switch_hook {
public:
    dcqcn_marking(dcqcn_marker m, rng r) : m_marker(m), m_rng(r) {}
    uint8_t events() const override { return AtDequeue ? on_dequeue_event : on_enqueue_event; }
    int stage() const override { return stage_marking; }
    void attach(switch_services& sw) override {
        switch_hook::attach(sw);
        m_marker = m_marker.in_units(sw.units());   // Kmin and Kmax in the switch's units
    }
    void on_enqueue(const queue_view& q, frame& f, uint64_t) override { mark(q, f); }
    void on_dequeue(const queue_view& q, frame& f, uint64_t) override { mark(q, f); }

private:
    void mark(const queue_view& q, frame& f) {
        if (f.ecn == ecn_not_ect || f.ecn == ecn_ce)
            return;
        const double p = m_marker.probability(q.queue_units);
        if (p > 0 && (p >= 1 || m_rng.uniform() < p)) {
            f.ecn = ecn_ce;
            services().count_mark(q.port);
        }
    }
    dcqcn_marker m_marker;
    rng m_rng;
};
}   // namespace

void dcqcn_cp_scheme::declare(param_table& t) {
    t.add_real("dcqcn_kmin_kb", &m_kmin_kb, 0, 1 << 20, "KB (1024 B)",
               "DCQCN congestion point: no marking up to Kmin (DCQCN paper 5 KB; HPCC production 100 KB x bw/25G)");
    t.add_real("dcqcn_kmax_kb", &m_kmax_kb, 0, 1 << 20, "KB (1024 B)",
               "DCQCN congestion point: Pmax at Kmax, every frame above (paper 200 KB; HPCC 400 KB x bw/25G)");
    t.add_real("dcqcn_pmax", &m_pmax, 0, 1, "", "DCQCN congestion point: marking probability at Kmax (paper 1 %)");
    t.add_choice("dcqcn_mark_at", &m_mark_at, {"dequeue", "enqueue"},
                 "mark as the frame leaves, on the queue behind it (both ns-3 simulators), or as it arrives");
}

dcqcn_marker dcqcn_cp_scheme::marker() const {
    return dcqcn_marker(kb_to_bytes(m_kmin_kb), kb_to_bytes(m_kmax_kb), m_pmax);
}

void dcqcn_cp_scheme::check(const std::string&) const {
    if (m_kmax_kb <= m_kmin_kb)
        throw config_error("dcqcn_kmax_kb = " + format_number(m_kmax_kb) +
                           ": must be > dcqcn_kmin_kb = " + format_number(m_kmin_kb));
}

void dcqcn_cp_scheme::install(const std::string&, scheme_context& ctx) {
    for (int s = 0; s < ctx.net.num_switches(); ++s) {
        const rng r(ctx.seed, stream_id(random_stream::dcqcn_marking, static_cast<uint64_t>(s)));
        if (m_mark_at == "dequeue")
            ctx.net.switch_at(s).add_hook(std::make_unique<dcqcn_marking<true>>(marker(), r));
        else
            ctx.net.switch_at(s).add_hook(std::make_unique<dcqcn_marking<false>>(marker(), r));
    }
}

void dcqcn_scheme::declare(param_table& t) {
    const char* variant_note = " (0: the variant's, see model/cm/dcqcn/dcqcn_rp.cpp)";
    auto v = [&](const char* text) { return std::string(text) + variant_note; };
    t.add_choice("dcqcn_rp_variant", &m_variant, {"paper", "ns3-rdma", "mlx"},
                 "DCQCN reaction point: paper (HiNA, htsim), ns3-rdma (the DCQCN authors' simulator), mlx (NVIDIA "
                 "firmware as HPCC's CC_MODE 1); cm = dcqcn+ uses DCQCN+'s");
    t.add_choice("dcqcn_cut_order", &m_cut_order, {"variant", "old-alpha", "new-alpha"},
                 "on a CNP, cut with alpha before its update (paper, htsim) or after (ns3-rdma); variant: the RP's");
    t.add_real("dcqcn_g", &m_g, 0, 1, "", "alpha gain g", true);
    t.add_real("dcqcn_alpha_init", &m_alpha_init, 0, 1, "", v("alpha before the first CNP"));
    t.add_real("dcqcn_alpha_timer_us", &m_alpha_timer_us, 0, 1e6, "us", v("alpha timer K (mlx: T_alpha)"));
    t.add_real("dcqcn_rate_timer_us", &m_rate_timer_us, 0, 1e6, "us", v("rate-increase timer T (mlx: T_inc)"));
    t.add_real("dcqcn_byte_counter_kb", &m_byte_counter_kb, 0, 1e9, "KB (1024 B)",
               v("byte counter B (mlx and dcqcn+ have none)"));
    t.add_int("dcqcn_fast_recovery", &m_fast_recovery, 0, 1000, "stages", v("fast-recovery stages F"));
    t.add_real("dcqcn_rai_mbps", &m_rai_mbps, 0, 1e6, "Mbps", v("additive increase R_AI"));
    t.add_real("dcqcn_rhai_mbps", &m_rhai_mbps, 0, 1e6, "Mbps", v("hyper increase R_HAI"));
    t.add_real("dcqcn_min_rate_mbps", &m_min_rate_mbps, 0, 1e6, "Mbps", v("MIN_RATE"));
    t.add_real("dcqcn_decrease_period_us", &m_decrease_period_us, 0, 1e6, "us",
               v("mlx: at most one cut per period (rate_reduce_monitor_period)"));
    t.add_real("dcqcn_rate_on_first_cnp", &m_rate_on_first_cnp, 0, 1, "x rate",
               "mlx: RC = RT = this x RC on a flow's first CNP", true);
    t.add_flag("dcqcn_clamp_target_rate", &m_clamp, "mlx: RT = RC on every cut (CLAMP_TGT_RATE)");
    t.add_real("dcqcn_cnp_interval_us", &m_cnp_interval_us, 0, 1e6, "us",
               "notification point: at most one CNP per flow per interval N (0: one per marked frame); dcqcn+: the "
               "smallest period");
    t.add_real("dcqcnp_lambda", &m_lambda, 0, 1000, "", "DCQCN+: rate timer K = lambda x max(tau, MTU / RC)", true);
    t.add_real("dcqcnp_rl_gbps", &m_rl_gbps, 0, 1000, "Gbps", "DCQCN+: R_l bounding the increase steps (0: line rate)");
    t.add_real("dcqcnp_cnp_cost_us", &m_cnp_cost_us, 0, 1e6, "us",
               "DCQCN+ notification point: its time per CNP; tau = flows x this, at least the CNP interval");
    t.add_real("dcqcnp_window_us", &m_window_us, 0, 1e6, "us",
               "DCQCN+ notification point: flows are counted over this window", true);
    t.add_real("dcqcnp_max_interval_us", &m_max_interval_us, 0, 1e6, "us", "DCQCN+: the largest CNP period tau");
}

dcqcn_endpoint_config dcqcn_scheme::config(const std::string& v, double line_rate_bps, uint32_t mtu_bytes) const {
    const dcqcn_variant var = v == "none"     ? dcqcn_variant::none
                              : v == "dcqcn+" ? dcqcn_variant::plus
                                              : parse_dcqcn_variant(m_variant);
    dcqcn_endpoint_config c;
    dcqcn_rp_config& r = c.rp;
    r = dcqcn_variant_defaults(var, line_rate_bps);
    if (m_cut_order != "variant")
        r.alpha_first = m_cut_order == "new-alpha";
    r.g = m_g;
    if (m_alpha_init > 0)
        r.alpha_init = m_alpha_init;
    if (m_alpha_timer_us > 0)
        r.alpha_timer_ps = us_to_ps(m_alpha_timer_us);
    if (m_rate_timer_us > 0)
        r.rate_timer_ps = us_to_ps(m_rate_timer_us);
    if (m_byte_counter_kb > 0)
        r.byte_counter_bytes = kb_to_bytes(m_byte_counter_kb);
    if (m_fast_recovery > 0)
        r.fast_recovery = static_cast<uint32_t>(m_fast_recovery);
    if (m_rai_mbps > 0)
        r.rai_bps = m_rai_mbps * 1e6;
    if (m_rhai_mbps > 0)
        r.rhai_bps = m_rhai_mbps * 1e6;
    if (m_min_rate_mbps > 0)
        r.min_rate_bps = m_min_rate_mbps * 1e6;
    if (m_decrease_period_us > 0)
        r.decrease_period_ps = us_to_ps(m_decrease_period_us);
    r.rate_on_first_cnp = m_rate_on_first_cnp;
    r.clamp_target_rate = m_clamp;
    r.lambda = m_lambda;
    r.rl_bps = m_rl_gbps * 1e9;
    r.mtu_bytes = mtu_bytes;
    c.np.enabled = var != dcqcn_variant::none;
    c.np.cnp_interval_ps = us_to_ps(m_cnp_interval_us);
    c.np.adaptive = var == dcqcn_variant::plus;
    c.np.cnp_cost_ps = us_to_ps(m_cnp_cost_us);
    c.np.window_ps = us_to_ps(m_window_us);
    c.np.max_interval_ps = us_to_ps(m_max_interval_us);
    c.qp_buffer_bytes = 2ull * mtu_bytes;   // two frames per QP in the NIC: one leaving, one ready
    return c;
}

void dcqcn_scheme::check(const std::string& v) const {
    if (v == "dcqcn+" && m_max_interval_us < m_cnp_interval_us)
        throw config_error("dcqcnp_max_interval_us = " + format_number(m_max_interval_us) +
                           ": must be >= dcqcn_cnp_interval_us = " + format_number(m_cnp_interval_us) +
                           " (tau lies between them)");
    config(v, 1e10, 1086).rp.validate();
}

void install_rdma_endpoints(fabric& net, const dcqcn_scheme& s, const std::string& variant, uint32_t mtu_bytes) {
    for (int h = 0; h < net.num_hosts(); ++h) {
        const double rate = static_cast<double>(net.host_rate_bps(h));
        if (rate > 0)
            net.nic_at(h).set_reaction_point(
                std::make_unique<dcqcn_endpoint>(s.config(variant, rate, mtu_bytes), rate));
    }
}

void dcqcn_scheme::install(const std::string& v, scheme_context& ctx) {
    install_rdma_endpoints(ctx.net, *this, v, ctx.mtu_bytes);
}

}   // namespace cmswitch
