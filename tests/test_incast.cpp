// SPDX-License-Identifier: Apache-2.0
// Whole incast runs: conservation, determinism, the DCTCP claim, and the uncongested ceiling.
#include "config/errors.h"
#include "platform/network.h"
#include "platform/scenario.h"
#include "traffic/incast.h"

#include "testing.h"
#include <memory>

#include <gtest/gtest.h>

using namespace cmswitch;

namespace {
result run_incast(const std::vector<std::string>& args) {
    auto sc = make_scenario("incast");
    sc->params().parse_args(args);
    return sc->run();
}
}   // namespace

TEST(Incast, OneFlowRunsAtThePayloadShareOfLineRate) {
    // One server cannot congest its 1 Gbps path; once its window is open a round is: the request's latency
    // 2 x (0.512 + 25) = 51.0 us, the SRU's frames back to back on the server's link (179 x 1500 + 842 B =
    // 2154.7 us), then the last frame's propagation, store-and-forward serialization and propagation (25 + 6.7
    // + 25 us): 2262.4 us for 262144 bytes, 926.9 Mbps. Slow start in the first round costs a little.
    const result r = run_incast({"--flows", "1", "--duration-s", "2"});
    EXPECT_NEAR(r.number("goodput_mbps"), 926.9, 926.9 * 0.005);
    EXPECT_EQ(r.number("drops"), 0);
    EXPECT_EQ(r.number("timeouts"), 0);
}

TEST(Incast, ConservationAndDeterminism) {
    for (const char* transport : {"newreno", "dctcp"}) {
        const std::vector<std::string> args{"--flows",      "16",  "--buffer-kb", "64",      "--min-rto-ms", "10",
                                            "--duration-s", "0.5", "--transport", transport, "--marking",    "step",
                                            "--jitter-ns",  "300", "--seed",      "4",       "--series"};
        result a = run_incast(args);
        result b = run_incast(args);
        EXPECT_TRUE(std::get<bool>(*a.get("conservation_ok")));
        a.set("wall_s", 0.0);
        b.set("wall_s", 0.0);
        EXPECT_EQ(a.to_json(), b.to_json()) << transport;
    }
}

TEST(Incast, DctcpKeepsTheQueueFarBelowDropTail) {
    // DCTCP with K = 20 packets at 1 Gbps vs drop-tail NewReno, 256 KB buffer, 8 and 16 flows, minRTO 10 ms:
    // the DCTCP claim is a much shorter queue with at least the same goodput.
    for (const char* flows : {"8", "16"}) {
        const result tail = run_incast(
            {"--flows", flows, "--buffer-kb", "256", "--min-rto-ms", "10", "--duration-s", "2", "--jitter-ns", "500"});
        const result dctcp = run_incast({"--flows", flows, "--buffer-kb", "256", "--min-rto-ms", "10", "--duration-s",
                                         "2", "--jitter-ns", "500", "--transport", "dctcp", "--marking", "step"});
        EXPECT_LT(dctcp.number("mean_queue_bytes"), 0.5 * tail.number("mean_queue_bytes")) << flows;
        EXPECT_GE(dctcp.number("goodput_mbps"), 0.98 * tail.number("goodput_mbps")) << flows;
        EXPECT_GT(dctcp.number("marks"), 0) << flows;
    }
}

TEST(Incast, BadValuesNameTheField) {
    auto expect_error = [](std::vector<std::string> args, const std::string& field) {
        try {
            run_incast(args);
            ADD_FAILURE() << "no error for " << field;
        } catch (const config_error& e) {
            EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
        }
    };
    expect_error({"--flows", "0"}, "flows");
    expect_error({"--min-rto-ms", "0"}, "min_rto_ms");
    expect_error({"--transport", "bbr"}, "transport");
    expect_error({"--marking", "red", "--red-kmin-kb", "50", "--red-kmax-kb", "40"}, "red_kmax");
    expect_error({"--transport", "dctcp"}, "marking");
}

TEST(Incast, ConservationHoldsWithSegmentsWaitingInTheSendJitter) {
    // 50 us of send jitter keeps segments between TCP and the NIC at any end time; they are not frames yet,
    // so the account must still close (regression: a frame held there once broke it)
    for (const char* end : {"0.0101", "0.0333", "0.05"}) {
        const result r = run_incast({"--flows", "16", "--buffer-kb", "64", "--min-rto-ms", "1", "--duration-s", end,
                                     "--jitter-ns", "50000", "--bulk-flows", "1", "--elephant-flows", "1",
                                     "--elephant-min-mb", "0.1", "--elephant-max-mb", "0.2"});
        EXPECT_TRUE(std::get<bool>(*r.get("conservation_ok"))) << end;
    }
}

TEST(Incast, ElephantsOfRandomSizeFollowEachOther) {
    // one elephant flow alone to the client with sizes in [1, 2] MB: at ~973 Mbps of payload it moves about
    // 122 MB/s, so 1 s completes between 60 and 120 elephants
    const result r = run_incast({"--flows", "1", "--sru-kb", "1", "--elephant-flows", "1", "--elephant-min-mb", "1",
                                 "--elephant-max-mb", "2", "--duration-s", "1", "--min-rto-ms", "10"});
    EXPECT_GE(r.number("elephants_completed"), 60);
    EXPECT_LE(r.number("elephants_completed"), 120);
    EXPECT_GT(r.number("elephant_goodput_mbps"), 800);
}

TEST(Incast, PfcMakesTheIncastLosslessWhenTheBufferHoldsEveryInputsHeadroom) {
    // PFC with each server's share of a 256 KB port (32768 B for 8 servers) minus its headroom (1 Gb/s, 25 us:
    // 6250 + 3000 + 128 = 9378 B) as XOFF: no drop, no timeout, near line rate (973 Mbps of payload at most)
    const result r = run_incast({"--flows", "8", "--buffer-kb", "256", "--duration-s", "1", "--pause", "pfc"});
    EXPECT_EQ(r.number("pause_xoff_bytes"), 32768 - 9378);
    EXPECT_EQ(r.number("drops"), 0);
    EXPECT_EQ(r.number("timeouts"), 0);
    EXPECT_GT(r.number("pause_frames"), 0);
    EXPECT_GT(r.number("goodput_mbps"), 950);
    // pause episodes, counted per (NIC, class) from the PAUSE state, add up to the NICs' paused time (a separate
    // counter), all of them on the servers' data class 0; the time-weighted queue percentiles are ordered and
    // within the maximum
    const table* ep = r.find_table("pause_episodes");
    const table* hosts = r.find_table("hosts");
    ASSERT_TRUE(ep && hosts);
    auto col = [](const table* t, const std::string& name) {
        for (const auto& c : t->columns)
            if (c.first == name)
                return c.second;
        return std::vector<double>{};
    };
    double ep_ms = 0, host_ms = 0, episodes = 0;
    for (size_t i = 0; i < ep->rows(); ++i) {
        EXPECT_EQ(col(ep, "node_is_host")[i], 1);
        EXPECT_EQ(col(ep, "class")[i], 0);
        ep_ms += col(ep, "paused_ms")[i];
        episodes += col(ep, "episodes")[i];
    }
    for (double x : col(hosts, "paused_ms"))
        host_ms += x;
    EXPECT_GT(episodes, 0);
    EXPECT_EQ(episodes, r.number("pause_episodes"));
    EXPECT_NEAR(ep_ms, host_ms, 1e-9 * host_ms);
    EXPECT_LE(r.number("queue_p50_kb"), r.number("queue_p99_kb"));
    EXPECT_LE(r.number("queue_p99_kb") * 1024, r.number("max_queue_bytes"));
    // 32 servers cannot each get 9378 B of headroom plus 3 frames out of 256 KB: refused, with the numbers
    try {
        run_incast({"--flows", "32", "--buffer-kb", "256", "--duration-s", "0.1", "--pause", "pfc"});
        ADD_FAILURE() << "accepted";
    } catch (const config_error& e) {
        EXPECT_NE(std::string(e.what()).find("8192 B each"), std::string::npos) << e.what();
    }
}

TEST(Incast, RequestsArriveTogetherOrOneSerializationApart) {
    // 4 servers, an SRU of 10 segments, a 1 MB buffer (no loss). Round 1 starts at t = 0 for everyone. The
    // round ends when the client has all 40 segments; round 2's requests then arrive
    //  - simultaneous: at every server one unloaded request latency later: 2 x (64 B at 1 Gbps + 25 us) = 51.024 us;
    //  - serialized: server i's 64-byte frame leaves the client NIC i x 0.512 us after server 0's.
    for (const auto timing : {request_timing::simultaneous, request_timing::serialized}) {
        sim_context ctx;
        buffer_config buf;
        buf.port_limit_bytes = 1 << 20;
        network net(star_topology(5, 1000000000ull, 25000000ull, buf));
        tcp_config cfg;
        std::vector<tcp_stats> st(4);
        std::vector<std::unique_ptr<tcp_sender>> tx;
        std::vector<std::unique_ptr<tcp_receiver>> rx;
        std::vector<std::unique_ptr<incast_server>> srv;
        std::vector<tcp_receiver*> rxp;
        std::vector<incast_server*> srvp;
        std::vector<int> hosts;
        for (int i = 0; i < 4; ++i) {
            tx.emplace_back(new tcp_sender(net.stack(i + 1), static_cast<uint32_t>(i), 0, cfg, st[i], rng(1, i)));
            rx.emplace_back(new tcp_receiver(net.stack(0), static_cast<uint32_t>(i), i + 1, cfg, st[i]));
            srv.emplace_back(new incast_server(*tx.back(), net.nic(i + 1), 10 * 1460));
            rxp.push_back(rx.back().get());
            srvp.push_back(srv.back().get());
            hosts.push_back(i + 1);
        }
        const uint64_t latency = 2 * (serialization_ps(64, 1000000000ull) + 25000000ull);
        EXPECT_EQ(latency, 51024000u);
        incast_client app(net.stack(0), rxp, srvp, hosts, 0, 10 * 1460, 64, timing, latency, 0);
        // run until round 1 has ended and round 2's requests are in (60 us later), long before round 2 ends
        uint64_t t = 0;
        while (app.rounds_completed() < 1 && t < 100000000000ull)
            ctx.run_until(t += 1000000);
        ctx.run_until(t + 60000000);
        ASSERT_EQ(app.rounds_completed(), 1u);
        const uint64_t end1 = app.round_times_ps()[0];   // round 1 began at 0
        for (int i = 0; i < 4; ++i)
            EXPECT_EQ(srv[i]->requests(), 2u);
        if (timing == request_timing::simultaneous) {
            for (int i = 0; i < 4; ++i)
                EXPECT_EQ(srv[i]->last_request_ps(), end1 + latency) << i;
        } else {
            // frame i leaves the client NIC behind frames 0..i-1 (and behind ACKs still queued there)
            EXPECT_GE(srv[0]->last_request_ps(), end1 + latency);
            for (int i = 1; i < 4; ++i)
                EXPECT_EQ(srv[i]->last_request_ps() - srv[i - 1]->last_request_ps(), 512000u) << i;
        }
    }
}

TEST(Incast, SharedBufferMmuBoundsTheCongestedQueueByItsDynamicThreshold) {
    // 17 ports x 8 priorities x 1 KB reserved carved out of 1024 KB: 888 KB shared. One congested queue alone
    // holds at most its reserved 1 KB + alpha / (1 + alpha) of the shared pool (+ one frame of overshoot):
    // alpha 1: 1 + 444 KB; alpha 1/4: 1 + 177.6 KB.
    for (const double alpha : {1.0, 0.25}) {
        const result r = run_incast({"--flows", "16", "--buffer-policy", "shared", "--pool-kb", "1024", "--reserved-kb",
                                     "1", "--alpha", alpha == 1.0 ? "1" : "0.25", "--duration-s", "1"});
        const double shared_kb = 1024 - 17 * 8 * 1;
        const double bound_kb = 1 + alpha / (1 + alpha) * shared_kb + 1500.0 / 1024;
        EXPECT_LE(r.number("max_queue_bytes") / 1024, bound_kb) << alpha;
        EXPECT_GT(r.number("max_queue_bytes") / 1024, 0.9 * (bound_kb - 1500.0 / 1024)) << alpha;   // it fills up
        EXPECT_LE(r.number("shared_peak_kb"), shared_kb);
    }
}

TEST(Incast, JumboFramesRaiseThePauseHeadroomByTwoFramesDifference) {
    // PFC's split rule: each input's XOFF is its share of the port buffer less the headroom, which counts two
    // frames of the hosts' MTU (one leaving each end when PAUSE is sent): at MTU 9000 the headroom is
    // 2 x (9000 - 1500) = 15000 B more than at 1500, so XOFF is 15000 B less; XON stays 2 MTU below XOFF.
    const std::vector<std::string> base = {"--flows", "8",   "--buffer-kb",  "512",
                                           "--pause", "pfc", "--duration-s", "0.01"};
    auto with = [&](const char* mtu) {
        std::vector<std::string> a = base;
        a.insert(a.end(), {"--mtu-bytes", mtu});
        return run_incast(a);
    };
    const result standard = with("1500"), jumbo = with("9000");
    EXPECT_EQ(standard.number("pause_xoff_bytes") - jumbo.number("pause_xoff_bytes"), 15000);
    EXPECT_EQ(standard.number("pause_xoff_bytes") - standard.number("pause_xon_bytes"), 3000);
    EXPECT_EQ(jumbo.number("pause_xoff_bytes") - jumbo.number("pause_xon_bytes"), 18000);
    EXPECT_EQ(jumbo.number("drops"), 0);
    // 8 x 64 KB at 256 KB a share leaves room for no headroom of jumbo frames at 256 KB: refused, saying why
    std::vector<std::string> small = {"--flows", "8", "--buffer-kb", "256", "--pause", "pfc", "--mtu-bytes", "9000"};
    EXPECT_THROW(run_incast(small), config_error);
}
