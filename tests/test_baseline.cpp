// SPDX-License-Identifier: Apache-2.0
// The Atikoglu & Prabhakar 2008 baselines: the conclusions the slides draw, on shortened runs.
#include "config/errors.h"
#include "platform/scenario.h"
#include "testing.h"

#include <gtest/gtest.h>

using namespace cmswitch;

namespace {
result run_baseline(const std::vector<std::string>& args) {
    auto sc = make_scenario("baseline");
    std::vector<std::string> a = args;
    a.push_back("--series=false");
    sc->params().parse_args(a);
    return sc->run();
}
}   // namespace

TEST(Baseline, PauseAloneSpreadsCongestionAndQcnProtectsTheInnocentFlow) {
    // node 3 drains at 1 Gb/s from 250 ms: with PAUSE alone the center switch pauses switch 1, which pauses both
    // senders: the innocent 2 -> 4 flow loses most of its share; with QCN the hot-spot flow is held at its rate limiter
    // and the innocent flow keeps most of the 10 Gb/s trunk (the hot-spot flow gets its 1 Gb/s)
    const result pause = run_baseline({"--scenario", "pause-spreading", "--cm", "tcp-pause", "--duration-s", "0.5"});
    const result qcn = run_baseline({"--scenario", "pause-spreading", "--cm", "tcp-qcn-pause", "--duration-s", "0.5"});
    EXPECT_LT(pause.number("innocent_gbps_congested"), 2.0);
    EXPECT_GT(pause.number("pause_frames"), 0);
    EXPECT_GT(qcn.number("innocent_gbps_congested"), 7.0);
    // the first 250 ms of the event include QCN's convergence (the whole 500 ms event gives 0.97 Gb/s)
    EXPECT_GT(qcn.number("hotspot_gbps_congested"), 0.75);
    EXPECT_LT(qcn.number("hotspot_gbps_congested"), 1.0);   // node 3 drains at 1 Gb/s
    EXPECT_EQ(pause.number("network_drops"), 0);   // lossless network; hosts may drop at their own limiters
    EXPECT_EQ(qcn.number("network_drops"), 0);
    EXPECT_TRUE(std::get<bool>(*qcn.get("conservation_ok")));
    // both flows cross the one 10 Gb/s trunk: while node 3 drains at 1 Gb/s the innocent flow's ideal is the
    // trunk's other 9 Gb/s, not its offered 10
    EXPECT_DOUBLE_EQ(qcn.number("ideal_innocent_gbps"), 9.0);
    EXPECT_DOUBLE_EQ(qcn.number("ideal_hotspot_gbps_congested"), 1.0);
}

TEST(Baseline, OutputGeneratedHotspotInnocentTrafficKeepsItsIdealWithQcn) {
    // ideal innocent throughput: 6 x 2.5 + 3 x 4 Gb/s offered, 8/9 of it not to node 7 = 24 Gb/s;
    // hot-spot traffic is limited to node 7's 0.5 Gb/s while it is slow
    const result qcn = run_baseline({"--scenario", "og-hotspot", "--cm", "tcp-qcn-pause", "--duration-s", "0.15"});
    EXPECT_DOUBLE_EQ(qcn.number("ideal_innocent_gbps"), 24.0);
    EXPECT_GT(qcn.number("innocent_gbps_congested"), 0.95 * 24.0);
    EXPECT_NEAR(qcn.number("hotspot_gbps_congested"), 0.5, 0.05);
    const result pause = run_baseline({"--scenario", "og-hotspot", "--cm", "tcp-pause", "--duration-s", "0.15"});
    EXPECT_LT(pause.number("innocent_gbps_congested"), 0.6 * 24.0);
    EXPECT_EQ(pause.number("network_drops"), 0);
}

TEST(Baseline, BadValuesNameTheField) {
    auto sc = make_scenario("baseline");
    EXPECT_THROW(sc->params().set("cm", "tcp-magic"), config_error);
    sc->params().parse_args({"--pause-xon-kb", "127", "--cm", "tcp-pause", "--duration-s", "0.01"});
    try {
        sc->run();
        ADD_FAILURE() << "XON within one MTU of XOFF accepted";
    } catch (const config_error& e) {
        EXPECT_NE(std::string(e.what()).find("pause_xon"), std::string::npos) << e.what();
    }
}

TEST(Baseline, TcpBehindAQcnRateLimiterIsBackPressuredNotStalled) {
    // TCP + QCN without PAUSE: the hot-spot flow's rate limiter slows to node 3's 1 Gb/s. The TCP sender waits for room
    // in its limiter (as a stack waits on its NIC queues) instead of piling its window into it: no host drops,
    // and the hot-spot flow keeps its 1 Gb/s (regression: an unbounded limiter queue once stalled the flow at 0)
    const result r = run_baseline({"--scenario", "pause-spreading", "--cm", "tcp-qcn", "--duration-s", "0.5"});
    EXPECT_GT(r.number("hotspot_gbps_congested"), 0.75);
    EXPECT_GT(r.number("innocent_gbps_congested"), 7.0);
    EXPECT_EQ(r.number("drops_nic_queue_full"), 0);
    EXPECT_EQ(r.number("drops_rate_limiter_full"), 0);
}

TEST(Baseline, DctcpAndEcnSchemesRunOnTheHotspot) {
    // The baselines once offered no DCTCP/ECN. At the output-generated hot spot, drop-tail TCP overflows
    // the 150000 B output queue of the 0.5 Gb/s hot spot; DCTCP with step marking at K (30 KB by default)
    // keeps it below the limit, so nothing is dropped, and it marks; so does NewReno with ECN over RED
    const std::vector<std::string> base{"--scenario", "og-hotspot", "--duration-s", "0.05"};
    auto with = [&](std::vector<std::string> extra) {
        std::vector<std::string> a = base;
        a.insert(a.end(), extra.begin(), extra.end());
        return run_baseline(a);
    };
    const result tail = with({"--cm", "tcp"});
    const result dctcp = with({"--cm", "tcp", "--transport", "dctcp", "--marking", "step"});
    const result red = with({"--cm", "tcp", "--ecn", "--marking", "red"});
    EXPECT_GT(tail.number("network_drops"), 0);
    EXPECT_EQ(dctcp.number("network_drops"), 0);
    EXPECT_GT(dctcp.number("marks"), 0);
    EXPECT_EQ(red.number("network_drops"), 0);
    EXPECT_GT(red.number("marks"), 0);
    EXPECT_TRUE(std::get<bool>(*dctcp.get("conservation_ok")));
    // the innocent traffic keeps its ideal either way (no PAUSE to spread the congestion)
    EXPECT_GT(dctcp.number("innocent_gbps_congested"), 0.95 * dctcp.number("ideal_innocent_gbps"));
    // refusals name the field
    EXPECT_THROW(with({"--cm", "tcp", "--transport", "dctcp"}), config_error);
    EXPECT_THROW(with({"--cm", "udp", "--marking", "step"}), config_error);
}
