// SPDX-License-Identifier: Apache-2.0
// Link timing: serialization = bytes * 8 / rate, exact to the picosecond, plus propagation delay.
#include "model/ethernet_link.h"
#include "model/event_domain.h"
#include "model/nic/host_nic.h"
#include "testing.h"

#include <gtest/gtest.h>

using namespace cmswitch;
using namespace cmswitch::testing;

TEST(Link, SerializationFormula) {
    // 1500 B = 12000 bits; at 1 Gbps that is 12 us = 12,000,000 ps, exactly
    EXPECT_EQ(serialization_ps(1500, 1000000000ull), 12000000ull);
    EXPECT_EQ(serialization_ps(1500, 10000000000ull), 1200000ull);   // 1.2 us at 10 Gbps
    EXPECT_EQ(serialization_ps(40, 1000000000ull), 320000ull);   // a pure ACK: 320 ns
    EXPECT_EQ(serialization_ps(64, 100000000ull), 5120000ull);   // 5.12 us at 100 Mbps
    // 1500 B at 3 Gbps = 4 us exactly; at 7 Gbps 12000/7 us = 1714285.714... ps, rounded up
    EXPECT_EQ(serialization_ps(1500, 3000000000ull), 4000000ull);
    EXPECT_EQ(serialization_ps(1500, 7000000000ull), 1714286ull);
}

TEST(Link, LastBitArrivesAfterSerializationPlusPropagation) {
    nic_on_a_link b(1 << 20, 5000000ull);   // 1 Gbps, 5 us
    sim_context& ctx = b.ctx;
    frame_pool& pool = b.pool;
    host_nic& nic = b.nic;
    ethernet_link& ln = b.ln;
    capture& cap = b.cap;
    // two back-to-back frames from the NIC at t = 0: the second starts when the first has left (12 us)
    nic.send(make_frame(pool, 1500, 1, 0, 1));
    nic.send(make_frame(pool, 1500, 1, 0, 2));
    ctx.run_until(1000000000ull);
    ASSERT_EQ(cap.frames.size(), 2u);
    EXPECT_EQ(cap.frames[0].arrival_ps, 12000000ull + 5000000ull);
    EXPECT_EQ(cap.frames[1].arrival_ps, 24000000ull + 5000000ull);
    EXPECT_EQ(ln.frames(0), 2u);
    EXPECT_EQ(ln.bytes(0), 3000u);
    EXPECT_EQ(ln.frames(1), 0u);
    EXPECT_EQ(pool.live(), 0u);
}

TEST(Link, ANicDropTraceKeepsTheFirstDropsUpToItsBound) {
    // 3000 B of NIC queue: of five 1500-byte frames sent at once the first goes on the wire, two wait, the last
    // two are dropped; a trace bounded at one keeps the first drop (seq 4) and the counters count both
    nic_on_a_link b(3000, 5000000ull);
    std::vector<host_nic::drop_record> log;
    b.nic.record_drops(&log, 1);
    for (uint64_t seq = 1; seq <= 5; ++seq)
        b.nic.send(make_frame(b.pool, 1500, 1, 0, seq));
    b.ctx.run_until(1000000000ull);
    EXPECT_EQ(b.cap.frames.size(), 3u);
    EXPECT_EQ(b.nic.dropped_frames(), 2u);
    ASSERT_EQ(log.size(), 1u);
    EXPECT_EQ(log[0].seq, 4u);
    EXPECT_EQ(log[0].bytes, 1500u);
    EXPECT_EQ(log[0].t_ps, 0u);
    EXPECT_EQ(log[0].why, drop_reason::nic_queue_full);
}
