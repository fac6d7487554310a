// SPDX-License-Identifier: Apache-2.0
// TCP NewReno / DCTCP sender and receiver against hand-computed values (RFC 5681, 6582, 6298, 8257).
#include "model/cm/ecn/ecn_marker.h"
#include "platform/network.h"
#include "testing.h"
#include "traffic/tcp/dctcp.h"
#include "traffic/tcp/tcp_receiver.h"
#include "traffic/tcp/tcp_sender.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <vector>

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

// Runs fn at simulated time t_ps, from host 1's timer service (so that the model's clock reads t_ps).
class at_time final : public timer_client {
public:
    at_time(host_nic& nic, uint64_t t_ps, std::function<void()> fn) : m_fn(std::move(fn)) {
        nic.schedule_timer(t_ps, this, 0);
    }
    void on_timer(uint32_t) override { m_fn(); }

private:
    std::function<void()> m_fn;
};

// Records the ACKs that reach host 1 (flow 0): their timestamp echo, cumulative ACK and SACK blocks.
struct capture_acks final : public flow_endpoint {
    template <class Bench>
    capture_acks(Bench& b, std::vector<uint64_t>& echoes, std::vector<uint64_t>& acks,
                 std::vector<std::vector<std::pair<uint64_t, uint64_t>>>* sacks = nullptr)
        : pool(b.net.pool()), m_echoes(echoes), m_acks(acks), m_sacks(sacks) {
        b.net.stack(1).bind(0, this);
    }
    void on_frame(frame* f, uint64_t) override {
        m_echoes.push_back(f->ts_ps);
        m_acks.push_back(f->ack);
        if (m_sacks) {
            m_sacks->emplace_back();
            for (int i = 0; i < f->sack_blocks; ++i)
                m_sacks->back().push_back({f->ack + f->sack[i].begin, f->ack + f->sack[i].end});
        }
        bytes.push_back(f->bytes);
        pool.release(f);
    }
    frame_pool& pool;
    std::vector<uint32_t> bytes;

private:
    std::vector<uint64_t>& m_echoes;
    std::vector<uint64_t>& m_acks;
    std::vector<std::vector<std::pair<uint64_t, uint64_t>>>* m_sacks;
};

frame* ack_frame(frame_pool& pool, uint64_t ack, bool ece = false) {
    frame* f = pool.acquire();
    f->kind = frame_kind::tcp;
    f->bytes = 40;
    f->ack = ack;
    f->flags = static_cast<uint8_t>(tcp_ack | (ece ? tcp_ece : 0));
    return f;
}
}   // namespace

TEST(Tcp, SlowStartDoublesTheWindowEveryRoundTrip) {
    // RTT ~ 425 us (4 x 100 us propagation + serialization); ACK per segment, +1 MSS per ACK: 2, 4, 8, 16 segments
    bench b(100 * us);
    b.cfg.init_cwnd = 2;
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

TEST(Tcp, ConnectionsShareOneConfigurationBlock) {
    // Flows made from one shared_tcp_config read that one object (no copy each); one made from a tcp_config keeps a
    // copy of its own, which later changes to the caller's object do not reach. The shared flow grows its window
    // as the copied one does (the slow-start test's 2, then 4 segments after one round trip).
    bench b(100 * us);
    b.cfg.init_cwnd = 2;
    const shared_tcp_config block = std::make_shared<const tcp_config>(b.cfg);
    tcp_sender shared_s(b.net.stack(1), 1, 0, block, b.st, rng(1, 1));
    tcp_receiver shared_r(b.net.stack(0), 1, 1, block, b.rx_st);
    tcp_sender own_s(b.net.stack(1), 0, 0, b.cfg, b.st, rng(1, 0));
    tcp_receiver own_r(b.net.stack(0), 0, 1, b.cfg, b.rx_st);
    EXPECT_EQ(&shared_s.config(), block.get());
    EXPECT_EQ(&shared_r.config(), block.get());
    EXPECT_EQ(block.use_count(), 3);   // this test's and the two connections'
    EXPECT_NE(&own_s.config(), &b.cfg);
    b.cfg.init_cwnd = 7;
    EXPECT_EQ(own_s.config().init_cwnd, 2u);
    shared_s.write(100 * mss);
    own_s.write(100 * mss);
    EXPECT_EQ(shared_s.cwnd(), 2 * mss);
    b.ctx.run_until(600 * us);
    EXPECT_EQ(shared_s.cwnd(), 4 * mss);
    EXPECT_EQ(own_s.cwnd(), 4 * mss);
    // no block at all: the error names it (Python: ValueError)
    EXPECT_THROW(tcp_sender(b.net.stack(1), 2, 0, shared_tcp_config{}, b.st, rng(1, 2)), config_error);
    EXPECT_THROW(tcp_receiver(b.net.stack(0), 2, 1, shared_tcp_config{}, b.rx_st), config_error);
}

TEST(Tcp, ThreeDuplicateAcksPartialAckAndFullAck) {
    bench b(1 * us);
    b.cfg.init_cwnd = 10;
    tcp_sender s(b.net.stack(1), 0, 0, b.cfg, b.st, rng(1, 0));   // no receiver: we play the ACKs
    frame_pool& pool = b.net.pool();
    s.write(100 * mss);
    ASSERT_EQ(s.snd_nxt(), 10 * mss);   // initial window of 10 segments sent
    // 1st and 2nd duplicate ACK: limited transmit sends one new segment each, cwnd unchanged
    for (int i = 0; i < 2; ++i)
        s.on_frame(ack_frame(pool, 0), 0);
    EXPECT_EQ(s.snd_nxt(), 12 * mss);
    EXPECT_EQ(s.cwnd(), 10 * mss);
    EXPECT_EQ(b.st.limited_transmits, 2u);
    // 3rd duplicate: ssthresh = max(cwnd/2, 2 SMSS) = 7300; cwnd = ssthresh + (3 - 2 limited) SMSS = 8760;
    // the retransmission goes, nothing new (FlightSize 17520 > cwnd)
    s.on_frame(ack_frame(pool, 0), 0);
    EXPECT_TRUE(s.in_fast_recovery());
    EXPECT_EQ(s.ssthresh(), 7300u);
    EXPECT_EQ(s.cwnd(), 8760u);
    EXPECT_EQ(b.st.fast_retransmits, 1u);
    EXPECT_EQ(b.st.retransmitted_segments, 1u);
    EXPECT_EQ(s.recover(), 12 * mss);   // RFC 6582 recover: the highest byte sent
    s.on_frame(ack_frame(pool, 0), 0);   // a further duplicate inflates by one SMSS
    EXPECT_EQ(s.cwnd(), 10220u);
    EXPECT_EQ(s.snd_nxt(), 12 * mss);   // 10220 < FlightSize 17520: nothing new may go
    // partial ACK of 5 segments: retransmit the next hole, cwnd = 10220 - 7300 + 1460 = 4380, stay in recovery
    s.on_frame(ack_frame(pool, 5 * mss), 0);
    EXPECT_TRUE(s.in_fast_recovery());
    EXPECT_EQ(s.cwnd(), 4380u);
    EXPECT_EQ(b.st.retransmitted_segments, 2u);
    // full ACK (covers recover = 17520): cwnd = ssthresh (RFC 6582 option 2); 5 new segments fit
    s.on_frame(ack_frame(pool, 12 * mss), 0);
    EXPECT_FALSE(s.in_fast_recovery());
    EXPECT_EQ(s.cwnd(), 7300u);
    EXPECT_EQ(s.snd_nxt(), 17 * mss);
    b.ctx.run_until(1 * ms);
}

TEST(Tcp, WithoutLimitedTransmitTheDuplicatesSendNothingAndRecoveryInflatesByThree) {
    bench b(1 * us);
    b.cfg.init_cwnd = 4;
    b.cfg.limited_transmit = false;
    tcp_sender s(b.net.stack(1), 0, 0, b.cfg, b.st, rng(1, 0));
    frame_pool& pool = b.net.pool();
    s.write(20 * mss);
    for (int i = 0; i < 2; ++i)
        s.on_frame(ack_frame(pool, 0), 0);
    EXPECT_EQ(s.snd_nxt(), 4 * mss);
    // 3rd: ssthresh 2 SMSS, cwnd = 2 + 3 = 5 SMSS > FlightSize 4: one new segment besides the retransmission
    s.on_frame(ack_frame(pool, 0), 0);
    EXPECT_EQ(s.cwnd(), 5 * mss);
    EXPECT_EQ(s.snd_nxt(), 5 * mss);
    EXPECT_EQ(b.st.limited_transmits, 0u);
    b.ctx.run_until(1 * ms);
}

TEST(Tcp, LimitedTransmitStaysWithinTwoSegmentsBeyondTheWindow) {
    // RFC 3042: FlightSize after sending <= cwnd + 2 SMSS. With 2 segments already beyond the window, the 1st
    // duplicate ACK may not send; an application with nothing more to send sends nothing either.
    bench b(1 * us);
    b.cfg.init_cwnd = 4;
    tcp_sender s(b.net.stack(1), 0, 0, b.cfg, b.st, rng(1, 0));
    frame_pool& pool = b.net.pool();
    s.write(5 * mss);   // 4 go, 1 waits for the window
    s.on_frame(ack_frame(pool, 0), 0);
    EXPECT_EQ(s.snd_nxt(), 5 * mss);   // the 5th segment by limited transmit
    s.on_frame(ack_frame(pool, 0), 0);
    EXPECT_EQ(s.snd_nxt(), 5 * mss);   // nothing left to send
    EXPECT_EQ(b.st.limited_transmits, 1u);
    b.ctx.run_until(1 * ms);
}

TEST(Tcp, NoFastRetransmitWhileTheAckDoesNotPassRecover) {
    // RFC 6582 section 4.1, the careful variant (ns-2, Linux, FreeBSD): after a timeout, three duplicate ACKs
    // start a fast retransmit only if the cumulative ACK covers more than recover, the highest byte sent before
    // the timeout. A duplicate ACK exactly at recover is the old window's echo, not a new loss.
    bench b(1 * us);
    b.cfg.init_cwnd = 10;
    b.cfg.min_rto_ps = 1 * ms;
    tcp_sender s(b.net.stack(1), 0, 0, b.cfg, b.st, rng(1, 0));
    frame_pool& pool = b.net.pool();
    s.write(100 * mss);
    b.ctx.run_until(1100 * us);   // no ACK: the timeout at 1 ms, go-back-N from 0
    ASSERT_EQ(b.st.timeouts, 1u);
    EXPECT_EQ(s.recover(), 10 * mss);
    EXPECT_EQ(s.cwnd(), mss);
    at_time t1(b.net.nic(1), 1200 * us, [&] {
        s.on_frame(ack_frame(pool, 10 * mss), now_ps());   // the receiver had 1..9: the ACK jumps to recover
        EXPECT_EQ(s.snd_una(), 10 * mss);
        EXPECT_EQ(s.snd_nxt(), 12 * mss);   // cwnd 2 SMSS, new data from 10
        for (int i = 0; i < 3; ++i)
            s.on_frame(ack_frame(pool, 10 * mss), now_ps());
        EXPECT_EQ(b.st.fast_retransmits, 0u);   // ack == recover: no fast retransmit
        EXPECT_FALSE(s.in_fast_recovery());
        s.on_frame(ack_frame(pool, 11 * mss), now_ps());   // past recover
        for (int i = 0; i < 3; ++i)
            s.on_frame(ack_frame(pool, 11 * mss), now_ps());
        EXPECT_EQ(b.st.fast_retransmits, 1u);
        EXPECT_TRUE(s.in_fast_recovery());
    });
    b.ctx.run_until(1300 * us);
    EXPECT_EQ(b.st.fast_retransmits, 1u);
}

TEST(Tcp, SsthreshFromTheWindowOrFromTheFlightSize) {
    // An application-limited sender: cwnd 10 SMSS but only 4 segments written. The 1st one is lost, the other
    // three bring three duplicate ACKs. cwnd rule (Linux, FreeBSD, ns-2): ssthresh = 10/2 = 5 SMSS. FlightSize
    // rule (RFC 5681 eq. 4): 4/2 = 2 SMSS.
    for (const auto rule : {tcp_config::ssthresh_rule::cwnd, tcp_config::ssthresh_rule::flight}) {
        bench b(1 * us);
        b.cfg.init_cwnd = 10;
        b.cfg.ssthresh_from = rule;
        tcp_sender s(b.net.stack(1), 0, 0, b.cfg, b.st, rng(1, 0));
        frame_pool& pool = b.net.pool();
        s.write(4 * mss);
        for (int i = 0; i < 3; ++i)
            s.on_frame(ack_frame(pool, 0), 0);
        ASSERT_TRUE(s.in_fast_recovery());
        EXPECT_EQ(s.ssthresh(), (rule == tcp_config::ssthresh_rule::cwnd ? 5 : 2) * mss);
        b.ctx.run_until(1 * ms);
    }
}

TEST(Tcp, LinuxRetransmissionTimeoutAddsTheMinimumToSrtt) {
    // Linux tcp_set_rto: RTO = SRTT + max(4 RTTVAR, min_rto); RFC 6298: max(min_rto, SRTT + 4 RTTVAR)
    for (const auto rule : {tcp_config::rto_rule_t::rfc6298, tcp_config::rto_rule_t::linux_tcp}) {
        const bool lx = rule == tcp_config::rto_rule_t::linux_tcp;
        bench b(1 * us);
        b.cfg.min_rto_ps = 1 * ms;
        b.cfg.rto_rule = rule;
        tcp_sender s(b.net.stack(1), 0, 0, b.cfg, b.st, rng(1, 0));
        // R = 100 us: SRTT 100, RTTVAR 50, 4 RTTVAR = 200 us < 1 ms: RFC 1 ms, Linux 100 us + 1 ms
        s.rtt_sample(100 * us);
        EXPECT_EQ(s.rto_ps(), lx ? 1100 * us : 1 * ms);
        // R = 2 ms: RTTVAR = 37.5 + 475 = 512.5 us, SRTT = 87.5 + 250 = 337.5 us; 4 RTTVAR = 2,050 us over
        // the minimum: both 337.5 + 2,050 = 2,387.5 us
        s.rtt_sample(2 * ms);
        EXPECT_EQ(s.rto_ps(), 2387500000ull);
    }
}

TEST(Tcp, RetransmissionTimeoutFormulasAndBackoff) {
    {   // one simulation context at a time: this bench goes before the next
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
    }
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

TEST(Tcp, TheRetransmissionTimerMovesEarlierToo) {
    // RFC 6298 5.3: restarting the timer makes it expire one current RTO from now, earlier or later. Here a
    // backed-off timer (20 ms after a timeout, deadline 30 ms) is followed by a fresh 10 ms RTO at 12 ms: the
    // next timeout is due at 22 ms, not at the stale 30 ms.
    bench b(1 * us);
    b.cfg.min_rto_ps = 10 * ms;
    tcp_sender s(b.net.stack(1), 0, 0, b.cfg, b.st, rng(1, 0));
    frame_pool& pool = b.net.pool();
    s.write(mss);
    b.ctx.run_until(11 * ms);
    ASSERT_EQ(b.st.timeouts, 1u);
    EXPECT_EQ(s.rto_ps(), 20 * ms);
    EXPECT_EQ(s.rto_deadline_ps(), 30 * ms);
    at_time t(b.net.nic(1), 12 * ms, [&] {
        s.on_frame(ack_frame(pool, mss), now_ps());   // all acknowledged: the timer stops
        EXPECT_EQ(s.rto_deadline_ps(), 0u);
        s.rtt_sample(100 * us);   // a fresh estimate: RTO back to the 10 ms minimum
        EXPECT_EQ(s.rto_ps(), 10 * ms);
        s.write(mss);
        EXPECT_EQ(s.rto_deadline_ps(), 22 * ms);
    });
    b.ctx.run_until(21900 * us);
    EXPECT_EQ(b.st.timeouts, 1u);
    b.ctx.run_until(22100 * us);
    EXPECT_EQ(b.st.timeouts, 2u);   // the stale entry would have fired at 30 ms
    b.ctx.run_until(31 * ms);
    EXPECT_EQ(b.st.timeouts, 2u);   // and it does nothing when it comes
}

TEST(Tcp, AnIdleSenderRestartsFromTheInitialWindow) {
    // RFC 5681 4.1: more than one RTO without sending: cwnd = min(IW, cwnd) before sending again
    for (const uint64_t write_at : {5 * ms, 12 * ms}) {
        bench b(1 * us);
        b.cfg.init_cwnd = 4;
        b.cfg.min_rto_ps = 10 * ms;
        tcp_sender s(b.net.stack(1), 0, 0, b.cfg, b.st, rng(1, 0));
        frame_pool& pool = b.net.pool();
        s.write(4 * mss);   // 4 segments at t = 0
        at_time t1(b.net.nic(1), 1 * ms, [&] {
            s.on_frame(ack_frame(pool, 4 * mss), now_ps());   // slow start: cwnd 4 -> 5 SMSS
            EXPECT_EQ(s.cwnd(), 5 * mss);
        });
        at_time t2(b.net.nic(1), write_at, [&] { s.write(10 * mss); });
        b.ctx.run_until(write_at + 1);
        if (write_at < 10 * ms) {   // idle 5 ms < RTO 10 ms: the window stays
            EXPECT_EQ(s.snd_nxt(), 9 * mss);
            EXPECT_EQ(b.st.idle_restarts, 0u);
        } else {   // idle 12 ms > RTO: restart window min(4, 5) = 4 SMSS
            EXPECT_EQ(s.cwnd(), 4 * mss);
            EXPECT_EQ(s.snd_nxt(), 8 * mss);
            EXPECT_EQ(b.st.idle_restarts, 1u);
        }
    }
}

TEST(Tcp, TimestampsGiveAnRttSampleFromTheRetransmissionAndEndTheBackoff) {
    // After a timeout the RTO is doubled (20 ms) until a valid RTT sample. Without timestamps the ACK of the
    // retransmission gives none (Karn); with them (RFC 7323) its echo of the retransmission's send time does:
    // 0.5 ms, so the RTO returns to the 10 ms minimum at once.
    for (const bool ts : {false, true}) {
        bench b(1 * us);
        b.cfg.min_rto_ps = 10 * ms;
        b.cfg.timestamps = ts;
        tcp_sender s(b.net.stack(1), 0, 0, b.cfg, b.st, rng(1, 0));
        frame_pool& pool = b.net.pool();
        s.write(mss);
        b.ctx.run_until(10100 * us);   // timeout at 10 ms, retransmission then
        ASSERT_EQ(b.st.timeouts, 1u);
        at_time t(b.net.nic(1), 10500 * us, [&] {
            frame* f = ack_frame(pool, mss);
            f->ts_ps = 10 * ms;   // TSecr: the retransmission's TSval
            s.on_frame(f, now_ps());
        });
        b.ctx.run_until(11 * ms);
        EXPECT_EQ(s.rto_ps(), (ts ? 10 : 20) * ms) << "timestamps " << ts;
        if (ts) {
            EXPECT_DOUBLE_EQ(s.srtt_ps(), 500.0 * us);
        }
    }
}

TEST(Tcp, ReceiverEchoesTheTimestampOfTheSegmentThatMovedTheWindow) {
    // RFC 7323 4.3: TS.Recent follows segments at or below Last.ACK.sent. A segment beyond a hole does not
    // update it (its duplicate ACK echoes the older timestamp); the retransmission that fills the hole does.
    bench b(1 * us);
    b.cfg.timestamps = true;
    b.cfg.mss = mss - tcp_config::timestamp_option_bytes;
    const uint64_t seg = b.cfg.mss;
    tcp_receiver r(b.net.stack(0), 0, 1, b.cfg, b.rx_st);
    frame_pool& pool = b.net.pool();
    auto data = [&](uint64_t seq, uint64_t tsval) {
        frame* f = pool.acquire();
        f->kind = frame_kind::tcp;
        f->seq = seq;
        f->payload = static_cast<uint32_t>(seg);
        f->bytes = 1500;
        f->ts_ps = tsval;
        f->dst = 0;
        r.on_frame(f, 0);
    };
    std::vector<uint64_t> echoes, acks;
    capture_acks cap(b, echoes, acks);
    data(0, 100);
    data(2 * seg, 200);   // beyond the hole at seg
    data(seg, 300);   // fills it
    b.ctx.run_until(1 * ms);
    ASSERT_EQ(echoes.size(), 3u);
    EXPECT_EQ(echoes[0], 100u);
    EXPECT_EQ(echoes[1], 100u);
    EXPECT_EQ(echoes[2], 300u);
    EXPECT_EQ(acks[2], 3 * seg);
}

TEST(Tcp, SackReceiverReportsTheNewestBlockFirst) {
    // RFC 2018 4: the first block holds the segment that triggered the ACK, then the most recently reported
    // ones, as many as fit: 4 blocks in 40 option bytes, 3 beside the timestamp option
    for (const bool ts : {false, true}) {
        bench b(1 * us);
        b.cfg.sack = true;
        b.cfg.timestamps = ts;
        tcp_receiver r(b.net.stack(0), 0, 1, b.cfg, b.rx_st);
        frame_pool& pool = b.net.pool();
        auto seg = [&](uint64_t k) {
            frame* f = pool.acquire();
            f->kind = frame_kind::tcp;
            f->seq = k * mss;
            f->payload = mss;
            f->bytes = 1500;
            r.on_frame(f, 0);
        };
        std::vector<uint64_t> echoes, acks;
        std::vector<std::vector<std::pair<uint64_t, uint64_t>>> sacks;
        capture_acks cap(b, echoes, acks, &sacks);
        for (uint64_t k : {0, 2, 4, 6, 8, 10, 3, 1})
            seg(k);
        b.ctx.run_until(1 * ms);
        ASSERT_EQ(sacks.size(), 8u);
        using blocks = std::vector<std::pair<uint64_t, uint64_t>>;
        auto B = [](std::initializer_list<std::pair<uint64_t, uint64_t>> l) {
            blocks v;
            for (auto [x, y] : l)
                v.push_back({x * mss, y * mss});
            return v;
        };
        EXPECT_EQ(sacks[0], B({}));
        EXPECT_EQ(sacks[1], B({{2, 3}}));
        EXPECT_EQ(sacks[2], B({{4, 5}, {2, 3}}));
        EXPECT_EQ(sacks[3], B({{6, 7}, {4, 5}, {2, 3}}));
        if (!ts) {
            EXPECT_EQ(sacks[4], B({{8, 9}, {6, 7}, {4, 5}, {2, 3}}));
            EXPECT_EQ(sacks[5], B({{10, 11}, {8, 9}, {6, 7}, {4, 5}}));
            EXPECT_EQ(sacks[6], B({{2, 5}, {10, 11}, {8, 9}, {6, 7}}));   // 3 joins 2 and 4
            EXPECT_EQ(cap.bytes[5], 40u + 4 + 4 * 8);
        } else {
            EXPECT_EQ(sacks[4], B({{8, 9}, {6, 7}, {4, 5}}));
            EXPECT_EQ(sacks[6], B({{2, 5}, {10, 11}, {8, 9}}));
            EXPECT_EQ(cap.bytes[5], 40u + 12 + 4 + 3 * 8);   // 40 option bytes in all
        }
        EXPECT_EQ(acks[7], 5 * mss);   // 1 fills the first hole: 0..4 in order
        EXPECT_EQ(sacks[7], ts ? B({{10, 11}, {8, 9}, {6, 7}}) : B({{10, 11}, {8, 9}, {6, 7}}));
    }
}

TEST(Tcp, SackRecoveryFollowsTheScoreboardPipeAndNextSeg) {
    // RFC 6675 by hand. cwnd 10, segments 0..9 out; 0 is acknowledged (cwnd 11, 10 and 11 go). 1 and 4 are lost.
    bench b(1 * us);
    b.cfg.init_cwnd = 10;
    b.cfg.sack = true;
    tcp_sender s(b.net.stack(1), 0, 0, b.cfg, b.st, rng(1, 0));
    frame_pool& pool = b.net.pool();
    auto ack = [&](uint64_t a, std::initializer_list<std::pair<uint64_t, uint64_t>> blocks) {
        frame* f = ack_frame(pool, a * mss);
        int n = 0;
        for (auto [x, y] : blocks) {
            f->sack[n].begin = static_cast<uint32_t>((x - a) * mss);
            f->sack[n].end = static_cast<uint32_t>((y - a) * mss);
            ++n;
        }
        f->sack_blocks = static_cast<uint8_t>(n);
        s.on_frame(f, 0);
    };
    s.write(40 * mss);
    ack(1, {});
    ASSERT_EQ(s.high_tx(), 12 * mss);
    // 2 arrives: a duplicate with new SACK data; 1 SACKed segment is not a loss (IsLost needs > 2 SMSS above);
    // limited transmit by pipe (step 3): pipe = 11 unSACKed-not-lost segments - 1 = 10 < cwnd 11: segment 12
    ack(1, {{2, 3}});
    EXPECT_EQ(s.high_tx(), 13 * mss);
    ack(1, {{2, 4}});   // 2 SACKed segments, still no loss; segment 13 by limited transmit
    EXPECT_EQ(s.high_tx(), 14 * mss);
    EXPECT_EQ(b.st.limited_transmits, 2u);
    EXPECT_FALSE(s.in_fast_recovery());
    // 5 arrives: the 3rd duplicate: recovery; ssthresh = cwnd = 11/2 SMSS = 8030; retransmit 1 (up to the SACKed
    // 2); pipe = [2, 14) unSACKed and not lost (12 - 3 SACKed = 9) + 1 retransmitted = 10 SMSS > cwnd: no more
    ack(1, {{5, 6}, {2, 4}});
    ASSERT_TRUE(s.in_fast_recovery());
    EXPECT_EQ(s.ssthresh(), 8030u);
    EXPECT_EQ(s.cwnd(), 8030u);
    EXPECT_EQ(b.st.retransmitted_segments, 1u);
    EXPECT_EQ(s.pipe(), 10 * mss);
    EXPECT_EQ(s.recover(), 14 * mss);
    ack(1, {{5, 7}, {2, 4}});   // 2 SACKed above 4: 4 not lost yet; pipe 9 SMSS
    EXPECT_EQ(s.pipe(), 9 * mss);
    ack(1, {{5, 8}, {2, 4}});   // 3 SACKed above 4: 4 is lost, leaves the pipe: 6 + 1 = 7 SMSS
    EXPECT_EQ(s.pipe(), 7 * mss);
    ack(1, {{5, 9}, {2, 4}});   // 6 SMSS
    ack(1, {{5, 10}, {2, 4}});   // 5 SMSS = 7300: cwnd - pipe = 730 < 1 SMSS
    EXPECT_EQ(b.st.retransmitted_segments, 1u);
    // 4 SMSS in the pipe: NextSeg rule 1 finds 4 (lost, above HighRxt 2, below the highest SACKed byte)
    ack(1, {{5, 11}, {2, 4}});
    EXPECT_EQ(b.st.retransmitted_segments, 2u);
    EXPECT_EQ(s.pipe(), 5 * mss);
    // the retransmitted 1 arrives: cumulative ACK to 4 (2, 3 were SACKed), partial; then 4 arrives: 4..11 and
    // 12, 13 out: ACK 14 covers recover, the recovery ends with cwnd = ssthresh, nothing was lost for good
    ack(4, {{5, 11}});
    EXPECT_TRUE(s.in_fast_recovery());
    ack(14, {});
    EXPECT_FALSE(s.in_fast_recovery());
    EXPECT_EQ(s.cwnd(), 8030u);
    EXPECT_EQ(b.st.timeouts, 0u);
    EXPECT_EQ(b.st.fast_retransmits, 1u);
    b.ctx.run_until(1 * ms);
}

TEST(Tcp, DctcpAlphaAfterAKnownMarkingPattern) {
    bench b(1 * us);
    b.cfg.transport = "dctcp";
    b.cfg.init_cwnd = 10;
    tcp_sender s(b.net.stack(1), 0, 0, b.cfg, b.st, rng(1, 0));
    frame_pool& pool = b.net.pool();
    s.write(100 * mss);
    EXPECT_DOUBLE_EQ(dynamic_cast<const dctcp&>(s.congestion_control()).alpha(), 1.0);   // alpha starts at 1 (RFC 8257)
    // 1st ACK closes the (empty) first window: M = 0 -> alpha = 15/16
    s.on_frame(ack_frame(pool, mss), 0);
    EXPECT_DOUBLE_EQ(dynamic_cast<const dctcp&>(s.congestion_control()).alpha(), 15.0 / 16);
    // the next window ends with the first ACK beyond 10 segments: 10 ACKs of 1 segment, 4 with ECE: M = 0.4
    for (uint64_t k = 2; k <= 11; ++k)
        s.on_frame(ack_frame(pool, k * mss, k <= 5), 0);
    EXPECT_DOUBLE_EQ(dynamic_cast<const dctcp&>(s.congestion_control()).alpha(), (15.0 / 16) * (15.0 / 16) + 0.4 / 16);
    EXPECT_EQ(b.st.ecn_reductions, 1u);   // one reduction per window
    b.ctx.run_until(1 * ms);
}

TEST(Tcp, LinuxDctcpReducesInCwrByProportionalRateReduction) {
    // ecn_reduction = cwr (Linux tcp_enter_cwr with dctcp_ssthresh, then tcp_cwnd_reduction per ACK). IW 10, an
    // ACK per segment, no receiver: we play the ACKs.
    bench b(1 * us);
    b.cfg.transport = "dctcp";
    b.cfg.init_cwnd = 10;
    b.cfg.ecn_reduction = tcp_config::ecn_reduction_t::cwr;
    tcp_sender s(b.net.stack(1), 0, 0, b.cfg, b.st, rng(1, 0));
    frame_pool& pool = b.net.pool();
    const auto alpha = [&] { return dynamic_cast<const dctcp&>(s.congestion_control()).alpha(); };
    s.write(100 * mss);
    ASSERT_EQ(s.high_tx(), 10 * mss);
    // ACK 1: closes the empty first window (alpha 1 -> 15/16), slow start to 11 segments; 2 new segments go out
    s.on_frame(ack_frame(pool, mss), 0);
    EXPECT_DOUBLE_EQ(alpha(), 15.0 / 16);
    EXPECT_EQ(s.cwnd(), 11 * mss);
    EXPECT_EQ(s.high_tx(), 12 * mss);
    // ACK 2 with ECE: CWR from prior cwnd 11 segments (16,060 B) to ssthresh floor(16,060 (1 - 15/32)) = 8,531,
    // until an ACK passes 12 segments (the highest byte sent). PRR: pipe 10 segments > ssthresh, the first
    // segment goes at once: cwnd = pipe + 1 SMSS = 16,060 (and one segment is sent: 13 out)
    s.on_frame(ack_frame(pool, 2 * mss, true), 0);
    EXPECT_TRUE(s.in_cwr());
    EXPECT_EQ(s.ssthresh(), 8531u);
    EXPECT_EQ(s.cwnd(), 16060u);
    EXPECT_EQ(s.high_tx(), 13 * mss);
    // ACKs 3-5 (ECE on all; no second reduction): cwnd = pipe + ceil(8,531 x delivered / 16,060) - sent since
    //   ACK 3: pipe 10 segments, delivered 2,920: 14,600 + 1,552 - 1,460 = 14,692
    //   ACK 4: pipe 9, delivered 4,380: 13,140 + 2,327 - 1,460 = 14,007
    //   ACK 5: pipe 8, delivered 5,840: 11,680 + 3,103 - 1,460 = 13,323 (and a segment goes: 14 out)
    const uint64_t expected[] = {14692, 14007, 13323};
    for (uint64_t k = 3; k <= 5; ++k) {
        s.on_frame(ack_frame(pool, k * mss, true), 0);
        EXPECT_EQ(s.cwnd(), expected[k - 3]) << "ACK " << k;
    }
    EXPECT_EQ(s.high_tx(), 14 * mss);
    // ACKs 6-12 (ECE): the window never grows and ssthresh stays; ACK 11 closes alpha's window (ACKs 2-11, all
    // marked): alpha = (15/16)^2 + 1/16
    uint64_t last = s.cwnd();
    for (uint64_t k = 6; k <= 12; ++k) {
        s.on_frame(ack_frame(pool, k * mss, true), 0);
        EXPECT_LE(s.cwnd(), last) << "ACK " << k;
        EXPECT_TRUE(s.in_cwr());
        EXPECT_EQ(s.ssthresh(), 8531u);
        last = s.cwnd();
    }
    EXPECT_DOUBLE_EQ(alpha(), (15.0 / 16) * (15.0 / 16) + 1.0 / 16);
    EXPECT_EQ(b.st.ecn_reductions, 1u);
    // ACK 13 passes 12 segments: CWR ends with cwnd = ssthresh, and the same ACK grows it (congestion avoidance,
    // SMSS^2 / cwnd: 8,531 + floor(2,131,600 / 8,531) = 8,531 + 249)
    s.on_frame(ack_frame(pool, 13 * mss), 0);
    EXPECT_FALSE(s.in_cwr());
    EXPECT_EQ(s.cwnd(), 8531u + 249u);
    // the next ECE begins a new reduction from the window of then, with the alpha of then
    const double a = alpha();
    s.on_frame(ack_frame(pool, 14 * mss, true), 0);
    EXPECT_TRUE(s.in_cwr());
    EXPECT_EQ(b.st.ecn_reductions, 2u);
    EXPECT_EQ(s.ssthresh(), static_cast<uint64_t>(8780.0 * (1 - a / 2)));
    b.ctx.run_until(1 * ms);
}

TEST(Tcp, DctcpReceiverAcksAtOnceWhenTheCeStateChanges) {
    // Delayed ACKs (no quick ACKs): a first unmarked segment waits; a marked one changes the CE state, so the first
    // is ACKed at once without ECE and the marked one at once with ECE (RFC 8257 3.2, Linux ICSK_ACK_NOW); the next
    // marked one waits again, and an unmarked one after it changes the state back.
    bench b(1 * us);
    b.cfg.transport = "dctcp";
    b.cfg.delayed_ack = true;
    b.cfg.quickacks = 0;
    tcp_receiver r(b.net.stack(0), 0, 1, b.cfg, b.rx_st);
    frame_pool& pool = b.net.pool();
    auto data = [&](uint64_t seq, bool ce) {
        frame* f = pool.acquire();
        f->kind = frame_kind::tcp;
        f->seq = seq;
        f->payload = mss;
        f->bytes = mss + 40;
        f->ecn = ce ? ecn_ce : ecn_ect0;
        r.on_frame(f, 0);
    };
    data(0, false);
    EXPECT_EQ(b.rx_st.acks_sent, 0u);
    data(mss, true);
    EXPECT_EQ(b.rx_st.acks_sent, 2u);
    data(2 * mss, true);
    EXPECT_EQ(b.rx_st.acks_sent, 2u);
    data(3 * mss, false);
    EXPECT_EQ(b.rx_st.acks_sent, 4u);
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
    data(mss);   // fills the hole: everything up to 4 segments is in order
    EXPECT_EQ(r.rcv_nxt(), 4 * mss);
    data(mss);   // old duplicate
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
