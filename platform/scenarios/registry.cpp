// SPDX-License-Identifier: Apache-2.0
// The scenarios the command line and the Python package offer: one line each. A new scenario adds its line here
// (its class in platform/scenarios/, deriving from scenario, its phases plan/build/report).
#include "config/errors.h"
#include "platform/scenario.h"
#include "platform/scenarios/baseline.h"
#include "platform/scenarios/incast.h"
#include "platform/scenarios/overload.h"
#include "platform/scenarios/rdma_incast.h"
#include "platform/scenarios/testbed_001.h"
#include "platform/scenarios/workload.h"

namespace cmswitch {

namespace {
template <typename S>
std::unique_ptr<scenario> make() {
    return std::make_unique<S>();
}

struct scenario_entry {
    const char* name;   // the scenario's name(): a test checks that they agree
    std::unique_ptr<scenario> (*make)();
};

const std::vector<scenario_entry>& registered_scenarios() {
    static const std::vector<scenario_entry> all = {
        {"overload", &make<overload_scenario>},         {"incast", &make<incast_scenario>},
        {"baseline", &make<baseline_scenario>},         {"rdma-incast", &make<rdma_incast_scenario>},
        {"vegas-incast", &make<vegas_incast_scenario>}, {"testbed-001", &make<testbed_001_scenario>},
        {"workload", &make<workload_scenario>},
    };
    return all;
}
}   // namespace

const std::vector<std::string>& scenario_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n;
        for (const auto& e : registered_scenarios())
            n.emplace_back(e.name);
        return n;
    }();
    return names;
}

std::unique_ptr<scenario> make_scenario(const std::string& name) {
    for (const auto& e : registered_scenarios())
        if (name == e.name)
            return e.make();
    std::string known;
    for (const auto& n : scenario_names())
        known += (known.empty() ? "" : ", ") + n;
    throw config_error("scenario = '" + name + "': known scenarios are " + known);
}

}   // namespace cmswitch
