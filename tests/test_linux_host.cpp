// SPDX-License-Identifier: Apache-2.0
// The Linux-like host against hand-computed values: RACK (RFC 8985 section 6), the tail loss probe (section 7,
// Linux's timer), CUBIC (RFC 9438), D-SACK and quick-ACK at the receiver, cwnd validation (Linux
// tcp_is_cwnd_limited), and the host egress below TCP: fq's round robin by quantum, TCP small queues, GSO segments
// (tcp_tso_autosize, one skb through the small queue, fq and the NIC ring, one paced departure per skb), BQL, the
// host latency, and the receive path (interrupt moderation, GRO and the one ACK per skb).
#include "platform/network.h"
#include "testing.h"
#include "traffic/tcp/cubic.h"
#include "traffic/tcp/rack.h"
#include "traffic/tcp/tcp_receiver.h"
#include "traffic/tcp/tcp_sender.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

using namespace cmswitch;

namespace {
constexpr uint64_t us = 1000000ull;   // picoseconds
constexpr uint64_t ms = 1000 * us;
constexpr uint64_t mss = 1460;

// Host 1 sends to host 0 through one switch (1 Gb/s links, `delay` each), with the hosts' egress `egress`.
struct bench {
    sim_context ctx;
    network net;
    tcp_config cfg;
    tcp_stats st, rx_st;
    explicit bench(uint64_t delay_ps, host_egress_config egress = {})
        : net([&] {
              buffer_config b;
              b.port_limit_bytes = 1 << 20;
              topology t = star_topology(2, 1000000000ull, delay_ps, b);
              t.host_egress = egress;
              return t;
          }()) {}
};

// A 1500-byte UDP frame of `flow` from host 1 to host 0, handed to host 1's NIC.
void send_udp_frame(bench& b, uint32_t flow) {
    frame* f = b.net.pool().acquire();
    f->kind = frame_kind::udp;
    f->flow = flow;
    f->bytes = 1500;
    f->src = 1;
    f->dst = 0;
    b.net.nic(1).send(f);
}

class at_time final : public timer_client {
public:
    at_time(host_nic& nic, uint64_t t_ps, std::function<void()> fn) : m_fn(std::move(fn)) {
        nic.schedule_timer(t_ps, this, 0);
    }
    void on_timer(uint32_t) override { m_fn(); }

private:
    std::function<void()> m_fn;
};

frame* ack_frame(frame_pool& pool, uint64_t ack, std::vector<std::pair<uint64_t, uint64_t>> sack = {}) {
    frame* f = pool.acquire();
    f->kind = frame_kind::tcp;
    f->bytes = 40;
    f->ack = ack;
    f->flags = tcp_ack;
    for (const auto& b : sack) {
        f->sack[f->sack_blocks].begin = static_cast<uint32_t>(b.first - ack);
        f->sack[f->sack_blocks].end = static_cast<uint32_t>(b.second - ack);
        ++f->sack_blocks;
    }
    return f;
}

frame* data_frame(frame_pool& pool, uint32_t flow, uint64_t seq, uint32_t len) {
    frame* f = pool.acquire();
    f->kind = frame_kind::tcp;
    f->flow = flow;
    f->seq = seq;
    f->payload = len;
    f->bytes = len + 40;
    return f;
}

// Records the frames of given flows that reach a host, in arrival order.
struct recorder final : public flow_endpoint {
    recorder(host_stack& host, std::vector<uint32_t> flows) : pool(host.nic().pool()) {
        for (uint32_t f : flows)
            host.bind(f, this);
    }
    void on_frame(frame* f, uint64_t now) override {
        order.push_back(f->flow);
        flags.push_back(f->flags);
        seqs.push_back(f->seq);
        acks.push_back(f->ack);
        times.push_back(now);
        named.push_back(f->endpoint);
        bits.push_back(f->host_bits);
        pool.release(f);
    }
    frame_pool& pool;
    std::vector<uint32_t> order;
    std::vector<uint8_t> flags, bits;
    std::vector<uint64_t> seqs, acks, times;
    std::vector<const flow_endpoint*> named;   // the endpoint each frame named (frame::endpoint)
};

// A scoreboard that sent `first` 1000-byte segments (segment i at i us), had [0, ack) acknowledged at 100 us,
// then sent `then` more (segment i at 100 + i us).
rack_scoreboard two_flights(uint64_t first, uint64_t ack, uint64_t then) {
    rack_scoreboard r;
    for (uint64_t i = 0; i < first; ++i)
        r.on_send(i * 1000, 1000, i * us, false);
    EXPECT_EQ(r.on_ack(ack, nullptr, 0, 100 * us, 0), ack);
    for (uint64_t i = first; i < first + then; ++i)
        r.on_send(i * 1000, 1000, 100 * us + i * us, false);
    return r;
}
}   // namespace

TEST(Rack, MarksASegmentLostOnlyAfterTheReorderingWindow) {
    // Four segments sent at 0, 10, 20 and 30 us. At 120 us the third (sent at 20 us) is SACKed: RACK.rtt = 100 us,
    // RACK.xmit_ts = 20 us. With a reordering window of 25 us the first is lost at 0 + 100 + 25 = 125 us, the second
    // at 135 us; the fourth, sent after the SACKed one, is not suspected at all.
    rack_scoreboard r;
    for (uint64_t i = 0; i < 4; ++i)
        r.on_send(i * 1000, 1000, i * 10 * us, false);
    const rack_scoreboard::range sacked{2000, 3000};
    EXPECT_EQ(r.on_ack(0, &sacked, 1, 120 * us, 0), 1000u);
    EXPECT_EQ(r.rack_rtt_ps(), 100 * us);
    EXPECT_EQ(r.rack_xmit_ps(), 20 * us);
    EXPECT_EQ(r.min_rtt_ps(), 100 * us);
    uint64_t wait = 0;
    EXPECT_EQ(r.detect_loss(120 * us, 25 * us, &wait), 0u);
    EXPECT_EQ(wait, 15 * us);   // the reorder timer: until the second segment's deadline, 135 us
    EXPECT_EQ(r.detect_loss(125 * us, 25 * us, &wait), 1000u);   // the first segment, exactly at its deadline
    EXPECT_EQ(wait, 10 * us);
    EXPECT_EQ(r.detect_loss(134 * us, 25 * us, &wait), 0u);
    EXPECT_EQ(r.detect_loss(135 * us, 25 * us, &wait), 1000u);
    EXPECT_EQ(wait, 0u);
    EXPECT_EQ(r.lost_bytes(), 2000u);
    EXPECT_EQ(r.pipe(), 4000u - 1000u - 2000u);   // outstanding - SACKed - lost
    // the reordering window: RFC 8985 / Linux, min(min_rtt / 4, srtt); 0 in recovery while no reordering was seen
    EXPECT_EQ(r.reo_wnd(false, 200 * us, 3), 25 * us);
    EXPECT_EQ(r.reo_wnd(true, 200 * us, 3), 0u);
    // retransmitting the first lost segment takes it out of the pipe's lost count and puts it back in flight
    uint64_t seq = 0, len = 0;
    ASSERT_TRUE(r.next_lost(0, seq, len));
    EXPECT_EQ(seq, 0u);
    r.on_send(0, 1000, 140 * us, true);
    EXPECT_EQ(r.pipe(), 2000u);
    ASSERT_TRUE(r.next_lost(0, seq, len));
    EXPECT_EQ(seq, 1000u);
    // an ACK of the retransmission sooner than min_rtt after it cannot be for it (RFC 8985 6.2 step 2): RACK stays
    EXPECT_EQ(r.on_ack(1000, nullptr, 0, 150 * us, 0), 1000u);
    EXPECT_FALSE(r.advanced());
    EXPECT_EQ(r.rack_xmit_ps(), 20 * us);
}

TEST(Rack, ReorderingSeenOpensTheWindowEvenInRecovery) {
    // a segment never retransmitted that arrives after a later one was SACKed: reordering (RFC 8985 6.2 step 4)
    rack_scoreboard r;
    for (uint64_t i = 0; i < 3; ++i)
        r.on_send(i * 1000, 1000, i * us, false);
    const rack_scoreboard::range b{2000, 3000};
    r.on_ack(0, &b, 1, 100 * us, 0);
    EXPECT_FALSE(r.reordering_seen());
    r.on_ack(1000, nullptr, 0, 101 * us, 0);   // the original [0, 1000) arrives late
    EXPECT_TRUE(r.reordering_seen());
    EXPECT_EQ(r.reo_wnd(true, 400 * us, 3), r.min_rtt_ps() / 4);
}

TEST(Rack, SplitRecordsKeepTheirOrderAndTheStorageGoesWithTheLastOne) {
    // Six 1000-byte segments, five ACKed, six more. A SACK of [7500, 10500) splits two records and leaves nine:
    // [5000, 6000) [6000, 7000) [7000, 7500) | [7500, 8000) [8000, 9000) [9000, 10000) [10000, 10500) | [10500,
    // 11000) [11000, 12000), the four in the middle SACKed. When the last is acknowledged, nothing stays allocated.
    rack_scoreboard r = two_flights(6, 5000, 6);
    EXPECT_TRUE(r.holds_storage());
    EXPECT_EQ(r.size(), 7u);
    const rack_scoreboard::range sacked{7500, 10500};
    EXPECT_EQ(r.on_ack(5000, &sacked, 1, 300 * us, 0), 3000u);
    EXPECT_EQ(r.size(), 9u);
    EXPECT_EQ(r.head().begin, 5000u);
    EXPECT_EQ(r.tail().begin, 11000u);
    EXPECT_EQ(r.outstanding_bytes(), 7000u);
    EXPECT_EQ(r.sacked_bytes(), 3000u);
    EXPECT_EQ(r.sacked_segments(), 4u);
    r.mark_all_lost();
    EXPECT_EQ(r.lost_bytes(), 4000u);   // all but the SACKed
    uint64_t seq = 0, len = 0;
    ASSERT_TRUE(r.next_lost(0, seq, len));
    EXPECT_EQ(seq, 5000u);
    EXPECT_EQ(len, 1000u);
    ASSERT_TRUE(r.next_lost(7000, seq, len));
    EXPECT_EQ(seq, 7000u);
    EXPECT_EQ(len, 500u);
    ASSERT_TRUE(r.next_lost(8000, seq, len));   // past the SACKed records
    EXPECT_EQ(seq, 10500u);
    EXPECT_EQ(len, 500u);
    // everything acknowledged: 4000 bytes newly delivered (the SACKed 3000 were counted), no record, no storage
    EXPECT_EQ(r.on_ack(12000, nullptr, 0, 400 * us, 0), 4000u);
    EXPECT_TRUE(r.empty());
    EXPECT_FALSE(r.holds_storage());
    EXPECT_EQ(r.pipe(), 0u);
}

TEST(Rack, RecordsStayInOrderThroughSplitsNearEitherEndCopiesAndAcks) {
    // Twelve 1000-byte segments, ten ACKed, twelve more: fourteen records, [10000, 24000) (a container's start
    // has moved, and the records pass the 16 of a first block). A SACK of [13500, 14500) splits two records near
    // the front, one of [21500, 22500) two near the back: eighteen. Every split record is where sequence order
    // puts it, in the scoreboard and in a copy made between the two SACKs; and a scoreboard acknowledged a segment
    // at a time keeps its first record and its bytes right at every step.
    rack_scoreboard r = two_flights(12, 10000, 12);
    EXPECT_EQ(r.size(), 14u);
    const rack_scoreboard::range front{13500, 14500};
    EXPECT_EQ(r.on_ack(10000, &front, 1, 300 * us, 0), 1000u);
    EXPECT_EQ(r.size(), 16u);
    rack_scoreboard copy = r;
    const rack_scoreboard::range back{21500, 22500};
    EXPECT_EQ(r.on_ack(10000, &back, 1, 301 * us, 0), 1000u);
    EXPECT_EQ(r.size(), 18u);
    EXPECT_EQ(r.sacked_segments(), 4u);
    EXPECT_EQ(r.head().begin, 10000u);
    EXPECT_EQ(r.tail().begin, 23000u);
    EXPECT_EQ(r.outstanding_bytes(), 14000u);
    r.mark_all_lost();
    EXPECT_EQ(r.lost_bytes(), 12000u);   // all but the 2000 SACKed
    copy.mark_all_lost();
    EXPECT_EQ(copy.lost_bytes(), 13000u);   // the copy has only the first SACK
    // the lost records, walked in order: whole segments but the halves beside the SACKed ones
    auto walk = [](const rack_scoreboard& s) {
        std::vector<std::pair<uint64_t, uint64_t>> got;
        uint64_t seq = 0, len = 0;
        for (uint64_t from = 0; s.next_lost(from, seq, len); from = seq + len)
            got.emplace_back(seq, len);
        return got;
    };
    auto expected = [](std::vector<uint64_t> split_below, std::vector<uint64_t> split_above) {
        std::vector<std::pair<uint64_t, uint64_t>> want;
        auto in = [](const std::vector<uint64_t>& v, uint64_t b) {
            return std::find(v.begin(), v.end(), b) != v.end();
        };
        for (uint64_t b = 10000; b < 24000; b += 1000) {
            if (in(split_below, b))
                want.emplace_back(b, 500);
            else if (in(split_above, b))
                want.emplace_back(b + 500, 500);
            else
                want.emplace_back(b, 1000);
        }
        return want;
    };
    EXPECT_EQ(walk(r), expected({13000, 21000}, {14000, 22000}));
    EXPECT_EQ(walk(copy), expected({13000}, {14000}));
    EXPECT_EQ(r.on_ack(24000, nullptr, 0, 400 * us, 0), 12000u);
    EXPECT_TRUE(r.empty());
    EXPECT_FALSE(r.holds_storage());
    EXPECT_EQ(copy.size(), 16u);   // the copy kept its own records
    // a scoreboard built as r was, acknowledged a segment at a time
    rack_scoreboard w = two_flights(12, 10000, 12);
    w.on_ack(10000, &front, 1, 300 * us, 0);
    for (uint64_t a = 11000; a <= 23000; a += 1000) {
        w.on_ack(a, nullptr, 0, 500 * us, 0);
        ASSERT_FALSE(w.empty());
        EXPECT_EQ(w.head().begin, a);
        EXPECT_EQ(w.tail().end, 24000u);
        EXPECT_EQ(w.outstanding_bytes(), 24000u - a);
    }
}

TEST(Tlp, TheProbeGoesTwoSrttAfterTheLastAckAndResendsTheTail) {
    // Ten segments at t = 0, eight of them ACKed at 100 us (RTT sample 100 us: SRTT 100 us). Two segments are out,
    // so the probe timeout is 2 SRTT + 2 ms (Linux's TCP_TIMEOUT_MIN) = 2.2 ms from the ACK, under the 200 ms RTO:
    // the probe goes at 2.3 ms and resends the last segment (no new data waits).
    bench b(1 * us);
    b.cfg.init_cwnd = 10;
    b.cfg.sack = b.cfg.rack_tlp = true;
    tcp_sender s(b.net.stack(1), 0, 0, b.cfg, b.st, rng(1, 0));   // no receiver: we play the ACKs
    recorder seen(b.net.stack(0), {0});
    frame_pool& pool = b.net.pool();
    s.write(10 * mss);
    at_time ack(b.net.nic(1), 100 * us, [&] {
        s.on_frame(ack_frame(pool, 8 * mss), now_ps());
        EXPECT_DOUBLE_EQ(s.srtt_ps(), 100.0 * us);
        EXPECT_EQ(s.timer(), tcp_sender::timer_kind::loss_probe);
        EXPECT_EQ(s.rto_deadline_ps(), 100 * us + 2 * 100 * us + 2 * ms);
    });
    b.ctx.run_until(2299 * us);
    EXPECT_EQ(b.st.loss_probes, 0u);
    b.ctx.run_until(2400 * us);
    EXPECT_EQ(b.st.loss_probes, 1u);
    EXPECT_EQ(b.st.retransmitted_segments, 1u);
    EXPECT_EQ(b.st.retransmitted_bytes, mss);
    EXPECT_EQ(b.st.probe_retransmitted_bytes, mss);   // a probe's, not a loss's
    ASSERT_EQ(seen.seqs.size(), 11u);
    EXPECT_EQ(seen.seqs.back(), 9 * mss);   // the tail segment again
    EXPECT_EQ(s.timer(), tcp_sender::timer_kind::rto);   // then the RTO, from the probe
    EXPECT_EQ(b.st.timeouts, 0u);
}

TEST(Tlp, WithOneSegmentOutTheProbeWaitsForADelayedAckUpToTheRto) {
    // RFC 8985 7.2: one segment out, PTO = 2 SRTT + the worst delayed ACK (Linux: the minimum RTO), at most the
    // RTO: with min RTO 200 ms and SRTT 100 us, 200.2 ms capped by the RTO of 200 ms.
    bench b(1 * us);
    b.cfg.init_cwnd = 10;
    b.cfg.sack = b.cfg.rack_tlp = true;
    tcp_sender s(b.net.stack(1), 0, 0, b.cfg, b.st, rng(1, 0));
    frame_pool& pool = b.net.pool();
    s.write(10 * mss);
    at_time ack(b.net.nic(1), 100 * us, [&] {
        s.on_frame(ack_frame(pool, 9 * mss), now_ps());
        EXPECT_EQ(s.timer(), tcp_sender::timer_kind::loss_probe);
        EXPECT_EQ(s.rto_deadline_ps(), 100 * us + 200 * ms);
    });
    b.ctx.run_until(1 * ms);
}

TEST(Tlp, RackRepairsAHoleWhenTheProbeBringsASack) {
    // The first of ten segments is lost; the other nine are SACKed at 100 us: with 3 or more segments SACKed the
    // reordering window is 0, so RACK marks the hole lost at once, recovery starts and retransmits it (no timeout,
    // no probe).
    bench b(1 * us);
    b.cfg.init_cwnd = 10;
    b.cfg.sack = b.cfg.rack_tlp = true;
    tcp_sender s(b.net.stack(1), 0, 0, b.cfg, b.st, rng(1, 0));
    frame_pool& pool = b.net.pool();
    s.write(10 * mss);
    at_time ack(b.net.nic(1), 100 * us, [&] {
        s.on_frame(ack_frame(pool, 0, {{mss, 10 * mss}}), now_ps());
        EXPECT_TRUE(s.in_fast_recovery());
        EXPECT_EQ(b.st.rack_losses, 1u);
        EXPECT_EQ(b.st.retransmitted_segments, 1u);
        EXPECT_EQ(s.ssthresh(), 5 * mss);   // max(cwnd / 2, 2 SMSS)
    });
    b.ctx.run_until(1 * ms);
    EXPECT_EQ(b.st.loss_probes, 0u);
    EXPECT_EQ(b.st.timeouts, 0u);
}

TEST(Cubic, TheWindowCurveAndFastConvergence) {
    // RFC 9438: W(t) = C (t - K)^3 + W_max; after a loss at W_max = 100 segments, beta 0.7: cwnd 70,
    // K = cbrt(W_max (1 - beta) / C) = cbrt(75) = 4.2172 s; W(0) = 70, W(K) = 100, W(K + 1 s) = 100.4.
    tcp_config c;
    c.transport = "cubic";
    c.mss = 1000;
    auto cc = make_congestion_control(c);
    auto& cu = static_cast<cubic&>(*cc);
    tcp_window w{100 * 1000, UINT64_MAX};
    w.ssthresh = cu.loss_ssthresh(w.cwnd);
    EXPECT_EQ(w.ssthresh, 70000u);
    EXPECT_DOUBLE_EQ(cu.w_max(), 100.0);
    w.cwnd = w.ssthresh;
    const uint64_t t0 = 1000 * ms;
    cu.on_increase(w, tcp_ack_event{t0, 0, 1000, 0, 0, 0, false, false});   // the epoch starts: K from W_max
    EXPECT_NEAR(cu.k_s(), std::cbrt(75.0), 1e-12);
    EXPECT_NEAR(cu.k_s(), 4.2172, 1e-4);
    EXPECT_NEAR(cubic::window(0, cu.k_s(), 100, 0.4), 70.0, 1e-9);
    EXPECT_NEAR(cubic::window(cu.k_s(), cu.k_s(), 100, 0.4), 100.0, 1e-12);
    EXPECT_NEAR(cubic::window(cu.k_s() + 1, cu.k_s(), 100, 0.4), 100.4, 1e-9);
    // at t = K (RTT 0) the target is W_max = 100: each segment acknowledged adds (100 - cwnd) / cwnd segments
    const uint64_t cwnd_before = w.cwnd;
    const uint64_t tk = t0 + static_cast<uint64_t>(cu.k_s() * 1e12);
    cu.on_increase(w, tcp_ack_event{tk, 0, 1000, 0, 0, 0, false, false});
    const double cw = static_cast<double>(cwnd_before) / 1000;
    EXPECT_NEAR(static_cast<double>(w.cwnd - cwnd_before), (100 - cw) / cw * 1000, 1.0);
    // fast convergence: a loss at 90 segments, below W_max = 100: W_max = 90 (1 + 0.7) / 2 = 76.5
    EXPECT_EQ(cu.loss_ssthresh(90 * 1000), 63000u);
    EXPECT_DOUBLE_EQ(cu.w_max(), 76.5);
    // without fast convergence, W_max is the window at the loss
    c.cubic.fast_convergence = false;
    auto plain = make_congestion_control(c);
    plain->loss_ssthresh(100 * 1000);
    plain->loss_ssthresh(90 * 1000);
    EXPECT_DOUBLE_EQ(static_cast<cubic&>(*plain).w_max(), 90.0);
}

namespace {
// CUBIC with HyStart (mss 1,000 B) in slow start from 16 segments, fed ACKs of one segment each: ACK k (from 1) at
// t0 + (k - 1) x gap with RTT sample `delay`, acknowledging k segments; snd_nxt far ahead (one round throughout).
struct hystart_run {
    std::unique_ptr<tcp_congestion_control> cc;
    tcp_window w{16 * 1000, UINT64_MAX};
    explicit hystart_run(bool paced = false, uint32_t gso = 0) {
        tcp_config c;
        c.transport = "cubic";
        c.mss = 1000;
        c.cubic.hystart = true;
        cc = make_congestion_control(c);
        cc->set_paced(paced);
        cc->set_gso_max_bytes(gso);
    }
    const cubic& cu() const { return static_cast<const cubic&>(*cc); }
    // ACKs until HyStart finds the exit (or `limit` ACKs); returns the ACK's number
    int until_found(uint64_t gap, uint64_t delay, uint64_t pacing_bps = 0, int limit = 200) {
        const uint64_t t0 = 1 * ms;
        for (int k = 1; k <= limit; ++k) {
            tcp_ack_event a{t0 + static_cast<uint64_t>(k - 1) * gap,
                            static_cast<uint64_t>(k) * 1000,
                            1000,
                            100000000,
                            delay,
                            delay,
                            false,
                            false,
                            pacing_bps};
            cc->on_increase(w, a);
            if (cu().hystart_found())
                return k;
        }
        return 0;
    }
};
}   // namespace

TEST(Cubic, HyStartEndsSlowStartOnAnAckTrain) {
    // RTT 100 us, ACKs 4 us apart (one segment each, +1 segment of cwnd each). Unpaced: the train triggers past
    // delay_min / 2 = 50 us, at the 14th ACK (52 us after the round's first); cwnd then 16 + 13 = 29 segments.
    hystart_run unpaced;
    EXPECT_EQ(unpaced.until_found(4 * us, 100 * us), 14);
    EXPECT_EQ(unpaced.w.ssthresh, 29000u);
    EXPECT_EQ(unpaced.cu().delay_min_ps(), 100 * us);
    // paced (fq): past delay_min = 100 us, the 27th ACK (104 us); cwnd 16 + 26 = 42 segments
    hystart_run paced(true);
    EXPECT_EQ(paced.until_found(4 * us, 100 * us), 27);
    EXPECT_EQ(paced.w.ssthresh, 42000u);
    // paced with a 64 KB GSO size at a 10 Gb/s pacing rate: the allowance min(1 ms, 4 x 65,536 B / 10 Gb/s) =
    // 209.7152 us, threshold 309.7152 us: the 79th ACK (312 us); cwnd 16 + 78 = 94 segments
    hystart_run gso(true, 65536);
    EXPECT_EQ(gso.until_found(4 * us, 100 * us, 10000000000ull), 79);
    EXPECT_EQ(gso.w.ssthresh, 94000u);
    // at 100 Mb/s the allowance is capped at 1 ms: threshold 1.1 ms, the 277th ACK (1,104 us) is past it
    hystart_run capped(true, 65536);
    EXPECT_EQ(capped.until_found(4 * us, 100 * us, 100000000ull, 400), 277);
    // ACKs 2.5 ms apart are no train, and a constant RTT is no delay increase: slow start goes on
    hystart_run sparse;
    EXPECT_EQ(sparse.until_found(2500 * us, 100 * us, 0, 50), 0);
    EXPECT_EQ(sparse.w.ssthresh, UINT64_MAX);
    EXPECT_EQ(sparse.w.cwnd, (16 + 50) * 1000u);
    // below 16 segments HyStart does not run
    hystart_run small;
    small.w.cwnd = 15 * 1000;
    tcp_ack_event a{1 * ms, 1000, 1000, 100000000, 100 * us, 100 * us, false, false, 0};
    small.cc->on_increase(small.w, a);
    EXPECT_EQ(small.cu().delay_min_ps(), 100 * us);   // (the sample still counts for delay_min)
    for (int k = 2; k <= 40 && small.w.cwnd < 16 * 1000; ++k) {
        a.now_ps += 4 * us;
        small.cc->on_increase(small.w, a);
    }
    EXPECT_FALSE(small.cu().hystart_found());
}

TEST(Cubic, HyStartEndsSlowStartOnADelayIncrease) {
    // ACKs 3 ms apart (no train). The first gives delay_min = 100 us; the second passes the round's end and starts
    // a new round; its RTT samples are 5 ms. After 8 samples the 9th is checked: the round's least RTT, 5 ms, is
    // above delay_min + clamp(delay_min / 8, 4 ms, 16 ms) = 4.1 ms: found at ACK 10, cwnd 16 + 9 = 25 segments.
    for (const uint64_t rtt : {5000 * us, 4000 * us}) {
        hystart_run r;
        tcp_ack_event a{1 * ms, 1000, 1000, 1500, 100 * us, 100 * us, false, false, 0};   // (the round ends at 1,500)
        r.cc->on_increase(r.w, a);
        int found = 0;
        for (int k = 2; k <= 30 && !found; ++k) {
            a = tcp_ack_event{1 * ms + static_cast<uint64_t>(k - 1) * 3 * ms,
                              static_cast<uint64_t>(k) * 1000,
                              1000,
                              100000000,
                              rtt,
                              rtt,
                              false,
                              false,
                              0};
            r.cc->on_increase(r.w, a);
            if (r.cu().hystart_found())
                found = k;
        }
        if (rtt == 5000 * us) {
            EXPECT_EQ(found, 10);
            EXPECT_EQ(r.w.ssthresh, 25000u);
        } else {
            EXPECT_EQ(found, 0);   // 4 ms is not above 4.1 ms
        }
    }
}

TEST(Receiver, ADuplicateSegmentIsReportedAtOnceWithADsack) {
    bench b(1 * us);
    b.cfg.sack = b.cfg.dsack = true;
    tcp_receiver r(b.net.stack(0), 0, 1, b.cfg, b.rx_st);
    recorder acks(b.net.stack(1), {0});
    frame_pool& pool = b.net.pool();
    r.on_frame(data_frame(pool, 0, 0, 1000), 0);
    r.on_frame(data_frame(pool, 0, 0, 1000), 0);   // again: a duplicate
    b.ctx.run_until(1 * ms);
    ASSERT_EQ(acks.flags.size(), 2u);
    EXPECT_FALSE(acks.flags[0] & tcp_dsack);
    EXPECT_TRUE(acks.flags[1] & tcp_dsack);
    EXPECT_EQ(acks.seqs[1], 1000u);   // the duplicate's end
    EXPECT_EQ(acks.acks[1], 1000u);
    EXPECT_EQ(b.rx_st.duplicate_bytes_received, 1000u);   // a retransmission that was not needed
}

TEST(Receiver, ASegmentThatEndsAWriteIsAcknowledgedOnceReadAsLinuxDoes) {
    // Linux (tcp_measure_rcv_mss, tcp_cleanup_rbuf): with delayed ACKs and quick-ACK spent, an skb shorter than the
    // receiver's MSS estimate (536 B at first, then the largest seen) or a full one with PSH is acknowledged as soon
    // as the application has read everything; a full one without PSH waits for the 40 ms timer.
    struct one_case {
        uint32_t len;
        uint8_t flags;
        bool at_once;
    };
    for (const one_case& k : {one_case{500, 0, true}, one_case{1448, 0, false}, one_case{1448, tcp_psh, true}}) {
        bench b(1 * us);
        b.cfg.delayed_ack = true;
        b.cfg.quickacks = 0;
        b.cfg.mss = 1448;
        tcp_receiver r(b.net.stack(0), 0, 1, b.cfg, b.rx_st);
        recorder acks(b.net.stack(1), {0});
        frame* f = data_frame(b.net.pool(), 0, 0, k.len);
        f->flags = k.flags;
        r.on_frame(f, 0);
        b.ctx.run_until(1 * ms);
        EXPECT_EQ(acks.acks.size(), k.at_once ? 1u : 0u) << k.len << " " << int{k.flags};
        b.ctx.run_until(50 * ms);
        ASSERT_EQ(acks.acks.size(), 1u);
        EXPECT_EQ(acks.acks[0], k.len);
    }
    // after a full segment the estimate is 1448 B: a 1000-byte segment then is short, and read at once, ACKed
    bench b(1 * us);
    b.cfg.delayed_ack = true;
    b.cfg.quickacks = 0;
    b.cfg.mss = 1448;
    tcp_receiver r(b.net.stack(0), 0, 1, b.cfg, b.rx_st);
    recorder acks(b.net.stack(1), {0});
    r.on_frame(data_frame(b.net.pool(), 0, 0, 1448), 0);
    r.on_frame(data_frame(b.net.pool(), 0, 1448, 1448), 0);   // two full: ACKed (more than one MSS)
    r.on_frame(data_frame(b.net.pool(), 0, 2896, 1000), 0);
    b.ctx.run_until(1 * ms);
    ASSERT_EQ(acks.acks.size(), 2u);
    EXPECT_EQ(acks.acks[1], 3896u);
}

TEST(Receiver, QuickAcksFirstThenOneAckPerTwoFullSegments) {
    // Linux: quick-ACK mode for the first 16 segments (an ACK each), then an ACK once more than one full segment
    // is unacknowledged: 20 in-order segments bring 16 + 2 ACKs; an odd last one waits for the 40 ms timer.
    bench b(1 * us);
    b.cfg.delayed_ack = true;
    b.cfg.quickacks = 16;
    tcp_receiver r(b.net.stack(0), 0, 1, b.cfg, b.rx_st);
    recorder acks(b.net.stack(1), {0});
    frame_pool& pool = b.net.pool();
    for (uint64_t i = 0; i < 21; ++i)
        r.on_frame(data_frame(pool, 0, i * mss, mss), 0);
    b.ctx.run_until(1 * ms);
    EXPECT_EQ(acks.acks.size(), 18u);
    EXPECT_EQ(acks.acks.back(), 20 * mss);
    b.ctx.run_until(41 * ms);
    ASSERT_EQ(acks.acks.size(), 19u);
    EXPECT_EQ(acks.acks.back(), 21 * mss);   // the delayed ACK of the 21st
    EXPECT_NEAR(static_cast<double>(acks.times.back()), 40.0 * ms, 0.1 * ms);
}

TEST(HostStack, TcpFramesNameTheirPeerOnceItIsBoundAndTheHostDeliversEitherWay) {
    bench b(1 * us);
    frame_pool& pool = b.net.pool();
    // flow 7's receiver on host 0; nothing of flow 7 on host 1 yet: its ACK names nobody, and host 1 frees it
    tcp_receiver r(b.net.stack(0), 7, 1, b.cfg, b.rx_st);
    r.on_frame(data_frame(pool, 7, 0, 1000), 0);
    b.ctx.run_until(1 * ms);
    EXPECT_EQ(pool.live(), 0u);
    // bound now: the next ACK names it and reaches it; a frame naming nobody still reaches it (the directory)
    recorder late(b.net.stack(1), {7});
    r.on_frame(data_frame(pool, 7, 1000, 1000), 1 * ms);
    b.ctx.run_until(2 * ms);
    frame* plain = data_frame(pool, 7, 0, 0);
    plain->src = 0;
    plain->dst = 1;
    b.net.nic(0).send(plain);
    b.ctx.run_until(3 * ms);
    ASSERT_EQ(late.named.size(), 2u);
    EXPECT_EQ(late.named[0], &late);
    EXPECT_EQ(late.acks[0], 2000u);
    EXPECT_EQ(late.named[1], nullptr);
    // a sender whose receiver is bound first: every data frame names that receiver
    recorder rx(b.net.stack(0), {8});
    b.cfg.init_cwnd = 10;   // (the recorder does not acknowledge: the three go in the first window)
    tcp_sender s(b.net.stack(1), 8, 0, b.cfg, b.st, rng(1, 0));
    s.write(3 * mss);
    b.ctx.run_until(4 * ms);
    ASSERT_EQ(rx.named.size(), 3u);
    for (const flow_endpoint* ep : rx.named)
        EXPECT_EQ(ep, &rx);
}

TEST(CwndValidation, AnApplicationLimitedSenderDoesNotGrowItsWindow) {
    // IW 10, but the application writes 2 segments: in slow start the window may grow only while it is under twice
    // what was out (Linux tcp_is_cwnd_limited): 10 > 2 x 2, so it stays; without the rule, +1 SMSS per ACK.
    for (const bool validate : {true, false}) {
        bench b(1 * us);
        b.cfg.init_cwnd = 10;
        b.cfg.cwnd_validation = validate;
        tcp_sender s(b.net.stack(1), 0, 0, b.cfg, b.st, rng(1, 0));
        tcp_receiver r(b.net.stack(0), 0, 1, b.cfg, b.rx_st);
        s.write(2 * mss);
        b.ctx.run_until(1 * ms);
        EXPECT_EQ(s.snd_una(), 2 * mss);
        EXPECT_EQ(s.cwnd(), (validate ? 10 : 12) * mss) << validate;
    }
}

TEST(MulDiv, ExactWithAndWithoutA128BitProduct) {
    // the pacing gap of a full segment: 1,460 bytes at 10 Gb/s is 1,168 ns; at 3 Gb/s 3,893,333.3 ps, rounded down
    EXPECT_EQ(mul_div(1460, 8000000000000ull, 10000000000ull), 1168000u);
    EXPECT_EQ(mul_div(1460, 8000000000000ull, 3000000000ull), 3893333u);
    // a product past 64 bits (a 100 Gb/s pacing rate times a 1 s small-queue budget): taken to 128 bits, exact
    EXPECT_EQ(mul_div(100000000000ull, 1000000000000ull, 8000000000000ull), 12500000000ull);
    // (2^64 - 1) x 3 / 4 = 3 x 2^62 - 1 (the 3/4 is lost to rounding down)
    EXPECT_EQ(mul_div(UINT64_MAX, 3, 4), 3ull * (1ull << 62) - 1);
}

TEST(SmallQueues, ASenderStopsAtItsLimitAndResumesOnEachCompletion) {
    // fq host with small queues, limit 15000 B (no pacing rate yet): IW 100 wants 100 segments at t = 0, each an
    // skb of one frame, truesize 1460 + 832 = 2292 B. The first frame starts on the idle link at once (its bytes
    // freed); the sender then queues while its truesize below TCP is at most the limit: before each send 0, 2292,
    // ..., 13752 B, so 7 more (16044 B, one skb over it, as Linux's check before each send allows). Each start of a
    // transmission (one per 12 us at 1 Gb/s) frees one skb and lets one more segment down.
    host_egress_config e;
    e.qdisc = host_egress_config::qdisc_kind::fq;
    e.small_queues = true;
    e.tsq_max_bytes = 15000;
    bench b(1 * us, e);
    b.cfg.init_cwnd = 100;
    b.cfg.cwnd_validation = true;
    tcp_sender s(b.net.stack(1), 0, 0, b.cfg, b.st, rng(1, 0));
    tcp_receiver r(b.net.stack(0), 0, 1, b.cfg, b.rx_st);
    s.write(100 * mss);
    const host_qdisc& q = b.net.nic(1).qdisc();
    EXPECT_EQ(s.snd_nxt(), 8 * mss);
    EXPECT_EQ(q.below_bytes(0), 7 * 2292u);
    EXPECT_EQ(q.socket_stats(0)->throttled, 1u);
    // after 10 more frame times (12 us each) 10 more segments went down, no more
    b.ctx.run_until(10 * 12 * us + 1);
    EXPECT_EQ(s.snd_nxt(), 18 * mss);
    EXPECT_LE(q.below_bytes(0), 15000u + 2292u);
    b.ctx.run_until(20 * ms);
    EXPECT_EQ(s.snd_una(), 100 * mss);   // all delivered, no loss
    EXPECT_EQ(b.st.retransmitted_segments, 0u);
    EXPECT_LE(q.excess_max_bytes(), 2292);   // never more than one skb over the limit
    // held back by its small queue, the sender was never cwnd-limited: its window did not grow
    EXPECT_EQ(s.cwnd(), 100 * mss);
}

TEST(SmallQueues, FramesInTheHostLatencyCountBelowTheSocket) {
    // The same sender with a host latency of 5 us: a frame is charged to its socket when TCP sends it (as Linux
    // charges an skb when TCP makes it), not when it reaches the qdisc. At t = 0 nothing has reached the NIC yet, so
    // the sender stops after 7 skbs of 2292 B truesize (16044 B, one over the 15000 B limit), not after the whole
    // window.
    host_egress_config e;
    e.qdisc = host_egress_config::qdisc_kind::fq;
    e.small_queues = true;
    e.tsq_max_bytes = 15000;
    e.latency_ps = 5 * us;
    bench b(1 * us, e);
    b.cfg.init_cwnd = 100;
    tcp_sender s(b.net.stack(1), 0, 0, b.cfg, b.st, rng(1, 0));
    tcp_receiver r(b.net.stack(0), 0, 1, b.cfg, b.rx_st);
    s.write(100 * mss);
    const host_qdisc& q = b.net.nic(1).qdisc();
    EXPECT_EQ(s.snd_nxt(), 7 * mss);
    EXPECT_EQ(q.below_bytes(0), 7 * 2292u);
    b.ctx.run_until(20 * ms);
    EXPECT_EQ(s.snd_una(), 100 * mss);
    EXPECT_EQ(b.net.nic(1).dropped_frames(), 0u);
    EXPECT_LE(q.excess_max_bytes(), 2292);
}

TEST(Fq, TwoSocketsTakeTurnsByQuantum) {
    // fq with a quantum of 3000 B: 1500-byte frames of two sockets, six each, queued at t = 0 (socket A first).
    // A's first frame goes at once (the link is idle), its second fills the NIC ring; then the sockets alternate
    // two frames a turn; B, new, goes before A's third (a socket back from idle is served first).
    host_egress_config e;
    e.qdisc = host_egress_config::qdisc_kind::fq;
    e.fq_quantum_bytes = e.fq_initial_quantum_bytes = 3000;
    e.ring_bytes = 1;
    bench b(1 * us, e);
    recorder seen(b.net.stack(0), {1, 2});
    for (uint32_t flow : {1u, 2u})
        for (int i = 0; i < 6; ++i)
            send_udp_frame(b, flow);
    b.ctx.run_until(1 * ms);
    EXPECT_EQ(seen.order, (std::vector<uint32_t>{1, 1, 2, 2, 1, 1, 2, 2, 1, 1, 2, 2}));
}

TEST(Gso, TsoAutosizeByHand) {
    constexpr uint64_t gso = 65536;
    // 10 Gb/s, min RTT 10 us: 1.25e9 B/s >> 10 = 1,220,703 B plus 64 KB >> (10 >> 9 = 0), capped at 64 KB: 44 SMSS
    EXPECT_EQ(tso_autosize_segments(10000000000ull, 10 * us, gso, mss), 44u);
    // 100 Mb/s, min RTT 2 ms: 12,500,000 >> 10 = 12,207 B plus 65,536 >> (2000 >> 9 = 3) = 8,192 B: 20,399 B = 13 SMSS
    EXPECT_EQ(tso_autosize_segments(100000000ull, 2 * ms, gso, mss), 13u);
    // 100 Mb/s, min RTT 1 ms: 12,207 + 65,536 >> 1 = 44,975 B = 30 SMSS
    EXPECT_EQ(tso_autosize_segments(100000000ull, 1 * ms, gso, mss), 30u);
    // 1 Mb/s, 100 ms: 122 B and 64 KB >> 195 = 0: the floor of 2 segments (tcp_min_tso_segs)
    EXPECT_EQ(tso_autosize_segments(1000000ull, 100 * ms, gso, mss), 2u);
    // no pacing rate or no RTT sample yet: the whole 64 KB
    EXPECT_EQ(tso_autosize_segments(0, 10 * us, gso, mss), 44u);
    EXPECT_EQ(tso_autosize_segments(10000000000ull, UINT64_MAX, gso, mss), 44u);
}

TEST(Gso, ASegmentPassesTheSmallQueueWholeAndLeavesBackToBack) {
    // fq with small queues capped at 3000 B, IW 44, 44 SMSS written at t = 0 (no ACKs: the receiver only records).
    // With GSO of 64 KB the window goes as one 44-frame skb: the small queue is checked per skb, so all of it goes
    // below TCP at once, and the NIC takes it whole (the ring holds 3000 B) and sends it back to back, one
    // 1500-byte frame per 12 us at 1 Gb/s; every frame but the first carries the continuation bit. Its truesize is
    // its payload and one head, 44 x 1460 + 832 = 65072 B, 62780 B of it below TCP once the first frame (with the
    // head) is on the wire. Without GSO the small queue lets 4 frames down: the one on the wire, then one more while
    // at most two skbs' truesize (the floor, 2 x 2292 B, above the 3000 B cap) waits below TCP (0, 2292 and 4584 B
    // before each send).
    for (const uint64_t gso : {uint64_t{65536}, uint64_t{0}}) {
        host_egress_config e;
        e.qdisc = host_egress_config::qdisc_kind::fq;
        e.small_queues = true;
        e.tsq_max_bytes = 3000;
        bench b(1 * us, e);
        b.cfg.init_cwnd = 44;
        b.cfg.gso_max_bytes = gso;
        tcp_sender s(b.net.stack(1), 0, 0, b.cfg, b.st, rng(1, 0));
        recorder seen(b.net.stack(0), {0});
        s.write(44 * mss);
        EXPECT_EQ(s.snd_nxt(), (gso ? 44 : 4) * mss) << gso;
        EXPECT_EQ(b.net.nic(1).qdisc().below_bytes(0), gso ? 43 * 1460u : 3 * 2292u) << gso;
        if (!gso)
            continue;
        b.ctx.run_until(1 * ms);
        ASSERT_EQ(seen.times.size(), 44u);
        for (size_t i = 0; i < 44; ++i) {
            EXPECT_EQ(seen.seqs[i], i * mss);
            EXPECT_EQ((seen.bits[i] & host_gso_cont) != 0, i > 0) << i;
            if (i > 0) {
                EXPECT_EQ(seen.times[i] - seen.times[i - 1], 12 * us) << i;
            }
        }
    }
}

TEST(Gso, APacedSkbLeavesAtOneDepartureTime) {
    // fq pacing at 250 Mb/s on a 1 Gb/s link, every segment paced: two skbs of 4 frames (1460 B payload) queued at
    // t = 0. The first leaves at once, its frames back to back (12 us apart); the pacing schedule moves on by the
    // skb's payload at the pacing rate, 4 x 1460 x 8 / 250e6 = 186.88 us, when the second skb leaves whole.
    host_egress_config e;
    e.qdisc = host_egress_config::qdisc_kind::fq;
    e.pacing = true;
    e.unpaced_segments = 0;
    bench b(1 * us, e);
    recorder seen(b.net.stack(0), {1});
    b.net.nic(1).set_pacing_rate(1, 250000000ull);
    frame_pool& pool = b.net.pool();
    for (int i = 0; i < 8; ++i) {
        frame* f = data_frame(pool, 1, static_cast<uint64_t>(i) * mss, mss);
        f->src = 1;
        f->dst = 0;
        f->host_bits = i % 4 ? host_gso_cont : 0;
        b.net.nic(1).send(f);
    }
    b.ctx.run_until(1 * ms);
    ASSERT_EQ(seen.times.size(), 8u);
    for (size_t i : {1, 2, 3, 5, 6, 7})
        EXPECT_EQ(seen.times[i] - seen.times[i - 1], 12 * us) << i;
    EXPECT_EQ(seen.times[4] - seen.times[0], 186880000u);
}

TEST(Dql, TheLimitGrowsWhenTheQueueStarvesAndShrinksByTheLowestSlackOncePerHold) {
    dynamic_queue_limit d(100 * us);   // a hold time of 100 us (Linux: 1 s)
    EXPECT_EQ(d.limit(), 0u);
    // limit 0: one skb goes, then the queue stops
    EXPECT_TRUE(d.open());
    d.queued(1500, false);
    EXPECT_FALSE(d.open());
    // it completes and nothing is left: starved, over the limit by 1500. The limit grows by the bytes queued and
    // completed since the last batch (1500 - 0) plus the last overshoot (0): 1500
    d.completed(1500, 10 * us);
    EXPECT_EQ(d.limit(), 1500u);
    // two skbs (the second goes while 1500 <= 1500 are in flight), both complete: starved again, over by 1500;
    // the limit grows by 4500 completed - 1500 queued at the last batch = 3000, to 4500
    d.queued(1500, false);
    EXPECT_TRUE(d.open());
    d.queued(1500, false);
    EXPECT_FALSE(d.open());
    d.completed(3000, 20 * us);
    EXPECT_EQ(d.limit(), 4500u);
    // four skbs (6000 in flight, over by 1500), half complete; nothing was in flight at the last batch, so the
    // limit stays; the overshoot (1500) and the last skb (1500) are kept
    for (int i = 0; i < 4; ++i)
        d.queued(1500, false);
    d.completed(3000, 30 * us);
    EXPECT_EQ(d.limit(), 4500u);
    EXPECT_EQ(d.in_flight(), 3000u);
    // busy throughout (3000 in flight, 1500 left after 1500 complete, not all of the last batch's 10500 done):
    // slack = max(4500 + 1500 - 2 x 1500, 1500 - 1500) = 3000; before the hold time ends the limit stays
    d.completed(1500, 40 * us);
    EXPECT_EQ(d.limit(), 4500u);
    // busy again (13500 queued, 10000 complete < 10500): slack = 4500 + 0 - 2 x 1000 = 2500, the lowest so far;
    // 200 us is past the hold (100 us after the last growth at 20 us): the limit loses it, 4500 - 2500 = 2000
    d.queued(1500, false);
    d.queued(1500, false);
    d.completed(1000, 200 * us);
    EXPECT_EQ(d.limit(), 2000u);
    EXPECT_EQ(d.max_limit_seen(), 4500u);
    // a GSO segment's frames are one skb: its size is the last skb's (the slack's second term)
    d.queued(1500, false);
    d.queued(1500, true);
    EXPECT_EQ(d.in_flight(), 3500u + 3000u);
}

TEST(Bql, TheLimitSettlesWithinTwiceTheBytesOfACompletionInterval) {
    // fq with BQL, 1 Gb/s: 2500 UDP frames of 1500 B queued at t = 0 (30 ms of them). The NIC's completions come
    // tx_coalesce after the end of the first frame since the last interrupt (frame count off). With the NIC busy,
    // the frame on the wire at an interrupt ends at the next multiple of 12 us, so interrupts come 12 us x
    // ceil(tx_coalesce / 12 us) apart: 60 us (5 frames, 7500 B) at 50 us, 204 us (17 frames, 25500 B) at 200 us.
    // A limit below one interval's bytes starves the NIC before the interrupt and grows; the limit then stays
    // (it shrinks by slack only once per second) between 1x and 2x of them, and the NIC never idles: the last
    // frames arrive 12 us apart. Third case: a count of 8 skbs with the timer at 1 ms, so the count decides: an
    // interrupt when the 9th frame starts completes 8 frames, 12000 B.
    struct run {
        uint64_t coalesce_ps;
        uint32_t frames;
        double interval_bytes;
    };
    for (const run c : {run{50 * us, 0, 7500}, run{200 * us, 0, 25500}, run{1 * ms, 8, 12000}}) {
        host_egress_config e;
        e.qdisc = host_egress_config::qdisc_kind::fq;
        e.bql = true;
        e.tx_coalesce_ps = c.coalesce_ps;
        e.tx_coalesce_frames = c.frames;
        e.fq_flow_limit = e.fq_limit = 10000;
        bench b(1 * us, e);
        recorder seen(b.net.stack(0), {1});
        for (int i = 0; i < 2500; ++i)
            send_udp_frame(b, 1);
        b.ctx.run_until(100 * ms);
        ASSERT_EQ(seen.times.size(), 2500u);
        const host_nic& nic = b.net.nic(1);
        const auto limit = static_cast<double>(nic.qdisc().bql_limit(nic.egress().queue_of(0)));
        EXPECT_GE(limit, c.interval_bytes) << c.coalesce_ps;
        EXPECT_LE(limit, c.interval_bytes * 2) << c.coalesce_ps;
        for (size_t i = 2000; i < 2500; ++i)
            EXPECT_EQ(seen.times[i] - seen.times[i - 1], 12 * us) << i;
        // everything completed: no bytes in flight, the small-queue count back at 0
        EXPECT_EQ(nic.qdisc().below_bytes(1), 0u);
        EXPECT_GT(nic.qdisc().tx_interrupts(), 2500 * 12 * us / (c.coalesce_ps + 12 * us) / 2);
    }
}

TEST(HostLatency, AFrameReachesTheQdiscAndItsTransportTheLatencyLaterAndStaysAccounted) {
    // 1 Gb/s links of 1 us through one switch: a 1500-byte frame sent at t = 0 is on the wire for 12 us on each
    // link (store and forward), so its last bit is in at 2 x (12 + 1) = 26 us. A host latency of 5 us each way
    // adds 5 us before the NIC and 5 us after the arrival: the transport gets it at 36 us. Meanwhile it is counted
    // as queued in a host, and the books balance at every step.
    for (const uint64_t latency : {uint64_t{0}, 5 * us}) {
        host_egress_config e;
        e.latency_ps = latency;
        bench b(1 * us, e);
        recorder seen(b.net.stack(0), {1});
        send_udp_frame(b, 1);
        for (const uint64_t t : {2 * us, 20 * us, 28 * us, 40 * us}) {
            b.ctx.run_until(t);
            EXPECT_NO_THROW(b.net.check_conservation()) << t;
        }
        ASSERT_EQ(seen.times.size(), 1u);
        EXPECT_EQ(seen.times[0], 26 * us + 2 * latency) << latency;
        EXPECT_EQ(b.net.nic(0).delivered_frames(), 1u);
    }
}

namespace {
// Host 1 sends `n` contiguous 1448-byte TCP segments of flow 0 to host 0 back to back (1 Gb/s: 12 us apart on
// every link); frames from `ce_from` on carry CE. Host 0's receive path: interrupt moderation of `coalesce`
// (restarted by each arrival) or `frames` frames, GRO up to 64 KB.
struct gro_run {
    static constexpr uint32_t seg = 1448;
    bench b;
    tcp_receiver rx;
    recorder acks;
    static host_egress_config receive_path(uint64_t coalesce, uint32_t frames) {
        host_egress_config e;
        e.receive.coalesce_ps = coalesce;
        e.receive.coalesce_frames = frames;
        e.receive.gro_max_bytes = 64 * 1024;
        return e;
    }
    static tcp_config receiver_config(const std::string& transport) {
        tcp_config c;
        c.transport = transport;
        c.mss = seg;
        c.delayed_ack = true;
        c.quickacks = 0;
        return c;
    }
    gro_run(uint64_t coalesce, uint32_t frames, int n, int ce_from = INT32_MAX, const std::string& cc = "newreno")
        : b(1 * us, receive_path(coalesce, frames)), rx(b.net.stack(0), 0, 1, receiver_config(cc), b.rx_st),
          acks(b.net.stack(1), {0}) {
        for (int i = 0; i < n; ++i) {
            frame* f = data_frame(b.net.pool(), 0, uint64_t{seg} * static_cast<uint64_t>(i), seg);
            f->bytes = 1500;
            f->src = 1;
            f->dst = 0;
            f->ecn = i >= ce_from ? ecn_ce : ecn_ect0;
            b.net.nic(1).send(f);
        }
    }
};
}   // namespace

TEST(Gro, A64KbInOrderBurstGivesOneAck) {
    // 44 segments of 1448 B (63,712 B, one 64 KB GSO skb) arrive 12 us apart, the first's last bit at
    // 2 x (12 + 1) = 26 us, the last's at 26 + 43 x 12 = 542 us. A 20 us moderation period restarted by each arrival
    // polls once, at 562 us; GRO makes the 44 one skb (1500 + 43 x 1448 = 63,764 B <= 64 KB) and TCP sends one ACK
    // for all of it then. The 40-byte ACK is in at host 1 after 2 x (0.32 + 1) us and waits its own 20 us there.
    gro_run g(20 * us, 0, 44);
    for (const uint64_t t : {100 * us, 545 * us}) {   // frames wait in host 0's ring, accounted
        g.b.ctx.run_until(t);
        EXPECT_NO_THROW(g.b.net.check_conservation()) << t;
    }
    g.b.ctx.run_until(2 * ms);
    ASSERT_EQ(g.acks.acks.size(), 1u);
    EXPECT_EQ(g.acks.acks[0], 44u * gro_run::seg);
    EXPECT_EQ(g.acks.times[0], 562 * us + 2 * (320000 + us) + 20 * us);
    const receive_poll& p = g.b.net.nic(0).rx_poll();
    EXPECT_EQ(p.interrupts(), 1u);
    EXPECT_EQ(p.aggregates(), 1u);
    EXPECT_EQ(p.merged_frames(), 44u);
    EXPECT_EQ(g.b.rx_st.acks_sent, 1u);
    EXPECT_EQ(g.b.rx_st.bytes_delivered, 44u * gro_run::seg);
    // each frame waited in the ring from its arrival to the poll: 20 + 32 + ... + (20 + 43 x 12) us
    EXPECT_EQ(g.b.rx_st.rx_ring_wait_sum_ps, (44 * 20 + 12 * 43 * 44 / 2) * us);
}

TEST(Gro, TheFrameCountCutsABurstIntoPolls) {
    // With a count of 32 the 32nd frame (in at 26 + 31 x 12 = 398 us) brings the interrupt at once: one skb of 32,
    // one ACK; the other 12 go up 20 us after the last, another skb and ACK.
    gro_run g(20 * us, 32, 44);
    g.b.ctx.run_until(2 * ms);
    ASSERT_EQ(g.acks.acks.size(), 2u);
    EXPECT_EQ(g.acks.acks[0], 32u * gro_run::seg);
    EXPECT_EQ(g.acks.times[0], 398 * us + 2 * (320000 + us) + 20 * us);
    EXPECT_EQ(g.acks.acks[1], 44u * gro_run::seg);
    EXPECT_EQ(g.b.net.nic(0).rx_poll().interrupts(), 2u);
}

TEST(Gro, ACeChangeInTheMiddleGivesAnImmediateAck) {
    // DCTCP's receiver: frames 0-21 without CE, 22-43 with. GRO merges neither across the change (the IP header's
    // ECN field differs): the first skb's ACK carries no echo, the second skb changes the CE state, which DCTCP
    // acknowledges at once (ACK-now), with the echo. Both in the one poll at 562 us.
    gro_run g(20 * us, 0, 44, 22, "dctcp");
    g.b.ctx.run_until(2 * ms);
    ASSERT_EQ(g.acks.acks.size(), 2u);
    EXPECT_EQ(g.acks.acks[0], 22u * gro_run::seg);
    EXPECT_FALSE(g.acks.flags[0] & tcp_ece);
    EXPECT_EQ(g.acks.acks[1], 44u * gro_run::seg);
    EXPECT_TRUE(g.acks.flags[1] & tcp_ece);
    EXPECT_EQ(g.acks.times[0], g.acks.times[1]);
    EXPECT_EQ(g.b.net.nic(0).rx_poll().aggregates(), 2u);
}

TEST(Gro, AGapFlushesWhatWasHeldAndTheOutOfOrderFrameGoesUpAlone) {
    // Segments 0-3, then 5-7 (4 is missing): GRO delivers 0-3 as one skb when 5 does not continue it, and 5 alone
    // (its ACK at once: out of order); 6 and 7 then merge into one more skb. The receiver answers the gap with
    // duplicate ACKs at once (ack = 4 segments) for 5 and for the skb of 6-7.
    bench b(1 * us, gro_run::receive_path(20 * us, 0));
    tcp_receiver rx(b.net.stack(0), 0, 1, gro_run::receiver_config("newreno"), b.rx_st);
    recorder acks(b.net.stack(1), {0});
    for (const uint64_t i : {0, 1, 2, 3, 5, 6, 7}) {
        frame* f = data_frame(b.net.pool(), 0, gro_run::seg * i, gro_run::seg);
        f->bytes = 1500;
        f->src = 1;
        f->dst = 0;
        b.net.nic(1).send(f);
    }
    b.ctx.run_until(2 * ms);
    ASSERT_EQ(acks.acks.size(), 3u);
    EXPECT_EQ(acks.acks[0], 4u * gro_run::seg);
    EXPECT_EQ(acks.acks[1], 4u * gro_run::seg);
    EXPECT_EQ(acks.acks[2], 4u * gro_run::seg);
    EXPECT_EQ(b.net.nic(0).rx_poll().aggregates(), 2u);
    EXPECT_EQ(b.net.nic(0).rx_poll().merged_frames(), 6u);
}

TEST(Codel, TheControlLawByHand) {
    // RFC 8289 with target 5 ms and interval 100 ms, a head that waited 6 ms (above target) with 3000 B queued:
    // above target since t = 0, so first_above = 100 ms; at 100 ms the first drop, count 1, the next at
    // 100 + 100 / sqrt(1) = 200 ms; then 200 + 100 / sqrt(2) = 270.711 ms; then + 100 / sqrt(3) = 328.446 ms.
    // A head below target ends the dropping state; back above target within 16 intervals, count goes on from
    // count - lastcount.
    codel_params p;
    codel c;
    using v = codel::verdict;
    const uint64_t ms_ = 1000 * us, sojourn = 6 * ms_, backlog = 3000;
    EXPECT_EQ(c.on_head(p, 0, sojourn, backlog, false), v::pass);
    EXPECT_EQ(c.on_head(p, 99 * ms_, sojourn, backlog, false), v::pass);
    EXPECT_EQ(c.on_head(p, 100 * ms_, sojourn, backlog, false), v::drop);
    EXPECT_TRUE(c.dropping());
    EXPECT_EQ(c.on_head(p, 100 * ms_, sojourn, backlog, false), v::pass);   // the next head: not due yet
    EXPECT_EQ(c.on_head(p, 199 * ms_, sojourn, backlog, false), v::pass);
    EXPECT_EQ(c.on_head(p, 200 * ms_, sojourn, backlog, false), v::drop);
    EXPECT_EQ(c.count(), 2u);
    EXPECT_EQ(c.on_head(p, 270710 * us, sojourn, backlog, false), v::pass);
    EXPECT_EQ(c.on_head(p, 270712 * us, sojourn, backlog, true), v::mark);   // ECN-capable: marked, not dropped
    EXPECT_EQ(c.count(), 3u);
    EXPECT_EQ(c.on_head(p, 328445 * us, sojourn, backlog, false), v::pass);
    EXPECT_EQ(c.on_head(p, 328447 * us, sojourn, backlog, false), v::drop);
    EXPECT_EQ(c.count(), 4u);
    // below target: the dropping state ends; one MTU or less queued counts as below target too
    EXPECT_EQ(c.on_head(p, 330 * ms_, 1 * ms_, backlog, false), v::pass);
    EXPECT_FALSE(c.dropping());
    EXPECT_EQ(c.on_head(p, 331 * ms_, sojourn, 1514, false), v::pass);
    // above target again from 340 ms: at 440 ms dropping resumes with count 4 - 1 = 3 (lastcount was 1), the next
    // drop 100 / sqrt(3) = 57.735 ms later
    EXPECT_EQ(c.on_head(p, 340 * ms_, sojourn, backlog, false), v::pass);
    EXPECT_EQ(c.on_head(p, 440 * ms_, sojourn, backlog, false), v::drop);
    EXPECT_EQ(c.count(), 3u);
    EXPECT_EQ(c.on_head(p, 497734 * us, sojourn, backlog, false), v::pass);
    EXPECT_EQ(c.on_head(p, 497736 * us, sojourn, backlog, false), v::drop);
    // ce_threshold: an ECN-capable head that waited longer is marked whatever the control law says
    codel_params dctcp;
    dctcp.ce_threshold_ps = 1 * ms_;
    codel d;
    EXPECT_EQ(d.on_head(dctcp, 0, 2 * ms_, backlog, true), v::mark);
    EXPECT_EQ(d.on_head(dctcp, 0, 2 * ms_, backlog, false), v::pass);
}

TEST(FqCodel, AFloodedQueueLosesThreeFramesInItsFirst300Ms) {
    // 25,000 frames of one socket queued at once at 1 Gb/s (12 us each: 300 ms to drain) into fq_codel. The head's
    // sojourn passes 5 ms after about 417 frames and stays above: CoDel drops at about 105 ms (first_above 100 ms
    // after it went above target), 205 ms and 275.7 ms; the next would come at 333 ms, after the queue is gone.
    // ECN-capable frames are marked instead, and nothing is dropped. The books balance throughout.
    for (const bool ect : {false, true}) {
        host_egress_config e;
        e.qdisc = host_egress_config::qdisc_kind::fq_codel;
        e.ring_bytes = 1;
        bench b(1 * us, e);
        recorder seen(b.net.stack(0), {1});
        for (int i = 0; i < 25000; ++i) {
            frame* f = b.net.pool().acquire();
            f->kind = frame_kind::udp;
            f->flow = 1;
            f->bytes = 1500;
            f->src = 1;
            f->dst = 0;
            f->ecn = ect ? ecn_ect0 : ecn_not_ect;
            b.net.nic(1).send(f);
        }
        b.ctx.run_until(150 * ms);
        EXPECT_NO_THROW(b.net.check_conservation());
        b.ctx.run_until(400 * ms);
        const host_qdisc& q = b.net.nic(1).qdisc();
        EXPECT_EQ(q.codel_drops(), ect ? 0u : 3u);
        EXPECT_EQ(q.codel_marks(), ect ? 3u : 0u);
        EXPECT_EQ(b.net.nic(1).dropped_frames(drop_reason::qdisc_codel), ect ? 0u : 3u);
        EXPECT_EQ(seen.order.size(), ect ? 25000u : 24997u);
        EXPECT_NO_THROW(b.net.check_conservation());
    }
}

TEST(FqCodel, TwoSocketsTakeTurnsByA1514ByteQuantumUnpaced) {
    // fq_codel's quantum is one MTU (1514 B) and a flow gets one each time it becomes active. A's first frame goes
    // at once (credit 1514 -> 14) and leaves A's queue empty: A is removed; its second comes back as a new flow
    // (1514 -> 14) into the ring; its third goes next on the 14 left (-> -1486). Then A moves to the old flows with
    // 28, and B, new, sends two (1514 -> 14 -> -1486); A its last (28 -> -1472); B its last two (28, then 42).
    host_egress_config e;
    e.qdisc = host_egress_config::qdisc_kind::fq_codel;
    e.ring_bytes = 1;
    bench b(1 * us, e);
    recorder seen(b.net.stack(0), {1, 2});
    for (uint32_t flow : {1u, 2u})
        for (int i = 0; i < 4; ++i)
            send_udp_frame(b, flow);
    b.ctx.run_until(1 * ms);
    EXPECT_EQ(seen.order, (std::vector<uint32_t>{1, 1, 1, 2, 2, 1, 2, 2}));
}
