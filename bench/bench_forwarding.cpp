// SPDX-License-Identifier: Apache-2.0
// Forwarding speed: N UDP CBR senders saturating one 1 Gbps port (aggregate load 1.1, so the port is always
// busy and 1/11 of the offered frames are dropped). Prints one markdown table row per case: frames forwarded by
// the switch per wall second, and the wall time of the run. Each case is run `reps` times; the best is kept
// (the machine has 2 cores and other work).
#include "bench/bench_args.h"
#include "platform/scenario.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    const int reps =
        bench_repetitions(argc, argv, "bench_forwarding",
                          "N UDP senders saturating one 1 Gbps port; prints a markdown table (bench/RESULTS.md).");
    std::printf(
        "| senders | simulated s | frames forwarded | events | wall s (best of %d) | forwarded frames per wall s |"
        " events per wall s |\n|---|---|---|---|---|---|---|\n",
        reps);
    for (const int senders : {4, 64})
        for (const double seconds : {1.0, 100.0}) {
            double best = 1e30;
            double forwarded = 0, events = 0;
            for (int r = 0; r < reps; ++r) {
                auto sc = cmswitch::make_scenario("overload");
                sc->params().parse_args({"--senders", std::to_string(senders), "--load", "1.1", "--duration-s",
                                         std::to_string(seconds), "--sample-us", "0"});
                const cmswitch::result res = sc->run();
                if (res.number("wall_s") < best)
                    best = res.number("wall_s");
                forwarded = res.number("frames_forwarded");
                events = res.number("events");
            }
            std::printf("| %d | %g | %.0f | %.0f | %.3f | %.2f M | %.1f M |\n", senders, seconds, forwarded, events,
                        best, forwarded / best / 1e6, events / best / 1e6);
            std::fflush(stdout);
        }
    return 0;
}
