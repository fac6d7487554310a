// SPDX-License-Identifier: Apache-2.0
// RDMA incast speed: 8 senders x 50 queue pairs (400 flows) into one receiver at 40 Gb/s, PFC on,
// 100 ms simulated. Prints a markdown table row per case: data frames through the bottleneck, model events, wall
// time (best of reps) and data frames per wall second (target: at least 2 M).
#include "bench/bench_args.h"
#include "platform/scenario.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    const int reps = bench_repetitions(
        argc, argv, "bench_rdma",
        "The 400-flow, 40 Gb/s RDMA incast with DCQCN, DCQCN+ and PFC only; prints a markdown table.");
    std::printf("| case | queue, last fifth (KB) | data frames to receiver | events | events per data frame | wall s "
                "(best of %d) | data frames per wall s |\n|---|---|---|---|---|---|---|\n",
                reps);
    struct bench_case {
        const char* name;
        std::vector<std::string> args;
    };
    const std::vector<bench_case> cases{
        {"dcqcn (paper RP), 400 flows, 40 Gb/s", {"--cm", "dcqcn"}},
        {"dcqcn+, 400 flows, 40 Gb/s", {"--cm", "dcqcn+"}},
        {"no congestion control (PFC only), 400 flows, 40 Gb/s", {"--cm", "none", "--marking", "none"}},
    };
    for (const auto& bc : cases) {
        double best = 1e30, frames = 0, events = 0, queue = 0;
        for (int r = 0; r < reps; ++r) {
            auto sc = cmswitch::make_scenario("rdma-incast");
            std::vector<std::string> args{"--senders",    "8",   "--qps",       "50", "--link-gbps", "40",
                                          "--duration-s", "0.1", "--sample-us", "100"};
            args.insert(args.end(), bc.args.begin(), bc.args.end());
            sc->params().parse_args(args);
            const cmswitch::result res = sc->run();
            best = std::min(best, res.number("wall_s"));
            frames = res.number("data_frames_to_receiver");
            events = res.number("events");
            queue = res.number("queue_last_fifth_kb");
        }
        std::printf("| %s | %.0f | %.0f | %.0f | %.2f | %.3f | %.2f M |\n", bc.name, queue, frames, events,
                    events / frames, best, frames / best / 1e6);
        std::fflush(stdout);
    }
    return 0;
}
