// SPDX-License-Identifier: Apache-2.0
#include "model/cm/ecn/ecn_scheme.h"

#include "model/cm/ecn/ecn_marking.h"
#include "model/switch/ethernet_switch.h"
#include "model/units.h"

namespace cmswitch {

void ecn_scheme::declare(param_table& t) {
    t.add_real("ecn_k_kb", &m_k_kb, 0, 1 << 20, "KB (1024 B)", "step marking threshold K (default 20 x 1500 B)");
    t.add_real("red_kmin_kb", &m_kmin_kb, 0, 1 << 20, "KB (1024 B)", "RED marking: Kmin");
    t.add_real("red_kmax_kb", &m_kmax_kb, 0, 1 << 20, "KB (1024 B)", "RED marking: Kmax");
    t.add_real("red_pmax", &m_pmax, 0, 1, "", "RED marking: probability at Kmax", true);
    t.add_flag("ecn_per_queue", &m_per_queue,
               "step/red: mark on the frame's egress queue (queue_map) rather than on the whole port's bytes");
}

marking_config ecn_scheme::config(const std::string& v) const {
    marking_config m;
    m.policy = v;
    m.k_bytes = kb_to_bytes(m_k_kb);
    m.kmin_bytes = kb_to_bytes(m_kmin_kb);
    m.kmax_bytes = kb_to_bytes(m_kmax_kb);
    m.pmax = m_pmax;
    m.per_queue = m_per_queue;
    return m;
}

void ecn_scheme::check(const std::string& v) const {
    (void)make_ecn_marker(config(v));
}

void ecn_scheme::install(const std::string& v, scheme_context& ctx) {
    for (int s = 0; s < ctx.net.num_switches(); ++s)
        ctx.net.switch_at(s).add_hook(make_ecn_marking(
            config(v), rng(ctx.seed, stream_id(random_stream::ecn_marking, static_cast<uint64_t>(s)))));
}

}   // namespace cmswitch
