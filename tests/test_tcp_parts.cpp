// SPDX-License-Identifier: Apache-2.0
// The parts of the TCP sender on their own: the congestion-control algorithms (RFC 5681 growth, RFC 3168 and
// RFC 8257 responses) and the SACK scoreboard (RFC 6675 IsLost), against hand-computed values.
#include "config/errors.h"
#include "traffic/host_stack.h"
#include "traffic/tcp/congestion_control.h"
#include "traffic/tcp/dc_vegas.h"
#include "traffic/tcp/dctcp.h"
#include "traffic/tcp/newreno.h"
#include "traffic/tcp/sack_scoreboard.h"
#include "traffic/tcp/tcp_config.h"
#include "traffic/tcp/vegas.h"

#include <gtest/gtest.h>

using namespace cmswitch;

namespace {
constexpr uint64_t mss = 1460;
tcp_ack_event ack_event(uint64_t ack, uint64_t newly, uint64_t snd_nxt, bool ece) {
    return tcp_ack_event{0, ack, newly, snd_nxt, 0, 0, ece, false};
}
}   // namespace

TEST(CongestionControl, RegistryNamesTheAlgorithmsAndRefusesOthers) {
    EXPECT_EQ(congestion_control_names(), (std::vector<std::string>{"newreno", "dctcp", "vegas", "dc-vegas", "cubic"}));
    EXPECT_EQ(find_congestion_control("newreno").feedback, ecn_feedback::classic);
    EXPECT_EQ(find_congestion_control("dctcp").feedback, ecn_feedback::per_segment);
    try {
        find_congestion_control("bbr");
        FAIL() << "no error";
    } catch (const config_error& e) {
        EXPECT_STREQ(e.what(), "transport = 'bbr': allowed values are newreno, dctcp, vegas, dc-vegas, cubic");
    }
    tcp_config c;
    c.transport = "dctcp";
    c.mss = 1000;
    auto cc = make_congestion_control(c);
    EXPECT_STREQ(cc->name(), "dctcp");
    EXPECT_EQ(cc->mss(), 1000u);
    EXPECT_TRUE(cc->ecn_capable());
}

TEST(CongestionControl, SlowStartAndCongestionAvoidanceSteps) {
    newreno cc{false};
    cc.set_mss(mss);
    tcp_window w{2 * mss, 4 * mss};
    cc.on_increase(w, ack_event(2 * mss, 2 * mss, 4 * mss, false));   // slow start: + min(newly, SMSS)
    EXPECT_EQ(w.cwnd, 3 * mss);
    cc.on_increase(w, ack_event(3 * mss, 500, 4 * mss, false));
    EXPECT_EQ(w.cwnd, 3 * mss + 500);
    w = {10 * mss, 4 * mss};   // congestion avoidance: + SMSS^2 / cwnd = 146 bytes
    cc.on_increase(w, ack_event(0, mss, 0, false));
    EXPECT_EQ(w.cwnd, 10 * mss + 146);
}

TEST(CongestionControl, NewRenoHalvesOncePerWindowOnEcnEchoAndSendsCwr) {
    newreno cc(true);   // ECN-capable
    cc.set_mss(mss);
    EXPECT_TRUE(cc.ecn_capable());
    tcp_window w{20 * mss, UINT64_MAX};
    auto r = cc.on_ecn_echo(w, ack_event(1000, mss, 30000, true));
    EXPECT_TRUE(r.reduced);
    EXPECT_TRUE(r.send_cwr);
    EXPECT_EQ(w.cwnd, 10 * mss);
    EXPECT_EQ(w.ssthresh, 10 * mss);
    // until an ACK reaches snd_nxt + 1 at the reduction (30001), no second one
    r = cc.on_ecn_echo(w, ack_event(30000, mss, 45000, true));
    EXPECT_FALSE(r.reduced);
    EXPECT_EQ(w.cwnd, 10 * mss);
    r = cc.on_ecn_echo(w, ack_event(30001, mss, 45000, true));
    EXPECT_TRUE(r.reduced);
    EXPECT_EQ(w.cwnd, 5 * mss);
    // never below 2 SMSS
    w = {3 * mss, UINT64_MAX};
    cc.on_timeout();   // a timeout allows the next reduction at once
    cc.on_ecn_echo(w, ack_event(30002, mss, 50000, true));
    EXPECT_EQ(w.cwnd, 2 * mss);
    // not ECN-capable: ECN-Echo changes nothing
    newreno plain{false};
    EXPECT_FALSE(plain.ecn_capable());
    w = {20 * mss, UINT64_MAX};
    EXPECT_FALSE(plain.on_ecn_echo(w, ack_event(1000, mss, 30000, true)).reduced);
    EXPECT_EQ(w.cwnd, 20 * mss);
}

TEST(CongestionControl, DctcpCutsByHalfAlphaOncePerObservationWindow) {
    tcp_config c;
    c.dctcp.g = 1.0 / 16;
    dctcp cc(c.dctcp);
    cc.set_mss(mss);
    tcp_window w{20 * mss, UINT64_MAX};
    // alpha starts at 1: the first cut halves; no CWR (per-segment echo)
    auto r = cc.on_ecn_echo(w, ack_event(mss, mss, 20 * mss, true));
    EXPECT_TRUE(r.reduced);
    EXPECT_FALSE(r.send_cwr);
    EXPECT_EQ(w.cwnd, 10 * mss);
    EXPECT_FALSE(cc.on_ecn_echo(w, ack_event(2 * mss, mss, 20 * mss, true)).reduced);
    // the first ACK ends the (empty) first window: alpha = 15/16 x 1 + 1/16 x 1 (all of it marked)
    cc.on_acked(w, ack_event(mss, mss, 20 * mss, true));
    EXPECT_DOUBLE_EQ(cc.alpha(), 1.0);
    // the window then runs to snd_nxt = 20 SMSS: 19 ACKs, 5 of them marked, then one past it
    for (int i = 2; i <= 20; ++i)
        cc.on_acked(w, ack_event(static_cast<uint64_t>(i) * mss, mss, 30 * mss, i <= 5));
    EXPECT_DOUBLE_EQ(cc.alpha(), 1.0);   // 20 SMSS is not past the window's end
    cc.on_acked(w, ack_event(21 * mss, mss, 30 * mss, false));
    // 4 of 20 SMSS marked (ACKs 2..5): alpha = 15/16 + 1/16 x 0.2
    EXPECT_DOUBLE_EQ(cc.alpha(), 15.0 / 16 + 0.2 / 16);
    // a new window allows a new cut: cwnd x (1 - alpha / 2)
    r = cc.on_ecn_echo(w, ack_event(22 * mss, mss, 30 * mss, true));
    EXPECT_TRUE(r.reduced);
    const double alpha = 15.0 / 16 + 0.2 / 16;
    EXPECT_EQ(w.cwnd, static_cast<uint64_t>(static_cast<double>(10 * mss) * (1 - alpha / 2)));
}

TEST(SackScoreboard, MergesBlocksAndForgetsWhatTheCumulativeAckCovers) {
    sack_scoreboard sb;
    const sack_scoreboard::range b1[] = {{3000, 4000}, {6000, 7000}};
    EXPECT_TRUE(sb.update(1000, 10000, b1, 2));
    EXPECT_EQ(sb.bytes(), 2000u);
    const sack_scoreboard::range b2[] = {{4000, 6000}};   // fills the gap between the two
    EXPECT_TRUE(sb.update(1000, 10000, b2, 1));
    ASSERT_EQ(sb.blocks().size(), 1u);
    EXPECT_EQ(sb.blocks()[0], (sack_scoreboard::range{3000, 7000}));
    EXPECT_FALSE(sb.update(1000, 10000, b2, 1));   // nothing new
    const sack_scoreboard::range b3[] = {{9000, 12000}};   // clipped to high_tx
    EXPECT_TRUE(sb.update(1000, 10000, b3, 1));
    EXPECT_EQ(sb.highest_end(), 10000u);
    EXPECT_EQ(sb.sacked_in(2000, 9500), 4000u + 500u);
    EXPECT_EQ(sb.skip(3500), 7000u);
    EXPECT_EQ(sb.skip(8000), 8000u);
    EXPECT_EQ(sb.clip(7000, 8460), 8460u);
    EXPECT_EQ(sb.clip(7000, 9460), 9000u);
    EXPECT_FALSE(sb.update(5000, 10000, nullptr, 0));   // a cumulative ACK alone SACKs nothing new ...
    EXPECT_EQ(sb.blocks()[0], (sack_scoreboard::range{5000, 7000}));   // ... and trims what it covers
}

TEST(SackScoreboard, IsLostByBytesOrByBlocks) {
    sack_scoreboard sb;
    // blocks of 1000 bytes, SMSS 1000, DupThresh 3: lost below the block that brings > 2 SMSS or 3 blocks
    const sack_scoreboard::range b[] = {{2000, 3000}, {4000, 5000}, {6000, 7000}};
    sb.update(0, 10000, b, 3);
    EXPECT_EQ(sb.lost_below(0, 1000, 3), 2000u);   // 3 blocks above 0..1999
    sack_scoreboard two;
    const sack_scoreboard::range c[] = {{2000, 3500}, {5000, 6000}};
    two.update(0, 10000, c, 2);
    EXPECT_EQ(two.lost_below(0, 1000, 3), 2000u);   // 2500 bytes > 2 SMSS above 0..1999
    sack_scoreboard one;
    const sack_scoreboard::range d[] = {{2000, 3000}};
    one.update(0, 10000, d, 1);
    EXPECT_EQ(one.lost_below(0, 1000, 3), 0u);   // nothing lost: snd_una
}

TEST(Vegas, OneStepPerRttBelowAlphaBetweenAndAboveBeta) {
    // MSS 1000 B, cwnd 10 segments in congestion avoidance, baseRTT 100 us: diff = 10 (rtt - 100) / 100 segments
    tcp_config cfg;   // alpha 2, beta 4, gamma 1
    vegas v(cfg.vegas);
    v.set_mss(1000);
    tcp_window w{10000, 5000};
    v.on_increase(w, tcp_ack_event{0, 1, 1000, 2000, 0, 100000000, false, false});   // baseRTT = 100 us
    ASSERT_EQ(v.base_rtt(), 100000000u);
    w = {10000, 5000};
    v.step(w, 110000000, 3);   // diff 1 < alpha: one more segment
    EXPECT_EQ(w.cwnd, 11000u);
    w = {10000, 5000};
    v.step(w, 130000000, 3);   // diff 3 in [alpha, beta]: unchanged
    EXPECT_EQ(w.cwnd, 10000u);
    w = {10000, 5000};
    v.step(w, 160000000, 3);   // diff 6 > beta: one less, ssthresh min(5000, 9000 - 1000)
    EXPECT_EQ(w.cwnd, 9000u);
    EXPECT_EQ(w.ssthresh, 5000u);
    w = {10000, 1000000};
    v.step(w, 130000000, 3);   // slow start, diff 3 > gamma: cwnd = min(10, target 10 x 100/130 = 7 (+1)) = 8
    EXPECT_EQ(w.cwnd, 8000u);
    EXPECT_EQ(w.ssthresh, 7000u);
    w = {10000, 5000};
    v.step(w, 160000000, 2);   // two samples only: Reno, + MSS^2 / cwnd = 100 B
    EXPECT_EQ(w.cwnd, 10100u);
}

TEST(DcVegas, QueueEstimateAgainstKvThenDctcpCutAtTheEndOfTheRtt) {
    // cwnd 20 segments, baseRTT 100 us, K_v 4: rtt 125 us gives q = 20/125 x 25 = 4 (not over), 150 us 6.67 (over)
    tcp_config cfg;   // K_v 4, g 1/16
    cfg.dc_vegas.update = dc_vegas_params::timing_t::rtt;
    dc_vegas d(cfg.dc_vegas);
    d.set_mss(1000);
    tcp_window w{20000, 1000000};
    d.sample(w, 100000000);   // q = 0
    d.sample(w, 125000000);
    d.sample(w, 150000000);
    d.sample(w, 150000000);
    // F = 2 / 4: alpha = 15/16 + 1/16 x 0.5 = 0.96875; cwnd = ssthresh = 20000 x (1 - 0.484375) = 10312 B
    d.end_of_rtt(w);
    EXPECT_DOUBLE_EQ(d.alpha(), 0.96875);
    EXPECT_EQ(w.cwnd, 10312u);
    EXPECT_EQ(w.ssthresh, 10312u);
    // an RTT without samples over K_v: alpha decays, no cut
    d.sample(w, 100000000);
    d.end_of_rtt(w);
    EXPECT_DOUBLE_EQ(d.alpha(), 0.96875 * 15 / 16);
    EXPECT_EQ(w.cwnd, 10312u);
}

TEST(DcVegas, DctcpTimingCutsOnTheFirstSampleOverWithTheCurrentAlpha) {
    // the default reading: alpha starts at 1, so the first sample over (rtt 150 us: q = 6.67 > 4) halves the
    // window at once; a second one in the same RTT does nothing; alpha moves at the RTT's end from F = 2 / 3
    tcp_config cfg;
    dc_vegas d(cfg.dc_vegas);
    d.set_mss(1000);
    tcp_window w{20000, 1000000};
    d.sample(w, 100000000);
    d.sample(w, 150000000);
    EXPECT_EQ(w.cwnd, 10000u);
    EXPECT_EQ(w.ssthresh, 10000u);
    d.sample(w, 300000000);   // cwnd 10: q = 10/300 x 200 = 6.67, over, but the RTT has had its cut
    EXPECT_EQ(w.cwnd, 10000u);
    d.end_of_rtt(w);
    EXPECT_DOUBLE_EQ(d.alpha(), 15.0 / 16 + 2.0 / 3 / 16);
    // next RTT: cwnd 10, rtt 180 us gives q = 10/180 x 80 = 4.44, over: cut by alpha / 2
    d.sample(w, 180000000);
    EXPECT_EQ(w.cwnd, static_cast<uint64_t>(10000 * (1 - (15.0 / 16 + 2.0 / 3 / 16) / 2)));
}

TEST(DcVegas, PerAckAlphaAndThePathDelaySignal) {
    // "ack": alpha moves with every sample (gain 1/16), the cut on the first sample over
    tcp_config cfg;
    cfg.dc_vegas.update = dc_vegas_params::timing_t::ack;
    dc_vegas a(cfg.dc_vegas);
    a.set_mss(1000);
    tcp_window w{20000, 1000000};
    a.sample(w, 100000000);   // not over: alpha 15/16
    EXPECT_DOUBLE_EQ(a.alpha(), 15.0 / 16);
    a.sample(w, 150000000);   // over: alpha 15/16 x 15/16 + 1/16, then the cut with it
    const double alpha = 15.0 / 16 * 15 / 16 + 1.0 / 16;
    EXPECT_DOUBLE_EQ(a.alpha(), alpha);
    EXPECT_EQ(w.cwnd, static_cast<uint64_t>(20000 * (1 - alpha / 2)));
    a.end_of_rtt(w);
    EXPECT_DOUBLE_EQ(a.alpha(), alpha);   // no second update at the RTT's end
    // "path": RTT - RTT_min against 48 us, whatever the window: 147 us is not over, 149 us is
    tcp_config pc;
    pc.dc_vegas.signal = dc_vegas_params::signal_t::path;
    dc_vegas p(pc.dc_vegas);
    p.set_mss(1000);
    tcp_window big{200000, 1000000};   // 200 segments: Eq. 1 would be over at once
    p.sample(big, 100000000);
    p.sample(big, 147000000);
    EXPECT_EQ(big.cwnd, 200000u);
    p.sample(big, 149000000);
    EXPECT_EQ(big.cwnd, 100000u);   // alpha 1: halved
    // the readings by name, through the parameter table: an unknown one is refused naming the field
    param_table t;
    tcp_config named;
    named.dc_vegas.declare(t);
    t.set("dcvegas_signal", "path");
    t.set("dcvegas_update", "ack");
    t.set("dcvegas_delay_us", "12.5");
    EXPECT_EQ(named.dc_vegas.signal, dc_vegas_params::signal_t::path);
    EXPECT_EQ(named.dc_vegas.update, dc_vegas_params::timing_t::ack);
    EXPECT_EQ(named.dc_vegas.delay_ps, 12500000u);
    EXPECT_EQ(t.value_text("dcvegas_delay_us"), "12.5");
    try {
        t.set("dcvegas_signal", "queue");
        ADD_FAILURE() << "dcvegas_signal = queue accepted";
    } catch (const config_error& e) {
        EXPECT_STREQ(e.what(), "dcvegas_signal = 'queue' is not allowed: choose one of flow, path");
    }
    EXPECT_EQ(named.dc_vegas.signal, dc_vegas_params::signal_t::path);   // unchanged
}

namespace {
struct null_endpoint final : flow_endpoint {
    void on_frame(frame*, uint64_t) override {}
};
}   // namespace

TEST(FlowDirectory, FindsEachHostsEndOfAFlowAndRefusesAThird) {
    // one flat table for the network: flow -> its endpoint on each of its two hosts
    flow_directory d;
    null_endpoint a, b, c;
    d.bind(7, 3, &a);   // the sender on host 3
    d.bind(7, 900, &b);   // the receiver on host 900
    EXPECT_EQ(d.find(7, 3), &a);
    EXPECT_EQ(d.find(7, 900), &b);
    EXPECT_EQ(d.find(7, 4), nullptr);   // a frame of flow 7 at another host: nobody listens
    EXPECT_EQ(d.find(8, 3), nullptr);
    EXPECT_EQ(d.find(1u << 30, 3), nullptr);   // beyond the table
    d.bind(7, 3, &c);   // rebinding on the same host replaces
    EXPECT_EQ(d.find(7, 3), &c);
    try {
        d.bind(7, 5, &a);
        FAIL() << "a third host bound flow 7";
    } catch (const model_error& e) {
        EXPECT_NE(std::string(e.what()).find("flow 7: endpoints on hosts 3 and 900 already, a third on host 5"),
                  std::string::npos)
            << e.what();
    }
}
