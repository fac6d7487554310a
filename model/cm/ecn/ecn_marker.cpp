// SPDX-License-Identifier: Apache-2.0
#include "model/cm/ecn/ecn_marker.h"

#include "config/errors.h"
#include "model/cm/ecn/ecn_marking.h"

#include <sstream>

namespace cmswitch {

std::unique_ptr<ecn_marker> make_ecn_marker(const marking_config& cfg) {
    if (cfg.policy == "none")
        return nullptr;
    if (cfg.policy == "step")
        return std::make_unique<step_marker>(cfg.k_bytes);
    if (cfg.policy == "red") {
        if (cfg.kmax_bytes <= cfg.kmin_bytes) {   // named as the user sets them (KB of 1024 B)
            std::ostringstream m;
            m << "red_kmax_kb = " << static_cast<double>(cfg.kmax_bytes) / 1024 << " (" << cfg.kmax_bytes
              << " B): must be above red_kmin_kb = " << static_cast<double>(cfg.kmin_bytes) / 1024 << " ("
              << cfg.kmin_bytes << " B)";
            throw config_error(m.str());
        }
        if (!(cfg.pmax > 0.0 && cfg.pmax <= 1.0)) {
            std::ostringstream m;
            m << "red_pmax = " << cfg.pmax << ": allowed range (0, 1]";
            throw config_error(m.str());
        }
        return std::make_unique<red_marker>(cfg.kmin_bytes, cfg.kmax_bytes, cfg.pmax);
    }
    throw config_error("marking = '" + cfg.policy + "': allowed values are none, step, red");
}

std::unique_ptr<ecn_marking_hook> make_ecn_marking(const marking_config& cfg, rng r) {
    std::unique_ptr<ecn_marker> m = make_ecn_marker(cfg);   // checks the configuration
    if (!m)
        return nullptr;
    if (auto* s = dynamic_cast<step_marker*>(m.get()))
        return std::make_unique<ecn_marking<step_marker>>(*s, r, cfg.per_queue);
    if (auto* red = dynamic_cast<red_marker*>(m.get()))
        return std::make_unique<ecn_marking<red_marker>>(*red, r, cfg.per_queue);
    throw config_error("marking = '" + cfg.policy + "': no marking hook for this policy");
}

}   // namespace cmswitch
