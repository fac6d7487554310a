// SPDX-License-Identifier: Apache-2.0
// TCP NewReno / DCTCP sender and receiver against hand-computed values (RFC 5681, 6582, 6298, 8257).
#include "model/ecn_marker.h"
#include "platform/network.h"
#include "testing.h"
#include "traffic/tcp.h"

#include <gtest/gtest.h>

using namespace cmswitch;

namespace {
constexpr uint64_t us = 1000000ull;   // picoseconds
constexpr uint64_t ms = 1000 * us;
constexpr uint64_t mss = 1460;

// Host 1 sends to host 0 through one switch; 1 Gbps links with `delay` each.
struct bench {
    sim_context ctx;
    network net;
    tcp_config cfg;
    tcp_stats st, rx_st;
    explicit bench(uint64_t delay_ps, uint64_t buffer_bytes = 1 << 20)
        : net([&] {
              buffer_config b;
              b.port_limit_bytes = buffer_bytes;
              return star_topology(2, 1000000000ull, delay_ps, b);
          }()) {}
};

frame* ack_frame(frame_pool& pool, uint64_t ack, bool ece = false) {
    frame* f = pool.acquire();
    f->kind = frame_kind::tcp;
    f->bytes = 40;
    f->ack = ack;
    f->flags = static_cast<uint8_t>(tcp_ack | (ece ? tcp_ece : 0));
    return f;
}
} // namespace

TEST(Tcp, SlowStartDoublesTheWindowEveryRoundTrip) {
    // RTT ~ 425 us (4 x 100 us propagation + serialization); ACK per segment, +1 MSS per ACK: 2, 4, 8, 16 segments
    bench b(100 * us);
    b.cfg.initial_cwnd = 2;
    tcp_sender s(b.net.stack(1), 0, 0, b.cfg, b.st, rng(1, 0));
    tcp_receiver r(b.net.stack(0), 0, 1, b.cfg, b.rx_st);
    s.write(10 * 1000 * 1000);
    EXPECT_EQ(s.cwnd(), 2 * mss);
    b.ctx.run_until(600 * us);
    EXPECT_EQ(s.cwnd(), 4 * mss);
    b.ctx.run_until(1100 * us);
    EXPECT_EQ(s.cwnd(), 8 * mss);
    b.ctx.run_until(1550 * us);
    EXPECT_EQ(s.cwnd(), 16 * mss);
    EXPECT_EQ(b.st.timeouts, 0u);
}

TEST(Tcp, ThreeDuplicateAcksPartialAckAndFullAck) {
    bench b(1 * us);
    b.cfg.initial_cwnd = 10;
    tcp_sender s(b.net.stack(1), 0, 0, b.cfg, b.st, rng(1, 0));   // no receiver: we play the ACKs
    frame_pool& pool = b.net.pool();
    s.write(100 * mss);
    ASSERT_EQ(s.snd_nxt(), 10 * mss);   // initial window of 10 segments sent
    for (int i = 0; i < 3; ++i)
        s.on_frame(ack_frame(pool, 0), 0);
    // 3rd duplicate: ssthresh = max(FlightSize/2, 2 SMSS) = 7300; cwnd = ssthresh + 3 SMSS = 11680; retransmit
    EXPECT_TRUE(s.in_fast_recovery());
    EXPECT_EQ(s.ssthresh(), 7300u);
    EXPECT_EQ(s.cwnd(), 11680u);
    EXPECT_EQ(b.st.fast_retransmits, 1u);
    EXPECT_EQ(b.st.retransmitted_segments, 1u);
    s.on_frame(ack_frame(pool, 0), 0);   // a further duplicate inflates by one SMSS
    EXPECT_EQ(s.cwnd(), 13140u);
    EXPECT_EQ(s.snd_nxt(), 10 * mss);   // 13140 < FlightSize 14600: nothing new may go
    // partial ACK of 5 segments: retransmit the next hole, cwnd = 13140 - 7300 + 1460 = 7300, stay in recovery
    s.on_frame(ack_frame(pool, 5 * mss), 0);
    EXPECT_TRUE(s.in_fast_recovery());
    EXPECT_EQ(s.cwnd(), 7300u);
    EXPECT_EQ(b.st.retransmitted_segments, 2u);
    // full ACK (covers recover = 14600): cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS) = min(7300, 2920)
    s.on_frame(ack_frame(pool, 10 * mss), 0);
    EXPECT_FALSE(s.in_fast_recovery());
    EXPECT_EQ(s.cwnd(), 2920u);
    EXPECT_EQ(s.snd_nxt(), 12 * mss);   // two new segments fit in the new window
    b.ctx.run_until(1 * ms);
}

TEST(Tcp, RetransmissionTimeoutFormulasAndBackoff) {
    bench b(1 * us);
    b.cfg.min_rto_ps = 1 * us;
    tcp_sender s(b.net.stack(1), 0, 0, b.cfg, b.st, rng(1, 0));
    // RFC 6298: first sample R: SRTT = R, RTTVAR = R/2, RTO = SRTT + 4 RTTVAR
    s.rtt_sample(100 * us);
    EXPECT_DOUBLE_EQ(s.srtt_ps(), 100.0 * us);
    EXPECT_DOUBLE_EQ(s.rttvar_ps(), 50.0 * us);
    EXPECT_EQ(s.rto_ps(), 300 * us);
    // next sample 200 us: RTTVAR = 3/4 50 + 1/4 |100 - 200| = 62.5; SRTT = 7/8 100 + 1/8 200 = 112.5
    s.rtt_sample(200 * us);
    EXPECT_DOUBLE_EQ(s.rttvar_ps(), 62.5 * us);
    EXPECT_DOUBLE_EQ(s.srtt_ps(), 112.5 * us);
    EXPECT_EQ(s.rto_ps(), 362500000ull);   // 112.5 + 4 x 62.5 = 362.5 us

    // the minimum clamps: with min RTO 10 ms the same samples give 10 ms
    bench c(1 * us);
    c.cfg.min_rto_ps = 10 * ms;
    tcp_sender t(c.net.stack(1), 0, 0, c.cfg, c.st, rng(1, 0));
    t.rtt_sample(100 * us);
    EXPECT_EQ(t.rto_ps(), 10 * ms);
    // no receiver: the first timeout fires at 10 ms, then back-off doubles: 20 ms later, then 40 ms later
    t.write(mss);
    c.ctx.run_until(9 * ms);
    EXPECT_EQ(c.st.timeouts, 0u);
    c.ctx.run_until(11 * ms);
    EXPECT_EQ(c.st.timeouts, 1u);
    EXPECT_EQ(t.rto_ps(), 20 * ms);
    c.ctx.run_until(29 * ms);
    EXPECT_EQ(c.st.timeouts, 1u);
    c.ctx.run_until(31 * ms);
    EXPECT_EQ(c.st.timeouts, 2u);
    c.ctx.run_until(69 * ms);
    EXPECT_EQ(c.st.timeouts, 2u);
    c.ctx.run_until(71 * ms);
    EXPECT_EQ(c.st.timeouts, 3u);
    EXPECT_EQ(t.rto_ps(), 80 * ms);
    EXPECT_EQ(c.st.retransmitted_segments, 3u);
}

TEST(Tcp, DctcpAlphaAfterAKnownMarkingPattern) {
    bench b(1 * us);
    b.cfg.congestion_control = tcp_config::cc::dctcp;
    b.cfg.initial_cwnd = 10;
    tcp_sender s(b.net.stack(1), 0, 0, b.cfg, b.st, rng(1, 0));
    frame_pool& pool = b.net.pool();
    s.write(100 * mss);
    EXPECT_DOUBLE_EQ(s.dctcp_alpha(), 1.0);   // alpha starts at 1 (RFC 8257)
    // 1st ACK closes the (empty) first window: M = 0 -> alpha = 15/16
    s.on_frame(ack_frame(pool, mss), 0);
    EXPECT_DOUBLE_EQ(s.dctcp_alpha(), 15.0 / 16);
    // the next window ends with the first ACK beyond 10 segments: 10 ACKs of 1 segment, 4 with ECE: M = 0.4
    for (uint64_t k = 2; k <= 11; ++k)
        s.on_frame(ack_frame(pool, k * mss, k <= 5), 0);
    EXPECT_DOUBLE_EQ(s.dctcp_alpha(), (15.0 / 16) * (15.0 / 16) + 0.4 / 16);
    EXPECT_EQ(b.st.ecn_reductions, 1u);   // one reduction per window
    b.ctx.run_until(1 * ms);
}

TEST(Tcp, ReceiverBuffersOutOfOrderDataAndAcksCumulatively) {
    bench b(1 * us);
    tcp_receiver r(b.net.stack(0), 0, 1, b.cfg, b.rx_st);
    frame_pool& pool = b.net.pool();
    auto data = [&](uint64_t seq) {
        frame* f = pool.acquire();
        f->kind = frame_kind::tcp;
        f->seq = seq;
        f->payload = mss;
        f->bytes = mss + 40;
        r.on_frame(f, 0);
    };
    data(0);
    data(2 * mss);   // hole at 1460
    data(3 * mss);
    EXPECT_EQ(r.rcv_nxt(), mss);
    data(mss);       // fills the hole: everything up to 4 segments is in order
    EXPECT_EQ(r.rcv_nxt(), 4 * mss);
    data(mss);       // old duplicate
    EXPECT_EQ(r.rcv_nxt(), 4 * mss);
    EXPECT_EQ(b.rx_st.acks_sent, 5u);   // no delayed ACK: one ACK per segment
    EXPECT_EQ(b.rx_st.bytes_delivered, 4 * mss);
    b.ctx.run_until(1 * ms);
}

TEST(EcnMarker, RedProbabilityIsLinearBetweenKminAndKmax) {
    red_marker red(10000, 30000, 0.1);
    EXPECT_DOUBLE_EQ(red.probability(10000), 0.0);
    EXPECT_DOUBLE_EQ(red.probability(20000), 0.05);
    EXPECT_DOUBLE_EQ(red.probability(25000), 0.075);
    EXPECT_DOUBLE_EQ(red.probability(30000), 1.0);
    rng g(3, 0);
    int marked = 0;
    const int n = 200000;
    for (int i = 0; i < n; ++i)
        marked += red.should_mark(20000, g) ? 1 : 0;
    // binomial: mean 0.05, sd sqrt(0.05 * 0.95 / n) = 0.00049
    EXPECT_NEAR(static_cast<double>(marked) / n, 0.05, 0.0025);
    step_marker step(30000);
    EXPECT_DOUBLE_EQ(step.probability(30000), 0.0);
    EXPECT_DOUBLE_EQ(step.probability(30001), 1.0);
}
