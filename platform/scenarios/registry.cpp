// SPDX-License-Identifier: Apache-2.0
// The scenarios the command line and the Python package offer: one line each. A new scenario adds its line here
// (its class in platform/scenarios/, deriving from scenario, its phases plan/build/report).
#include "config/errors.h"
#include "platform/scenario.h"
#include "platform/scenarios/baseline.h"
#include "platform/scenarios/incast.h"
#include "platform/scenarios/overload.h"
#include "platform/scenarios/rdma_incast.h"
#include "platform/scenarios/sctp_incast.h"
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
        {"vegas-incast", &make<vegas_incast_scenario>}, {"sctp-incast", &make<sctp_incast_scenario>},
        {"workload", &make<workload_scenario>},
    };
    return all;
}

struct renamed_entry {
    const char* old_name;
    const char* new_name;
};
// Former names, accepted for one release with a warning (CHANGELOG.md says when each goes).
constexpr renamed_entry renamed[] = {
    {"testbed-001", "sctp-incast"},
};
}   // namespace

const char* renamed_scenario(const std::string& name) {
    for (const auto& r : renamed)
        if (name == r.old_name)
            return r.new_name;
    return nullptr;
}

std::vector<std::pair<std::string, std::string>> renamed_scenarios() {
    std::vector<std::pair<std::string, std::string>> all;
    for (const auto& r : renamed)
        all.emplace_back(r.old_name, r.new_name);
    return all;
}

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
    const char* current = renamed_scenario(name);
    for (const auto& e : registered_scenarios())
        if (name == e.name || (current && std::string(current) == e.name))
            return e.make();
    std::string known;
    for (const auto& n : scenario_names())
        known += (known.empty() ? "" : ", ") + n;
    throw config_error("scenario = '" + name + "': known scenarios are " + known);
}

}   // namespace cmswitch
