// SPDX-License-Identifier: Apache-2.0
// Scaling: whether a frame costs the same in a big network as in a small one. Two families, each measured with
// the set-up (plan, build), the run (simulation and end-of-run account) and the teardown apart, in CPU seconds of
// the simulating thread (platform/scenario.h, last_run_phases):
//  - TCP incast at 10 Gb/s, 1 s simulated, 256 KB buffer, 16 -> 4,000 flows (the ns2 hosts of the incast study):
//    CPU ns per data frame through the client's port, events per data frame;
//  - web search at 50 % load on fat-trees k = 4, 8, 16 (16, 128, 1,024 hosts), DCTCP with step marking, Linux
//    hosts, 20 ms of arrivals: CPU ns per frame a switch sends, events per switch frame;
//  - the idle fat-trees (load 0): heap per host after the build, and the set-up alone.
// Prints markdown tables (bench/RESULTS.md). One repetition by default (the large cases run for a minute or more).
// BENCH_SCALE_ONLY=incast, fat-tree or idle runs that family alone.
#include "bench/bench_args.h"
#include "platform/scenario.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

struct measured {
    cmswitch::result res;
    cmswitch::run_phases ph;
};

// The best (least run CPU) of reps runs of one case.
measured best_of(int reps, const char* scenario, const std::vector<std::string>& args) {
    measured best;
    for (int r = 0; r < reps; ++r) {
        auto sc = cmswitch::make_scenario(scenario);
        sc->params().parse_args(args);
        cmswitch::result res = sc->run();
        const cmswitch::run_phases ph = cmswitch::last_run_phases();
        if (r == 0 || ph.run_cpu_s < best.ph.run_cpu_s)
            best = measured{std::move(res), ph};
    }
    return best;
}

bool wanted(const char* family) {
    const char* only = std::getenv("BENCH_SCALE_ONLY");
    return !only || !*only || std::string(only) == family;
}

void incast(int reps) {
    if (!wanted("incast"))
        return;
    std::printf("### TCP incast, 10 Gb/s, 1 s, 256 KB buffer, SRU 256 KB, minRTO 200 ms, ns2 hosts\n\n"
                "| flows | data frames to client | events per data frame | set-up CPU s | run CPU s | teardown CPU s |"
                " run CPU ns per data frame | heap MB after build | KB per host |\n"
                "|---|---|---|---|---|---|---|---|---|\n");
    for (int flows : {16, 64, 256, 1024, 4000}) {
        const measured m = best_of(reps, "incast",
                                   {"--flows", std::to_string(flows), "--link-gbps", "10", "--buffer-kb", "256",
                                    "--duration-s", "1", "--sample-us", "0"});
        const double frames = m.res.number("data_frames_to_client");
        const double events = m.res.number("events");
        std::printf("| %d | %.0f | %.2f | %.3f | %.3f | %.3f | %.0f | %.1f | %.1f |\n", flows, frames, events / frames,
                    m.ph.setup_cpu_s, m.ph.run_cpu_s, m.ph.teardown_cpu_s, m.ph.run_cpu_s / frames * 1e9,
                    m.ph.heap_built_bytes / 1048576.0, m.ph.heap_built_bytes / 1024.0 / (flows + 1));
        std::fflush(stdout);
    }
}

void fat_tree(int reps) {
    if (!wanted("fat-tree"))
        return;
    std::printf("\n### Fat-tree, web search at 50 %% load, 10 Gb/s, DCTCP (step marking), Linux hosts, 20 ms\n\n"
                "| k | hosts | switch frames | events per switch frame | set-up CPU s | run CPU s | teardown CPU s |"
                " run CPU ns per switch frame |\n|---|---|---|---|---|---|---|---|\n");
    for (int k : {4, 8, 16}) {
        const measured m = best_of(k >= 16 ? 1 : reps, "workload",
                                   {"--topology", "fat-tree", "--fat-tree-k", std::to_string(k), "--load", "0.5",
                                    "--transport", "dctcp", "--marking", "step", "--duration-s", "0.02"});
        const double frames = m.res.number("switch_frames_sent");
        const double events = m.res.number("events");
        std::printf("| %d | %d | %.0f | %.2f | %.3f | %.3f | %.3f | %.0f |\n", k, k * k * k / 4, frames,
                    events / frames, m.ph.setup_cpu_s, m.ph.run_cpu_s, m.ph.teardown_cpu_s,
                    m.ph.run_cpu_s / frames * 1e9);
        std::fflush(stdout);
    }
}

void idle(int reps) {
    if (!wanted("idle"))
        return;
    std::printf("\n### Idle fat-trees (load 0): what a host and a switch cost before any traffic\n\n"
                "| k | hosts | switches | set-up CPU s | teardown CPU s | heap MB after build | KB per host "
                "(switches included) |\n|---|---|---|---|---|---|---|\n");
    for (int k : {4, 8, 16, 24}) {
        const measured m = best_of(
            reps, "workload",
            {"--topology", "fat-tree", "--fat-tree-k", std::to_string(k), "--load", "0", "--duration-s", "0.001"});
        const int hosts = k * k * k / 4;
        std::printf("| %d | %d | %d | %.3f | %.3f | %.1f | %.1f |\n", k, hosts, k * k + k * k / 4, m.ph.setup_cpu_s,
                    m.ph.teardown_cpu_s, m.ph.heap_built_bytes / 1048576.0, m.ph.heap_built_bytes / 1024.0 / hosts);
        std::fflush(stdout);
    }
}

}   // namespace

int main(int argc, char** argv) {
    const int reps = argc == 1 ? 1
                               : bench_repetitions(argc, argv, "bench_scale",
                                                   "Cost per frame from 16 to 4,000 flows and on fat-trees k = 4, 8, "
                                                   "16, with set-up, run and teardown apart; prints markdown tables.");
    incast(reps);
    fat_tree(reps);
    idle(reps);
    return 0;
}
