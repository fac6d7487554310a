// SPDX-License-Identifier: Apache-2.0
// QCN congestion point and reaction point against hand-computed values (docs/spec/qcn-cp.md, qcn-rp.md).
#include "config/errors.h"
#include "model/cm/qcn/qcn_congestion_points.h"
#include "model/cm/qcn/qcn_cp.h"
#include "model/cm/qcn/qcn_rp.h"
#include "model/ethernet_link.h"
#include "model/switch/ethernet_switch.h"
#include "platform/scenario.h"
#include "testing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace cmswitch;

namespace {
qcn_cp_config cp_cfg(const char* sampling = "standard") {
    qcn_cp_config c;
    c.sampling = sampling;
    c.qeq_bytes = 26000;
    c.jitter = 0;   // exact intervals for hand calculation
    return c;
}
}   // namespace

TEST(QcnCongestionPoint, FeedbackAndQuantization) {
    qcn_congestion_point cp(cp_cfg(), 150000, rng(1, 0));
    // Fbmax = (2w + 1) Qeq = 5 x 26000 = 130000
    // qlen = 26000 = Qeq, qlen_old = 0: Fb = -(0 + 2 x 26000) = -52000 -> q = floor(63 x 52000 / 130000) = 25
    EXPECT_EQ(cp.feedback(26000), -52000);
    EXPECT_EQ(cp.quantize(52000), 25);
    // below the set point and not growing much: Fb > 0 is clamped to 0
    EXPECT_EQ(cp.feedback(1000), -(1000 - 26000 + 2 * 1000) < 0 ? -(1000 - 26000 + 2 * 1000) : 0);
    EXPECT_EQ(cp.feedback(1000), 0);
    // saturation: |Fb| >= Fbmax -> 63
    EXPECT_EQ(cp.feedback(100000), -130000);
    EXPECT_EQ(cp.quantize(130000), 63);
    EXPECT_EQ(cp.quantize(2063), 0);   // 63 x 2063 / 130000 = 0.9998
    EXPECT_EQ(cp.quantize(2064), 1);
    // the 8-level table, base 150 KB
    const uint64_t table[8] = {150000, 75000, 50000, 37500, 30000, 25000, 21500, 18500};
    for (int i = 0; i < 8; ++i)
        EXPECT_EQ(cp.interval_bytes(static_cast<uint8_t>(8 * i + 3)), table[i]);
}

TEST(QcnCongestionPoint, SamplesEveryIntervalAndSendsOnlyNegativeFeedback) {
    qcn_congestion_point cp(cp_cfg(), 150000, rng(1, 0));
    // a queue standing at 10000 B (below Qeq) for 1500-byte arrivals: the first sample is due after 150000 B,
    // i.e. at the 101st frame (time_to_mark goes below 0); at the sample Qdelta = 10000 - 0 = 10000,
    // Fb = -((10000 - 26000) + 2 x 10000) = -4000 -> q = floor(63 x 4000 / 130000) = 1: a CNM
    int first = -1;
    for (int i = 1; i <= 101; ++i) {
        const qcn_feedback fb = cp.on_arrival(1500, 10000, 0);
        if (fb.send && first < 0) {
            first = i;
            EXPECT_EQ(fb.qntz_fb, 1);
            EXPECT_EQ(fb.qoff, 16000);
            EXPECT_EQ(fb.qdelta, 10000);
        }
    }
    EXPECT_EQ(first, 101);
    EXPECT_EQ(cp.samples(), 1u);
    // the next sample: q = 1 (band 0) -> 150000 B again, from -1000 left over: 100 frames later...
    // ...and now Qdelta = 0: Fb = -(10000 - 26000) = +16000 -> clamped to 0, a sample without a CNM
    for (int i = 0; i < 101; ++i)
        EXPECT_FALSE(cp.on_arrival(1500, 10000, 0).send);
    EXPECT_EQ(cp.samples(), 2u);
    EXPECT_EQ(cp.cnms(), 1u);
}

TEST(QcnCongestionPoint, HeavyCongestionSamplesMoreOften) {
    // a queue far above Qeq: q = 63 -> band 7 -> one sample per 18500 B (13 frames of 1500 B: 19500 > 18500)
    qcn_congestion_point cp(cp_cfg(), 1 << 20, rng(1, 0));
    for (int i = 0; i < 101; ++i)   // reach the first sample (below 0 after 150000 B: the 101st frame)
        cp.on_arrival(1500, 200000, 0);
    const uint64_t s0 = cp.samples();
    ASSERT_EQ(s0, 1u);
    for (int i = 0; i < 13 * 10; ++i)
        cp.on_arrival(1500, 200000, 0);
    EXPECT_EQ(cp.samples() - s0, 10u);
    // detailed sampling: the top band's 8 levels fall geometrically from the standard 18500 B (q = 56) to 1000 B
    // (q = 63): 18500 x (1000/18500)^((q - 56)/7); every level samples at least as often as the standard table
    // does at the same q, and the lower bands are unchanged
    qcn_congestion_point d(cp_cfg("detailed"), 1 << 20, rng(1, 0));
    const uint64_t expected[8] = {18500, 12194, 8038, 5298, 3492, 2302, 1517, 1000};
    for (int q = 56; q <= 63; ++q) {
        EXPECT_EQ(d.interval_bytes(static_cast<uint8_t>(q)), expected[q - 56]) << q;
        EXPECT_LE(d.interval_bytes(static_cast<uint8_t>(q)), cp.interval_bytes(static_cast<uint8_t>(q))) << q;
    }
    EXPECT_EQ(d.interval_bytes(55), 21500u);
    // at q = 63 every frame is a sample
    for (int i = 0; i < 101; ++i)
        d.on_arrival(1500, 200000, 0);
    const uint64_t d0 = d.samples();
    for (int i = 0; i < 20; ++i)
        d.on_arrival(1500, 200000, 0);
    EXPECT_EQ(d.samples() - d0, 20u);   // intervals of 1000 x U(0.85, 1.15) B < 1500 B: every frame
}

TEST(QcnCongestionPoint, CongestionMemoryDividesTheIntervalAndDecays) {
    qcn_cp_config c = cp_cfg("memory");
    c.memory_decay_ps = 10000000000ull;   // 10 ms
    qcn_congestion_point cp(c, 100000, rng(1, 0));
    // crossing above 90 % of the 100000-byte buffer raises the memory by one per crossing
    cp.on_arrival(1500, 95000, 0);
    EXPECT_EQ(cp.memory(), 1u);
    cp.on_arrival(1500, 96000, 1);   // still above: no new event
    EXPECT_EQ(cp.memory(), 1u);
    cp.on_arrival(1500, 10000, 2);
    cp.on_arrival(1500, 95000, 3);
    EXPECT_EQ(cp.memory(), 2u);
    // decays one step per 10 ms after the first event
    cp.on_arrival(1500, 10000, 10000000001ull);
    EXPECT_EQ(cp.memory(), 1u);
    cp.on_arrival(1500, 10000, 20000000001ull);
    EXPECT_EQ(cp.memory(), 0u);
}

namespace {
// A NIC as a reaction point sees it: what it transmits is recorded, timers run from an event domain.
struct rp_bench final : nic_services, event_handler {
    int host_id() const override { return 0; }
    sim_context ctx;
    event_domain events{"events", true};
    std::vector<std::pair<uint64_t, uint32_t>> sent;   // (time, bytes)
    frame_pool pool;
    void transmit(frame* f, uint64_t now) override {
        sent.emplace_back(now, f->bytes);
        pool.release(f);
    }
    void flow_writable(uint32_t, uint64_t) override {}
    void schedule_timer(uint64_t t, timer_client* c, uint32_t tag) override { events.schedule(t, this, 0, tag, c); }
    void send_own(frame* f) override { pool.release(f); }
    frame_pool& frames() override { return pool; }
    uint64_t egress_backlog_bytes() const override { return 0; }
    uint64_t egress_free_at() const override { return 0; }
    void on_event(uint32_t, uint32_t index, void* ptr) override { static_cast<timer_client*>(ptr)->on_timer(index); }
};
qcn_rp_config rp_cfg() {
    qcn_rp_config c;
    c.jitter = 0;
    return c;
}
}   // namespace

TEST(QcnReactionPoint, DecreaseTargetAndFastRecovery) {
    rp_bench b;
    qcn_reaction_point rp(rp_cfg(), 1e9, rng(1, 0));
    rp.attach(b);
    EXPECT_EQ(rp.rate_bps(0), 1e9);   // no limiter: line rate
    // q = 32: CR = 1000 x (1 - 32/128) = 750 Mbps; first CNM: TR stays at line rate
    rp.on_cnm(0, 32, 0);
    const auto* rl = rp.find(0);
    ASSERT_TRUE(rl && rl->active);
    EXPECT_DOUBLE_EQ(rl->cr, 750e6);
    EXPECT_DOUBLE_EQ(rl->tr, 1000e6);
    // 150000 B sent through the limiter complete one byte-counter cycle: fast recovery CR = (CR + TR) / 2
    for (int i = 0; i < 101; ++i) {   // one frame every 100 us (slower than CR: each leaves at once)
        frame* f = b.pool.acquire();
        f->bytes = 1500;
        EXPECT_EQ(rp.take(f, now_ps()), reaction_point::take_result::taken);
        b.ctx.run_until(now_ps() + 100000000);
    }
    EXPECT_EQ(rl->si_count, 1u);
    EXPECT_DOUBLE_EQ(rl->cr, 875e6);
    // a second CNM (q = 63) outside the first cycle: TR = CR = 875, CR = 875 x (1 - 63/128) = 444.3359375 Mbps
    rp.on_cnm(0, 63, now_ps());
    EXPECT_DOUBLE_EQ(rl->tr, 875e6);
    EXPECT_DOUBLE_EQ(rl->cr, 875e6 * (1 - 63.0 / 128));
}

TEST(QcnReactionPoint, FrameSpacingFollowsTheCurrentRate) {
    rp_bench b;
    qcn_reaction_point rp(rp_cfg(), 1e9, rng(1, 0));
    rp.attach(b);
    rp.on_cnm(0, 64, 0);   // 1 - 64/128 = 0.5 -> 500 Mbps
    for (int i = 0; i < 3; ++i) {
        frame* f = b.pool.acquire();
        f->bytes = 1500;
        rp.take(f, 0);
    }
    b.ctx.run_until(1000000000ull);
    ASSERT_EQ(b.sent.size(), 3u);
    EXPECT_EQ(b.sent[0].first, 0u);
    EXPECT_EQ(b.sent[1].first, 24000000u);   // 1500 B at 500 Mbps = 24 us
    EXPECT_EQ(b.sent[2].first, 48000000u);
}

TEST(QcnReactionPoint, TimerCyclesFastRecoveryThenActiveIncreaseThenRemoval) {
    // no traffic: only the timer drives increases. After the CNM (q = 64 -> CR 500, TR 1000):
    // timer cycles 1..5 are fast recovery: CR -> 750, 875, 937.5, 968.75, 984.375 (every 15 ms)
    // cycle 6 (> FR_TH) is active increase: TR = 1005, CR = (984.375 + 1005)/2 = 994.6875 (after 7.5 ms, halved)
    rp_bench b;
    qcn_reaction_point rp(rp_cfg(), 1e9, rng(1, 0));
    rp.attach(b);
    rp.on_cnm(0, 64, 0);
    const auto* rl = rp.find(0);
    const double expect_cr[] = {750e6, 875e6, 937.5e6, 968.75e6, 984.375e6};
    for (int k = 1; k <= 5; ++k) {
        b.ctx.run_until(static_cast<uint64_t>(k) * 15000000000ull + 1);
        EXPECT_EQ(rl->timer_scount, static_cast<uint32_t>(k));
        EXPECT_DOUBLE_EQ(rl->cr, expect_cr[k - 1]) << "timer cycle " << k;
    }
    // the 5th expiry halves the period: the 6th comes 7.5 ms later, at 82.5 ms
    b.ctx.run_until(82500000000ull - 1);
    EXPECT_EQ(rl->timer_scount, 5u);
    b.ctx.run_until(82500000000ull + 1);
    EXPECT_EQ(rl->timer_scount, 6u);
    EXPECT_DOUBLE_EQ(rl->tr, 1005e6);
    EXPECT_DOUBLE_EQ(rl->cr, (984.375e6 + 1005e6) / 2);
    // a frame sent once CR has reached line rate (cycle 7: TR 1010, CR capped at 1000) removes the limiter
    b.ctx.run_until(90000000000ull + 1);
    EXPECT_DOUBLE_EQ(rl->cr, 1e9);
    frame* f = b.pool.acquire();
    f->bytes = 1500;
    EXPECT_EQ(rp.take(f, 90000000001ull), reaction_point::take_result::taken);
    EXPECT_FALSE(rl->active);
    EXPECT_EQ(rp.rate_bps(0), 1e9);
}

TEST(QcnReactionPoint, TargetGuardAfterADeepCut) {
    // min rate 10 Mbps: q = 63 twice from 1000 Mbps: CR 507.8 then... cut to the floor with a high TR:
    // with min_dec_factor 0.01 and gd 1/64, q = 63 cuts to 1.5 % -> CR = 15.6 Mbps, TR = 1000 > 10 CR:
    // the first self-increase divides TR by 8 (125 Mbps) instead of adding, CR = (15.625 + 125)/2
    qcn_rp_config c = rp_cfg();
    c.gd = 1.0 / 64;
    c.min_dec_factor = 0.01;
    rp_bench b;
    qcn_reaction_point rp(c, 1e9, rng(1, 0));
    rp.attach(b);
    rp.on_cnm(0, 63, 0);
    const auto* rl = rp.find(0);
    EXPECT_DOUBLE_EQ(rl->cr, 1e9 * (1 - 63.0 / 64));
    b.ctx.run_until(15000000000ull + 1);
    EXPECT_DOUBLE_EQ(rl->tr, 125e6);
    EXPECT_DOUBLE_EQ(rl->cr, (1e9 * (1 - 63.0 / 64) + 125e6) / 2);
}

TEST(QcnReactionPoint, AdaptiveRaiDividesTheIncreaseByTheFeedbackMemory) {
    // M = 64 + 64 = 128 after two CNMs of q = 64 -> R_AI / max(1, 128/64) = 2.5 Mbps once in active increase
    qcn_rp_config c = rp_cfg();
    c.adaptive_rai = true;
    rp_bench b;
    qcn_reaction_point rp(c, 1e9, rng(1, 0));
    rp.attach(b);
    rp.on_cnm(0, 64, 0);
    rp.on_cnm(0, 64, 0);   // inside the first byte-counter cycle: TR stays 1000, CR = 250
    const auto* rl = rp.find(0);
    EXPECT_DOUBLE_EQ(rl->memory, 128);
    // six timer expiries: M = 122 by the 6th; the 6th is active increase: TR += 5 / (122/64)
    b.ctx.run_until(82500000000ull + 1);
    EXPECT_EQ(rl->timer_scount, 6u);
    EXPECT_DOUBLE_EQ(rl->memory, 122);
    EXPECT_NEAR(rl->tr, 1000e6 + 5e6 / (122.0 / 64), 1e-3);
}

TEST(Qcn, UdpSourcesConvergeToFairSharesAroundQeqWithoutDrops) {
    // 4 line-rate UDP sources into one 10 Gbps port with QCN: each converges near 1/4 of the port, the queue
    // oscillates around Qeq (26000 B), and the bottleneck drops nothing once converged (after 0.5 s). QCN is
    // fair over seconds, not milliseconds: over 2 s one flow can be 20 % off its share (seen on several seeds),
    // over 5 s the worst of 6 seeds was 12.7 % off; shares are measured over the 5 s after the warm-up.
    auto sc = make_scenario("overload");
    sc->params().parse_args({"--senders", "4", "--link-gbps", "10", "--load", "4", "--cm", "qcn", "--duration-s", "5.5",
                             "--warmup-s", "0.5", "--buffer-kb", "150"});
    const result r = sc->run();
    EXPECT_EQ(r.number("drops_after_warmup"), 0);
    EXPECT_NEAR(r.number("mean_queue_bytes_after_warmup"), 26000, 0.25 * 26000);
    EXPECT_GT(r.number("bottleneck_utilization"), 0.98);
    const table* t = r.find_table("flow_rates_after_warmup");
    ASSERT_NE(t, nullptr);
    double sum = 0, sq = 0;
    for (double mbps : t->columns[1].second) {
        EXPECT_NEAR(mbps, 2500, 0.15 * 2500);
        sum += mbps;
        sq += mbps * mbps;
    }
    EXPECT_GT(sum * sum / (4 * sq), 0.99);   // Jain's fairness index
}

TEST(Qcn, TheCongestionPointSamplesOnlyEnqueuedFramesAndCnmsBypassTheBuffer) {
    // A 2-port switch, 3000 B per port. Ten 1500-byte frames from host 0 to host 1 arrive at once: the 1st starts
    // transmission, the 2nd and 3rd fill the queue, 7 are dropped. The congestion point on port 1 sees the 3
    // enqueued frames only (802.1Qau: the CP runs on enqueue), so its byte count to the next sample falls by
    // 4500 B, not 15000. With a set point of 1000 B and a sample every 1000 B, each of them is a sample with
    // negative feedback: CNMs to host 0, through port 0 whose buffer is full of frames from host 1 at that
    // moment -- the CNMs bypass the buffer (control priority, no admission) and all arrive.
    for (const uint64_t base : {uint64_t{150000}, uint64_t{1000}}) {
        sim_context ctx;
        frame_pool pool;
        event_domain events("events", true);
        buffer_config bc;
        bc.port_limit_bytes = 3000;
        ethernet_switch sw("sw", 2, 2, bc, pool, events);
        sw.set_route(0, 0);
        sw.set_route(1, 1);
        qcn_cp_config c = cp_cfg();
        c.jitter = 0;
        c.sample_base_bytes = base;
        c.qeq_bytes = 1000;
        const auto* cps = sw.add_hook(std::make_unique<qcn_congestion_points>(c, 0, rng(1, 0)));
        cmswitch::testing::two_port_wiring w(sw, pool);
        for (uint64_t i = 0; i < 10; ++i) {
            frame* b = cmswitch::testing::make_frame(pool, 1500, 0, 0, i);   // host 1 -> host 0: fills port 0
            b->src = 1;
            b->kind = frame_kind::request;   // not a data frame the CP samples: no CNMs toward host 1
            w.inject(1, b);
        }
        for (uint64_t i = 0; i < 10; ++i) {
            frame* f = cmswitch::testing::make_frame(pool, 1500, 1, 0, i);   // host 0 -> host 1
            f->src = 0;
            f->kind = frame_kind::udp;
            w.inject(0, f);
        }
        ctx.run_until(1000000000ull);
        EXPECT_EQ(w.out1.frames.size(), 3u);
        EXPECT_EQ(sw.counters(1).drop_frames[static_cast<size_t>(drop_reason::port_limit)], 7u);
        if (base == 150000) {
            EXPECT_EQ(cps->at(1, 0).time_to_mark(), 150000 - 3 * 1500);
            EXPECT_EQ(sw.counters(1).cnms, 0u);
        } else {
            EXPECT_EQ(cps->at(1, 0).samples(), 3u);
            EXPECT_EQ(sw.counters(1).cnms, 3u);
            size_t cnms = 0;
            for (const auto& cap : w.out0.frames)
                cnms += cap.copy.kind == frame_kind::cnm;
            EXPECT_EQ(cnms, 3u);   // none lost, though port 0 dropped 7 data frames meanwhile
            EXPECT_EQ(sw.counters(0).drop_frames[static_cast<size_t>(drop_reason::port_limit)], 7u);
        }
        EXPECT_EQ(sw.buffer().used(), 0u);
        EXPECT_EQ(pool.live(), 0u);
    }
}

TEST(Qcn, CnmsAreFramesAndConservationHolds) {
    auto sc = make_scenario("incast");
    sc->params().parse_args({"--flows", "8", "--buffer-kb", "128", "--duration-s", "1", "--cm", "qcn", "--udp-cbr-mbps",
                             "400", "--jitter-ns", "300"});
    const result r = sc->run();
    EXPECT_TRUE(std::get<bool>(*r.get("conservation_ok")));
    EXPECT_GT(r.number("cnms"), 0);
    EXPECT_GT(r.number("udp_goodput_mbps"), 0);
}

TEST(Qcn, BadQcnValuesNameTheField) {
    auto sc = make_scenario("incast");
    EXPECT_THROW(sc->params().set("qcn_cp", "fancy"), config_error);
    try {
        sc->params().set("qcn_gd", "2");
        ADD_FAILURE();
    } catch (const config_error& e) {
        EXPECT_NE(std::string(e.what()).find("qcn_gd"), std::string::npos);
    }
}
