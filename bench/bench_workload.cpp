// SPDX-License-Identifier: Apache-2.0
// The workload speed point: a 32-port 25 Gb/s switch, web-search flows at 60 % load on every port plus a 31:1 incast
// (64 KB per sender every ms), DCTCP, 100 ms of arrivals (+ 20 ms to drain). Prints a markdown row per case: frames
// the switch sent, events, wall time (best of reps), frames per wall second (target: at least 2 M).
#include "bench/bench_args.h"
#include "platform/scenario.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    const int reps = bench_repetitions(
        argc, argv, "bench_workload",
        "A 32-port 25 Gb/s switch, web search at 60 % plus a 31:1 incast, 100 ms; prints a markdown table.");
    std::printf("| case | flows | frames through the switch | events | wall s (best of %d) | frames per wall s |\n"
                "|---|---|---|---|---|---|\n",
                reps);
    struct bench_case {
        const char* name;
        std::vector<std::string> args;
    };
    const std::vector<bench_case> cases{
        {"dctcp, shared buffer 8 MB", {"--transport", "dctcp", "--marking", "step", "--ecn-k-kb", "97.65625"}},
        {"newreno drop-tail, shared buffer 8 MB", {}},
    };
    for (const auto& bc : cases) {
        double best = 1e30, frames = 0, events = 0, flows = 0;
        for (int r = 0; r < reps; ++r) {
            auto sc = cmswitch::make_scenario("workload");
            std::vector<std::string> args{
                "--topology",     "star", "--hosts",     "32",  "--link-gbps",        "25", "--load",       "0.6",
                "--incast-fanin", "31",   "--incast-kb", "64",  "--incast-period-ms", "1",  "--duration-s", "0.1",
                "--drain-ms",     "20",   "--pool-kb",   "8192"};
            args.insert(args.end(), bc.args.begin(), bc.args.end());
            sc->params().parse_args(args);
            const cmswitch::result res = sc->run();
            best = std::min(best, res.number("wall_s"));
            frames = res.number("switch_frames_sent");
            events = res.number("events");
            flows = res.number("flows_started");
        }
        std::printf("| %s | %.0f | %.0f | %.0f | %.3f | %.2f M |\n", bc.name, flows, frames, events, best,
                    frames / best / 1e6);
        std::fflush(stdout);
    }
    return 0;
}
