// SPDX-License-Identifier: Apache-2.0
// Incast speed: 20 simulated seconds of TCP NewReno incast, 16 flows, 256 KB buffer, minRTO 10 ms, 1 Gbps
// (the point compared with htsim: 0.73 s there). Prints a markdown table row: wall time and CPU time of the
// simulating thread (set-up, run and teardown: platform/scenario.h, last_run_phases), each the best of reps, data
// frames through the bottleneck, model events, events per data frame. The CPU time leaves out the time another
// tenant of a shared machine held the core, not the slowing of a tenant on the core's other hyperthread or in the
// shared caches (docs/performance.md).
#include "bench/bench_args.h"
#include "platform/scenario.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    const int reps = bench_repetitions(
        argc, argv, "bench_incast", "The 20 s, 16-flow TCP incast point; prints a markdown table (bench/RESULTS.md).");
    std::printf("| case | goodput Mbps | data frames to client | events | events per data frame | wall s (best of %d) |"
                " wall ns per data frame | CPU s (best of %d) |\n|---|---|---|---|---|---|---|---|\n",
                reps, reps);
    struct bench_case {
        const char* name;
        std::vector<std::string> args;
    };
    const std::vector<bench_case> cases{
        {"newreno, no jitter", {}},
        {"newreno, 500 ns send jitter", {"--jitter-ns", "500"}},
        {"dctcp K = 20 pkts", {"--transport", "dctcp", "--marking", "step"}},
        {"newreno over QCN (standard)", {"--cm", "qcn"}},
        {"newreno over QCN (memory + adaptive R_AI)",
         {"--cm", "qcn", "--qcn-cp", "memory", "--qcn-rp", "adaptive-rai"}},
    };
    for (const auto& bc : cases) {
        double best = 1e30, best_cpu = 1e30, goodput = 0, frames = 0, events = 0;
        for (int r = 0; r < reps; ++r) {
            auto sc = cmswitch::make_scenario("incast");
            std::vector<std::string> args{"--flows", "16",           "--buffer-kb", "256",         "--min-rto-ms",
                                          "10",      "--duration-s", "20",          "--sample-us", "0"};
            args.insert(args.end(), bc.args.begin(), bc.args.end());
            sc->params().parse_args(args);
            const cmswitch::result res = sc->run();
            best = std::min(best, res.number("wall_s"));
            const cmswitch::run_phases& ph = cmswitch::last_run_phases();
            best_cpu = std::min(best_cpu, ph.setup_cpu_s + ph.run_cpu_s + ph.teardown_cpu_s);
            goodput = res.number("goodput_mbps");
            frames = res.number("data_frames_to_client");
            events = res.number("events");
        }
        std::printf("| %s | %.1f | %.0f | %.0f | %.2f | %.3f | %.0f | %.3f |\n", bc.name, goodput, frames, events,
                    events / frames, best, best / frames * 1e9, best_cpu);
        std::fflush(stdout);
    }
    return 0;
}
