// SPDX-License-Identifier: Apache-2.0
#include "platform/scenario.h"

#include "model/errors.h"
#include "platform/scenarios/baseline.h"
#include "platform/scenarios/incast.h"
#include "platform/scenarios/overload.h"

namespace cmswitch {

const std::vector<std::string>& scenario_names() {
    static const std::vector<std::string> names{"overload", "incast", "baseline"};
    return names;
}

std::unique_ptr<scenario> make_scenario(const std::string& name) {
    if (name == "overload")
        return std::make_unique<overload_scenario>();
    if (name == "incast")
        return std::make_unique<incast_scenario>();
    if (name == "baseline")
        return std::make_unique<baseline_scenario>();
    std::string known;
    for (const auto& n : scenario_names())
        known += (known.empty() ? "" : ", ") + n;
    throw config_error("scenario = '" + name + "': known scenarios are " + known);
}

} // namespace cmswitch
