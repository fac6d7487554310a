// SPDX-License-Identifier: Apache-2.0
// SCTP (RFC 4960 section 7), its ECN responses (Stewart et al. 2011: ECN, DCCC, dynamic DCCC) and DBL marking, against hand
// values.
#include "config/errors.h"
#include "model/cm/dbl/dbl_queue_manager.h"
#include "platform/network.h"
#include "platform/scenario.h"
#include "testing.h"
#include "traffic/sctp/sctp_congestion_control.h"
#include "traffic/sctp/sctp_receiver.h"
#include "traffic/sctp/sctp_sender.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace cmswitch;

namespace {
constexpr uint64_t us = 1000000ull;   // picoseconds
constexpr uint64_t ms = 1000 * us;
constexpr uint32_t chunk = 1452;   // a full DATA chunk at MTU 1500

// Host 1 sends to host 0 through one switch, 1 Gb/s links.
struct bench {
    sim_context ctx;
    network net;
    sctp_config cfg;
    sctp_stats st, rx_st;
    explicit bench(uint64_t delay_ps)
        : net([&] {
              buffer_config b;
              b.port_limit_bytes = 1 << 20;
              return star_topology(2, 1000000000ull, delay_ps, b);
          }()) {
        cfg.rto_min_ps = 100 * ms;
    }
};

// Swallows the data packets that reach host 0 once the association is up (the test plays the SACKs).
struct sink final : public flow_endpoint {
    explicit sink(network& n) : pool(n.pool()) { n.stack(0).bind(0, this); }
    void on_frame(frame* f, uint64_t) override {
        if (f->flags & sctp_data)
            tsns.push_back(static_cast<uint32_t>(f->seq));
        pool.release(f);
    }
    frame_pool& pool;
    std::vector<uint32_t> tsns;
};

// A SACK with cumulative ack `ack` - 1 and gap blocks [b, e) (absolute TSNs).
frame* sack(frame_pool& pool, uint32_t ack, std::vector<std::pair<uint32_t, uint32_t>> gaps = {}) {
    frame* f = pool.acquire();
    f->kind = frame_kind::sctp;
    f->flags = sctp_sack;
    f->bytes = 48;
    f->ack = ack;
    f->sack_blocks = static_cast<uint8_t>(gaps.size());
    for (size_t i = 0; i < gaps.size(); ++i)
        f->sack[i] = {gaps[i].first - ack, gaps[i].second - ack};
    f->ctl.sctp = sctp_fields{0, 0, 0, 0};
    return f;
}

// An association from host 1 (data sender, connecting) to host 0, up after the handshake; then host 0's
// receiver is replaced by a sink.
struct established_sender {
    bench b;
    sctp_receiver r;
    sctp_sender s;
    explicit established_sender(uint64_t delay_ps = 10 * us)
        : b(delay_ps), r(b.net.stack(0), 0, 1, b.cfg, b.rx_st), s(b.net.stack(1), 0, 0, b.cfg, b.st) {}
    void up() {
        s.connect();
        b.ctx.run_until(1 * ms);
    }
};
}   // namespace

TEST(Sctp, HandshakeGivesTheFirstRttAndTheInitialWindow) {
    established_sender e;
    e.up();
    ASSERT_TRUE(e.s.established());
    ASSERT_TRUE(e.r.established());
    EXPECT_TRUE(e.s.have_rtt());
    // RFC 4960 7.2.1: min(4 MTU, max(2 MTU, 4380)) = 4380
    EXPECT_EQ(e.s.cwnd(), 4380u);
    // INIT -> INIT-ACK: 4 links x 10 us propagation + serialization of the 84 B INIT and the 284 B INIT-ACK (with
    // its cookie) at 1 Gb/s on two links each
    const uint64_t rtt = 40 * us + 2 * (84 + 284) * 8 * 1000;
    EXPECT_EQ(e.s.first_rtt_ps(), rtt);
    EXPECT_EQ(e.s.rto_ps(), 100 * ms);   // srtt + 4 rttvar = 3 rtt, far under RTO.min
}

TEST(Sctp, SlowStartAddsAtMostOneMtuPerSackWhenTheWindowIsFull) {
    established_sender e;
    e.up();
    sink k(e.b.net);
    frame_pool& pool = e.b.net.pool();
    e.s.write(chunk, 100);
    // 6.1 rule B: new packets while outstanding < cwnd: 0, 1452, 2904, 4356 < 4380 -> 4 packets
    EXPECT_EQ(e.s.next_tsn(), 5u);
    EXPECT_EQ(e.s.flight_bytes(), 4u * chunk);
    // cumulative ack of TSN 1, window was full (5808 >= 4380): cwnd += min(1452, MTU) = 5832
    e.s.on_frame(sack(pool, 2), 0);
    EXPECT_EQ(e.s.cwnd(), 4380u + chunk);
    // outstanding 4356 -> 5808 -> 7260: two new packets
    EXPECT_EQ(e.s.next_tsn(), 7u);
    // an ack of 3 chunks at once still adds one MTU (min(bytes acked, MTU))
    e.s.on_frame(sack(pool, 5), 0);
    EXPECT_EQ(e.s.cwnd(), 4380u + chunk + 1500u);
}

TEST(Sctp, CongestionAvoidanceCountsPartialBytesAcked) {
    established_sender e;
    e.up();
    sink k(e.b.net);
    frame_pool& pool = e.b.net.pool();
    e.s.set_window(6000, 3000);
    e.s.write(chunk, 100);
    EXPECT_EQ(e.s.next_tsn(), 6u);   // 0 .. 5808 < 6000: 5 packets, 7260 outstanding
    for (uint32_t ack = 2; ack <= 5; ++ack) {
        e.s.on_frame(sack(pool, ack), 0);
        EXPECT_EQ(e.s.cwnd(), 6000u);
        EXPECT_EQ(e.s.partial_bytes_acked(), (ack - 1) * uint64_t{chunk});
    }
    // pba = 7260 >= cwnd with the window full: pba = 7260 - 6000 = 1260, cwnd = 6000 + MTU
    e.s.on_frame(sack(pool, 6), 0);
    EXPECT_EQ(e.s.cwnd(), 7500u);
    EXPECT_EQ(e.s.partial_bytes_acked(), 1260u);
    // everything acknowledged: pba back to 0 (7.2.2)
    e.s.on_frame(sack(pool, e.s.next_tsn()), 0);
    EXPECT_EQ(e.s.partial_bytes_acked(), 0u);
}

TEST(Sctp, FastRetransmitOnTheThirdMissIndication) {
    established_sender e;
    e.up();
    sink k(e.b.net);
    frame_pool& pool = e.b.net.pool();
    e.s.write(chunk, 100);
    ASSERT_EQ(e.s.next_tsn(), 5u);   // TSNs 1..4 out
    e.s.on_frame(sack(pool, 1, {{2, 3}}), 0);
    EXPECT_EQ(e.s.misses(1), 1u);
    e.s.on_frame(sack(pool, 1, {{2, 4}}), 0);
    EXPECT_EQ(e.s.misses(1), 2u);
    EXPECT_EQ(e.b.st.fast_retransmits, 0u);
    EXPECT_EQ(e.b.st.retransmitted_chunks, 0u);
    const uint32_t highest = e.s.next_tsn() - 1;
    // a SACK that repeats the same blocks acknowledges nothing new: no miss indication (HTNA)
    e.s.on_frame(sack(pool, 1, {{2, 4}}), 0);
    EXPECT_EQ(e.s.misses(1), 2u);
    e.s.on_frame(sack(pool, 1, {{2, 5}}), 0);
    // 3rd: ssthresh = max(cwnd / 2, 4 MTU) = 6000, cwnd = ssthresh; TSN 1 goes again at once
    EXPECT_EQ(e.b.st.fast_retransmits, 1u);
    EXPECT_EQ(e.b.st.retransmitted_chunks, 1u);
    EXPECT_EQ(e.s.ssthresh(), 6000u);
    EXPECT_EQ(e.s.cwnd(), 6000u);
    EXPECT_TRUE(e.s.in_fast_recovery());
    // further misses neither cut again nor retransmit TSN 1 a second time
    e.s.on_frame(sack(pool, 1, {{2, e.s.next_tsn() - 1}}), 0);
    e.s.on_frame(sack(pool, 1, {{2, e.s.next_tsn()}}), 0);
    EXPECT_EQ(e.b.st.fast_retransmits, 1u);
    EXPECT_EQ(e.b.st.retransmitted_chunks, 1u);
    EXPECT_EQ(e.s.cwnd(), 6000u);
    // the cumulative ack passes the TSN that was highest when recovery began: recovery ends
    e.s.on_frame(sack(pool, highest + 1, {{highest + 2, e.s.next_tsn()}}), 0);
    EXPECT_FALSE(e.s.in_fast_recovery());
    e.b.ctx.run_until(2 * ms);
    ASSERT_GE(k.tsns.size(), 7u);
    EXPECT_EQ(k.tsns[6], 1u);   // the retransmission followed the four first packets and the two new ones
}

TEST(Sctp, T3RtxBacksOffAndRestartsFromOneMtu) {
    struct {
        bench b{10 * us};
    } e;
    e.b.cfg.rto_max_ps = 300 * ms;
    sctp_receiver r(e.b.net.stack(0), 0, 1, e.b.cfg, e.b.rx_st);
    sctp_sender s(e.b.net.stack(1), 0, 0, e.b.cfg, e.b.st);
    s.connect();
    e.b.ctx.run_until(1 * ms);
    ASSERT_TRUE(s.established());
    sink k(e.b.net);
    const uint64_t t0 = 1 * ms;
    s.write(chunk, 2);   // sent at t0; nothing will answer
    EXPECT_EQ(s.rto_ps(), 100 * ms);
    e.b.ctx.run_until(t0 + 100 * ms - 1 * us);
    EXPECT_EQ(e.b.st.t3_timeouts, 0u);
    e.b.ctx.run_until(t0 + 100 * ms + 1 * us);
    EXPECT_EQ(e.b.st.t3_timeouts, 1u);
    EXPECT_EQ(s.rto_ps(), 200 * ms);
    EXPECT_EQ(s.cwnd(), 1500u);
    EXPECT_EQ(s.ssthresh(), 6000u);   // max(4380 / 2, 4 MTU)
    EXPECT_EQ(e.b.st.retransmitted_chunks, 1u);   // one packet on expiry (E3)
    e.b.ctx.run_until(t0 + 300 * ms + 1 * us);
    EXPECT_EQ(e.b.st.t3_timeouts, 2u);
    EXPECT_EQ(s.rto_ps(), 300 * ms);   // 400 ms clamped to RTO.max
    e.b.ctx.run_until(t0 + 600 * ms + 1 * us);
    EXPECT_EQ(e.b.st.t3_timeouts, 3u);
}

TEST(Sctp, EcnResponsesOfThePaper) {
    const uint32_t mtu = 1500;
    // algorithm 1 (ecn): halve in a new window, nothing inside one
    sctp_window w{30000, 40000};
    EXPECT_FALSE(make_sctp_congestion_control("ecn")->on_ecn_echo(w, {false, 3, 20000, true}, mtu));
    EXPECT_EQ(w.cwnd, 15000u);
    EXPECT_EQ(w.ssthresh, 15000u);
    EXPECT_FALSE(make_sctp_congestion_control("ecn")->on_ecn_echo(w, {true, 3, 20000, true}, mtu));
    EXPECT_EQ(w.cwnd, 15000u);
    w = {2000, 2000};   // ssthresh under one MTU: one MTU, and the RTO doubles
    EXPECT_TRUE(make_sctp_congestion_control("ecn")->on_ecn_echo(w, {false, 1, 0, true}, mtu));
    EXPECT_EQ(w.ssthresh, 1500u);
    EXPECT_EQ(w.cwnd, 1500u);
    // algorithm 2 (dccc), new window, k = 3: cwnd = cwnd at send - 3 MTU, ssthresh = cwnd - 3 MTU
    w = {30000, 40000};
    make_sctp_congestion_control("dccc")->on_ecn_echo(w, {false, 3, 20000, false}, mtu);
    EXPECT_EQ(w.cwnd, 15500u);
    EXPECT_EQ(w.ssthresh, 11000u);
    // within the window, k = 2: both lose 2 MTU
    make_sctp_congestion_control("dccc")->on_ecn_echo(w, {true, 2, 0, false}, mtu);
    EXPECT_EQ(w.cwnd, 12500u);
    EXPECT_EQ(w.ssthresh, 8000u);
    // the cwnd at send not below the current one: FreeBSD halves instead
    w = {30000, 40000};
    make_sctp_congestion_control("dccc")->on_ecn_echo(w, {false, 3, 30000, false}, mtu);
    EXPECT_EQ(w.cwnd, 15000u);
    EXPECT_EQ(w.ssthresh, 10500u);
    // our floor: one MTU
    make_sctp_congestion_control("dccc")->on_ecn_echo(w, {true, 20, 0, false}, mtu);
    EXPECT_EQ(w.cwnd, 1500u);
    EXPECT_EQ(w.ssthresh, 1500u);
    // dynamic-dccc: dccc on a local LAN (first RTT < 1.1 ms), algorithm 1 otherwise
    w = {30000, 40000};
    make_sctp_congestion_control("dynamic-dccc")->on_ecn_echo(w, {false, 3, 20000, true}, mtu);
    EXPECT_EQ(w.cwnd, 15500u);
    w = {30000, 40000};
    make_sctp_congestion_control("dynamic-dccc")->on_ecn_echo(w, {false, 3, 20000, false}, mtu);
    EXPECT_EQ(w.cwnd, 15000u);
    // plain: no response
    w = {30000, 40000};
    make_sctp_congestion_control("plain")->on_ecn_echo(w, {false, 3, 20000, true}, mtu);
    EXPECT_EQ(w.cwnd, 30000u);
    EXPECT_THROW(make_sctp_congestion_control("cubic"), config_error);
}

TEST(Sctp, DynamicDcccSwitchesAtOnePointOneMs) {
    // the first RTT (INIT -> INIT-ACK) is 4 x delay + 5.888 us of serialization: 1.0459 ms and 1.1259 ms
    for (const uint64_t delay : {260 * us, 280 * us}) {
        bench b(delay);
        b.cfg.congestion_control = "dynamic-dccc";
        sctp_receiver r(b.net.stack(0), 0, 1, b.cfg, b.rx_st);
        sctp_sender s(b.net.stack(1), 0, 0, b.cfg, b.st);
        s.connect();
        b.ctx.run_until(5 * ms);
        ASSERT_TRUE(s.established());
        EXPECT_EQ(s.first_rtt_ps(), 4 * delay + 5888 * 1000);
        EXPECT_EQ(s.local_lan(), delay == 260 * us) << delay;
    }
}

TEST(Sctp, EcnEchoIsRepeatedUntilCwrAndCountsMarkedPackets) {
    bench b(10 * us);
    b.cfg.congestion_control = "ecn";
    sctp_receiver r(b.net.stack(0), 0, 1, b.cfg, b.rx_st);
    frame_pool& pool = b.net.pool();
    auto data = [&](uint32_t tsn, bool ce, bool cwr = false, uint32_t cwr_tsn = 0) {
        frame* f = pool.acquire();
        f->kind = frame_kind::sctp;
        f->flags = static_cast<uint8_t>(sctp_data | (cwr ? sctp_cwr : 0));
        f->bytes = 1500;
        f->seq = tsn;
        f->payload = chunk;
        f->ecn = ce ? ecn_ce : ecn_ect0;
        f->ctl.sctp = sctp_fields{1, cwr_tsn, 0, 0};
        r.on_frame(f, 0);
    };
    data(1, true);
    data(2, true);
    EXPECT_TRUE(r.ecne_pending());
    EXPECT_EQ(r.ce_packets(), 2u);
    data(3, false, true, 1);   // a CWR below the reported TSN (2) does not stop the echo
    EXPECT_TRUE(r.ecne_pending());
    data(4, false, true, 3);
    EXPECT_FALSE(r.ecne_pending());
    EXPECT_EQ(r.ce_packets(), 0u);
    EXPECT_EQ(r.delivered_bytes(), 4u * chunk);
    b.ctx.run_until(1 * ms);
}

TEST(Sctp, AnAssociationDeliversEveryByteThroughALossyQueue) {
    // 3 MB through a 30-packet transmit queue: losses, fast retransmits, maybe timeouts; every byte arrives once
    sim_context ctx;
    buffer_config buf;
    buf.policy = "packets";
    buf.port_limit_packets = {30};
    topology t = star_topology(3, 1000000000ull, 10 * us, buf);
    t.links[0].rate_bps = 100000000ull;   // host 0 on 100 Mb/s: the bottleneck
    network net(t);
    sctp_config cfg;
    cfg.rto_min_ps = 300 * ms;
    sctp_stats st, rx;
    sctp_receiver r(net.stack(0), 0, 1, cfg, rx);
    sctp_sender s(net.stack(1), 0, 0, cfg, st);
    s.connect();
    s.write(3000000);
    ctx.run_until(2000 * ms);
    EXPECT_EQ(r.delivered_bytes(), 3000000u);
    EXPECT_TRUE(s.idle());
    EXPECT_GT(st.fast_retransmits, 0u);
    EXPECT_GT(net.account().dropped_frames, 0u);
    EXPECT_TRUE(net.account().holds()) << net.account().describe();
}

// ------------------------------------------------------------------------------------------------ DBL

namespace {
// A switch as the DBL hook sees it: 2 ports of 240 frames.
struct fake_switch final : public switch_services {
    std::string n = "sw";
    std::vector<int> marks = std::vector<int>(2, 0);
    const std::string& switch_name() const override { return n; }
    int num_ports() const override { return 2; }
    frame_pool& pool() override { return m_pool; }
    frame_pool m_pool;
    const buffer_units& units() const override { return m_buf.units(); }
    uint64_t port_capacity() const override { return 240 * 1500; }
    uint64_t port_limit_frames(int) const override { return 240; }
    const buffer_manager& buffer() const override { return m_buf; }
    buffer_manager& buffer() override { return m_buf; }
    int priority_group(int prio) const override { return prio; }
    static_buffer m_buf{2, 240 * 1500};
    void send_control(int, frame*, uint64_t) override {}
    void send_routed(frame*) override {}
    void schedule(uint64_t, switch_hook*, uint32_t) override {}
    void count_mark(int port) override { marks[static_cast<size_t>(port)]++; }
    void count_cnm(int) override {}
    void count_pause(int, bool) override {}
};
}   // namespace

TEST(Dbl, CreditsRunOutThenTheFlowIsMarkedOrDropped) {
    fake_switch sw;
    dbl_config cfg;   // the paper's: 15 credits, aggressive at 5, 255 buffers, 100 %, ECN
    dbl_queue_manager dbl(cfg, rng(1, 0));
    dbl.attach(sw);
    EXPECT_EQ(dbl.threshold_frames(0), 120u);
    frame f{};
    f.kind = frame_kind::sctp;
    f.flow = 7;
    uint32_t q = 0;
    auto arrive = [&](uint8_t ecn) {
        f.ecn = ecn;
        const queue_view v{0, 0, q * 1500ull, q * 1500ull, q};
        const drop_reason why = dbl.on_admit(v, f, 0);
        if (why == drop_reason::none) {
            dbl.on_enqueue(v, f, 0);
            ++q;
        }
        return why;
    };
    // one flow: nothing below 120 queued; from 120 each frame costs a credit; at 5 credits (the 10th) aggressive
    for (int i = 0; i < 120; ++i)
        ASSERT_EQ(arrive(ecn_ect0), drop_reason::none);
    EXPECT_FALSE(sw.marks[0]);
    for (int i = 0; i < 9; ++i) {
        ASSERT_EQ(arrive(ecn_ect0), drop_reason::none);
        EXPECT_EQ(f.ecn, ecn_ect0) << i;
    }
    EXPECT_EQ(dbl.credits(0, 7), 6u);
    EXPECT_FALSE(dbl.aggressive(0, 7));
    // the 130th frame (129 queued): credits 5, aggressive, marked
    ASSERT_EQ(arrive(ecn_ect0), drop_reason::none);
    EXPECT_TRUE(dbl.aggressive(0, 7));
    EXPECT_EQ(f.ecn, ecn_ce);
    EXPECT_EQ(sw.marks[0], 1);
    // a frame that is not ECN-capable (a SACK, a handshake) is dropped instead
    EXPECT_EQ(arrive(ecn_not_ect), drop_reason::aqm);
    EXPECT_EQ(dbl.drops(), 1u);
    // the queue drains under 120: credits are forgotten
    frame g = f;
    while (q > 100) {
        --q;
        const queue_view v{0, 0, q * 1500ull, q * 1500ull, q};
        dbl.on_dequeue(v, g, 0);
    }
    ASSERT_EQ(arrive(ecn_ect0), drop_reason::none);
    EXPECT_FALSE(dbl.aggressive(0, 7));
    EXPECT_EQ(dbl.credits(0, 7), 15u);
}

namespace {
// Two ECN-capable flows arriving in turn at one port queue: the queue length at which the first mark comes. (The
// frames are copied here, not passed by value: a frame is 64-byte aligned, and GCC notes each such parameter.)
uint32_t first_mark_of_two(const dbl_config& cfg, const frame& first, const frame& second) {
    frame a = first, b = second;
    fake_switch sw;
    dbl_queue_manager dbl(cfg, rng(1, 0));
    dbl.attach(sw);
    uint32_t q = 0;
    for (int i = 0; i < 100; ++i)
        for (frame* f : {&a, &b}) {
            f->ecn = ecn_ect0;
            const queue_view v{0, 0, 0, 0, q};
            EXPECT_EQ(dbl.on_admit(v, *f, 0), drop_reason::none);
            dbl.on_enqueue(v, *f, 0);
            if (f->ecn == ecn_ce)
                return q;
            ++q;
        }
    return 0;
}
}   // namespace

TEST(Dbl, FlowsBetweenTheSameTwoHostsShareCreditsWhenTheSwitchKeysOnHostsOrOnTheQueue) {
    // two associations from host 3 to host 8, interleaved: keyed on the flow each is first marked on arriving at
    // 138 frames queued (as in the next test); keyed on the host pair, or on the queue, they are one flow spending
    // a credit per frame, so the 10th frame from 120 is marked: on arriving at 129 queued, as one flow alone
    frame a{}, b{};
    a.flow = 1;
    b.flow = 2;
    a.src = b.src = 3;
    a.dst = b.dst = 8;
    dbl_config by_flow, by_hosts, by_queue;
    by_hosts.flow_by_hosts = true;
    by_queue.flow_by_queue = true;
    EXPECT_EQ(first_mark_of_two(by_flow, a, b), 138u);
    EXPECT_EQ(first_mark_of_two(by_hosts, a, b), 129u);
    EXPECT_EQ(first_mark_of_two(by_queue, a, b), 129u);
    b.src = 4;   // another source host: two flows again when keyed on hosts
    EXPECT_EQ(first_mark_of_two(by_hosts, a, b), 138u);
}

TEST(Dbl, TwoFlowsAreMarkedFromSeventyEachDropActionAndBufferLimit) {
    dbl_config cfg;
    frame a{}, b{};
    a.flow = 1;
    b.flow = 2;
    // congested from 120 (60 each); each flow's 10th frame after that is marked: flow 1's at 138 queued
    EXPECT_EQ(first_mark_of_two(cfg, a, b), 138u);

    dbl_config d = cfg;
    d.exceed_ecn = false;
    d.aggressive_buffers = 3;
    fake_switch sw2;
    dbl_queue_manager drop(d, rng(1, 0));
    drop.attach(sw2);
    frame c{};
    c.flow = 3;
    c.ecn = ecn_ect0;
    uint32_t q2 = 0, admitted_after = 0;
    std::vector<drop_reason> seen;
    for (int i = 0; i < 135; ++i) {
        const queue_view v{1, 0, 0, 0, q2};
        const drop_reason why = drop.on_admit(v, c, 0);
        if (why == drop_reason::none) {
            drop.on_enqueue(v, c, 0);
            ++q2;
            if (drop.aggressive(1, 3))
                ++admitted_after;
        }
        seen.push_back(why);
    }
    // exceed action drop: the 130th frame and every later one of the (aggressive) flow are dropped
    EXPECT_EQ(seen[128], drop_reason::none);
    EXPECT_EQ(seen[129], drop_reason::aqm);
    EXPECT_EQ(admitted_after, 0u);
    EXPECT_EQ(drop.drops(), 6u);
}

// ------------------------------------------------------------------------------------------------ sctp-incast

namespace {
result run_testbed(const std::vector<std::string>& args) {
    auto sc = make_scenario("sctp-incast");
    sc->params().parse_args(args);
    return sc->run();
}
}   // namespace

TEST(SctpIncastScenario, UnloadedIncastRequestsTakeTheirHandComputedTime) {
    // Without elephants: a slow (100 Mb/s) peer's request is INIT (84 B), INIT-ACK (284 B), COOKIE-ECHO with the
    // 8-byte request (260 B) and two 1496-byte DATA packets, each over a 1 Gb/s and a 100 Mb/s link with 5 us of
    // propagation: 17.392 + 34.992 + 32.88 + (2 x 119.68 + 5 + 11.968 + 5) = 346.592 us. Eight of the ten peers
    // are slow, so the median is a slow peer's, at least that; the round ends within that plus bsd8's own
    // serialization of 9 more INITs and COOKIE-ECHOs (24.8 us) and of the other slow peers' 8 second packets
    // (95.7 us).
    const result r = run_testbed({"--duration-s", "0.5", "--elephants=false"});
    const double rounds = r.number("incast_rounds");
    EXPECT_GT(rounds, 1000);
    EXPECT_NEAR(r.number("incast_requests"), 10 * rounds, 10);
    EXPECT_GE(r.number("request_p50_ms"), 0.346592);
    EXPECT_LE(r.number("request_max_ms"), 0.346592 + 0.0248 + 0.0957);
    EXPECT_EQ(r.number("incast_incidents"), 0);
    EXPECT_EQ(r.number("drops"), 0);
}

TEST(SctpIncastScenario, ElephantsStayUnderThePayloadRateOfTheSlowPortsAndBytesAreConserved) {
    for (const char* cc : {"plain", "ecn", "dccc", "dynamic-dccc"}) {
        const result r = run_testbed({"--duration-s", "4", "--sctp-cc", cc});
        // each source sends to one sink at a time: at most 2 x 100 Mb/s x 1452 / 1500 of payload to slow hosts
        EXPECT_GT(r.number("elephant_goodput_mbps"), 50) << cc;
        EXPECT_LE(r.number("elephant_goodput_mbps"), 2 * 100 * 1452.0 / 1500) << cc;
        EXPECT_EQ(std::get<bool>(*r.get("conservation_ok")), true) << cc;
        if (std::string(cc) == "plain") {
            EXPECT_EQ(r.number("dbl_marks"), 0);   // nothing ECN-capable: DBL drops instead
            EXPECT_GT(r.number("dbl_drops"), 0);
        } else {
            EXPECT_GT(r.number("dbl_marks"), 0) << cc;
        }
    }
}

TEST(SctpIncastScenario, TheNicDropTraceRecordsEveryNicDropOnceAndChangesNothing) {
    // The elephant sources' NIC queues overflow behind their bursts (on seed 1 from 28.7 s on): the trace must hold
    // one row per drop the counters count, and recording must not change the run.
    const result plain = run_testbed({"--duration-s", "40", "--sctp-cc", "plain"});
    const result traced = run_testbed({"--duration-s", "40", "--sctp-cc", "plain", "--trace-nic-drops"});
    const table* t = traced.find_table("nic_drops");
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(plain.find_table("nic_drops"), nullptr);
    const double nic_drops = traced.number("drops_nic_queue_full") + traced.number("drops_rate_limiter_full") +
                             traced.number("drops_qdisc_limit");
    EXPECT_GT(nic_drops, 0);
    EXPECT_EQ(static_cast<double>(t->rows()), nic_drops);
    EXPECT_EQ(traced.number("nic_drops_untraced"), 0);
    for (const char* k : {"drops", "incast_rounds", "incast_incidents", "elephant_goodput_mbps", "events"})
        EXPECT_EQ(traced.number(k), plain.number(k)) << k;
}

TEST(SctpIncastScenario, BadSettingsAreRefusedWithTheField) {
    auto sc = make_scenario("sctp-incast");
    EXPECT_THROW(sc->params().parse_args({"--sctp-cc", "cubic"}), config_error);
    sc->params().parse_args({"--elephant-min-mb", "600", "--duration-s", "0.01"});
    try {
        sc->run();
        FAIL() << "elephant_max_mb < elephant_min_mb accepted";
    } catch (const config_error& e) {
        EXPECT_NE(std::string(e.what()).find("elephant_max_mb"), std::string::npos) << e.what();
    }
}
