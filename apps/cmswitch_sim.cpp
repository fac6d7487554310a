// SPDX-License-Identifier: Apache-2.0
// cmswitch-sim <scenario> [--flag value ...]: runs one scenario and prints one JSON object of its metrics.
#include "config/errors.h"
#include "platform/run_control.h"
#include "platform/scenario.h"
#include "platform/sonic_config_writer.h"
#include "platform/vcd_writer.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <functional>
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

const char* const run_help =
    "run options:\n"
    "  --memory-budget-mb N   the memory the run may plan for (default: CMSWITCH_MEMORY_BUDGET_MB, else half of\n"
    "                         this machine's memory); a config estimated above it is refused before it is built\n"
    "  --quiet                no progress lines on stderr (a run over 5 s of wall time prints them)\n"
    "  --write-sonic FILE     do not run: write switch 0's buffer (buffer_policy pools) as SONiC CONFIG_DB JSON\n"
    "                         (- for stdout); --sonic-config FILE reads one (a parameter, see below)\n\n";

const char* const vcd_help =
    "waveform (a value change dump of the run, for GTKWave or Surfer):\n"
    "  --vcd FILE             write the dump to FILE\n"
    "  --vcd-signals PATTERNS comma-separated glob patterns over the signal names (default *), e.g.\n"
    "                         '*.port0.*,*xoff*'; names: <switch>.port<p>.{bytes,q<c>_bytes,paused<c>,xoff<c>,\n"
    "                         ingress<c>_bytes,pause_tx}, <switch>.headroom_bytes, <nic>.tx.{...},\n"
    "                         host<h>.flow<f>.cwnd\n"
    "  --vcd-max-mb N         size cap of the file in MB (default 64); changes after it are left out\n";

}   // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        usage(args.empty() ? std::cerr : std::cout);
        return args.empty() ? 2 : 0;
    }
    try {
        if (const char* now = cmswitch::renamed_scenario(args[0]))
            std::cerr << "warning: scenario '" << args[0] << "' is now '" << now
                      << "'; the old name is accepted until the next release\n";
        auto sc = cmswitch::make_scenario(args[0]);
        std::vector<std::string> rest(args.begin() + 1, args.end());
        for (const auto& a : rest)
            if (a == "--help" || a == "-h") {
                std::cout << "usage: cmswitch-sim " << sc->name() << " [--name value ...]\n\n"
                          << sc->description() << "\n\n"
                          << sc->params().help() << "\n"
                          << run_help << vcd_help;
                return 0;
            }
        // the waveform and run options are the run's, not the scenario's (they change no result)
        cmswitch::vcd_settings vcd;
        std::vector<std::string> params;
        bool quiet = false;
        std::string write_sonic;   // --write-sonic FILE: the first switch as SONiC CONFIG_DB JSON, no run
        for (size_t i = 0; i < rest.size(); ++i) {
            std::string a = rest[i], value;
            const size_t eq = a.find('=');
            if (eq != std::string::npos) {
                value = a.substr(eq + 1);
                a = a.substr(0, eq);
            }
            if (a == "--quiet" && eq == std::string::npos) {
                quiet = true;
                continue;
            }
            if (a != "--vcd" && a != "--vcd-signals" && a != "--vcd-max-mb" && a != "--memory-budget-mb" &&
                a != "--write-sonic") {
                params.push_back(rest[i]);
                continue;
            }
            if (eq == std::string::npos) {
                if (i + 1 >= rest.size())
                    throw cmswitch::config_error(a.substr(2) + ": needs a value");
                value = rest[++i];
            }
            if (a == "--memory-budget-mb") {
                char* end = nullptr;
                const double mb = std::strtod(value.c_str(), &end);
                if (value.empty() || *end)
                    throw cmswitch::config_error("memory_budget_mb = '" + value + "': must be a number (MB)");
                sc->set_memory_budget(mb * 1024 * 1024);
            } else if (a == "--write-sonic")
                write_sonic = value;
            else if (a == "--vcd")
                vcd.path = value;
            else if (a == "--vcd-signals")
                vcd.signals = value;
            else {
                char* end = nullptr;
                vcd.max_mb = std::strtod(value.c_str(), &end);
                if (value.empty() || *end)
                    throw cmswitch::config_error("vcd_max_mb = '" + value + "': must be a number (MB)");
            }
        }
        sc->params().parse_args(params);
        if (!write_sonic.empty()) {
            const std::string text = cmswitch::write_sonic_config(sc->planned_topology(), 0, sc->params());
            if (write_sonic == "-")
                std::cout << text;
            else {
                std::ofstream out(write_sonic);
                if (!(out << text))
                    throw cmswitch::config_error("write_sonic = '" + write_sonic + "': the file cannot be written");
                std::cerr << "cmswitch-sim: wrote the SONiC buffer configuration of switch 0 to " << write_sonic
                          << "\n";
            }
            return 0;
        }
        const std::string name = sc->name();
        cmswitch::run_hooks hooks(
            nullptr,
            quiet ? std::function<void(const cmswitch::run_progress&)>() : [&name](const cmswitch::run_progress& p) {
                std::cerr << "cmswitch-sim: " << cmswitch::progress_line(p, name) << std::endl;
            });
        const cmswitch::result r = cmswitch::run_with_vcd(*sc, vcd);
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
