// SPDX-License-Identifier: Apache-2.0
// Buffer admission, checked against hand calculations.
#include "config/errors.h"
#include "model/cm/ecn/ecn_marker.h"
#include "model/ethernet_link.h"
#include "model/event_domain.h"
#include "model/switch/buffer_manager.h"
#include "model/switch/ethernet_switch.h"
#include "testing.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

using namespace cmswitch;
using namespace cmswitch::testing;

TEST(StaticBuffer, AdmitsTheFrameThatExactlyFillsAndDropsTheNext) {
    static_buffer b(2, 4500);
    EXPECT_EQ(admit_bytes(b, 0, 0, 1500), drop_reason::none);   // 1500
    EXPECT_EQ(admit_bytes(b, 0, 3, 1500), drop_reason::none);   // 3000 (the limit is per port, all priorities)
    EXPECT_EQ(admit_bytes(b, 0, 0, 1500), drop_reason::none);   // 4500 = limit: admitted
    EXPECT_EQ(admit_bytes(b, 0, 0, 64), drop_reason::port_limit);
    EXPECT_EQ(b.port_units(0), 4500u);
    EXPECT_EQ(admit_bytes(b, 1, 0, 1500), drop_reason::none);   // another port has its own limit
    release_bytes(b, 0, 0, 1500);
    EXPECT_EQ(admit_bytes(b, 0, 0, 1501), drop_reason::port_limit);   // 3000 + 1501 > 4500
    EXPECT_EQ(admit_bytes(b, 0, 0, 1500), drop_reason::none);
    EXPECT_EQ(b.used(), 6000u);
}

TEST(DynamicThresholdBuffer, OneQueueFillsToHalfThePoolWithAlphaOne) {
    // pool B = 100000, alpha = 1: a frame is admitted while q < B - q, i.e. q < 50000.
    // With 1500-byte frames: admitted at q = 0, 1500, ..., 49500 (34 frames, q = 51000), refused at 51000.
    dynamic_threshold_buffer b(4, 100000, 1.0);
    int admitted = 0;
    while (admit_bytes(b, 0, 0, 1500) == drop_reason::none)
        ++admitted;
    EXPECT_EQ(admitted, 34);
    EXPECT_EQ(b.queue_units(0, 0), 51000u);
    EXPECT_EQ(admit_bytes(b, 0, 0, 1500), drop_reason::dynamic_threshold);
    // a second queue sees free = 49000: admitted while q2 < 49000 - q2 -> q2 < 24500: 17 frames (25500)
    int second = 0;
    while (admit_bytes(b, 1, 0, 1500) == drop_reason::none)
        ++second;
    EXPECT_EQ(second, 17);
    EXPECT_DOUBLE_EQ(b.threshold(), 100000.0 - 51000.0 - 25500.0);
}

TEST(DynamicThresholdBuffer, AlphaScalesTheThresholdAndPoolLimitHolds) {
    // alpha = 2: q < 2 (B - q) -> q < 2B/3. B = 30000: admitted at q = 0..19500 step 1500 (14 frames, 21000)
    dynamic_threshold_buffer b(1, 30000, 2.0);
    int admitted = 0;
    while (admit_bytes(b, 0, 0, 1500) == drop_reason::none)
        ++admitted;
    EXPECT_EQ(admitted, 14);
    // alpha large: the pool itself is the limit; a frame bigger than what is free is refused as pool_full
    dynamic_threshold_buffer big(1, 4000, 64.0);
    EXPECT_EQ(admit_bytes(big, 0, 0, 1500), drop_reason::none);
    EXPECT_EQ(admit_bytes(big, 0, 0, 1500), drop_reason::none);
    EXPECT_EQ(admit_bytes(big, 0, 0, 1500), drop_reason::pool_full);   // 1000 free
    EXPECT_EQ(admit_bytes(big, 0, 0, 1000), drop_reason::none);
}

TEST(BufferManager, BadConfigurationsNameTheField) {
    buffer_config c;
    c.policy = "magic";
    EXPECT_THROW(make_buffer_manager(c, 4), config_error);
    try {
        make_buffer_manager(c, 4);
    } catch (const config_error& e) {
        EXPECT_NE(std::string(e.what()).find("policy"), std::string::npos);
    }
    c.policy = "dynamic";
    c.alpha = 0;
    EXPECT_THROW(make_buffer_manager(c, 4), config_error);
    c.alpha = 1;
    EXPECT_THROW(make_buffer_manager(c, 0), config_error);
}

// A two-port switch with a static buffer of `limit` bytes a port, host 1 behind port 1, and its wiring.
struct static_switch_bench {
    sim_context ctx;
    frame_pool pool;
    event_domain events{"events", true};
    ethernet_switch sw;
    two_port_wiring w;
    static buffer_config static_limit(uint64_t limit) {
        buffer_config bc;
        bc.policy = "static";
        bc.port_limit_bytes = limit;
        return bc;
    }
    explicit static_switch_bench(uint64_t limit) : sw("sw", 2, 2, static_limit(limit), pool, events), w(sw, pool) {
        sw.set_route(1, 1);
    }
};

TEST(Switch, ArrivalsAreCountedFromCountArrivalsOn) {
    // Off by default (asking throws); from the call on, every frame in on a port, with its bytes.
    static_switch_bench b(30000);
    EXPECT_THROW(b.sw.arrivals(0), model_error);
    b.w.inject(0, make_frame(b.pool, 1500, 1, 0, 0));   // before counting: not counted
    b.ctx.run_until(100000000ull);   // 100 us
    b.sw.count_arrivals();
    for (uint64_t i = 1; i <= 3; ++i)
        b.w.inject(0, make_frame(b.pool, 1000, 1, 0, i));
    b.ctx.run_until(200000000ull);
    EXPECT_EQ(b.w.out1.frames.size(), 4u);
    EXPECT_EQ(b.sw.arrivals(0).frames, 3u);
    EXPECT_EQ(b.sw.arrivals(0).bytes, 3000u);
    EXPECT_EQ(b.sw.arrivals(1).frames, 0u);
    EXPECT_THROW(b.sw.arrivals(2), model_error);
}

// The next-hop seam's precondition (forwarding_table.h): routes are set while the network is built; once the
// simulation runs, the transmitters into the switch resolve frames' egress ports as they send them, so a change
// is refused rather than missed by frames on the wire.
TEST(Switch, RoutesAreStaticOnceTheSimulationRuns) {
    static_switch_bench b(30000);
    EXPECT_EQ(b.sw.route(1), 1);
    EXPECT_EQ(b.sw.route(0), -1);
    EXPECT_THROW(b.sw.set_route(2, 0), config_error);   // no host 2
    EXPECT_THROW(b.sw.set_route(0, 2), config_error);   // no port 2
    b.sw.set_route(0, 0);
    b.ctx.run_until(1000000);
    EXPECT_THROW(b.sw.set_route(0, 1), model_error);
    EXPECT_EQ(b.sw.route(0), 0);
}

TEST(Switch, DropTailThroughTheSwitch) {
    // Limit 3000 B; 5 frames of 1500 B arrive at once for an idle port: the first starts transmission at once
    // (it leaves the queue), the 2nd and 3rd fill the queue to exactly 3000 B, the 4th and 5th are dropped.
    static_switch_bench b(3000);
    b.sw.count_arrivals();
    // the injector bypasses serialization on its side: the link adds 12 us, so all 5 arrive at once at 12 us
    for (uint64_t i = 0; i < 5; ++i)
        b.w.inject(0, make_frame(b.pool, 1500, 1, 0, i));
    b.ctx.run_until(1000000000ull);
    EXPECT_EQ(b.w.out1.frames.size(), 3u);
    EXPECT_EQ(b.sw.counters(1).drop_frames[static_cast<size_t>(drop_reason::port_limit)], 2u);
    EXPECT_EQ(b.sw.arrivals(0).frames, 5u);
    EXPECT_EQ(b.sw.arrivals(0).bytes, 5u * 1500);
    EXPECT_EQ(b.sw.egress(1).occupancy().max(), 3000u);
    EXPECT_EQ(b.sw.buffer().used(), 0u);
    EXPECT_EQ(b.pool.live(), 0u);
}

namespace {
// Writes what it is shown into a shared log ("<name><event><seq> "); drops at ingress the frames whose seq is in
// drop_seq, or refuses them at admission when it is an admit hook.
class log_hook : public switch_hook {
public:
    log_hook(std::string& log, char name, int stage, uint8_t events, uint64_t drop_seq = UINT64_MAX)
        : m_log(log), m_name(name), m_stage(stage), m_events(events), m_drop_seq(drop_seq) {}
    uint8_t events() const override { return m_events; }
    int stage() const override { return m_stage; }
    drop_reason on_ingress(int, frame& f, uint64_t) override {
        note('i', f);
        return f.seq == m_drop_seq ? drop_reason::ingress_limit : drop_reason::none;
    }
    drop_reason on_admit(const queue_view&, frame& f, uint64_t) override {
        note('a', f);
        return f.seq == m_drop_seq ? drop_reason::aqm : drop_reason::none;
    }
    void on_enqueue(const queue_view&, frame& f, uint64_t) override { note('e', f); }
    void on_drop(int, const frame& f, drop_reason, uint64_t) override { note('d', f); }

private:
    void note(char event, const frame& f) {
        m_log += m_name;
        m_log += event;
        m_log += std::to_string(f.seq) + " ";
    }
    std::string& m_log;
    char m_name;
    int m_stage;
    uint8_t m_events;
    uint64_t m_drop_seq;
};
}   // namespace

TEST(Switch, HooksRunInStageOrderAndADropStopsTheRest) {
    // Two ingress hooks, an admit hook and two enqueue hooks, added out of order: each stage runs its hooks by
    // stage (then the order added); a frame the second ingress hook drops (seq 1) reaches no later hook but the
    // drop hook, one the admit hook refuses (seq 2) no enqueue hook; one that passes (seq 0) is shown to all five.
    sim_context ctx;
    frame_pool pool;
    event_domain events("events", true);
    ethernet_switch sw("sw", 2, 2, buffer_config{}, pool, events);
    sw.set_route(1, 1);
    std::string log;
    using h = switch_hook;
    sw.add_hook(std::make_unique<log_hook>(log, 'F', h::stage_marking, h::on_enqueue_event));
    sw.add_hook(std::make_unique<log_hook>(log, 'B', h::stage_congestion_point, h::on_ingress_event, 1));
    sw.add_hook(std::make_unique<log_hook>(log, 'D', h::stage_recorder, h::on_drop_event));
    sw.add_hook(std::make_unique<log_hook>(log, 'C', h::stage_marking, h::on_admit_event, 2));
    sw.add_hook(std::make_unique<log_hook>(log, 'A', h::stage_ingress_accounting, h::on_ingress_event));
    sw.add_hook(std::make_unique<log_hook>(log, 'E', h::stage_ingress_accounting, h::on_enqueue_event));
    two_port_wiring w(sw, pool);
    for (uint64_t i = 0; i < 3; ++i)
        w.inject(0, make_frame(pool, 1500, 1, 0, i));
    ctx.run_until(1000000000ull);
    EXPECT_EQ(log, "Ai0 Bi0 Ca0 Ee0 Fe0 Ai1 Bi1 Dd1 Ai2 Bi2 Ca2 Dd2 ");
    EXPECT_EQ(w.out1.frames.size(), 1u);
    EXPECT_EQ(sw.counters(0).drop_frames[static_cast<size_t>(drop_reason::ingress_limit)], 1u);   // the in-port
    EXPECT_EQ(sw.counters(1).drop_frames[static_cast<size_t>(drop_reason::aqm)], 1u);   // the egress port
    EXPECT_EQ(pool.live(), 0u);
}

namespace {
// Offers 1500-byte frames to queues (port i, priority 0), i < n, round robin, until every queue refuses; returns
// each queue's bytes.
std::vector<uint64_t> fill(buffer_manager& b, int n) {
    std::vector<bool> full(static_cast<size_t>(n), false);
    int left = n;
    while (left > 0)
        for (int i = 0; i < n; ++i)
            if (!full[static_cast<size_t>(i)] && admit_bytes(b, i, 0, 1500) != drop_reason::none) {
                full[static_cast<size_t>(i)] = true;
                --left;
            }
    std::vector<uint64_t> q;
    for (int i = 0; i < n; ++i)
        q.push_back(b.queue_units(i, 0));
    return q;
}
}   // namespace

TEST(SharedBuffer, DynamicThresholdSharesMatchTheSteadyStateFormula) {
    // n queues saturating a shared pool S each settle at S alpha / (1 + n alpha) (Choudhury & Hahne): the last
    // admission needs q < alpha (S - n q); frames of 1500 B make it exact to within a frame (plus alpha frames)
    for (const double alpha : {1.0, 0.125}) {
        for (const int n : {1, 2, 4, 8}) {
            const uint64_t pool = 3000000;
            buffer_config cfg;
            cfg.policy = "shared";
            cfg.pool_bytes = pool;
            cfg.alpha = alpha;
            auto b = make_buffer_manager(cfg, 8);
            const double expect = static_cast<double>(pool) * alpha / (1 + n * alpha);
            for (uint64_t q : fill(*b, n))
                EXPECT_NEAR(static_cast<double>(q), expect, 1500 * (1 + alpha)) << "alpha " << alpha << " n " << n;
            EXPECT_EQ(b->reserved_used() + b->shared_used(), b->used());
        }
    }
}

TEST(SharedBuffer, ReservedSpaceIsUsedFirstAndEveryByteIsAccounted) {
    buffer_config cfg;
    cfg.policy = "shared";
    cfg.pool_bytes = 2 * 8 * 10000 + 60000;   // 2 ports x 8 priorities x 10000 reserved + 60000 shared
    cfg.reserved_bytes = 10000;
    cfg.alpha = 1;
    auto b = make_buffer_manager(cfg, 2);
    const auto& sb = dynamic_cast<const shared_buffer&>(*b);
    EXPECT_EQ(sb.shared_pool_size(), 60000u);
    for (int i = 0; i < 6; ++i)   // 9000 bytes: all in the reserved space
        ASSERT_EQ(admit_bytes(*b, 0, 0, 1500), drop_reason::none);
    EXPECT_EQ(b->shared_used(), 0u);
    EXPECT_EQ(b->reserved_used(), 9000u);
    ASSERT_EQ(admit_bytes(*b, 0, 0, 1500), drop_reason::none);   // straddles: 1000 reserved + 500 shared
    EXPECT_EQ(b->reserved_used(), 10000u);
    EXPECT_EQ(b->shared_used(), 500u);
    // the shared part follows alpha x free shared: q_shared < 1 x (60000 - q_shared) -> up to 30000 + one frame
    while (admit_bytes(*b, 0, 0, 1500) == drop_reason::none) {
    }
    EXPECT_EQ(admit_bytes(*b, 0, 0, 1500), drop_reason::dynamic_threshold);
    EXPECT_EQ(b->shared_used(), 30500u);   // 500 + 20 x 1500: at 29000 < 30500 free admitted, 30500 not
    // another priority of the same port still has its whole reserved space
    ASSERT_EQ(admit_bytes(*b, 0, 3, 1500), drop_reason::none);
    EXPECT_EQ(b->shared_used(), 30500u);
    // draining gives back shared bytes first (the queue's top), then reserved ones
    release_bytes(*b, 0, 0, 1500);
    EXPECT_EQ(b->shared_used(), 29000u);
    EXPECT_EQ(b->reserved_used() + b->shared_used(), b->used());
    EXPECT_EQ(b->shared_used_peak(), 30500u);
    // per-priority alpha; a pool that the reserved space would exceed is refused with the numbers
    cfg.alpha_by_queue = {1, 1, 1, 0.5};
    EXPECT_THROW(make_buffer_manager(cfg, 2), config_error);
    cfg.alpha_by_queue.clear();
    cfg.pool_bytes = 160000;
    EXPECT_THROW(make_buffer_manager(cfg, 2), config_error);
}

TEST(SharedBuffer, PoolFullWhenTheFrameDoesNotFitTheFreeSharedSpace) {
    buffer_config cfg;
    cfg.policy = "shared";
    cfg.pool_bytes = 4000;
    cfg.alpha = 64;   // thresholds never bind: only the pool's room does
    auto b = make_buffer_manager(cfg, 1);
    EXPECT_EQ(admit_bytes(*b, 0, 0, 1500), drop_reason::none);
    EXPECT_EQ(admit_bytes(*b, 0, 1, 1500), drop_reason::none);
    EXPECT_EQ(admit_bytes(*b, 0, 2, 1500), drop_reason::pool_full);   // 1000 free
    EXPECT_EQ(admit_bytes(*b, 0, 2, 1000), drop_reason::none);
}

// ------------------------------------------------------------------------------------------------ cells

TEST(Cells, AFrameTakesTheCellsItsBytesSpan) {
    const buffer_units th3{254, 0};   // Tomahawk 3's cell
    EXPECT_EQ(th3.charge(64), 1u);   // an ACK fills a whole cell
    EXPECT_EQ(th3.charge(254), 1u);
    EXPECT_EQ(th3.charge(255), 2u);
    EXPECT_EQ(th3.charge(1500), 6u);   // 1500 / 254 = 5.9
    EXPECT_EQ(th3.charge(9000), 36u);   // 35.4
    const buffer_units with_header{254, 40};   // a 40-byte MMU header stored with every frame
    EXPECT_EQ(with_header.charge(1500), 7u);   // 1540 B: six cells hold 1524
    EXPECT_EQ(with_header.charge(214), 1u);   // 254 exactly
    EXPECT_EQ(with_header.charge(215), 2u);
    // sizes: a memory holds whole cells, a threshold spans them (rounded up); in-flight frames are their charge
    EXPECT_EQ(th3.memory(25400), 100u);
    EXPECT_EQ(th3.memory(25653), 100u);
    EXPECT_EQ(th3.threshold(20 * 1024), 81u);   // 20480 / 254 = 80.6: DCTCP's K of 20 KB is 81 cells
    EXPECT_EQ(th3.frames(3000, 1500), 12u);   // two full frames
    EXPECT_EQ(th3.frames(3001, 1500), 18u);   // and a third begun
    EXPECT_EQ(th3.to_bytes(6), 1524u);
    const buffer_units bytes{};
    EXPECT_EQ(bytes.charge(1500), 1500u);
    EXPECT_EQ(bytes.threshold(20480), 20480u);
    EXPECT_EQ(bytes.frames(3001, 1500), 3001u);
}

TEST(Cells, AQueueOfNCellsAdmitsFloorNOverSixFullFrames) {
    // A static limit of N cells of 254 B: frames of 1500 B take 6 cells each, so exactly floor(N / 6) fit (the
    // frame that exactly fills the limit is admitted); 64-byte frames take one cell each, N of them fit
    for (const uint64_t n : {6, 59, 60, 61, 65, 100, 1000}) {
        static_buffer b(1, n * 254, buffer_units{254, 0});
        uint64_t admitted = 0;
        while (admit_bytes(b, 0, 0, 1500) == drop_reason::none)
            ++admitted;
        EXPECT_EQ(admitted, n / 6) << n << " cells";
        EXPECT_EQ(b.used(), admitted * 6);
        EXPECT_EQ(b.data_bytes(), admitted * 1500);
        static_buffer small(1, n * 254, buffer_units{254, 0});
        uint64_t acks = 0;
        while (admit_bytes(small, 0, 0, 64) == drop_reason::none)
            ++acks;
        EXPECT_EQ(acks, n) << n << " cells";   // byte-exact, the same memory would take n x 254 / 64 of them
    }
    // a limit that is no whole number of cells holds the whole cells in it
    static_buffer b(1, 6 * 254 + 253, buffer_units{254, 0});
    EXPECT_EQ(admit_bytes(b, 0, 0, 1500), drop_reason::none);
    EXPECT_EQ(admit_bytes(b, 0, 0, 64), drop_reason::port_limit);
}

TEST(Cells, TheDynamicThresholdsSteadyStateHoldsInCells) {
    // n queues saturating a shared pool of S cells each settle at S alpha / (1 + n alpha) cells (Choudhury &
    // Hahne), to within a frame (6 cells) times (1 + alpha): the last admission needs q < alpha (S - n q)
    const uint64_t cells = 40000;   // 40,000 cells of 254 B: 10,160,000 B
    for (const double alpha : {1.0, 0.125, 8.0}) {
        for (const int n : {1, 2, 4, 8}) {
            buffer_config cfg;
            cfg.policy = "shared";
            cfg.pool_bytes = cells * 254;
            cfg.alpha = alpha;
            cfg.cell_bytes = 254;
            auto b = make_buffer_manager(cfg, 8);
            ASSERT_EQ(b->shared_pool_size(), cells);
            const double expect = static_cast<double>(cells) * alpha / (1 + n * alpha);
            std::vector<bool> full(static_cast<size_t>(n), false);
            for (int left = n; left > 0;)
                for (int i = 0; i < n; ++i)
                    if (!full[static_cast<size_t>(i)] && admit_bytes(*b, i, 0, 1500) != drop_reason::none) {
                        full[static_cast<size_t>(i)] = true;
                        --left;
                    }
            for (int i = 0; i < n; ++i) {
                EXPECT_NEAR(static_cast<double>(b->queue_units(i, 0)), expect, 6 * (1 + alpha))
                    << "alpha " << alpha << " n " << n;
                EXPECT_EQ(b->queue_units(i, 0) % 6, 0u);   // whole frames of 6 cells
            }
        }
    }
}

TEST(Cells, MarkingThresholdsAreInCells) {
    // A step marker with K = 20 KB becomes 81 cells of 254 B (20,480 / 254 = 80.6, rounded up). Full frames
    // (6 cells) are marked from the same queue as in bytes (14 frames: 84 cells, 21,000 B); 64-byte frames take a
    // cell each, so 82 of them (5,248 B) are marked where byte counting waits for 321 (20,544 B)
    const step_marker k(20 * 1024);
    const step_marker kc = k.in_units(buffer_units{254, 0});
    EXPECT_EQ(kc.k(), 81u);
    rng r(1, 0);
    EXPECT_FALSE(kc.should_mark(13 * 6, r));
    EXPECT_TRUE(kc.should_mark(14 * 6, r));
    EXPECT_FALSE(k.should_mark(13 * 1500, r));
    EXPECT_TRUE(k.should_mark(14 * 1500, r));
    EXPECT_FALSE(kc.should_mark(81, r));
    EXPECT_TRUE(kc.should_mark(82, r));
    EXPECT_FALSE(k.should_mark(320 * 64, r));
    EXPECT_TRUE(k.should_mark(321 * 64, r));
    const red_marker red = red_marker(5 * 1024, 200 * 1024, 0.01).in_units(buffer_units{96, 0});
    EXPECT_DOUBLE_EQ(red.probability(54), 0.0);   // Kmin 5,120 B = 53.3 -> 54 cells of 96 B
    EXPECT_GT(red.probability(55), 0.0);
    EXPECT_DOUBLE_EQ(red.probability(2134), 1.0);   // Kmax 204,800 B = 2133.3 -> 2134 cells
}

TEST(Cells, BadCellSizesAreRefusedWithTheirRange) {
    buffer_config c;
    c.policy = "static";
    for (const int bad : {1, 15, 9217, 65535}) {
        c.cell_bytes = static_cast<uint16_t>(bad);
        try {
            make_buffer_manager(c, 2);
            ADD_FAILURE() << bad;
        } catch (const config_error& e) {
            EXPECT_NE(std::string(e.what()).find("cell_bytes"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("9216"), std::string::npos) << e.what();
        }
    }
    c.cell_bytes = 254;
    c.cell_overhead_bytes = 257;
    EXPECT_THROW(make_buffer_manager(c, 2), config_error);
    c.cell_overhead_bytes = 40;
    EXPECT_NO_THROW(make_buffer_manager(c, 2));
}
