// SPDX-License-Identifier: Apache-2.0
// Stewart et al.'s testbed speed: sctp-incast, 60 s simulated, for each SCTP variant. Prints a markdown table
// row per case: frames the switch sent, model events, wall time (best of reps), simulated seconds per wall
// second. Target: 60 s simulated in well under a minute.
#include "bench/bench_args.h"
#include "platform/scenario.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    const int reps =
        bench_repetitions(argc, argv, "bench_testbed",
                          "Stewart et al.'s testbed, 60 s simulated per SCTP variant; prints a markdown table.");
    std::printf("| SCTP variant | frames through the switch | events | wall s (best of %d) | simulated s per wall s |\n"
                "|---|---|---|---|---|\n",
                reps);
    for (const char* cc : {"plain", "ecn", "dccc", "dynamic-dccc"}) {
        double best = 1e30, offered = 0, events = 0;
        for (int r = 0; r < reps; ++r) {
            auto sc = cmswitch::make_scenario("sctp-incast");
            sc->params().parse_args({"--duration-s", "60", "--sctp-cc", cc});
            const cmswitch::result res = sc->run();
            best = std::min(best, res.number("wall_s"));
            offered = res.number("switch_frames_sent");
            events = res.number("events");
        }
        std::printf("| %s | %.0f | %.0f | %.3f | %.0f |\n", cc, offered, events, best, 60 / best);
        std::fflush(stdout);
    }
    return 0;
}
