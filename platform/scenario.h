// SPDX-License-Identifier: Apache-2.0
// A scenario is a named experiment with a parameter table and a run(). The command line (one subcommand per
// scenario) and the Python package both go through make_scenario(), the one registry.
#ifndef CMSWITCH_PLATFORM_SCENARIO_H
#define CMSWITCH_PLATFORM_SCENARIO_H

#include "model/params.h"
#include "model/result.h"

#include <memory>
#include <string>
#include <vector>

namespace cmswitch {

class scenario {
public:
    virtual ~scenario() = default;
    virtual const char* name() const = 0;
    virtual const char* description() const = 0;
    param_table& params() { return m_params; }
    // Validates every parameter (config_error naming the field), builds the network in a fresh simulation
    // context, runs it, checks conservation (model_error if it fails) and returns the metrics.
    virtual result run() = 0;

protected:
    param_table m_params;
};

// Throws config_error listing the known names.
std::unique_ptr<scenario> make_scenario(const std::string& name);
const std::vector<std::string>& scenario_names();

} // namespace cmswitch
#endif
