// SPDX-License-Identifier: Apache-2.0
#include "model/cm/qcn/qcn_scheme.h"

#include "model/cm/qcn/qcn_congestion_points.h"
#include "model/nic/host_nic.h"
#include "model/switch/ethernet_switch.h"
#include "model/units.h"

#include <memory>

namespace cmswitch {

void qcn_scheme::declare(param_table& t) {
    t.add_choice(
        "qcn_cp", &m_cp, {"standard", "memory", "detailed"},
        "QCN congestion point sampling: standard (8 levels), memory (congestion-memory), detailed (15 levels)");
    t.add_choice("qcn_rp", &m_rp, {"standard", "adaptive-rai"}, "QCN reaction point: standard, or adaptive R_AI");
    t.add_choice("qcn_rp_variant", &m_rp_variant, {"sef1", "ns3-rdma"},
                 "stage arithmetic of the reaction point (see model/cm/qcn/qcn_rp.h)");
    t.add_choice("qcn_quantizer", &m_quantizer, {"linear", "linear64"},
                 "Fb quantizer: floor(63|Fb|/Fbmax) or min(63, floor(64|Fb|/Fbmax))");
    t.add_real("qcn_qeq_kb", &m_qeq_kb, 0, 1 << 20, "KB (1024 B)", "QCN queue set point Qeq (default 26000 B)", true);
    t.add_real("qcn_w", &m_w, 0, 64, "", "QCN weight of queue growth w");
    t.add_real("qcn_sample_base_kb", &m_sample_base_kb, 0, 1 << 20, "KB (1024 B)",
               "bytes between samples at no congestion (default 150000 B)", true);
    t.add_real("qcn_memory_decay_ms", &m_memory_decay_ms, 0, 1e6, "ms",
               "congestion-memory sampling: the memory counter drops by 1 this often (default 250 ms: longer than a "
               "200 ms TCP timeout, so the memory of an incast survives the silence it causes, the paper's intent)",
               true);
    t.add_real("qcn_detailed_min_kb", &m_detailed_min_kb, 0, 1 << 20, "KB (1024 B)",
               "detailed sampling: interval of the heaviest of its 8 top levels (default 1000 B: every 1500-byte "
               "frame even with the 15 % jitter, as the paper's sample-every-packet experiment); the levels fall "
               "geometrically from the standard table's 18.5 KB",
               true);
    t.add_real("qcn_gd", &m_gd, 0, 1, "", "QCN decrease gain Gd", true);
    t.add_real("qcn_min_rate_mbps", &m_min_rate_mbps, 0, 1e6, "Mbps", "QCN minimum rate", true);
    t.add_real("qcn_byte_counter_kb", &m_byte_counter_kb, 0, 1 << 20, "KB (1024 B)",
               "reaction point byte-counter cycle (default 150000 B)", true);
    t.add_real("qcn_timer_ms", &m_timer_ms, 0, 1e6, "ms", "reaction point timer cycle", true);
    t.set_min_nonzero("qcn_timer_ms", 1e-3);   // 1 us: shorter is no timer the standard knows
    t.add_int("qcn_fast_recovery", &m_fast_recovery, 1, 1000, "cycles", "fast-recovery cycles FR_TH");
    t.add_real("qcn_rai_mbps", &m_rai_mbps, 0, 1e6, "Mbps", "active-increase step R_AI");
    t.add_real("qcn_rhai_mbps", &m_rhai_mbps, 0, 1e6, "Mbps", "hyper-active-increase step R_HAI");
    t.add_real("qcn_rl_queue_kb", &m_rl_queue_kb, 9, 1 << 22, "KB (1024 B)",
               "queue limit of each QCN rate limiter at a NIC (a full limiter drops: TCP sees a loss)");
}

qcn_cp_config qcn_scheme::cp_config() const {
    qcn_cp_config c;
    c.sampling = m_cp;
    c.quantizer = m_quantizer;
    c.qeq_bytes = kb_to_bytes(m_qeq_kb);
    c.w = m_w;
    c.sample_base_bytes = kb_to_bytes(m_sample_base_kb);
    c.memory_decay_ps = ms_to_ps(m_memory_decay_ms);
    c.detailed_min_bytes = kb_to_bytes(m_detailed_min_kb);
    return c;
}

qcn_rp_config qcn_scheme::rp_config() const {
    qcn_rp_config r;
    r.variant = m_rp_variant;
    r.adaptive_rai = m_rp == "adaptive-rai";
    r.gd = m_gd;
    r.min_rate_bps = m_min_rate_mbps * 1e6;
    r.byte_counter_bytes = kb_to_bytes(m_byte_counter_kb);
    r.timer_ps = ms_to_ps(m_timer_ms);
    r.fast_recovery_cycles = static_cast<uint32_t>(m_fast_recovery);
    r.rai_bps = m_rai_mbps * 1e6;
    r.rhai_bps = m_rhai_mbps * 1e6;
    r.queue_limit_bytes = kb_to_bytes(m_rl_queue_kb);
    return r;
}

void qcn_scheme::check(const std::string&) const {
    cp_config().validate();
    rp_config().validate();
}

void qcn_scheme::install(const std::string&, scheme_context& ctx) {
    const qcn_cp_config cpc = cp_config();
    const qcn_rp_config rpc = rp_config();
    for (int s = 0; s < ctx.net.num_switches(); ++s)
        ctx.net.switch_at(s).add_hook(std::make_unique<qcn_congestion_points>(
            cpc, s, rng(ctx.seed, stream_id(random_stream::qcn_cp, static_cast<uint64_t>(s)))));
    for (int h = 0; h < ctx.net.num_hosts(); ++h)
        ctx.net.nic_at(h).set_reaction_point(std::make_unique<qcn_reaction_point>(
            rpc, static_cast<double>(ctx.net.host_rate_bps(h)),
            rng(ctx.seed, stream_id(random_stream::qcn_rp, static_cast<uint64_t>(h)))));
}

void qcn_scheme::report(const fabric& net, result& r) const {
    r.set("qcn_cp", m_cp);
    r.set("qcn_rp", m_rp);
    uint64_t cnms = 0;
    for (int s = 0; s < net.num_switches(); ++s)
        for (int p = 0; p < net.switch_at(s).num_ports(); ++p)
            cnms += net.switch_at(s).counters(p).cnms;
    r.set("cnms", static_cast<int64_t>(cnms));
}

void qcn_scheme::report_absent(result& r) const {
    r.set("qcn_cp", std::string("none"));
    r.set("qcn_rp", std::string("none"));
    r.set("cnms", int64_t{0});
}

}   // namespace cmswitch
