// SPDX-License-Identifier: Apache-2.0
// DCQCN and DCQCN+ by hand values (docs/spec/dcqcn.md): the congestion point's marking probability, the
// notification point's CNP spacing, one cut and alpha update per reaction-point variant, the paper's fast
// recovery -> additive -> hyper increase sequence, DCQCN+'s timer period and increase rules; then whole RoCE
// incasts against conservation, losslessness and line rate.
#include "config/errors.h"
#include "model/cm/dcqcn/dcqcn_endpoint.h"
#include "model/cm/dcqcn/dcqcn_rp.h"
#include "model/cm/dcqcn/dcqcn_scheme.h"
#include "platform/scenario.h"
#include "platform/sim_context.h"
#include "testing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace cmswitch;

TEST(DcqcnCongestionPoint, MarkingProbabilityAtKminMidAndKmax) {
    // the paper's Kmin 5 KB, Kmax 200 KB, Pmax 1 %
    const dcqcn_marker m(5 * 1024, 200 * 1024, 0.01);
    EXPECT_EQ(m.probability(0), 0.0);
    EXPECT_EQ(m.probability(5 * 1024), 0.0);   // q <= Kmin: never
    EXPECT_DOUBLE_EQ(m.probability((5 + 200) * 1024 / 2), 0.005);   // half way: Pmax / 2
    EXPECT_DOUBLE_EQ(m.probability(200 * 1024), 0.01);   // at Kmax: Pmax
    EXPECT_EQ(m.probability(200 * 1024 + 1), 1.0);   // above: every frame
}

namespace {
// A NIC as its engine sees it: frames it transmits and CNPs it makes are recorded, timers run from an event domain.
struct nic_bench final : nic_services, event_handler {
    int host_id() const override { return 0; }
    sim_context ctx;
    event_domain events{"events", true};
    frame_pool pool;
    std::vector<std::pair<uint64_t, uint32_t>> sent;   // (time, flow) of data frames transmitted
    std::vector<frame> cnps;
    void transmit(frame* f, uint64_t now) override {
        sent.emplace_back(now, f->flow);
        pool.release(f);
    }
    void flow_writable(uint32_t, uint64_t) override {}
    void schedule_timer(uint64_t t, timer_client* c, uint32_t tag) override { events.schedule(t, this, 0, tag, c); }
    void send_own(frame* f) override {
        cnps.push_back(*f);
        pool.release(f);
    }
    frame_pool& frames() override { return pool; }
    uint64_t egress_backlog_bytes() const override { return 0; }
    uint64_t egress_free_at() const override { return 0; }
    void on_event(uint32_t, uint32_t index, void* ptr) override { static_cast<timer_client*>(ptr)->on_timer(index); }
};

frame data_frame(uint32_t flow, uint8_t ecn) {
    frame f;
    f.kind = frame_kind::rdma;
    f.flow = flow;
    f.src = 0;
    f.dst = 1;
    f.bytes = 1086;
    f.payload = 1024;
    f.ecn = ecn;
    return f;
}

dcqcn_endpoint_config endpoint_config(dcqcn_variant v, double line) {
    dcqcn_endpoint_config c;
    c.rp = dcqcn_variant_defaults(v, line);
    c.np.adaptive = v == dcqcn_variant::plus;
    return c;
}
}   // namespace

TEST(DcqcnNotificationPoint, OneCnpPerFlowPerIntervalN) {
    // CE-marked frames of one flow every 10 us for 200 us with N = 50 us: CNPs at 0, 50, 100, 150 us (the frame at
    // 50 us is exactly N after the first); another flow has its own interval; unmarked frames make none
    {   // one simulation context at a time: this bench goes before the next
        nic_bench b;
        dcqcn_endpoint np(endpoint_config(dcqcn_variant::paper, 10e9), 10e9);
        np.attach(b);
        for (uint64_t t = 0; t < 200; t += 10) {
            np.on_receive(data_frame(7, ecn_ce), t * 1000000);
            np.on_receive(data_frame(8, ecn_ect0), t * 1000000);
        }
        np.on_receive(data_frame(9, ecn_ce), 30000000);
        ASSERT_EQ(b.cnps.size(), 5u);
        std::vector<uint64_t> flow7;
        for (const frame& c : b.cnps) {
            EXPECT_EQ(c.kind, frame_kind::cnp);
            EXPECT_EQ(c.dst, 0);   // back to the data's source
            if (c.flow == 7)
                flow7.push_back(c.created_ps / 1000000);
        }
        EXPECT_EQ(flow7, (std::vector<uint64_t>{0, 50, 100, 150}));
    }
    // N = 0: one CNP per marked frame
    nic_bench b0;
    dcqcn_endpoint_config c0 = endpoint_config(dcqcn_variant::paper, 10e9);
    c0.np.cnp_interval_ps = 0;
    dcqcn_endpoint np0(c0, 10e9);
    np0.attach(b0);
    for (uint64_t t = 0; t < 5; ++t)
        np0.on_receive(data_frame(1, ecn_ce), t * 1000000);
    EXPECT_EQ(b0.cnps.size(), 5u);
}

TEST(DcqcnNotificationPoint, DcqcnPlusPeriodGrowsWithTheFlowsServed) {
    // 200 flows deliver data within one 1 ms window: the next window's tau = 200 x 1 us = 200 us (above N = 50 us);
    // 20 flows would give 20 us, so tau stays at N
    nic_bench b;
    dcqcn_endpoint np(endpoint_config(dcqcn_variant::plus, 10e9), 10e9);
    np.attach(b);
    for (uint32_t f = 0; f < 200; ++f)
        np.on_receive(data_frame(f, ecn_ect0), 1000 + f);
    np.on_receive(data_frame(0, ecn_ce), 1000000000 + 1000);   // the window ended: counted 200
    EXPECT_EQ(np.flows_counted(), 200u);
    EXPECT_EQ(np.cnp_period_ps(), 200000000u);
    ASSERT_EQ(b.cnps.size(), 1u);
    EXPECT_EQ(b.cnps[0].ctl.cnp.period_ns, 200000u);   // carried to the reaction point
    for (uint32_t f = 0; f < 20; ++f)
        np.on_receive(data_frame(f, ecn_ect0), 1500000000 + f);
    np.on_receive(data_frame(0, ecn_ect0), 2000000000 + 2000);
    EXPECT_EQ(np.flows_counted(), 20u);   // flow 0's marked frame opened the window, then flows 1..19
    EXPECT_EQ(np.cnp_period_ps(), 50000000u);
}

TEST(DcqcnReactionPoint, PaperCutsWithTheOldAlphaThenUpdatesIt) {
    dcqcn_rp_config c = dcqcn_variant_defaults(dcqcn_variant::paper, 10e9);
    c.alpha_init = 0.5;
    const dcqcn_rate_control rc(c, 10e9);
    dcqcn_flow f;
    rc.init(f);
    rc.on_cnp(f, 0, 0);
    // RT = RC = 10 G; RC = 10 G x (1 - 0.5 / 2) = 7.5 G; alpha = (255/256) 0.5 + 1/256 = 0.501953125
    EXPECT_DOUBLE_EQ(f.rt, 10e9);
    EXPECT_DOUBLE_EQ(f.rc, 7.5e9);
    EXPECT_DOUBLE_EQ(f.alpha, 0.501953125);
    // 3 alpha periods (55 us) without a CNP: alpha x (255/256)^3
    EXPECT_DOUBLE_EQ(rc.alpha_at(f, 3 * 55000000 + 1), 0.501953125 * std::pow(255.0 / 256, 3));
}

TEST(DcqcnReactionPoint, Ns3RdmaUpdatesAlphaFirst) {
    const dcqcn_rp_config c = dcqcn_variant_defaults(dcqcn_variant::ns3_rdma, 10e9);   // alpha starts at 0.5
    const dcqcn_rate_control rc(c, 10e9);
    dcqcn_flow f;
    rc.init(f);
    rc.on_cnp(f, 0, 0);
    // alpha = 0.501953125 first; RC = 10 G x (1 - 0.501953125 / 2) = 7.490234375 G
    EXPECT_DOUBLE_EQ(f.alpha, 0.501953125);
    EXPECT_DOUBLE_EQ(f.rc, 7.490234375e9);
    EXPECT_DOUBLE_EQ(f.rt, 10e9);
    // the TR guard: after a cut to below a tenth of RT, the first stage divides RT by 8 instead of increasing
    dcqcn_flow g;
    rc.init(g);
    g.limited = true;
    g.rc = 0.5e9;
    g.rt = 10e9;
    rc.on_rate_timer(g);   // T = 1
    EXPECT_DOUBLE_EQ(g.rt, 1.25e9);
    EXPECT_DOUBLE_EQ(g.rc, 0.875e9);
}

TEST(DcqcnReactionPoint, MlxCutsOncePerDecreasePeriodWithTheTimedAlpha) {
    const dcqcn_rp_config c = dcqcn_variant_defaults(dcqcn_variant::mlx, 25e9);
    EXPECT_DOUBLE_EQ(c.rai_bps, 5e6);   // 5 Mb/s x 25/25
    EXPECT_DOUBLE_EQ(c.rhai_bps, 50e6);
    const dcqcn_rate_control rc(c, 25e9);
    dcqcn_flow f;
    rc.init(f);
    // first CNP: alpha = 1, RC = RT = 1.0 x 25 G; the cut comes at the decrease timer's first tick, 1 ns later
    EXPECT_TRUE(rc.on_cnp(f, 0, 0));
    EXPECT_EQ(rc.decrease_at(f, 0), 1000u);
    rc.on_decrease_timer(f, 1000);
    EXPECT_DOUBLE_EQ(f.rc, 12.5e9);   // 25 G x (1 - 1/2)
    EXPECT_DOUBLE_EQ(f.rt, 25e9);   // stage 0: no clamp
    // a CNP at 10 us: the alpha ticks (1 us) before it decayed alpha 10 times (no CNP in those periods)
    EXPECT_TRUE(rc.on_cnp(f, 10000000, 0));
    EXPECT_DOUBLE_EQ(f.alpha, std::pow(255.0 / 256, 10));
    EXPECT_FALSE(rc.on_cnp(f, 10500000, 0));   // a cut is already pending: at most one per period
    // the cut at the next 4 us tick (12.001 us): the tick at 11 us saw the CNP ((1-g) alpha + g), 12 us decayed
    const uint64_t at = rc.decrease_at(f, 10500000);
    EXPECT_EQ(at, 12001000u);
    rc.on_decrease_timer(f, at);
    const double alpha = ((255.0 / 256) * std::pow(255.0 / 256, 10) + 1.0 / 256) * (255.0 / 256);
    EXPECT_DOUBLE_EQ(f.alpha, alpha);
    EXPECT_DOUBLE_EQ(f.rc, 12.5e9 * (1 - alpha / 2));
    // increase (T_inc): stage 0 < F = 1 fast recovery; stage 1 == F additive once; then hyper by a constant 50 Mb/s
    const double rc0 = f.rc;
    rc.on_rate_timer(f);
    EXPECT_DOUBLE_EQ(f.rc, (rc0 + 25e9) / 2);
    f.rt = 20e9;   // below line rate, so that the steps show
    rc.on_rate_timer(f);
    EXPECT_DOUBLE_EQ(f.rt, 20.005e9);
    rc.on_rate_timer(f);
    EXPECT_DOUBLE_EQ(f.rt, 20.055e9);
    rc.on_rate_timer(f);
    EXPECT_DOUBLE_EQ(f.rt, 20.105e9);
}

TEST(DcqcnReactionPoint, PaperFastRecoveryThenAdditiveThenHyperIncrease) {
    dcqcn_rp_config c = dcqcn_variant_defaults(dcqcn_variant::paper, 10e9);   // F 5, R_AI 40 M, R_HAI 400 M
    c.byte_counter_bytes = 1000;
    const dcqcn_rate_control rc(c, 10e9);
    dcqcn_flow f;
    rc.init(f);
    rc.on_cnp(f, 0, 0);   // alpha 1: RT = 10 G, RC = 5 G
    rc.on_cnp(f, 1, 0);   // RT = 5 G, RC = 2.5 G
    ASSERT_DOUBLE_EQ(f.rt, 5e9);
    ASSERT_DOUBLE_EQ(f.rc, 2.5e9);
    // timer stages 1..4: fast recovery, RC = (RT + RC) / 2 toward RT = 5 G
    const double fr[] = {3.75e9, 4.375e9, 4.6875e9, 4.84375e9};
    for (double want : fr) {
        rc.on_rate_timer(f);
        EXPECT_DOUBLE_EQ(f.rc, want);
        EXPECT_DOUBLE_EQ(f.rt, 5e9);
    }
    // T = 5 and 6 (BC = 0): additive, RT += 40 Mb/s
    rc.on_rate_timer(f);
    EXPECT_DOUBLE_EQ(f.rt, 5.04e9);
    EXPECT_DOUBLE_EQ(f.rc, (5.04e9 + 4.84375e9) / 2);
    rc.on_rate_timer(f);
    EXPECT_DOUBLE_EQ(f.rt, 5.08e9);
    // byte stages 1..5 (T = 6): still additive; BC = 6 > F with T = 6 > F: hyper, RT += 1 x 400, then 2 x 400
    for (int i = 1; i <= 5; ++i) {
        rc.on_sent(f, 1000);
        EXPECT_DOUBLE_EQ(f.rt, 5.08e9 + i * 40e6);
    }
    rc.on_sent(f, 1000);
    EXPECT_DOUBLE_EQ(f.rt, 5.28e9 + 400e6);
    rc.on_sent(f, 1000);
    EXPECT_DOUBLE_EQ(f.rt, 5.68e9 + 800e6);
    EXPECT_EQ(f.hai_i, 2u);
    // RT never passes the line rate
    for (int i = 0; i < 20; ++i)
        rc.on_sent(f, 1000);
    EXPECT_DOUBLE_EQ(f.rt, 10e9);
}

TEST(DcqcnPlus, TimerPeriodIsLambdaTimesTheLargerOfTauAndOneMtuAtRc) {
    dcqcn_rp_config c = dcqcn_variant_defaults(dcqcn_variant::plus, 10e9);
    c.mtu_bytes = 1086;
    const dcqcn_rate_control rc(c, 10e9);
    dcqcn_flow f;
    rc.init(f);
    f.tau_ps = 400000000;   // tau = 400 us
    f.rc = 10e6;   // MTU / RC = 1086 x 8 / 10 Mb/s = 868.8 us > tau
    EXPECT_EQ(rc.rate_timer_period(f), 868800000u);
    f.rc = 1e9;   // 8.688 us < tau: K = tau
    EXPECT_EQ(rc.rate_timer_period(f), 400000000u);
    c.lambda = 2;
    const dcqcn_rate_control rc2(c, 10e9);
    EXPECT_EQ(rc2.rate_timer_period(f), 800000000u);
}

TEST(DcqcnPlus, IncreaseRulesByStage) {
    // F = 5, R_l = line rate 10 G. S < 5: fast recovery; 5 <= S < 20: RT += min(RC/10, R_l/100);
    // S >= 20: RT += min(RC, (S - 20)/100 R_l)
    const dcqcn_rate_control rc(dcqcn_variant_defaults(dcqcn_variant::plus, 10e9), 10e9);
    dcqcn_flow f;
    rc.init(f);
    rc.on_cnp(f, 0, 50000000);   // alpha 1: RT 10 G, RC 5 G; tau 50 us carried
    EXPECT_EQ(f.tau_ps, 50000000u);
    f.rt = 1e9;
    f.rc = 0.5e9;
    for (int s = 1; s <= 4; ++s)
        rc.on_rate_timer(f);
    EXPECT_DOUBLE_EQ(f.rt, 1e9);
    EXPECT_DOUBLE_EQ(f.rc, 1e9 - 0.5e9 / 16);   // four halvings of the gap
    const double rc4 = f.rc;
    rc.on_rate_timer(f);   // S = 5: RT += min(RC / 10, 100 Mb/s) = 96.875 Mb/s
    EXPECT_DOUBLE_EQ(f.rt, 1e9 + rc4 / 10);
    f.stage = 22;   // next expiry S = 23: RT += min(RC, 3/100 x 10 G = 300 Mb/s)
    const double rt = f.rt;
    rc.on_rate_timer(f);
    EXPECT_DOUBLE_EQ(f.rt, rt + 300e6);
}

TEST(DcqcnScheme, VariantsAndRangesAreChecked) {
    auto sc = make_scenario("rdma-incast");
    EXPECT_THROW(sc->params().parse_args({"--dcqcn-rp-variant", "cx7"}), config_error);
    sc->params().parse_args({"--dcqcn-kmin-kb", "300", "--duration-s", "0.001"});
    EXPECT_THROW(sc->run(), config_error);   // Kmax 200 KB <= Kmin 300 KB
    auto plus = make_scenario("rdma-incast");
    plus->params().parse_args({"--cm", "dcqcn+", "--dcqcnp-max-interval-us", "20", "--duration-s", "0.001"});
    EXPECT_THROW(plus->run(), config_error);   // tau's maximum below its minimum N = 50 us
    auto tcp = make_scenario("incast");
    tcp->params().parse_args({"--cm", "dcqcn", "--duration-s", "0.001"});
    try {
        tcp->run();
        FAIL() << "dcqcn over TCP was accepted";
    } catch (const config_error& e) {
        EXPECT_NE(std::string(e.what()).find("cm = dcqcn needs transport = rdma"), std::string::npos) << e.what();
    }
}

namespace {
result run_rdma(const std::vector<std::string>& args) {
    auto sc = make_scenario("rdma-incast");
    sc->params().parse_args(args);
    return sc->run();
}
}   // namespace

TEST(RdmaIncast, QueuePairsShareTheLinkAtLineRateWithoutCongestionControl) {
    // one sender, 4 QPs, no DCQCN: the NIC schedules them in turn at line rate; the switch forwards at line rate,
    // so nothing queues; payload = 1024 / 1086 of 10 Gb/s
    const result r = run_rdma({"--senders", "1", "--qps", "4", "--cm", "none", "--marking", "none", "--duration-s",
                               "0.01", "--start-spread-us", "0"});
    EXPECT_NEAR(r.number("bottleneck_utilization"), 1.0, 0.001);
    EXPECT_NEAR(r.number("goodput_gbps"), 10.0 * 1024 / 1086, 0.01);
    EXPECT_GT(r.number("jain_fairness"), 0.999);
    EXPECT_LE(r.number("bottleneck_max_queue_bytes"), 1086);
    EXPECT_EQ(r.number("drops"), 0);
}

TEST(RdmaIncast, PfcKeepsEveryRandomizedIncastLossless) {
    for (const char* seed : {"1", "2", "3"})
        for (const char* cm : {"none", "dcqcn", "dcqcn+"}) {
            const result r = run_rdma({"--senders", "8", "--qps", "4", "--link-gbps", "40", "--cm", cm, "--seed", seed,
                                       "--duration-s", "0.004", "--start-spread-us", "20", "--buffer-kb", "600"});
            EXPECT_EQ(r.number("drops"), 0) << seed << " " << cm;
            EXPECT_GT(r.number("pause_frames"), 0) << seed << " " << cm;   // the burst needed PFC
            EXPECT_TRUE(std::get<bool>(*r.get("conservation_ok")));
        }
    // a shared buffer with dynamic thresholds: the split gives the inputs alpha / (1 + alpha) of the pool (what one
    // congested port can hold), 600 KB x 1/2 here, so PFC stops them before the threshold drops anything
    for (const char* seed : {"1", "2"}) {
        const result r =
            run_rdma({"--senders", "8", "--qps", "4", "--link-gbps", "40", "--cm", "dcqcn", "--seed", seed,
                      "--duration-s", "0.004", "--buffer-policy", "dynamic", "--pool-kb", "600", "--alpha", "1"});
        EXPECT_EQ(r.number("drops"), 0) << seed;
        EXPECT_EQ(r.number("pause_xoff_bytes"), 600 * 1024 / 2 / 8 - 20552);   // share minus 40 Gb/s headroom
        EXPECT_GT(r.number("pause_frames"), 0);
    }
}

TEST(RdmaIncast, GoBackNDeliversEverythingInOrderWhenPfcIsOff) {
    // PFC off and a small buffer: the incast drops; NACKs and timeouts make every QP deliver its whole message
    const result r = run_rdma({"--senders", "4", "--qps", "2", "--pause", "none", "--cm", "none", "--marking", "none",
                               "--buffer-kb", "50", "--message-kb", "256", "--rto-us", "500", "--duration-s", "0.05"});
    EXPECT_GT(r.number("drops"), 0);
    EXPECT_EQ(r.number("qps_done"), 8);
    EXPECT_EQ(r.number("payload_delivered_bytes"), 8 * 256 * 1024.0);   // every byte of 8 messages, once
    EXPECT_GT(r.number("retransmitted_bytes_total"), 0);
    EXPECT_TRUE(std::get<bool>(*r.get("conservation_ok")));
}

TEST(RdmaIncast, DcqcnCutsTheRatesAndCnpsReachTheSenders) {
    const result r = run_rdma({"--senders", "4", "--qps", "4", "--duration-s", "0.02"});
    EXPECT_GT(r.number("cnps_sent"), 0);
    EXPECT_EQ(r.number("cnps_sent"), r.number("cnps_received"));   // CNPs ride the control priority: none lost
    EXPECT_GT(r.number("marks"), 0);
    EXPECT_NEAR(r.number("bottleneck_utilization"), 1.0, 0.05);
    EXPECT_TRUE(std::get<bool>(*r.get("converged")));
}
