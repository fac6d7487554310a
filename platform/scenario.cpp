// SPDX-License-Identifier: Apache-2.0
#include "platform/scenario.h"

#include "model/errors.h"
#include "platform/network.h"
#include "platform/statistics.h"
#include "platform/scenarios/baseline.h"
#include "platform/scenarios/incast.h"
#include "platform/scenarios/overload.h"
#include "platform/scenarios/rdma_incast.h"

namespace cmswitch {

void report_run_end(result& r, const network& net, double simulated_s, const char* events_kind) {
    report_conservation(r, net);
    r.set("simulated_s", simulated_s);
    r.set("events", static_cast<int64_t>(net.events()));
    if (events_kind)
        r.set("events_kind", std::string(events_kind));
}

const std::vector<std::string>& scenario_names() {
    static const std::vector<std::string> names{"overload", "incast", "baseline", "rdma-incast"};
    return names;
}

std::unique_ptr<scenario> make_scenario(const std::string& name) {
    if (name == "overload")
        return std::make_unique<overload_scenario>();
    if (name == "incast")
        return std::make_unique<incast_scenario>();
    if (name == "baseline")
        return std::make_unique<baseline_scenario>();
    if (name == "rdma-incast")
        return std::make_unique<rdma_incast_scenario>();
    std::string known;
    for (const auto& n : scenario_names())
        known += (known.empty() ? "" : ", ") + n;
    throw config_error("scenario = '" + name + "': known scenarios are " + known);
}

} // namespace cmswitch
