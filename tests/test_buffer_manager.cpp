// SPDX-License-Identifier: Apache-2.0
// Buffer admission, checked against hand calculations.
#include "model/switch/buffer_manager.h"
#include "model/errors.h"
#include "model/switch/ethernet_switch.h"
#include "model/event_domain.h"
#include "model/ethernet_link.h"
#include "testing.h"

#include <gtest/gtest.h>

using namespace cmswitch;
using namespace cmswitch::testing;

TEST(StaticBuffer, AdmitsTheFrameThatExactlyFillsAndDropsTheNext) {
    static_buffer b(2, 4500);
    EXPECT_EQ(b.admit(0, 0, 1500), drop_reason::none);   // 1500
    EXPECT_EQ(b.admit(0, 3, 1500), drop_reason::none);   // 3000 (the limit is per port, all priorities)
    EXPECT_EQ(b.admit(0, 0, 1500), drop_reason::none);   // 4500 = limit: admitted
    EXPECT_EQ(b.admit(0, 0, 64), drop_reason::port_limit);
    EXPECT_EQ(b.port_bytes(0), 4500u);
    EXPECT_EQ(b.admit(1, 0, 1500), drop_reason::none);   // another port has its own limit
    b.release(0, 0, 1500);
    EXPECT_EQ(b.admit(0, 0, 1501), drop_reason::port_limit);   // 3000 + 1501 > 4500
    EXPECT_EQ(b.admit(0, 0, 1500), drop_reason::none);
    EXPECT_EQ(b.used_bytes(), 6000u);
}

TEST(DynamicThresholdBuffer, OneQueueFillsToHalfThePoolWithAlphaOne) {
    // pool B = 100000, alpha = 1: a frame is admitted while q < B - q, i.e. q < 50000.
    // With 1500-byte frames: admitted at q = 0, 1500, ..., 49500 (34 frames, q = 51000), refused at 51000.
    dynamic_threshold_buffer b(4, 100000, 1.0);
    int admitted = 0;
    while (b.admit(0, 0, 1500) == drop_reason::none)
        ++admitted;
    EXPECT_EQ(admitted, 34);
    EXPECT_EQ(b.queue_bytes(0, 0), 51000u);
    EXPECT_EQ(b.admit(0, 0, 1500), drop_reason::dynamic_threshold);
    // a second queue sees free = 49000: admitted while q2 < 49000 - q2 -> q2 < 24500: 17 frames (25500)
    int second = 0;
    while (b.admit(1, 0, 1500) == drop_reason::none)
        ++second;
    EXPECT_EQ(second, 17);
    EXPECT_DOUBLE_EQ(b.threshold_bytes(), 100000.0 - 51000.0 - 25500.0);
}

TEST(DynamicThresholdBuffer, AlphaScalesTheThresholdAndPoolLimitHolds) {
    // alpha = 2: q < 2 (B - q) -> q < 2B/3. B = 30000: admitted at q = 0..19500 step 1500 (14 frames, 21000)
    dynamic_threshold_buffer b(1, 30000, 2.0);
    int admitted = 0;
    while (b.admit(0, 0, 1500) == drop_reason::none)
        ++admitted;
    EXPECT_EQ(admitted, 14);
    // alpha large: the pool itself is the limit; a frame bigger than what is free is refused as pool_full
    dynamic_threshold_buffer big(1, 4000, 64.0);
    EXPECT_EQ(big.admit(0, 0, 1500), drop_reason::none);
    EXPECT_EQ(big.admit(0, 0, 1500), drop_reason::none);
    EXPECT_EQ(big.admit(0, 0, 1500), drop_reason::pool_full);   // 1000 free
    EXPECT_EQ(big.admit(0, 0, 1000), drop_reason::none);
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

TEST(Switch, DropTailThroughTheSwitch) {
    // Limit 3000 B; 5 frames of 1500 B arrive at once for an idle port: the first starts transmission at once
    // (it leaves the queue), the 2nd and 3rd fill the queue to exactly 3000 B, the 4th and 5th are dropped.
    sim_context ctx;
    frame_pool pool;
    event_domain events("events", true);
    buffer_config bc;
    bc.policy = "static";
    bc.port_limit_bytes = 3000;
    ethernet_switch sw("sw", 2, 2, bc, pool, events);
    sw.set_route(1, 1);
    injector in0("in0"), in1("in1");
    capture out0("out0", pool), out1("out1", pool);
    ethernet_link l0("l0", 1000000000ull, 0), l1("l1", 1000000000ull, 0);
    in0.tx.bind(l0.a_in);
    l0.a_out.bind(sw.rx(0));
    sw.tx(0).bind(l0.b_in);
    l0.b_out.bind(out0.rx);
    in1.tx.bind(l1.a_in);
    l1.a_out.bind(sw.rx(1));
    sw.tx(1).bind(l1.b_in);
    l1.b_out.bind(out1.rx);
    // the injector bypasses serialization on its side: the link adds 12 us, so all 5 arrive at once at 12 us
    for (uint64_t i = 0; i < 5; ++i) {
        frame* f = make_frame(pool, 1500, 1, 0, i);
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        in0.tx->b_transport(*f, d);
    }
    ctx.run_until(1000000000ull);
    EXPECT_EQ(out1.frames.size(), 3u);
    EXPECT_EQ(sw.counters(1).drop_frames[static_cast<size_t>(drop_reason::port_limit)], 2u);
    EXPECT_EQ(sw.counters(0).rx_frames, 5u);
    EXPECT_EQ(sw.egress(1).occupancy().max(), 3000u);
    EXPECT_EQ(sw.buffer().used_bytes(), 0u);
    EXPECT_EQ(pool.live(), 0u);
}
