// SPDX-License-Identifier: Apache-2.0
// cmswitch-sim <scenario> [--flag value ...]: runs one scenario and prints one JSON object of its metrics.
#include "model/errors.h"
#include "platform/scenario.h"

#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

namespace {

void usage(std::ostream& os) {
    os << "usage: cmswitch-sim <scenario> [--name value ...]\n"
          "       cmswitch-sim <scenario> --help\n\n"
          "Runs one scenario of the cmswitch switch model and prints a JSON object of its metrics on stdout.\n"
          "Units: rates in Gbps/Mbps, buffers in KB (1024 bytes), times in s/ms/us as each flag says.\n\n"
          "scenarios:\n";
    for (const auto& n : cmswitch::scenario_names())
        os << "  " << n << "  " << cmswitch::make_scenario(n)->description() << "\n";
}

} // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        usage(args.empty() ? std::cerr : std::cout);
        return args.empty() ? 2 : 0;
    }
    try {
        auto sc = cmswitch::make_scenario(args[0]);
        std::vector<std::string> rest(args.begin() + 1, args.end());
        for (const auto& a : rest)
            if (a == "--help" || a == "-h") {
                std::cout << "usage: cmswitch-sim " << sc->name() << " [--name value ...]\n\n"
                          << sc->description() << "\n\n" << sc->params().help();
                return 0;
            }
        sc->params().parse_args(rest);
        const cmswitch::result r = sc->run();
        std::cout << r.to_json();
        return 0;
    } catch (const cmswitch::config_error& e) {
        std::cerr << "cmswitch-sim: error: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "cmswitch-sim: failed: " << e.what() << "\n";
        return 1;
    }
}
