// SPDX-License-Identifier: Apache-2.0
// Store-and-forward and cut-through through one switch, against hand calculations of the frame's times.
#include "config/errors.h"
#include "model/switch/ethernet_switch.h"
#include "testing.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace cmswitch;
using namespace cmswitch::testing;

namespace {
constexpr uint64_t us = 1000000;   // ps

// Two senders (their own egress ports, on links into switch ports 0 and 2) and a receiver behind port 1 that
// records when each frame's last bit arrives. Links of 1 us; the senders' links at in_gbps, the receiver's at
// out_gbps.
struct bench final : event_handler {
    sim_context ctx;
    frame_pool pool;
    event_domain events{"events", true};
    ethernet_switch sw;
    egress_port src[2];
    std::vector<uint64_t> arrivals;   // at the receiver, last bit
    uint64_t in_bps, out_bps;
    static buffer_config config(bool cut_through, uint32_t pipeline_ns) {
        buffer_config c;
        c.policy = "static";
        c.port_limit_bytes = 100000;
        c.forwarding.cut_through = cut_through;
        c.forwarding.pipeline_ns = pipeline_ns;
        c.forwarding.cut_through_bytes = 64;
        return c;
    }
    bench(bool cut_through, uint32_t pipeline_ns, double in_gbps = 10, double out_gbps = 10)
        : sw("sw", 3, 2, config(cut_through, pipeline_ns), pool, events), in_bps(static_cast<uint64_t>(in_gbps * 1e9)),
          out_bps(static_cast<uint64_t>(out_gbps * 1e9)) {
        sw.set_route(1, 1);
        for (int i = 0; i < 2; ++i) {
            src[i].attach(&events, this, static_cast<uint32_t>(i));
            src[i].connect(link_timing(in_bps, 1 * us), sw.arrival_sink(i == 0 ? 0 : 2));
            src[i].reset(0, 1500);
        }
        sw.connect(1, link_timing(out_bps, 1 * us), frame_sink{&events, this, 7, 0});
        sw.set_port_rate(0, in_bps);
        sw.set_port_rate(2, in_bps);
        sw.set_port_rate(1, out_bps);
    }
    // sender i sends a frame of `bytes` at t_ps
    void send(int i, uint64_t t_ps, uint32_t bytes) {
        events.schedule(t_ps, this, 100 + static_cast<uint32_t>(i), bytes, nullptr);
    }
    void on_event(uint32_t kind, uint32_t index, void* ptr) override {
        if (kind == 7) {
            arrivals.push_back(now_ps());
            pool.release(static_cast<frame*>(ptr));
        } else {
            src[kind - 100].enqueue(make_frame(pool, index, 1, 0, 0), now_ps());
        }
    }
};

uint64_t ser(uint32_t bytes, uint64_t bps) {
    return serialization_ps(bytes, bps);
}
}   // namespace

TEST(Forwarding, AnIdleSwitchTakesTheFrameTimeOrTheHeadersTimePlusThePipeline) {
    // 1500 B at 10 Gb/s (1.2 us), 64 B (51.2 ns), pipeline 500 ns, 1 us links. The first bit reaches the switch at
    // 1 us. Store-and-forward: the last bit at 2.2 us, out from 2.7 us (one hop: 1.7 us = 1.2 + 0.5), at the
    // receiver 2.7 + 1.2 + 1 = 4.9 us. Cut-through: out from 1 + 0.0512 + 0.5 = 1.5512 us (0.5512 = 0.0512 + 0.5).
    {
        bench saf(false, 500);
        saf.send(0, 0, 1500);
        saf.ctx.run_until(20 * us);
        ASSERT_EQ(saf.arrivals.size(), 1u);
        const uint64_t first_out = saf.arrivals[0] - 1 * us - ser(1500, saf.out_bps);
        EXPECT_EQ(first_out - 1 * us, ser(1500, saf.in_bps) + 500000);
        EXPECT_EQ(saf.arrivals[0], 4900000u);
        EXPECT_EQ(saf.sw.cut_through_frames(), 0u);
    }
    {
        bench ct(true, 500);
        ct.send(0, 0, 1500);
        ct.ctx.run_until(20 * us);
        ASSERT_EQ(ct.arrivals.size(), 1u);
        const uint64_t first_out = ct.arrivals[0] - 1 * us - ser(1500, ct.out_bps);
        EXPECT_EQ(first_out - 1 * us, ser(64, ct.in_bps) + 500000);
        EXPECT_EQ(ct.arrivals[0], 3751200u);
        EXPECT_EQ(ct.sw.cut_through_frames(), 1u);
        EXPECT_EQ(ct.sw.cut_through_stored(), 0u);
    }
    {
        // a frame shorter than the cut-through point is taken whole: its own time
        bench small(true, 0);
        small.send(0, 0, 60);
        small.ctx.run_until(20 * us);
        ASSERT_EQ(small.arrivals.size(), 1u);
        EXPECT_EQ(small.arrivals[0], 1 * us + ser(60, small.in_bps) + ser(60, small.out_bps) + 1 * us);
    }
}

TEST(Forwarding, ABusyEgressPortStoresTheFrame) {
    // Both senders send 1500 B at 0: both frames' first 64 B are in at 1.0512 us (+ 0.5 us pipeline). The first
    // taken cuts through (out from 1.5512 us to 2.7512 us); the second finds the port busy and is stored: taken
    // at its last bit + pipeline (2.7 us), then queued until the first is out (2.7512 us).
    {
        bench ct(true, 500);
        ct.send(0, 0, 1500);
        ct.send(1, 0, 1500);
        ct.ctx.run_until(20 * us);
        ASSERT_EQ(ct.arrivals.size(), 2u);
        EXPECT_EQ(ct.sw.cut_through_frames(), 1u);
        EXPECT_EQ(ct.sw.cut_through_stored(), 1u);
        EXPECT_EQ(ct.arrivals[0], 1551200u + 1200000u + 1 * us);
        EXPECT_EQ(ct.arrivals[1], 2751200u + 1200000u + 1 * us);
    }
    // the second sends 3 us later, the port idle again: it cuts through
    bench later(true, 500);
    later.send(0, 0, 1500);
    later.send(1, 3 * us, 1500);
    later.ctx.run_until(20 * us);
    EXPECT_EQ(later.sw.cut_through_frames(), 2u);
    EXPECT_EQ(later.arrivals[1], 3 * us + 1551200u + 1200000u + 1 * us);
}

TEST(Forwarding, ASlowerEgressPortStoresTheFrameAndAFasterOneStartsLate) {
    // 25 Gb/s in, 10 Gb/s out: an egress slower than the ingress stores the frame: out from its last bit
    // (1 + 0.48 us) + 0.5 us, at the receiver 1.2 + 1 us later
    {
        bench slow(true, 500, 25, 10);
        slow.send(0, 0, 1500);
        slow.ctx.run_until(20 * us);
        ASSERT_EQ(slow.arrivals.size(), 1u);
        EXPECT_EQ(slow.sw.cut_through_stored(), 1u);
        EXPECT_EQ(slow.arrivals[0], 1 * us + 480000u + 500000u + 1200000u + 1 * us);
    }
    // 10 Gb/s in, 25 Gb/s out: cut-through, but its 0.48 us out must not end before its last bit (2.2 us) and the
    // pipeline: out from max(1.5512, 2.2 + 0.5 - 0.48) = 2.22 us, at the receiver 2.22 + 0.48 + 1 = 3.7 us
    bench fast(true, 500, 10, 25);
    fast.send(0, 0, 1500);
    fast.ctx.run_until(20 * us);
    ASSERT_EQ(fast.arrivals.size(), 1u);
    EXPECT_EQ(fast.sw.cut_through_frames(), 1u);
    EXPECT_EQ(fast.arrivals[0], 3700000u);
}

TEST(Forwarding, APausedEgressQueueStoresTheFrame) {
    // priority 0 paused at port 1 for 65535 quanta at 10 Gb/s (3.36 ms): the frame is stored, and leaves when
    // the pause ends
    bench ct(true, 0);
    ct.sw.set_port_rate(1, ct.out_bps);
    frame* pause = make_frame(ct.pool, 64, 0, 7, 0);
    pause->kind = frame_kind::pause;
    pause->ctl.pause.class_enable = 0x01;
    pause->ctl.pause.quanta = 65535;
    const frame_sink into1 = ct.sw.arrival_sink(1);   // a PAUSE arriving on port 1 (for its transmitter)
    ct.events.schedule(0, into1.handler, into1.kind, into1.index, pause);
    ct.send(0, 0, 1500);
    ct.ctx.run_until(20 * us);
    EXPECT_EQ(ct.sw.cut_through_stored(), 1u);
    EXPECT_EQ(ct.arrivals.size(), 0u);
    ct.ctx.run_until(5000 * us);
    ASSERT_EQ(ct.arrivals.size(), 1u);
    EXPECT_EQ(ct.arrivals[0], 65535ull * 512 * 100 + 1200000u + 1 * us);
}

TEST(Forwarding, BadSettingsAreRefusedWithTheirRange) {
    sim_context ctx;
    frame_pool pool;
    event_domain events{"events", true};
    buffer_config c = bench::config(true, 0);
    c.forwarding.cut_through_bytes = 10;
    try {
        ethernet_switch sw("sw", 2, 2, c, pool, events);
        ADD_FAILURE();
    } catch (const config_error& e) {
        EXPECT_NE(std::string(e.what()).find("cut_through_bytes"), std::string::npos);
    }
    c = bench::config(false, 2000000);
    EXPECT_THROW(ethernet_switch("sw", 2, 2, c, pool, events), config_error);
}
