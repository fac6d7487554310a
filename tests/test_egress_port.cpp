// SPDX-License-Identifier: Apache-2.0
// Egress queues: FIFO within a priority, strict priority across priorities, busy link back-pressure.
#include "config/errors.h"
#include "model/ethernet_link.h"
#include "model/event_domain.h"
#include "model/nic/host_nic.h"
#include "model/port/occupancy_stats.h"
#include "testing.h"

#include <gtest/gtest.h>

#include <memory>

#include <algorithm>
#include <map>
#include <random>

using namespace cmswitch;
using namespace cmswitch::testing;

namespace {
struct bench : nic_on_a_link {   // 1 MB of NIC queue, no propagation delay
    bench() : nic_on_a_link(1 << 20, 0) {}
};
}   // namespace

TEST(EgressPort, FifoWithinOnePriority) {
    bench b;
    for (uint64_t i = 0; i < 10; ++i)
        b.nic.send(make_frame(b.pool, 1000, 1, 3, i));
    b.ctx.run_until(1000000000ull);
    ASSERT_EQ(b.cap.frames.size(), 10u);
    for (uint64_t i = 0; i < 10; ++i) {
        EXPECT_EQ(b.cap.frames[i].copy.seq, i);
        EXPECT_EQ(b.cap.frames[i].arrival_ps, (i + 1) * 8000000ull);   // 1000 B = 8 us each, back to back
    }
}

TEST(EgressPort, StrictPriorityServesHighestFirst) {
    bench b;
    // The first frame (prio 0) goes on the wire at once; the rest wait and leave highest priority first,
    // FIFO among equals.
    const uint8_t prios[] = {0, 1, 5, 1, 7, 0, 5, 7};
    for (uint64_t i = 0; i < 8; ++i)
        b.nic.send(make_frame(b.pool, 500, 1, prios[i], i));
    b.ctx.run_until(1000000000ull);
    ASSERT_EQ(b.cap.frames.size(), 8u);
    const uint64_t expected[] = {0, 4, 7, 2, 6, 1, 3, 5};
    for (int i = 0; i < 8; ++i)
        EXPECT_EQ(b.cap.frames[static_cast<size_t>(i)].copy.seq, expected[i]) << "position " << i;
}

TEST(EgressPort, QueueStatisticsAreTimeWeighted) {
    bench b;
    // 3 frames of 1000 B at t = 0: queue holds 2000 B for 8 us, then 1000 B for 8 us, then 0.
    for (uint64_t i = 0; i < 3; ++i)
        b.nic.send(make_frame(b.pool, 1000, 1, 0, i));
    b.ctx.run_until(32000000ull);   // 32 us
    const auto& occ = b.nic.egress().occupancy();
    EXPECT_EQ(occ.max(), 2000u);
    // (2000 * 8 + 1000 * 8) / 32 = 750 bytes
    EXPECT_DOUBLE_EQ(occ.mean(32000000ull), 750.0);
    // waits: 0, 8, 16 us
    EXPECT_EQ(b.nic.egress().stats().wait_max_ps, 16000000ull);
    EXPECT_EQ(static_cast<uint64_t>(b.nic.egress().stats().wait_sum_ps), 24000000ull);
}

TEST(OccupancyStats, TimeWeightedPercentilesOfAHandMadeTrace) {
    // 0 B for 40 ps, 1024 B for 30, 2048 B for 20, 4096 B for 9, 8192 B for 1 (read at 100 ps, the last segment
    // still running): at or below 0 B 40 % of the time, 1024 B 70 %, 2048 B 90 %, 4096 B 99 %, 8192 B 100 %.
    occupancy_stats occ;
    occ.reset(0, 1);
    occ.set(40, 1024);
    occ.set(70, 2048);
    occ.set(90, 4096);
    occ.set(99, 8192);
    EXPECT_EQ(occ.quantile(0.40, 100), 0u);
    EXPECT_EQ(occ.quantile(0.41, 100), 1024u);
    EXPECT_EQ(occ.quantile(0.50, 100), 1024u);
    EXPECT_EQ(occ.quantile(0.70, 100), 1024u);
    EXPECT_EQ(occ.quantile(0.90, 100), 2048u);
    EXPECT_EQ(occ.quantile(0.99, 100), 4096u);
    EXPECT_EQ(occ.quantile(0.999, 100), 8192u);
    EXPECT_EQ(occ.quantile(1.0, 100), 8192u);
    const auto cdf = occ.cdf(100);
    const std::vector<std::pair<uint64_t, double>> want{
        {0, 0.40}, {1024, 0.70}, {2048, 0.90}, {4096, 0.99}, {8192, 1.0}};
    ASSERT_EQ(cdf.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(cdf[i].first, want[i].first);
        EXPECT_NEAR(cdf[i].second, want[i].second, 1e-12);
    }
    // the running segment counts up to the time read: at 300 ps, 8192 B holds 201 of 300 ps, so the median is it
    EXPECT_EQ(occ.quantile(0.5, 300), 8192u);
}

TEST(OccupancyStats, LevelsOffTheBucketEdgesAreWithinOneIn128) {
    // a level that is not a bucket edge is reported at most 1/128 below itself, never above; below 256 exactly
    for (uint64_t v : {1ull, 200ull, 255ull, 256ull, 1500ull, 9000ull, 65537ull, 1000000ull, 5261670ull}) {
        occupancy_stats occ;
        occ.reset(0, 1);
        occ.set(0, v);
        const uint64_t q = occ.quantile(0.5, 1000);
        EXPECT_LE(q, v);
        EXPECT_GE(static_cast<double>(q), static_cast<double>(v) * (1 - 1.0 / 128)) << v;
        if (v < 256) {
            EXPECT_EQ(q, v);
        }
    }
    EXPECT_EQ(level_histogram::lower_edge(level_histogram::index(1500)), 1496u);   // 187 x 8
}

TEST(OccupancyStats, BucketTimesAreExactSumsWhereverTheyWaited) {
    // Time reaches a bucket through three recent slots, a line of eight more and the bucket array, in any order;
    // the totals must be the plain sums. A queue walking a frame at a time over 3 MB (hundreds of buckets), then
    // two levels held a millisecond at a time (a recent slot holds under 2^32 ps, 4.3 ms), then times far longer
    // than a slot holds at a few levels, then one of 2^60 ps.
    level_histogram h;
    std::map<uint64_t, uint64_t> want;   // lower edge -> time
    auto add = [&](uint64_t level, uint64_t dt) {
        h.add(level, dt);
        if (dt)
            want[level_histogram::lower_edge(level_histogram::index(level))] += dt;
    };
    std::mt19937_64 rng(7);
    uint64_t level = 0;
    for (int n = 0; n < 200000; ++n) {
        const uint64_t step = rng() % 3 == 0 ? 64 : 1500;
        level = (rng() % 2 && level >= step) ? level - step : std::min<uint64_t>(level + step, 3u << 20);
        add(level, rng() % 1000000);
    }
    for (int n = 0; n < 40; ++n)   // a recent slot's time past 2^32 ps
        add(n % 2 ? 0 : 1500, 1000000000u + rng() % 1000);
    const uint64_t near = uint64_t{1} << 50;
    for (int n = 0; n < 40; ++n)
        add(1000u * static_cast<uint64_t>(n % 5), near + rng() % near);
    add(77, uint64_t{1} << 60);
    add(5000, 3);
    std::map<uint64_t, uint64_t> got;
    h.for_each([&](uint64_t edge, uint64_t t) {
        if (t)
            got[edge] += t;
    });
    EXPECT_EQ(got, want);
    level_histogram copy(h);   // a copy holds the same totals
    std::map<uint64_t, uint64_t> copied;
    copy.for_each([&](uint64_t edge, uint64_t t) {
        if (t)
            copied[edge] += t;
    });
    EXPECT_EQ(copied, want);
}

TEST(EgressPort, NicQueueLimitDrops) {
    sim_context ctx;
    frame_pool pool;
    event_domain events("events", true);
    host_nic nic("nic", 0, 10000, pool, events);
    ethernet_link ln("link", 1000000000ull, 0);
    capture cap("cap", pool);
    injector inj("inj");
    nic.tx().bind(ln.a_in);
    ln.a_out.bind(cap.rx);
    inj.tx.bind(ln.b_in);
    ln.b_out.bind(nic.rx());
    // first 1500 leaves at once; 6 more fit in 10000 B (9000), the 8th would make 10500
    int accepted = 0;
    for (int i = 0; i < 9; ++i)
        accepted += nic.send(make_frame(pool, 1500, 1)) ? 1 : 0;
    EXPECT_EQ(accepted, 7);
    EXPECT_EQ(nic.dropped_frames(), 2u);
    ctx.run_until(1000000000ull);
    EXPECT_EQ(cap.frames.size(), 7u);
}

TEST(EgressPort, DwrrSharesFollowTheQuanta) {
    // priorities 1 and 2 under DWRR with quanta 1500 and 4500 B, both backlogged with 1500-byte frames: 1 and 3
    // frames per round, so of the 40 frames after the one that went at once and the strict one, 10 are priority
    // 1 and 30 priority 2; a priority-5 frame (strict, outside the DWRR set) goes before both
    bench b;
    const uint32_t q[num_priorities] = {0, 1500, 4500, 0, 0, 0, 0, 0};
    b.nic.set_dwrr(0x06, q);
    for (uint64_t i = 0; i < 40; ++i) {
        b.nic.send(make_frame(b.pool, 1500, 1, 1, i));
        b.nic.send(make_frame(b.pool, 1500, 1, 2, 100 + i));
    }
    b.nic.send(make_frame(b.pool, 1500, 1, 5, 999));
    b.ctx.run_until(1000000000ull);
    ASSERT_EQ(b.cap.frames.size(), 81u);
    EXPECT_EQ(b.cap.frames[0].copy.seq, 0u);   // went at once, before anything else was queued
    EXPECT_EQ(b.cap.frames[1].copy.seq, 999u);   // strict priority first
    int p1 = 0, p2 = 0;
    for (size_t i = 2; i < 42; ++i)
        (b.cap.frames[i].copy.prio == 1 ? p1 : p2)++;
    EXPECT_EQ(p1, 10);
    EXPECT_EQ(p2, 30);
    // priority 1 used its turn on the frame that went at once: priority 2's turn (3 frames), then 1's (1 frame)
    EXPECT_EQ(b.cap.frames[2].copy.prio, 2);
    EXPECT_EQ(b.cap.frames[4].copy.prio, 2);
    EXPECT_EQ(b.cap.frames[5].copy.prio, 1);
    EXPECT_EQ(b.cap.frames[6].copy.prio, 2);
    const uint32_t bad[num_priorities] = {0, 100, 4500, 0, 0, 0, 0, 0};
    EXPECT_THROW(b.nic.set_dwrr(0x06, bad), config_error);
}

namespace {
// An egress port alone, connected straight to a sink that takes every frame (egress_port::connect), 1 Gb/s.
struct lone_port final : event_handler {
    enum : uint32_t { ev_arrival = 0, ev_send = 2 };
    sim_context ctx;
    frame_pool pool;
    event_domain events{"events", true};
    egress_port port;
    std::vector<std::pair<uint8_t, int>> batches;   // (priority, frames) sent at the ev_send events, in order
    lone_port() {
        port.attach(&events, this, 0);
        port.connect(link_timing(1000000000ull, 0), frame_sink{&events, this, ev_arrival, 0});
        port.reset(0, 1500);
    }
    void send_at(uint64_t t_ps, uint8_t prio, int frames) {
        events.schedule(t_ps, this, ev_send, static_cast<uint32_t>(batches.size()), nullptr);
        batches.emplace_back(prio, frames);
    }
    void on_event(uint32_t kind, uint32_t index, void* ptr) override {
        if (kind == ev_arrival)
            pool.release(static_cast<frame*>(ptr));
        else
            for (int i = 0; i < batches[index].second; ++i)
                port.enqueue(make_frame(pool, 1500, 1, batches[index].first, 0), now_ps());
    }
};
}   // namespace

// Frames that find the port idle go straight onto the wire: the level touches their size for no time (the
// maximum sees it, the time at zero goes on), and a queue that builds later is counted from the right level.
TEST(EgressPort, FramesThroughAnIdlePortTouchTheMaximumAndSpendNoTimeInTheQueue) {
    lone_port b;
    const uint64_t us = 1000000;
    b.send_at(0, 0, 1);   // a frame alone, and another 50 us later: each straight onto the idle link
    b.send_at(50 * us, 0, 1);
    b.ctx.run_until(100 * us);
    EXPECT_EQ(b.port.occupancy().max(), 1500u);
    EXPECT_DOUBLE_EQ(b.port.occupancy().mean(100 * us), 0.0);
    EXPECT_EQ(b.port.occupancy().quantile(1.0, 100 * us), 0u);
    EXPECT_DOUBLE_EQ(b.port.occupancy().histogram(100 * us)[0], 1.0);
    // three at once at 100 us: the first goes straight on, two wait (3000 B for 12 us, then 1500 B for 12 us)
    b.send_at(100 * us, 0, 3);
    b.ctx.run_until(200 * us);
    const uint64_t end = 200 * us;
    EXPECT_EQ(b.port.occupancy().max(), 3000u);
    EXPECT_DOUBLE_EQ(b.port.occupancy().mean(end), (3000.0 * 12 + 1500.0 * 12) / 200);
    // at zero for 176 of 200 us (88 %), 1500 B for 12 us (to 94 %), 3000 B for 12 us
    EXPECT_EQ(b.port.occupancy().quantile(0.88, end), 0u);
    EXPECT_EQ(b.port.occupancy().quantile(0.9, end), level_histogram::lower_edge(level_histogram::index(1500)));
    EXPECT_EQ(b.port.occupancy().quantile(0.99, end), level_histogram::lower_edge(level_histogram::index(3000)));
    // bands 2,048 B wide (the power of two from 1,500): 0 and 1500 B in the first, 3000 B in the second
    EXPECT_DOUBLE_EQ(b.port.occupancy().histogram(end)[0], 188.0 / 200);
    EXPECT_DOUBLE_EQ(b.port.occupancy().histogram(end)[1], 12.0 / 200);
    EXPECT_EQ(b.port.stats().tx_frames, 5u);
}

// Per-queue statistics are shared with the port's own while one queue alone has held frames, and kept apart
// from the first frame of a second queue on: the numbers are those of each queue's own time line.
TEST(EgressPort, PerQueueStatisticsWhenOneQueueAndThenTwoAreUsed) {
    lone_port b;
    b.port.track_queues(0, 1500);
    const uint64_t us = 1000000;
    b.send_at(0, 0, 3);   // queue 0: 3000 B for 12 us, 1500 B for 12 us (a 1500 B frame is 12 us at 1 Gb/s)
    b.send_at(100 * us, 3, 2);   // queue 3: 1500 B for 12 us (the first frame leaves at once)
    b.send_at(150 * us, 0, 2);   // queue 0 again: 1500 B for 12 us
    b.ctx.run_until(200 * us);
    const uint64_t end = 200 * us;
    const occupancy_stats& q0 = b.port.queue_occupancy(0);
    const occupancy_stats& q3 = b.port.queue_occupancy(3);
    EXPECT_DOUBLE_EQ(q0.mean(end), (3000.0 * 12 + 1500.0 * 12 + 1500.0 * 12) / 200);
    EXPECT_DOUBLE_EQ(q3.mean(end), 1500.0 * 12 / 200);
    EXPECT_DOUBLE_EQ(b.port.occupancy().mean(end), (3000.0 * 12 + 1500.0 * 36) / 200);
    EXPECT_EQ(q0.max(), 3000u);
    EXPECT_EQ(q3.max(), 1500u);
    EXPECT_DOUBLE_EQ(b.port.queue_occupancy(5).mean(end), 0.0);
    // queue 0 at 0 for 152 of 200 us (76 %), 1500 B for 36 us (to 94 %), 3000 B for 12 us
    EXPECT_EQ(q0.quantile(0.5, end), 0u);
    EXPECT_EQ(q0.quantile(0.9, end), level_histogram::lower_edge(level_histogram::index(1500)));
    EXPECT_EQ(q0.quantile(0.99, end), level_histogram::lower_edge(level_histogram::index(3000)));
    // queue 3 at 1500 B for 6 % of the time
    EXPECT_EQ(q3.quantile(0.9, end), 0u);
    EXPECT_EQ(q3.quantile(0.99, end), level_histogram::lower_edge(level_histogram::index(1500)));
}

// The same with one queue only: its statistics are the port's.
TEST(EgressPort, PerQueueStatisticsOfTheOnlyQueueUsedAreThePorts) {
    lone_port b;
    b.port.track_queues(0, 1500);
    b.send_at(0, 2, 3);
    b.ctx.run_until(100000000);
    EXPECT_DOUBLE_EQ(b.port.queue_occupancy(2).mean(100000000), (3000.0 * 12 + 1500.0 * 12) / 100);
    EXPECT_EQ(b.port.queue_occupancy(2).max(), 3000u);
    EXPECT_DOUBLE_EQ(b.port.queue_occupancy(0).mean(100000000), 0.0);
}

namespace {
// A trace that selects every signal and records nothing (to turn a port's waveforms on).
struct every_signal final : trace_sink {
    std::vector<std::unique_ptr<trace_signal>> made;
    trace_signal* declare(const std::string&, const std::string&, unsigned bits) override {
        made.push_back(std::make_unique<trace_signal>(this, static_cast<uint32_t>(made.size()), bits == 0));
        return made.back().get();
    }
    void change(uint32_t, uint64_t, uint64_t) override {}
};
}   // namespace

// The fast path's rule (egress_port::passes_through): an idle port with every queue empty sends a frame straight
// on; each port feature, each per-queue state and each kind of business takes the frame off it.
TEST(EgressPort, EveryPortFeatureTakesFramesOffTheFastPath) {
    {
        lone_port b;
        EXPECT_TRUE(b.port.passes_through(0, 0));
        b.port.track_queues(0, 1500);   // per-queue statistics
        EXPECT_NE(b.port.features() & egress_port::feature_queue_stats, 0);
        EXPECT_FALSE(b.port.passes_through(0, 0));
    }
    {
        lone_port b;
        every_signal trace;
        model_trace::sink = &trace;
        b.port.trace_as("sw.port0");   // waveform signals
        model_trace::sink = nullptr;
        EXPECT_NE(b.port.features() & egress_port::feature_waveforms, 0);
        EXPECT_FALSE(b.port.passes_through(0, 0));
    }
    {
        lone_port b;   // DWRR on queues 1 and 2: their frames take the queue, queue 0 (strict) still passes
        const uint32_t quanta[num_priorities] = {0, 1500, 3000, 0, 0, 0, 0, 0};
        b.port.set_dwrr(0x06, quanta);
        EXPECT_TRUE(b.port.passes_through(0, 0));
        EXPECT_FALSE(b.port.passes_through(0, 1));
        EXPECT_FALSE(b.port.passes_through(0, 2));
    }
    {
        lone_port b;   // a PFC pause of priority 3 (the port's link rate known): queue 3 takes the queue
        b.port.configure_pause(1000000000ull, 9);
        b.port.on_pause(0x08, 100, 0);
        EXPECT_FALSE(b.port.passes_through(0, 3));
        EXPECT_TRUE(b.port.passes_through(0, 0));
    }
    {
        lone_port b;   // a frame on the wire (busy for 12 us at 1 Gb/s), then one queued behind it
        b.port.enqueue(make_frame(b.pool, 1500, 1, 0, 0), 0);
        EXPECT_FALSE(b.port.passes_through(0, 0));
        EXPECT_FALSE(b.port.passes_through(11999999, 0));
        b.port.enqueue(make_frame(b.pool, 1500, 1, 0, 1), 0);
        b.ctx.run_until(12000000);   // the first has gone, the second is on the wire
        EXPECT_FALSE(b.port.passes_through(12000000, 0));
        b.ctx.run_until(30000000);   // both gone: idle again
        EXPECT_TRUE(b.port.passes_through(30000000, 0));
        EXPECT_EQ(b.port.stats().tx_frames, 2u);
    }
}

// A port's index rides in the upper 16 bits of a routed arrival's event index: 65,535 is the largest it takes.
TEST(EgressPort, AnIndexBeyondSixteenBitsIsRefusedWithItsRange) {
    sim_context ctx;
    event_domain events{"events", true};
    egress_port port;
    try {
        port.attach(&events, nullptr, 65536);
        ADD_FAILURE() << "index 65536 accepted";
    } catch (const config_error& e) {
        EXPECT_NE(std::string(e.what()).find("port index 65536 outside [0, 65535]"), std::string::npos) << e.what();
    }
    EXPECT_NO_THROW(port.attach(&events, nullptr, 65535));
}
