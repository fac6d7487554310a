// SPDX-License-Identifier: Apache-2.0
// Flow-size distributions, Poisson flow arrivals and the workload scenario's FCTs, against hand values.
#include "config/errors.h"
#include "model/cm/pause/pause_config.h"
#include "platform/scenario.h"
#include "traffic/flow_size_distribution.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

using namespace cmswitch;

TEST(FlowSizes, WebSearchMeanByHandAndSampledWithinOnePercent) {
    const auto d = flow_size_distribution::named("web-search");
    // sum over the linear pieces of (probability step) x (midpoint): 750 + 750 + 2500 + 4000 + 8450 + 9800 + 60000
    // + 150000 + 350000 + 525000 + 600000
    EXPECT_DOUBLE_EQ(d.mean(), 1711250.0);
    rng r(1, 0);
    double sum = 0;
    const int n = 400000;
    for (int i = 0; i < n; ++i)
        sum += static_cast<double>(d.sample(r));
    EXPECT_NEAR(sum / n, d.mean(), 0.01 * d.mean());
    // a median sample: u = 0.5 lies on the piece (30000, 30 %) .. (50000, 40 %) -> 30000 + 20000 x 0.2 / 0.1
    for (const char* name : {"data-mining", "fb-hadoop"}) {
        const auto e = flow_size_distribution::named(name);
        double s = 0;
        rng q(2, 0);
        for (int i = 0; i < n; ++i)
            s += static_cast<double>(e.sample(q));
        // data mining's tail (1 % of flows up to 973 MB) needs more samples for 1 %; 5 % with these
        EXPECT_NEAR(s / n, e.mean(), (std::string(name) == "data-mining" ? 0.05 : 0.01) * e.mean()) << name;
    }
}

TEST(FlowSizes, BuiltInsEqualTheShippedFilesAndBadFilesAreRefused) {
    for (const auto& name : flow_size_distribution::builtin_names()) {
        std::ifstream f(std::string(CMSWITCH_SOURCE_DIR) + "/data/flow_sizes/" + name + ".csv");
        ASSERT_TRUE(f) << name;
        std::stringstream ss;
        ss << f.rdbuf();
        const auto from_file = flow_size_distribution::parse_csv(ss.str(), name);
        const auto builtin = flow_size_distribution::named(name).points();
        ASSERT_EQ(from_file.size(), builtin.size()) << name;
        for (size_t i = 0; i < builtin.size(); ++i) {
            EXPECT_EQ(from_file[i].first, builtin[i].first) << name << " " << i;
            EXPECT_DOUBLE_EQ(from_file[i].second, builtin[i].second) << name << " " << i;
        }
    }
    EXPECT_THROW(flow_size_distribution::named("no-such-distribution"), config_error);
    EXPECT_THROW(flow_size_distribution({{0, 0}, {100, 0.5}}, "t"), config_error);   // does not reach 100 %
    EXPECT_THROW(flow_size_distribution({{0, 0}, {100, 0.7}, {50, 1}}, "t"), config_error);   // sizes decrease
    EXPECT_THROW(flow_size_distribution::parse_csv("size,cdf\n10,5\nabc def\n", "t"), config_error);
}

namespace {
result run_workload(const std::vector<std::string>& args) {
    auto sc = make_scenario("workload");
    sc->params().parse_args(args);
    return sc->run();
}
}   // namespace

TEST(Workload, PoissonArrivalsOfferTheTargetLoadAndSmallFlowsAloneTakeTheirIdealTime) {
    // fb-hadoop (mean 120,420.75 B) at 20 % of 10 Gb/s on 8 hosts for 0.2 s: Poisson arrivals, 8 x 0.2 s x 0.2 x
    // 1.25e9 B/s / 120420.75 B = 3321.7 flows expected, within 3 standard deviations (sqrt = 57.6); the bytes carry
    // the heavy tail's spread (one flow's size has a coefficient of variation near 4): within 20 %
    const result r = run_workload({"--topology", "star", "--hosts", "8", "--load", "0.2", "--flow-sizes", "fb-hadoop",
                                   "--duration-s", "0.2", "--drain-ms", "100"});
    EXPECT_DOUBLE_EQ(r.number("flow_size_mean_bytes"), 120420.75);
    EXPECT_NEAR(r.number("flows_started"), 3321.7, 3 * 57.6);
    EXPECT_EQ(r.number("flows_completed"), r.number("flows_started"));
    EXPECT_NEAR(r.number("offered_load_measured"), 0.2, 0.04);
    // at light load most flows meet nobody: the median slowdown stays near 1 (TCP's window growth adds round
    // trips for the larger flows)
    EXPECT_GE(r.number("slowdown_p50"), 0.99);
    EXPECT_LT(r.number("slowdown_p50"), 3);
    EXPECT_TRUE(std::get<bool>(*r.get("conservation_ok")));
}

TEST(Workload, FatTreeFlowsAloneTakeTheirIdealTimeOverSixLinks) {
    // k = 4 fat-tree, 10 Gb/s everywhere, a light load of small flows: most flows meet nobody, so their FCT is the
    // ideal over their path (2, 4 or 6 links by pod), slowdown near 1; everything completes and is conserved
    const result r = run_workload({"--topology", "fat-tree", "--fat-tree-k", "4", "--fabric-gbps", "10", "--load",
                                   "0.05", "--flow-sizes", "fb-hadoop", "--duration-s", "0.05", "--drain-ms", "50"});
    EXPECT_EQ(r.number("flows_completed"), r.number("flows_started"));
    EXPECT_GT(r.number("flows_started"), 200);
    EXPECT_GE(r.number("slowdown_p50"), 0.99);
    EXPECT_LT(r.number("slowdown_p50"), 1.5);
    EXPECT_EQ(r.number("drops"), 0);
    EXPECT_TRUE(std::get<bool>(*r.get("conservation_ok")));
}

TEST(Workload, DctcpCutsTheTailOfSmallFlowsAgainstDropTail) {
    // web search at 60 % on a 4 x 8 leaf-spine (10 Gb/s hosts, 2 x 40 Gb/s spines), shared buffer 4 MB per switch:
    // DCTCP (K = 65 packets, as at 10 Gb/s in the DCTCP paper) keeps queues short, so the 99th percentile slowdown
    // of flows up to 10 KB falls well below drop-tail NewReno's (DCTCP and HPCC papers: several times)
    const result reno = run_workload({"--load", "0.6", "--duration-s", "0.05"});
    const result dctcp = run_workload(
        {"--load", "0.6", "--duration-s", "0.05", "--transport", "dctcp", "--marking", "step", "--ecn-k-kb", "95.2"});
    EXPECT_LT(dctcp.number("slowdown_p99_small") * 2, reno.number("slowdown_p99_small"));
    EXPECT_EQ(dctcp.number("drops"), 0);
    EXPECT_GT(reno.number("drops"), 0);
}

TEST(Workload, IncastsCompleteAndBadSettingsNameTheField) {
    const result r = run_workload({"--topology", "star", "--hosts", "16", "--load", "0", "--incast-fanin", "15",
                                   "--incast-kb", "64", "--incast-period-ms", "2", "--duration-s", "0.02"});
    EXPECT_EQ(r.number("incasts"), 10);
    EXPECT_EQ(r.number("incasts_completed"), 10);
    // 15 x 64 KB (+ headers) through one 10 Gb/s port: at least 15 x 65536 x 1500/1460 x 8 / 10 Gb/s = 0.808 ms
    EXPECT_GT(r.number("incast_time_p50_ms"), 0.808);
    auto sc = make_scenario("workload");
    sc->params().parse_args({"--topology", "star", "--hosts", "4", "--incast-fanin", "4", "--duration-s", "0.001"});
    try {
        sc->run();
        FAIL() << "a fan-in above hosts - 1 was accepted";
    } catch (const config_error& e) {
        EXPECT_NE(std::string(e.what()).find("incast_fanin"), std::string::npos) << e.what();
    }
    EXPECT_THROW(make_scenario("workload")->params().parse_args({"--flow-sizes", "zipf"}), config_error);
}

TEST(Workload, LargeFlowsThroughOneBottleneckShareItAsProcessorSharing) {
    // M/G/1-PS (Kleinrock): Poisson flows of any size distribution served by fair sharing of a link of capacity C at
    // load rho complete on average in (size / C) / (1 - rho): a mean slowdown of 1 / (1 - rho) at every size. Here
    // 16 hosts send to host 0 on one switch at 10 Gb/s (its link is the one bottleneck: load rho / 16 per sender),
    // sizes uniform over 100 KB - 1 MB (a CSV of our own), DCTCP on Linux hosts (fq, small queues, pacing): the
    // mean slowdown of the flows of 500 KB and more (their fixed costs, a few us, are under 1 % of their ideal)
    // within 20 % of 1 / (1 - rho). 0.5 s of arrivals: about 1600 x rho flows of them at each load.
    // The receivers take every frame up as it arrives (--rx-coalesce-us 0): the profile's interrupt moderation
    // (32 frames, 38 us at 10 Gb/s) makes the RTT about five times the fabric's, and DCTCP's additive increase,
    // one segment per RTT, then takes longer than such a flow lasts to regain its share after a competitor leaves
    // (docs/validation.md shows the slowdowns with it).
    const std::string path = ::testing::TempDir() + "cmswitch_ps_sizes.csv";
    {
        std::ofstream f(path);
        f << "100000,0\n1000000,100\n";
    }
    for (const double rho : {0.3, 0.5, 0.7}) {
        const result r = run_workload({"--topology",
                                       "star",
                                       "--hosts",
                                       "17",
                                       "--flow-destinations",
                                       "0",
                                       "--load",
                                       std::to_string(rho / 16),
                                       "--flow-sizes",
                                       path,
                                       "--transport",
                                       "dctcp",
                                       "--marking",
                                       "step",
                                       "--duration-s",
                                       "0.5",
                                       "--drain-ms",
                                       "100",
                                       "--flow-table",
                                       "--rx-coalesce-us",
                                       "0",
                                       "--seed",
                                       "3"});
        EXPECT_EQ(std::get<std::string>(*r.get("host_profile")), "linux");
        EXPECT_EQ(r.number("flows_completed"), r.number("flows_started")) << rho;
        const table* flows = r.find_table("flows");
        ASSERT_NE(flows, nullptr);
        const auto& size = flows->columns[3].second;   // src, dst, start_ms, size_bytes, fct_us, slowdown, ...
        const auto& slowdown = flows->columns[5].second;
        ASSERT_EQ(flows->columns[3].first, "size_bytes");
        ASSERT_EQ(flows->columns[5].first, "slowdown");
        double sum = 0;
        int n = 0;
        for (size_t i = 0; i < size.size(); ++i)
            if (size[i] >= 500000) {
                sum += slowdown[i];
                ++n;
            }
        ASSERT_GT(n, 150) << rho;
        const double ps = 1 / (1 - rho);
        EXPECT_NEAR(sum / n, ps, 0.2 * ps) << "rho " << rho << ": mean slowdown of " << n << " flows";
    }
}

TEST(Workload, TheUsersOwnFlowSizeCsv) {
    // half the flows 1000 B, half uniform over 1000-3000 B: mean 0.5 x 1000 + 0.5 x 2000 = 1500 B by hand
    const std::string path = ::testing::TempDir() + "cmswitch_sizes.csv";
    {
        std::ofstream f(path);
        f << "# mine\nsize_bytes,cdf_percent\n1000,0\n1000,50\n3000,100\n";
    }
    const result r = run_workload(
        {"--topology", "star", "--hosts", "4", "--load", "0.3", "--flow-sizes", path, "--duration-s", "0.005"});
    EXPECT_EQ(std::get<std::string>(*r.get("flow_sizes")), path);
    EXPECT_DOUBLE_EQ(r.number("flow_size_mean_bytes"), 1500.0);
    EXPECT_GT(r.number("flows_completed"), 100);
    // a missing file, a malformed one: refused naming the field (the content when the run starts)
    try {
        make_scenario("workload")->params().parse_args({"--flow-sizes", path + ".missing.csv"});
        FAIL() << "a missing file was accepted";
    } catch (const config_error& e) {
        EXPECT_NE(std::string(e.what()).find("flow_sizes"), std::string::npos) << e.what();
    }
    {
        std::ofstream f(path);
        f << "1000,0\n500,100\n";
    }
    EXPECT_THROW(run_workload({"--flow-sizes", path, "--duration-s", "0.001"}), config_error);
}

TEST(Workload, PfcWithDynamicXoffAndASharedHeadroomPoolIsLossless) {
    // 16 hosts at 10 Gb/s on one switch (1 us links), web search at 60 % plus a 15:1 incast of 64 KB every 2 ms,
    // PFC with dynamic XOFF (alpha 1) on a 2 MB shared buffer. The headroom pool sized by the formula for every
    // input paused at once (16 x the per-port headroom: 2 x rate x delay + 2 MTU + the 10 Gb/s response time)
    // drops nothing, whatever the seed, and is never filled beyond it
    const double headroom_kb = 16.0 * static_cast<double>(pause_headroom_bytes(10000000000ull, 1000000, 1500)) / 1024;
    for (const char* seed : {"1", "2", "3"}) {
        const result r = run_workload({"--topology",
                                       "star",
                                       "--hosts",
                                       "16",
                                       "--load",
                                       "0.6",
                                       "--incast-fanin",
                                       "15",
                                       "--incast-kb",
                                       "64",
                                       "--incast-period-ms",
                                       "2",
                                       "--duration-s",
                                       "0.02",
                                       "--pool-kb",
                                       "2048",
                                       "--pause",
                                       "pfc",
                                       "--pause-xoff-alpha",
                                       "1",
                                       "--pause-headroom-pool-kb",
                                       std::to_string(headroom_kb),
                                       "--seed",
                                       seed});
        EXPECT_EQ(r.number("drops"), 0) << seed;
        EXPECT_GT(r.number("pause_frames"), 0) << seed;
        EXPECT_LE(r.number("headroom_pool_peak_kb"), headroom_kb) << seed;
        EXPECT_EQ(r.number("incasts_completed"), r.number("incasts")) << seed;
        // the pools over time: the headroom pool's p99 within its peak, the shared pool's within the pool
        EXPECT_LE(r.number("headroom_p99_kb_max_switch"), r.number("headroom_pool_peak_kb")) << seed;
        EXPECT_LE(r.number("pool_p99_kb_max_switch"), r.number("shared_peak_kb_max_switch")) << seed;
        EXPECT_GT(r.number("pool_p99_kb_max_switch"), 0) << seed;
        EXPECT_GT(r.number("pause_episodes"), 0) << seed;
        EXPECT_LE(r.number("pause_episode_p50_us"), r.number("pause_episode_max_us")) << seed;
    }
}

TEST(Workload, TooSmallAHeadroomPoolDrops) {
    // the TCP incast of 16 servers at 1 Gb/s, 25 us links, into a 1 MB shared buffer with dynamic XOFF: with the
    // formula's pool (16 x 9,378 B) nothing is lost; with a quarter of it the pool overflows (ingress_limit drops)
    auto run = [](double pool_kb) {
        auto sc = make_scenario("incast");
        sc->params().parse_args({"--flows", "16", "--buffer-policy", "shared", "--pool-kb", "1024", "--pause", "pfc",
                                 "--pause-xoff-alpha", "1", "--pause-headroom-pool-kb", std::to_string(pool_kb),
                                 "--duration-s", "0.3"});
        return sc->run();
    };
    const uint64_t per_port = pause_headroom_bytes(1000000000ull, 25000000, 1500);
    EXPECT_EQ(per_port, 2 * 3125 + 3000 + 2 * 64);   // 2 x 1 Gb/s x 25 us (3125 B), 2 MTU, 2 quanta of 512 bits
    const double full_kb = 16.0 * static_cast<double>(per_port) / 1024;
    const result ok = run(full_kb);
    EXPECT_EQ(ok.number("drops"), 0);
    EXPECT_LE(ok.number("headroom_pool_peak_kb"), full_kb);
    const result small = run(full_kb / 4);
    EXPECT_GT(small.number("drops_ingress_limit"), 0);
    EXPECT_EQ(small.number("drops"), small.number("drops_ingress_limit"));
}

TEST(Workload, PfcSharedBufferSettingsNeedTheSharedPolicy) {
    // a headroom pool or a dynamic XOFF on a buffer without the shared pool would be silently lossy: refused
    for (const std::vector<std::string>& bad :
         {std::vector<std::string>{"--pause-headroom-pool-kb", "100"},
          std::vector<std::string>{"--buffer-policy", "dynamic", "--pause-headroom-pool-kb", "100"},
          std::vector<std::string>{"--buffer-policy", "shared", "--pause-xoff-alpha", "1"}}) {
        auto sc = make_scenario("incast");
        std::vector<std::string> args{"--pause", "pfc", "--duration-s", "0.001"};
        args.insert(args.end(), bad.begin(), bad.end());
        sc->params().parse_args(args);
        try {
            sc->run();
            ADD_FAILURE() << "accepted: " << bad[0];
        } catch (const config_error& e) {
            EXPECT_NE(std::string(e.what()).find("pause_"), std::string::npos) << e.what();
        }
    }
}

namespace {
const std::vector<double>& col(const result& r, const std::string& t, const std::string& c) {
    const table* tb = r.find_table(t);
    if (!tb)
        throw std::runtime_error("no table " + t);
    for (const auto& kv : tb->columns)
        if (kv.first == c)
            return kv.second;
    throw std::runtime_error("no column " + c + " in " + t);
}
}   // namespace

TEST(Workload, LosslessIncastClassBesideLossyFlowsWithIngressReservesAndAlphaPerGroup) {
    // The RoCE deployment: web search at 60 % in priority 0 (lossy: drop-tail NewReno at the egress dynamic
    // threshold) and a 15:1 incast of 256 KB every 2 ms in priority 3, the only PFC priority, on 16 x 10 Gb/s
    // with a 1 MB shared buffer; group 3 pauses at 4 KB (its ingress reserve) + 0.25 x the free shared bytes; the
    // headroom pool by the formula (16 x the per-port headroom). Whatever the seed: the lossy class drops, the
    // lossless one never does, every incast completes, every byte is accounted for.
    const double headroom_kb = 16.0 * static_cast<double>(pause_headroom_bytes(10000000000ull, 1000000, 1500)) / 1024;
    for (const char* seed : {"1", "2", "3"}) {
        const result r = run_workload({"--topology",
                                       "star",
                                       "--hosts",
                                       "16",
                                       "--load",
                                       "0.6",
                                       "--incast-fanin",
                                       "15",
                                       "--incast-kb",
                                       "256",
                                       "--incast-period-ms",
                                       "2",
                                       "--duration-s",
                                       "0.02",
                                       "--pool-kb",
                                       "1024",
                                       "--pause",
                                       "pfc",
                                       "--pfc-priorities",
                                       "3",
                                       "--incast-prio",
                                       "3",
                                       "--pause-xoff-alpha-by-pg",
                                       "1,1,1,0.25,1,1,1,1",
                                       "--pause-reserved-kb",
                                       "4",
                                       "--pause-headroom-pool-kb",
                                       std::to_string(headroom_kb),
                                       "--seed",
                                       seed});
        EXPECT_EQ(r.number("drops_incast_prio"), 0) << seed;
        EXPECT_GT(r.number("drops_flow_prio"), 0) << seed;
        EXPECT_EQ(r.number("drops"), r.number("drops_flow_prio")) << seed;
        EXPECT_GT(r.number("pause_frames"), 0) << seed;
        EXPECT_EQ(r.number("incasts_completed"), r.number("incasts")) << seed;
        EXPECT_LE(r.number("headroom_pool_peak_kb"), headroom_kb) << seed;
        // 16 inputs x 4 KB of reserve at the most (the incast's 15 senders fill theirs)
        EXPECT_LE(r.number("ingress_reserved_peak_kb"), 16 * 4) << seed;
        EXPECT_GE(r.number("ingress_reserved_peak_kb"), 15 * 4) << seed;
        EXPECT_TRUE(std::get<bool>(*r.get("conservation_ok"))) << seed;
        // the per-queue and per-group distributions: priority 3's queue and group 3 hold bytes
        bool q3 = false;
        for (size_t i = 0; i < col(r, "queues", "queue").size(); ++i)
            q3 = q3 || (col(r, "queues", "queue")[i] == 3 && col(r, "queues", "max_kb")[i] > 0);
        EXPECT_TRUE(q3) << seed;
        ASSERT_EQ(col(r, "groups", "group").size(), 1u) << seed;   // only the lossless group is charged
        EXPECT_EQ(col(r, "groups", "group")[0], 3) << seed;
        EXPECT_LE(col(r, "groups", "p99_kb")[0], col(r, "groups", "max_kb")[0]) << seed;
        EXPECT_GT(col(r, "groups", "p99_kb")[0], 0) << seed;
    }
}

TEST(Workload, UplinksCarryIncastsIntoTheirQueueAndFlowsAloneTakeTheirIdealTime) {
    // 8 hosts at 10 Gb/s and 2 uplinks at 40 Gb/s on one switch. Flows of 14,480 B (10 segments of 1448 B: the
    // initial window, no round trip waits) come only from the uplink hosts at 2 % of 40 Gb/s: alone, each takes its
    // ideal time (the whole flow at the slower link, one frame at the faster, 2 x 1 us, the receive interrupt's
    // 3 us after the last frame), slowdown near 1.
    // Every 1 ms, 2 incasts at once from the 2 uplinks (fan-in 2, 64 KB each) to 2 distinct downlink hosts, in
    // priority 3, mapped to queue 2: 20 incasts in 10 ms, all complete, their data in queue 2 of downlink ports.
    const std::string path = ::testing::TempDir() + "cmswitch_ten_segments.csv";
    {
        std::ofstream f(path);
        f << "14480,0\n14480,100\n";
    }
    const result r = run_workload({"--topology",
                                   "star",
                                   "--hosts",
                                   "8",
                                   "--uplinks",
                                   "2",
                                   "--uplink-gbps",
                                   "40",
                                   "--load",
                                   "0",
                                   "--uplink-load",
                                   "0.02",
                                   "--flow-sizes",
                                   path,
                                   "--incast-fanin",
                                   "2",
                                   "--incast-receivers",
                                   "2",
                                   "--incast-from",
                                   "uplinks",
                                   "--incast-kb",
                                   "64",
                                   "--incast-period-ms",
                                   "1",
                                   "--incast-prio",
                                   "3",
                                   "--queue-map",
                                   "0,1,2,2,4,5,6,7",
                                   "--duration-s",
                                   "0.01"});
    EXPECT_EQ(r.number("incasts"), 20);
    EXPECT_EQ(r.number("incasts_completed"), 20);
    // 2 x 0.01 s x 0.02 x 40e9 / 8 / 14480 B = 138 flows expected (sqrt 11.8)
    EXPECT_NEAR(r.number("flows_started"), 138, 3 * 11.8);
    EXPECT_GE(r.number("slowdown_p50"), 0.999);
    EXPECT_LT(r.number("slowdown_p50"), 1.01);
    EXPECT_EQ(r.number("drops"), 0);
    for (size_t i = 0; i < col(r, "queues", "queue").size(); ++i) {
        const double port = col(r, "queues", "port")[i], queue = col(r, "queues", "queue")[i];
        EXPECT_NE(queue, 3) << "priority 3 is mapped to queue 2";
        if (port < 8 && queue != 0) {
            EXPECT_EQ(queue, 2) << port;
        }
    }
    EXPECT_TRUE(std::get<bool>(*r.get("conservation_ok")));
    // the uplink settings belong to the star; an incast from uplinks needs some
    EXPECT_THROW(run_workload({"--uplinks", "2", "--duration-s", "0.001"}), config_error);
    EXPECT_THROW(run_workload({"--topology", "star", "--incast-fanin", "2", "--incast-from", "uplinks", "--duration-s",
                               "0.001"}),
                 config_error);
}

TEST(SwitchDescription, AJsonFileSetsTheFieldsByItsSectionsAndLaterFlagsOverride) {
    const std::string path = ::testing::TempDir() + "cmswitch_switch.json";
    {
        std::ofstream f(path);
        f << R"({"ports": {"topology": "star", "hosts": 32, "link_gbps": 25, "uplinks": 8, "uplink_gbps": 100},
                 "classes": {"queue_map": [0, 0, 1, 3, 1, 2, 2, 7], "pg_map": [0, 0, 0, 3, 0, 0, 0, 7]},
                 "scheduler": {"scheduler": "dwrr", "dwrr_weights": [1, 2, 4, 0, 0, 0, 0, 0]},
                 "traffic": {"flow_prio": 3},
                 "mmu": {"buffer_policy": "shared", "pool_kb": 16384,
                         "alpha_by_queue": [1, 1, 0.5, 8, 1, 1, 1, 1],
                         "pfc": {"pause": "pfc", "pfc_priorities": [3], "pause_xoff_alpha": 1,
                                 "pause_headroom_pool_kb": 2048, "pause_reserved_kb": 2}}})";
    }
    auto sc = make_scenario("workload");
    sc->params().parse_args({"--switch", path, "--pool-kb", "8192"});
    auto value = [&](const std::string& n) {
        for (const auto& p : sc->params().params())
            if (p.name == n)
                return sc->params().value_text(p);
        return std::string("?");
    };
    EXPECT_EQ(value("hosts"), "32");
    EXPECT_EQ(value("uplink_gbps"), "100");
    EXPECT_EQ(value("queue_map"), "0,0,1,3,1,2,2,7");
    EXPECT_EQ(value("dwrr_weights"), "1,2,4,0,0,0,0,0");
    EXPECT_EQ(value("alpha_by_queue"), "1,1,0.5,8,1,1,1,1");
    EXPECT_EQ(value("pfc_priorities"), "3");
    EXPECT_EQ(value("pause_reserved_kb"), "2");
    EXPECT_EQ(value("pool_kb"), "8192");   // the flag after --switch wins
    EXPECT_NO_THROW(sc->check());   // builds: 40 ports, the maps, DWRR, the MMU with its reserves and pools
    auto check_refused = [&sc](const std::string& what) {
        try {
            sc->check();
            ADD_FAILURE() << "accepted; expected: " << what;
        } catch (const config_error& e) {
            EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
        }
    };
    // alpha beside the list that replaces it would do nothing: refused, naming both; "none" clears the list
    sc->params().parse_args({"--alpha", "2"});
    check_refused("alpha = 2 and alpha_by_queue = 1,1,0.5,8,1,1,1,1 are both set");
    sc->params().parse_args({"--alpha-by-queue", "none"});
    EXPECT_EQ(value("alpha_by_queue"), "");
    EXPECT_NO_THROW(sc->check());
    // PFC on priority 3 while every flow sends on 0: nothing would be paused
    sc->params().parse_args({"--flow-prio", "0"});
    check_refused("pfc_priorities = 3: no traffic of this run uses this priority");
    auto refused = [](const std::string& text, const std::string& what) {
        try {
            make_scenario("workload")->params().parse_args({"--switch", text});
            ADD_FAILURE() << "accepted " << text;
        } catch (const config_error& e) {
            EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
        }
    };
    refused(R"({"mmu": {"pool_kbb": 1}})", "unknown key 'pool_kbb'");
    refused(R"({"mmu": {"pool_kb": -1}})", "pool_kb");
    refused(R"({"mmu": {"pool_kb": 1,}})", "not valid JSON");
    refused(R"({"classes": {"queue_map": [0, 1]}})", "queue_map");
    refused(path + ".missing", "cannot be read");
}

TEST(Workload, FlowsGoOnlyToTheListedDestinations) {
    // 8 hosts, Poisson flows at 10 % only to hosts 0 and 1 (storage servers, say): data queues up only at their
    // switch ports; the other ports carry nothing but ACKs (64 B each, never a 1500 B frame's worth); hosts 0 and 1
    // send to each other
    const result r = run_workload({"--topology", "star", "--hosts", "8", "--load", "0.1", "--flow-sizes", "fb-hadoop",
                                   "--flow-destinations", "0,1", "--duration-s", "0.02"});
    EXPECT_GT(r.number("flows_started"), 50);
    double data_ports_max = 0;
    for (size_t i = 0; i < col(r, "queues", "port").size(); ++i) {
        const double port = col(r, "queues", "port")[i], max_kb = col(r, "queues", "max_kb")[i];
        if (port < 2) {
            data_ports_max = std::max(data_ports_max, max_kb);
        } else {
            EXPECT_LT(max_kb, 1500.0 / 1024) << port;
        }
    }
    EXPECT_GE(data_ports_max, 1500.0 / 1024);
    EXPECT_THROW(
        run_workload({"--topology", "star", "--hosts", "4", "--flow-destinations", "4", "--duration-s", "0.001"}),
        config_error);
}

TEST(Workload, PfcOnALeafSpineWithAHighAlphaStaysWithinTheHeadroomPool) {
    // 4 leaves x 8 hosts at 25 Gb/s, 2 spines at 100 Gb/s, web search at 60 % + a 31:1 incast every ms, PFC with
    // dynamic XOFF alpha 4 on a 7.8 MB shared pool per switch and a headroom pool of the leaf's formula: 8 x
    // 14,370 B (25 Gb/s ports) + 2 x 53,216 B (100 Gb/s: 2 x 12,500 B of cable + 2 MTU + 394 quanta x 64 B) =
    // 221,392 B. No class may hold more than one in-flight's worth of headroom: a class that goes XON while its
    // dynamic threshold has grown above it gives its headroom bytes back to the shared pool. Before that rule,
    // the spines' pools (4 x 53,216 B needed) overflowed (217-503 drops on seeds 2-4 at 10 ms).
    EXPECT_EQ(pause_headroom_bytes(100000000000ull, 1000000, 1500), 2 * 12500u + 3000 + 394 * 64);
    for (const char* seed : {"1", "2", "3"}) {
        const result r = run_workload({"--topology",
                                       "leaf-spine",
                                       "--leaves",
                                       "4",
                                       "--hosts-per-leaf",
                                       "8",
                                       "--spines",
                                       "2",
                                       "--link-gbps",
                                       "25",
                                       "--fabric-gbps",
                                       "100",
                                       "--load",
                                       "0.6",
                                       "--incast-fanin",
                                       "31",
                                       "--duration-s",
                                       "0.01",
                                       "--drain-ms",
                                       "5",
                                       "--pool-kb",
                                       "7975.796875",
                                       "--alpha",
                                       "4",
                                       "--pause",
                                       "pfc",
                                       "--pause-xoff-alpha",
                                       "4",
                                       "--pause-headroom-pool-kb",
                                       "216.203125",
                                       "--seed",
                                       seed});
        EXPECT_EQ(r.number("drops"), 0) << seed;
        EXPECT_GT(r.number("pause_frames"), 0) << seed;
        EXPECT_LE(r.number("headroom_pool_peak_kb"), 216.203125) << seed;
    }
}

namespace {
std::string fixed_10kb() {   // a flow-size CDF of one size
    const std::string path = ::testing::TempDir() + "cmswitch_10kb.csv";
    std::ofstream f(path);
    f << "10240,0\n10240,100\n";
    return path;
}
}   // namespace

TEST(Workload, BulkFlowsKeepTheBottleneckBusyAndShortFlowsWaitTheirQueue) {
    // One CUBIC bulk flow and 10 KB flows at Poisson times from an uplink host (10 Gb/s) to host 0 behind a 1 Gb/s
    // port with a 100 KB drop-tail buffer, against a bandwidth-delay product of about 1 KB: after each loss CUBIC
    // keeps 0.7 of (B + BDP), more than the BDP, so the port never idles and the bulk flow takes the link less the
    // short flows (0.8 Mbit/s): between 0.97 x 1448/1538 and 1448/1500 of 1 Gb/s whatever the wire's overhead. A
    // short flow waits the standing queue, from 0.7 B - BDP to B at 1 Gb/s (573-819 us), plus its own 82 us and an
    // RTT. The bulk flow stays out of the completion times: 100 short flows a second (0.0008192 x 10 Gb/s / 81,920
    // b) over the 0.4 s after the warm-up, 40 +- 3 x 6.3.
    const result r = run_workload({"--topology",
                                   "star",
                                   "--hosts",
                                   "2",
                                   "--uplinks",
                                   "1",
                                   "--uplink-gbps",
                                   "10",
                                   "--link-gbps",
                                   "1",
                                   "--load",
                                   "0",
                                   "--uplink-load",
                                   "0.0008192",
                                   "--flow-destinations",
                                   "0",
                                   "--bulk-flows",
                                   "1",
                                   "--flow-sizes",
                                   fixed_10kb(),
                                   "--transport",
                                   "cubic",
                                   "--buffer-policy",
                                   "static",
                                   "--buffer-kb",
                                   "100",
                                   "--duration-s",
                                   "0.5",
                                   "--drain-ms",
                                   "20",
                                   "--warmup-ms",
                                   "100",
                                   "--flow-table"});
    EXPECT_EQ(r.number("bulk_flows"), 1);
    const double goodput = r.number("bulk_goodput_mbps");
    EXPECT_GT(goodput, 0.97 * 1000 * 1448 / 1538) << goodput;
    EXPECT_LT(goodput, 1000.0 * 1448 / 1500) << goodput;
    EXPECT_TRUE(std::get<bool>(*r.get("conservation_ok")));
    EXPECT_GT(r.number("drops"), 0);   // the bulk flow finds the buffer's end
    EXPECT_NEAR(r.number("flows_started"), 40, 3 * std::sqrt(40.0));
    EXPECT_EQ(r.number("flows_completed"), r.number("flows_started"));
    table flows = *r.find_table("flows");
    std::vector<double> fct = flows.column("fct_us");
    std::sort(fct.begin(), fct.end());
    const double p50 = fct[fct.size() / 2];
    EXPECT_GT(p50, 0.7 * 100 * 1024 * 8 / 1e3 - 1 + 82) << p50;
    EXPECT_LT(p50, 100 * 1024 * 8 / 1e3 + 82 + 10) << p50;
    // without bulk flows nothing is reported of them; more than 64 per host is refused naming the field
    const result none = run_workload({"--topology", "star", "--hosts", "2", "--load", "0.01", "--duration-s", "0.01"});
    EXPECT_EQ(none.get("bulk_goodput_mbps"), nullptr);
    try {
        make_scenario("workload")->params().parse_args({"--bulk-flows", "65"});
        FAIL() << "65 bulk flows were accepted";
    } catch (const config_error& e) {
        EXPECT_NE(std::string(e.what()).find("bulk_flows"), std::string::npos) << e.what();
    }
    // with no host offering Poisson flows there would be no bulk flow either: refused, naming both fields
    auto sc = make_scenario("workload");
    sc->params().parse_args({"--hosts", "2", "--load", "0", "--bulk-flows", "1", "--duration-s", "0.001"});
    try {
        sc->run();
        FAIL() << "bulk flows without Poisson load were accepted";
    } catch (const config_error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("bulk_flows"), std::string::npos) << what;
        EXPECT_NE(what.find("load"), std::string::npos) << what;
    }
}
