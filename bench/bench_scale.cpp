// SPDX-License-Identifier: Apache-2.0
// Scaling: whether a frame costs the same in a big network as in a small one. Two families, each measured with
// the set-up (plan, build), the run (simulation and end-of-run account) and the teardown apart, in CPU seconds of
// the simulating thread (platform/scenario.h, last_run_phases):
//  - TCP incast at 10 Gb/s, 1 s simulated, 256 KB buffer, 16 -> 4,000 flows (the ns2 hosts of the incast study):
//    CPU ns per data frame through the client's port, events per data frame;
//  - web search at 50 % load on fat-trees k = 4, 8, 16 (16, 128, 1,024 hosts), DCTCP with step marking, Linux
//    hosts, 20 ms of arrivals: CPU ns per frame a switch sends, events per switch frame;
//  - the idle fat-trees (load 0): heap per host after the build, and the set-up alone.
// Prints markdown tables (bench/RESULTS.md). One repetition by default (the large cases run for a minute or more);
// the fat-trees in three rounds (see fat_tree). An argument sets the repetitions and the rounds.
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

// The fat-trees are measured in rounds, each running k = 4 three times and k = 8 and k = 16 once, so that the
// machine's drift (other tenants, here 10-20 % at k = 16 from one run to the next) falls on every k alike; each
// k's median over the rounds, its spread, and the ratio of medians to k = 4. The runs of one k must agree on every
// frame and event (one seed): anything else is reported and fails the benchmark.
void fat_tree(int rounds) {
    if (!wanted("fat-tree"))
        return;
    std::printf("\n### Fat-tree, web search at 50 %% load, 10 Gb/s, DCTCP (step marking), Linux hosts, 20 ms\n\n"
                "%d rounds (k = 4 three times a round): medians, spread in brackets.\n\n"
                "| k | hosts | switch frames | events per switch frame | set-up CPU s | run CPU s | teardown CPU s |"
                " run CPU ns per switch frame | x k = 4 |\n|---|---|---|---|---|---|---|---|---|\n",
                rounds);
    const int ks[] = {4, 8, 16};
    std::vector<measured> per_k[3];
    for (int r = 0; r < rounds; ++r)
        for (int i = 0; i < 3; ++i)
            for (int n = 0; n < (ks[i] == 4 ? 3 : 1); ++n)
                per_k[i].push_back(
                    best_of(1, "workload",
                            {"--topology", "fat-tree", "--fat-tree-k", std::to_string(ks[i]), "--load", "0.5",
                             "--transport", "dctcp", "--marking", "step", "--duration-s", "0.02"}));
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        const size_t n = v.size();
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    };
    double ns_k4 = 0;
    for (int i = 0; i < 3; ++i) {
        const std::vector<measured>& runs = per_k[i];
        const double frames = runs.front().res.number("switch_frames_sent");
        const double events = runs.front().res.number("events");
        std::vector<double> setup, run, teardown, ns;
        for (const measured& m : runs) {
            if (m.res.number("switch_frames_sent") != frames || m.res.number("events") != events) {
                std::fprintf(stderr, "bench_scale: fat-tree k = %d: runs disagree on frames or events\n", ks[i]);
                std::exit(1);
            }
            setup.push_back(m.ph.setup_cpu_s);
            run.push_back(m.ph.run_cpu_s);
            teardown.push_back(m.ph.teardown_cpu_s);
            ns.push_back(m.ph.run_cpu_s / frames * 1e9);
        }
        const double ns_med = median(ns);
        if (ks[i] == 4)
            ns_k4 = ns_med;
        std::printf("| %d | %d | %.0f | %.2f | %.3f | %.3f (%.3f-%.3f) | %.3f | %.0f (%.0f-%.0f) | %.2f |\n", ks[i],
                    ks[i] * ks[i] * ks[i] / 4, frames, events / frames, median(setup), median(run),
                    *std::min_element(run.begin(), run.end()), *std::max_element(run.begin(), run.end()),
                    median(teardown), ns_med, *std::min_element(ns.begin(), ns.end()),
                    *std::max_element(ns.begin(), ns.end()), ns_med / ns_k4);
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
    fat_tree(argc == 1 ? 3 : reps);
    idle(reps);
    return 0;
}
