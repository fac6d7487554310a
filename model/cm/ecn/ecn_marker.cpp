// SPDX-License-Identifier: Apache-2.0
#include "model/cm/ecn/ecn_marker.h"

#include "model/errors.h"

#include <sstream>

namespace cmswitch {

std::unique_ptr<ecn_marker> make_ecn_marker(const marking_config& cfg) {
    if (cfg.policy == "none")
        return nullptr;
    if (cfg.policy == "step")
        return std::make_unique<step_marker>(cfg.k_bytes);
    if (cfg.policy == "red") {
        if (cfg.kmax_bytes <= cfg.kmin_bytes)
            throw config_error("red_kmax = " + std::to_string(cfg.kmax_bytes) + " bytes: must be above red_kmin = " +
                               std::to_string(cfg.kmin_bytes) + " bytes");
        if (!(cfg.pmax > 0.0 && cfg.pmax <= 1.0)) {
            std::ostringstream m;
            m << "red_pmax = " << cfg.pmax << ": allowed range (0, 1]";
            throw config_error(m.str());
        }
        return std::make_unique<red_marker>(cfg.kmin_bytes, cfg.kmax_bytes, cfg.pmax);
    }
    throw config_error("marking = '" + cfg.policy + "': allowed values are none, step, red");
}

} // namespace cmswitch
