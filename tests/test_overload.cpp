// SPDX-License-Identifier: Apache-2.0
// Whole-network runs of the overload scenario against formulas and conservation.
#include "config/errors.h"
#include "platform/scenario.h"
#include "platform/scenarios/overload.h"
#include "testing.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace cmswitch;

namespace {
result run_overload(const std::vector<std::string>& args) {
    auto sc = make_scenario("overload");
    sc->params().parse_args(args);
    return sc->run();
}
std::string without_wall_time(const result& r) {
    result copy = r;
    copy.set("wall_s", 0.0);
    return copy.to_json();
}
}   // namespace

TEST(Overload, MD1MeanQueueingDelay) {
    // Poisson arrivals of fixed 1500-byte frames at load 0.5 on a 1 Gbps port: M/D/1.
    // mu = 1e9 / 12000 = 83333.3 frames/s; Wq = rho / (2 mu (1 - rho)) = 0.5 / (2 * 83333.3 * 0.5) = 6.0 us.
    // 40 senders of 12.5 Mbps each: their own NICs almost never queue, so the superposition at the switch is
    // (nearly) Poisson.
    const result r = run_overload({"--senders", "40", "--traffic", "poisson", "--load", "0.5", "--frame-bytes", "1500",
                                   "--txn-bytes", "1500", "--duration-s", "20", "--seed", "3", "--buffer-kb", "10000"});
    const double rho = 0.5, mu = 1e9 / 12000.0;
    const double wq_us = rho / (2 * mu * (1 - rho)) * 1e6;
    EXPECT_NEAR(r.number("bottleneck_mean_wait_us"), wq_us, 0.05 * wq_us);
    EXPECT_NEAR(r.number("bottleneck_utilization"), 0.5, 0.01);
    EXPECT_EQ(r.number("drops"), 0);
    EXPECT_TRUE(std::get<bool>(*r.get("conservation_ok")));
}

TEST(Overload, OverloadedPortRunsAtLineRateAndDropsTheExcess) {
    // 4 CBR senders at 1.25 x line rate in all: the port sends at line rate, the rest (1/5 of what arrives) is
    // dropped once the 150 KB buffer is full.
    const result r = run_overload({"--senders", "4", "--load", "1.25", "--duration-s", "2"});
    EXPECT_NEAR(r.number("bottleneck_utilization"), 1.0, 0.001);
    const double offered = r.number("offered_mbps"), delivered = r.number("delivered_mbps");
    EXPECT_NEAR(offered, 1250, 1);
    EXPECT_NEAR(delivered, 1000, 1);
    const double drop_fraction = r.number("dropped_bytes") / r.number("offered_bytes");
    EXPECT_NEAR(drop_fraction, 0.2, 0.002);
    // the static limit is 150 KB = 153600 B; with 1500 B frames the queue peaks at 102 frames = 153000 B
    EXPECT_EQ(r.number("bottleneck_max_queue_bytes"), 153000);
    EXPECT_EQ(r.number("drops"), r.number("drops_port_limit"));
}

TEST(Overload, ConservationHoldsForEveryTrafficAndBufferPolicy) {
    for (const char* traffic : {"cbr", "poisson", "bernoulli"})
        for (const char* policy : {"static", "dynamic"})
            for (const char* seed : {"1", "2"}) {
                const result r = run_overload(
                    {"--senders",   "7",    "--traffic",      traffic, "--buffer-policy", policy, "--load",    "1.6",
                     "--txn-bytes", "9000", "--duration-s",   "0.05",  "--seed",          seed,   "--pool-kb", "200",
                     "--alpha",     "0.5",  "--nic-queue-kb", "20"});
                ASSERT_TRUE(std::get<bool>(*r.get("conservation_ok"))) << traffic << " " << policy;
                // offered = delivered + dropped + queued + in flight, by bytes
                EXPECT_EQ(r.number("offered_bytes"), r.number("delivered_bytes") + r.number("dropped_bytes") +
                                                         r.number("queued_bytes") + r.number("in_flight_bytes"));
                EXPECT_GT(r.number("drops"), 0) << traffic << " " << policy;
            }
}

TEST(Overload, DynamicThresholdHoldsTheQueueAtAlphaOverOnePlusAlphaOfThePool) {
    // one congested queue with alpha = 1 settles at half the pool (q = B - q), within a frame
    const result r = run_overload({"--senders", "4", "--load", "2", "--buffer-policy", "dynamic", "--pool-kb", "300",
                                   "--alpha", "1", "--duration-s", "0.5"});
    const double pool = 300 * 1024.0;
    EXPECT_NEAR(r.number("bottleneck_max_queue_bytes"), pool / 2, 1500);
    EXPECT_GT(r.number("drops_dynamic_threshold"), 0);
}

TEST(Overload, SameSeedGivesBitIdenticalResults) {
    const std::vector<std::string> args{"--senders", "9",           "--traffic", "bernoulli",    "--load",
                                        "1.3",       "--txn-bytes", "9000",      "--duration-s", "0.2",
                                        "--seed",    "42",          "--series"};
    const std::string a = without_wall_time(run_overload(args));
    (void)run_overload({"--senders", "3", "--seed", "7", "--duration-s", "0.1"});   // another run in between
    const std::string b = without_wall_time(run_overload(args));
    EXPECT_EQ(a, b);
    auto other = args;
    other[other.size() - 2] = "43";
    EXPECT_NE(a, without_wall_time(run_overload(other)));
}

TEST(Overload, TemporalDecouplingDoesNotChangeResults) {
    for (const char* traffic : {"cbr", "poisson"}) {
        const std::vector<std::string> base{"--senders",    "16",  "--traffic", traffic, "--load",  "1.2",
                                            "--duration-s", "0.2", "--seed",    "5",     "--series"};
        auto sync = base;
        sync.push_back("--no-decoupling");
        EXPECT_EQ(without_wall_time(run_overload(base)), without_wall_time(run_overload(sync))) << traffic;
    }
}

TEST(Overload, ManyRunsInOneProcessDoNotGrowMemory) {
#ifdef CMSWITCH_SANITIZED
    GTEST_SKIP() << "AddressSanitizer's quarantine grows the process; the plain build checks this";
#endif
    const std::vector<std::string> args{"--senders", "4", "--duration-s", "0.01"};
    for (int i = 0; i < 20; ++i)
        run_overload(args);
    const uint64_t before = cmswitch::testing::rss_bytes();
    for (int i = 0; i < 200; ++i)
        run_overload(args);
    const uint64_t after = cmswitch::testing::rss_bytes();
    EXPECT_LT(after, before + 3 * 1024 * 1024) << "grew by " << (after - before) << " bytes over 200 runs";
}

TEST(Overload, BadValuesNameTheField) {
    auto expect_error = [](std::vector<std::string> args, const std::string& field) {
        try {
            run_overload(args);
            ADD_FAILURE() << "no error for " << field;
        } catch (const config_error& e) {
            EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
        }
    };
    expect_error({"--senders", "0"}, "senders");
    expect_error({"--buffer-kb", "-5"}, "buffer_kb");
    expect_error({"--link-gbps", "0"}, "link_gbps");
    expect_error({"--load", "abc"}, "load");
    expect_error({"--traffic", "tcp"}, "traffic");
    expect_error({"--no-such-flag", "1"}, "no-such-flag");
    expect_error({"--senders"}, "senders");
    expect_error({"--duration-s", "nan"}, "duration_s");
    EXPECT_THROW(make_scenario("nope"), config_error);
}
