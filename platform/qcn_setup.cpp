// SPDX-License-Identifier: Apache-2.0
#include "platform/qcn_setup.h"

#include "model/cm/qcn/qcn_congestion_points.h"

#include <cmath>
#include <memory>

namespace cmswitch {

void qcn_options::add_params(param_table& t, bool with_cm) {
    if (with_cm)
        t.add_choice("cm", &cm, {"none", "qcn"}, "layer-2 congestion management: none, or IEEE 802.1Qau QCN");
    t.add_choice("qcn_cp", &cp, {"standard", "memory", "detailed"},
                 "QCN congestion point sampling: standard (8 levels), memory (congestion-memory), detailed (15 levels)");
    t.add_choice("qcn_rp", &rp, {"standard", "adaptive-rai"}, "QCN reaction point: standard, or adaptive R_AI");
    t.add_choice("qcn_rp_variant", &rp_variant, {"sef1", "ns3-rdma"},
                 "stage arithmetic of the reaction point (see model/qcn_rp.h)");
    t.add_choice("qcn_quantizer", &quantizer, {"linear", "linear64"},
                 "Fb quantizer: floor(63|Fb|/Fbmax) or min(63, floor(64|Fb|/Fbmax))");
    t.add_real("qcn_qeq_kb", &qeq_kb, 0, 1 << 20, "KB (1024 B)", "QCN queue set point Qeq (default 26000 B)", true);
    t.add_real("qcn_w", &w, 0, 64, "", "QCN weight of queue growth w");
    t.add_real("qcn_sample_base_kb", &sample_base_kb, 0, 1 << 20, "KB (1024 B)",
               "bytes between samples at no congestion (default 150000 B)", true);
    t.add_real("qcn_memory_decay_ms", &memory_decay_ms, 0, 1e6, "ms",
               "congestion-memory sampling: the memory counter drops by 1 this often (default 250 ms: longer than a "
               "200 ms TCP timeout, so the memory of an incast survives the silence it causes, the paper's intent)",
               true);
    t.add_real("qcn_detailed_min_kb", &detailed_min_kb, 0, 1 << 20, "KB (1024 B)",
               "detailed sampling: interval of the heaviest of its 8 top levels (default 1000 B: every 1500-byte "
               "frame even with the 15 % jitter, as the paper's sample-every-packet experiment); the levels fall "
               "geometrically from the standard table's 18.5 KB", true);
    t.add_real("qcn_gd", &gd, 0, 1, "", "QCN decrease gain Gd", true);
    t.add_real("qcn_min_rate_mbps", &min_rate_mbps, 0, 1e6, "Mbps", "QCN minimum rate", true);
    t.add_real("qcn_byte_counter_kb", &byte_counter_kb, 0, 1 << 20, "KB (1024 B)",
               "reaction point byte-counter cycle (default 150000 B)", true);
    t.add_real("qcn_timer_ms", &timer_ms, 0, 1e6, "ms", "reaction point timer cycle", true);
    t.add_int("qcn_fast_recovery", &fast_recovery, 1, 1000, "cycles", "fast-recovery cycles FR_TH");
    t.add_real("qcn_rai_mbps", &rai_mbps, 0, 1e6, "Mbps", "active-increase step R_AI");
    t.add_real("qcn_rhai_mbps", &rhai_mbps, 0, 1e6, "Mbps", "hyper-active-increase step R_HAI");
    t.add_real("qcn_rl_queue_kb", &rl_queue_kb, 9, 1 << 22, "KB (1024 B)",
               "queue limit of each QCN rate limiter at a NIC (a full limiter drops: TCP sees a loss)");
    t.add_real("rate_sample_us", &rate_sample_us, 0, 1e9, "us",
               "QCN: sampling period of the per-flow current rates (min rate metric)", true);
}

qcn_cp_config qcn_options::cp_config() const {
    qcn_cp_config c;
    c.sampling = cp;
    c.quantizer = quantizer;
    c.qeq_bytes = static_cast<uint64_t>(std::llround(qeq_kb * 1024));
    c.w = w;
    c.sample_base_bytes = static_cast<uint64_t>(std::llround(sample_base_kb * 1024));
    c.memory_decay_ps = static_cast<uint64_t>(std::llround(memory_decay_ms * 1e9));
    c.detailed_min_bytes = static_cast<uint64_t>(std::llround(detailed_min_kb * 1024));
    return c;
}

qcn_rp_config qcn_options::rp_config() const {
    qcn_rp_config r;
    r.variant = rp_variant;
    r.adaptive_rai = rp == "adaptive-rai";
    r.gd = gd;
    r.min_rate_bps = min_rate_mbps * 1e6;
    r.byte_counter_bytes = static_cast<uint64_t>(std::llround(byte_counter_kb * 1024));
    r.timer_ps = static_cast<uint64_t>(std::llround(timer_ms * 1e9));
    r.fast_recovery_cycles = static_cast<uint32_t>(fast_recovery);
    r.rai_bps = rai_mbps * 1e6;
    r.rhai_bps = rhai_mbps * 1e6;
    r.queue_limit_bytes = static_cast<uint64_t>(std::llround(rl_queue_kb * 1024));
    return r;
}

void qcn_options::apply(network& net, uint64_t seed) const {
    if (!enabled())
        return;
    const qcn_cp_config cpc = cp_config();
    const qcn_rp_config rpc = rp_config();
    cpc.validate();
    rpc.validate();
    for (int s = 0; s < net.num_switches(); ++s)
        net.sw(s).add_hook(std::make_unique<qcn_congestion_points>(cpc, s, rng(seed, 3000000 + static_cast<uint64_t>(s))));
    for (const link_spec& l : net.topo().links)
        for (const node_ref& n : {l.a, l.b})
            if (n.kind == node_ref::host)
                net.nic(n.id).set_reaction_point(std::make_unique<qcn_reaction_point>(
                    rpc, static_cast<double>(l.rate_bps), rng(seed, 4000000 + static_cast<uint64_t>(n.id))));
}

} // namespace cmswitch
