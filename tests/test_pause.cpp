// SPDX-License-Identifier: Apache-2.0
// 802.3x PAUSE and 802.1Qbb PFC against hand-computed numbers, and a randomized lossless check.
#include "config/errors.h"
#include "model/cm/ecn/ecn_marking.h"
#include "model/cm/pause/pause_config.h"
#include "model/cm/pause/pause_generator.h"
#include "model/ethernet_link.h"
#include "model/event_domain.h"
#include "model/nic/host_nic.h"
#include "model/switch/ethernet_switch.h"
#include "platform/network.h"
#include "platform/scenario.h"
#include "testing.h"
#include "traffic/udp_sink.h"
#include "traffic/udp_source.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

using namespace cmswitch;
using namespace cmswitch::testing;

namespace {
constexpr uint64_t us = 1000000ull;
constexpr uint64_t gbps = 1000000000ull;

frame* pause_frame(frame_pool& pool, uint8_t classes, uint32_t quanta) {
    frame* f = pool.acquire();
    f->kind = frame_kind::pause;
    f->bytes = 64;
    f->prio = 7;
    f->ctl.pause = pause_fields{classes, static_cast<uint16_t>(quanta)};
    return f;
}

// A NIC sending into a capture; the injector plays the peer that sends PAUSE frames back.
struct nic_bench : nic_on_a_link {
    injector& peer = inj;
    explicit nic_bench(uint64_t rate) : nic_on_a_link(1 << 20, 0, rate) { nic.set_link_rate(rate); }
    void send_data(int n) {
        for (int i = 0; i < n; ++i)
            nic.send(make_frame(pool, 1500, 1, 0, static_cast<uint64_t>(i)));
    }
};

// One switch of two 1 Gb/s ports without delay (two_port_wiring): in0 sends into port 0 (back0, the wiring's out0,
// sees what port 0 sends back: PAUSE), port 1 leads to out1 (host 1).
struct two_port_switch {
    sim_context ctx;
    frame_pool pool;
    event_domain events{"events", true};
    ethernet_switch sw;
    two_port_wiring w;
    capture& back0 = w.out0;
    capture& out1 = w.out1;
    injector& in1 = w.in1;
    explicit two_port_switch(const buffer_config& bc) : sw("sw", 2, 2, bc, pool, events), w(sw, pool) {
        sw.set_route(1, 1);
        sw.set_port_rate(0, 1 * gbps);
        sw.set_port_rate(1, 1 * gbps);
    }
    const pause_generator* add_pause(const pause_config& pc) {
        return sw.add_hook(std::make_unique<pause_generator>(pc, std::vector<uint64_t>{1 * gbps, 1 * gbps},
                                                             std::vector<uint64_t>{0, 0}));
    }
    // n frames of 1500 B into port 0 at once (they arrive at 12 us)
    void burst(uint64_t n, uint8_t prio = 0) {
        for (uint64_t i = 0; i < n; ++i)
            w.inject(0, make_frame(pool, 1500, 1, prio, i));
    }
};
}   // namespace

TEST(Pause, QuantaToTimeAt1And10Gbps) {
    // one quantum is 512 bit times: 512 ns at 1 Gb/s, 51.2 ns at 10 Gb/s. A PAUSE of 100 quanta arriving at
    // 5 us (its last bit: 64 B = 512 ns after it was sent at 4.488 us) stops the NIC after the frame on the
    // wire (0-12 us at 1 Gb/s) until 5 us + 51.2 us = 56.2 us.
    {
        nic_bench b(1 * gbps);
        b.send_data(3);
        b.peer.send(pause_frame(b.pool, 0xff, 100), 4488000);
        b.ctx.run_until(1000 * us);
        ASSERT_EQ(b.cap.frames.size(), 3u);
        EXPECT_EQ(b.cap.frames[0].arrival_ps, 12 * us);   // finished although paused meanwhile
        EXPECT_EQ(b.cap.frames[1].arrival_ps, 56200000ull + 12 * us);   // starts at the pause's end
        EXPECT_EQ(b.cap.frames[2].arrival_ps, 56200000ull + 24 * us);
        EXPECT_EQ(b.nic.egress().paused_ps(1000 * us), 56200000ull - 5 * us);
    }
    {
        nic_bench b(10 * gbps);
        b.send_data(3);   // 1.2 us each
        b.peer.send(pause_frame(b.pool, 0xff, 100), 448800);   // last bit at 0.5 us
        b.ctx.run_until(1000 * us);
        ASSERT_EQ(b.cap.frames.size(), 3u);
        EXPECT_EQ(b.cap.frames[0].arrival_ps, 1200000ull);
        EXPECT_EQ(b.cap.frames[1].arrival_ps, 500000ull + 5120000ull + 1200000ull);   // 0.5 + 5.12 us
    }
}

TEST(Pause, XonResumesBeforeTheTimerAndPfcPausesOnlyItsClass) {
    {   // one simulation context at a time: this bench goes before the next
        nic_bench b(1 * gbps);
        b.send_data(2);
        b.peer.send(pause_frame(b.pool, 0xff, 65535), 4488000);   // paused at 5 us for 33.5 ms...
        b.peer.send(pause_frame(b.pool, 0xff, 0), 29488000);   // ...until the XON at 30 us
        b.ctx.run_until(1000 * us);
        ASSERT_EQ(b.cap.frames.size(), 2u);
        EXPECT_EQ(b.cap.frames[1].arrival_ps, 30 * us + 12 * us);
    }
    // PFC for priority 3 only: a priority-3 frame waits, a priority-5 frame behind it goes
    nic_bench c(1 * gbps);
    c.peer.send(pause_frame(c.pool, 1u << 3, 1000), 0);   // arrives at 0.512 us: 512 us of pause
    c.ctx.run_until(1 * us);
    c.nic.send(make_frame(c.pool, 1500, 1, 3, 1));
    c.nic.send(make_frame(c.pool, 1500, 1, 5, 2));
    c.ctx.run_until(2000 * us);
    ASSERT_EQ(c.cap.frames.size(), 2u);
    EXPECT_EQ(c.cap.frames[0].copy.seq, 2u);
    EXPECT_EQ(c.cap.frames[0].arrival_ps, 13 * us);
    EXPECT_EQ(c.cap.frames[1].arrival_ps, 512512000ull + 12 * us);
}

TEST(Pause, XoffAndXonHysteresisOnAByteSequence) {
    // XOFF 15000 B, XON 6000 B. 12 frames of 1500 B arrive at once at an idle 1 Gb/s egress: the 1st starts at
    // once (released), the next 10 charge 15000 B -> XOFF with the 11th; the 12th makes 16500. Each 12 us one
    // frame leaves: 16500 - 1500 k <= 6000 first at k = 7 -> XON at the 7th departure after the first.
    buffer_config bc;
    bc.port_limit_bytes = 1 << 20;
    two_port_switch t(bc);
    pause_config pc;
    pc.mode = "pause";
    pc.xoff_bytes = 15000;
    pc.xon_bytes = 6000;
    pc.pause_quanta = 65535;
    const auto* gen = t.add_pause(pc);
    t.burst(12);   // all arrive at 12 us
    t.ctx.run_until(150 * us);
    auto& sw = t.sw;
    auto& back0 = t.back0;
    auto& out1 = t.out1;
    EXPECT_EQ(sw.counters(0).pause_sent, 1u);
    EXPECT_EQ(sw.counters(0).xon_sent, 1u);
    ASSERT_EQ(back0.frames.size(), 2u);
    EXPECT_EQ(back0.frames[0].copy.kind, frame_kind::pause);
    EXPECT_EQ(back0.frames[0].copy.ctl.pause.quanta, 65535u);
    EXPECT_EQ(back0.frames[0].arrival_ps, 12 * us + 512000);   // XOFF sent at 12 us, 64 B = 512 ns
    EXPECT_EQ(back0.frames[1].copy.ctl.pause.quanta, 0u);   // XON
    EXPECT_EQ(back0.frames[1].arrival_ps, 12 * us + 7 * 12 * us + 512000);
    EXPECT_EQ(out1.frames.size(), 12u);
    EXPECT_EQ(gen->ingress_units(0, 0), 0u);
}

TEST(Pause, PfcHeadroomCheckRefusesTooLittleSpaceAboveXoff) {
    // 10 Gb/s, 1 us cable: 2 x 10e9 x 1e-6 / 8 = 2500 B on the wire both ways + 2 x 1500 B frames
    // + 67 quanta x 64 B = 4288 B response -> 9788 B of headroom
    EXPECT_EQ(pause_headroom_bytes(10 * gbps, 1 * us, 1500), 9788u);
    EXPECT_EQ(pause_response_quanta(1 * gbps), 2u);
    EXPECT_EQ(pause_response_quanta(25 * gbps), 80u);
    sim_context ctx;
    frame_pool pool;
    event_domain events("events", true);
    ethernet_switch sw("sw", 2, 2, buffer_config{}, pool, events);
    pause_config pc;
    pc.mode = "pfc";
    pc.xoff_bytes = 20000;
    pc.xon_bytes = 10000;
    pc.ingress_limit_bytes = 29000;   // 9000 B above XOFF: short of 9788
    auto add = [&] {
        sw.add_hook(std::make_unique<pause_generator>(pc, std::vector<uint64_t>{10 * gbps, 10 * gbps},
                                                      std::vector<uint64_t>{1 * us, 1 * us}));
    };
    try {
        add();
        ADD_FAILURE() << "accepted";
    } catch (const config_error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("9000 B above XOFF 20000 B"), std::string::npos) << m;
        EXPECT_NE(m.find("needs 9788 B"), std::string::npos) << m;
    }
    pc.ingress_limit_bytes = 29788;
    EXPECT_NO_THROW(add());
    pc.xon_bytes = 19000;   // XOFF - XON below one MTU
    EXPECT_THROW(add(), config_error);
}

TEST(Pause, RandomizedOverloadThroughTwoSwitchStagesIsLossless) {
    // Many seeds: 6 hosts on each of 2 switches, random UDP sources (rate, frame size, Poisson or CBR) to
    // random hosts, far more offered than the 10 Gb/s trunk and host links carry. With PAUSE (or PFC) and the
    // headroom check passing no switch drops a frame; conservation holds (NICs hold what is paused).
    for (uint64_t seed = 1; seed <= 16; ++seed) {
        for (const char* mode : {"pause", "pfc"}) {
            sim_context ctx;
            buffer_config bc;
            bc.port_limit_bytes = 64ull << 20;   // "no output queue limit"
            topology t = chain_topology(2, 6, 10 * gbps, 10 * gbps, 2 * us, bc);
            t.nic_queue_bytes = 1ull << 30;
            network net(t);
            pause_config pc;
            pc.mode = mode;
            pc.xoff_bytes = 130000;
            pc.xon_bytes = 110000;
            pc.mtu_bytes = max_frame_bytes;
            net.enable_pause(pc);
            rng r(seed, 77);
            std::vector<flow_stats> flows(12);
            std::vector<std::unique_ptr<udp_sink>> sinks;
            std::vector<std::unique_ptr<cbr_source>> cbr;
            std::vector<std::unique_ptr<transaction_source>> txn;
            for (int h = 0; h < 12; ++h) {
                flow_stats& f = flows[static_cast<size_t>(h)];
                f.flow = static_cast<uint32_t>(h);
                f.src = h;
                f.dst = static_cast<int>((static_cast<uint64_t>(h) + 1 + r.below(11)) % 12);
                sinks.emplace_back(new udp_sink(net.stack(f.dst), f));
                const uint64_t rate = (2 + r.below(9)) * gbps;   // 2..10 Gb/s each
                const uint32_t bytes = static_cast<uint32_t>(64 + r.below(max_frame_bytes - 64 + 1));
                const uint8_t prio = static_cast<uint8_t>(r.below(3));
                if (r.bernoulli(0.5)) {
                    cbr_params p;
                    p.rate_bps = rate;
                    p.frame_bytes = bytes;
                    p.prio = prio;
                    p.stop_ps = 3000 * us;
                    cbr.emplace_back(new cbr_source(net.stack(h), f, p));
                } else {
                    transaction_params p;
                    p.rate_bps = rate;
                    p.txn_bytes = 9000;
                    p.frame_bytes = bytes;
                    p.prio = prio;
                    p.stop_ps = 3000 * us;
                    txn.emplace_back(
                        new transaction_source(net.stack(h), {&f}, p, rng(seed, static_cast<uint64_t>(h))));
                }
            }
            ctx.run_until(4000 * us);
            uint64_t drops = 0, pauses = 0;
            for (int s = 0; s < 2; ++s)
                for (int p = 0; p < net.sw(s).num_ports(); ++p) {
                    for (uint64_t d : net.sw(s).counters(p).drop_frames)
                        drops += d;
                    pauses += net.sw(s).counters(p).pause_sent;
                }
            EXPECT_EQ(drops, 0u) << "seed " << seed << " " << mode;
            EXPECT_GT(pauses, 0u) << "seed " << seed << " " << mode;   // the overload did reach XOFF
            EXPECT_NO_THROW(net.check_conservation()) << "seed " << seed;
        }
    }
}

TEST(Pause, DynamicXoffFromAlphaAndTheSharedHeadroomPool) {
    // Shared buffer S = 100,000 B, PAUSE with dynamic XOFF alpha = 1 and a 6000 B shared headroom pool. 40 frames
    // of 1500 B arrive at once at an idle 1 Gb/s egress: the 1st leaves at once; the k-th charged frame makes the
    // ingress class k x 1500 B while the shared pool holds the same, so XOFF when 1500 k >= 1 x (100000 - 1500 k):
    // k = 34 (33 gives 49,500 < 50,500). The next 5 go to the headroom pool: 4 fit (6000 B), the 5th is dropped.
    // XON when the class falls 2 MTU under alpha x the free shared bytes (headroom not counted, departures drain
    // the headroom first): after j departures b = 57000 - 1500 j, h = max(0, 6000 - 1500 j); b <= 100000 - (b - h)
    // - 3000 first at j = 6.
    buffer_config bc;
    bc.policy = "shared";
    bc.pool_bytes = 100000;
    bc.alpha = 1;
    two_port_switch t(bc);
    t.sw.buffer().set_lossless(0x7f, 6000);
    pause_config pc;
    pc.mode = "pause";
    pc.xoff_alpha = 1;
    pc.headroom_pool_bytes = 6000;
    const auto* gen = t.add_pause(pc);
    t.burst(40);   // all arrive at 12 us
    auto& ctx = t.ctx;
    auto& sw = t.sw;
    auto& back0 = t.back0;
    auto& out1 = t.out1;
    ctx.run_until(13 * us);
    EXPECT_EQ(gen->ingress_units(0, 0), 38u * 1500);
    EXPECT_EQ(gen->headroom_used(), 6000u);
    EXPECT_EQ(sw.counters(0).drop_frames[static_cast<size_t>(drop_reason::ingress_limit)], 1u);
    ctx.run_until(1000 * us);
    EXPECT_EQ(gen->headroom_peak(), 6000u);
    ASSERT_EQ(back0.frames.size(), 2u);
    EXPECT_EQ(back0.frames[0].copy.ctl.pause.quanta, 65535u);
    EXPECT_EQ(back0.frames[0].arrival_ps, 12 * us + 512000);
    EXPECT_EQ(back0.frames[1].copy.ctl.pause.quanta, 0u);   // XON after the 6th departure
    EXPECT_EQ(back0.frames[1].arrival_ps, 12 * us + 6 * 12 * us + 512000);
    EXPECT_EQ(out1.frames.size(), 39u);
    EXPECT_EQ(gen->headroom_used(), 0u);
    EXPECT_EQ(sw.buffer().used(), 0u);
}

TEST(Pause, RefreshedPauseKeepsOneExpiryPending) {
    // A peer refreshing XOFF every microsecond (quanta 1000 = 512 us at 1 Gb/s) must not leave one expiry event
    // per PAUSE behind: each would re-arm at every later expiry, and short quanta then multiply the events
    // without bound (`baseline --pause-quanta 1` once ran for minutes). One pending expiry, and the pause
    // still ends 512 us after the last refresh.
    nic_bench b(1 * gbps);
    b.send_data(2);
    for (int i = 0; i < 200; ++i)
        b.peer.send(pause_frame(b.pool, 0xff, 1000), 4488000 + static_cast<uint64_t>(i) * us);
    b.ctx.run_until(300 * us);
    size_t expiries = 0;
    for (const timed_entry& e : b.events.pending())
        expiries += e.kind == 3;   // host_nic's ev_pause_expiry (the only handler here)
    EXPECT_EQ(expiries, 1u);
    b.ctx.run_until(2000 * us);
    ASSERT_EQ(b.cap.frames.size(), 2u);
    // the last PAUSE arrives at 4.488 + 199 + 0.512 = 204 us and holds the NIC for 512 us
    EXPECT_EQ(b.cap.frames[1].arrival_ps, 204 * us + 512 * us + 12 * us);
}

TEST(Pause, EpisodesPerClassWithTheirDurations) {
    // class 3 paused from 5 us for 1000 quanta (512 us at 1 Gb/s) but released by an XON at 30 us: 25 us; class
    // 5 paused at 5 us for 100 quanta: 51.2 us; class 3 again from 600 us, still paused at the end (1000 us)
    nic_bench b(1 * gbps);
    b.peer.send(pause_frame(b.pool, 1u << 3 | 1u << 5, 100), 4488000);   // both classes, 100 quanta...
    b.peer.send(pause_frame(b.pool, 1u << 3, 1000), 4488000);   // ...then class 3 for 1000 at 5 us
    b.peer.send(pause_frame(b.pool, 1u << 3, 0), 29488000);   // XON for class 3 at 30 us
    b.peer.send(pause_frame(b.pool, 1u << 3, 65535), 599488000);   // class 3 again at 600 us
    b.ctx.run_until(1000 * us);
    const egress_port& e = b.nic.egress();
    ASSERT_EQ(e.pause_episodes_ps(3).size(), 1u);
    EXPECT_EQ(e.pause_episodes_ps(3)[0], 25 * us);   // from the first PAUSE (5 us; the refresh at 5.512 us extends
        // the same episode) to the XON at 30 us
    ASSERT_EQ(e.pause_episodes_ps(5).size(), 1u);
    EXPECT_EQ(e.pause_episodes_ps(5)[0], 51200000ull);
    EXPECT_TRUE(e.paused(3));
    EXPECT_EQ(e.pause_episode_start_ps(3), 600 * us);
    EXPECT_TRUE(e.pause_episodes_ps(0).empty());
}

TEST(Pause, IngressReservePerGroupAlphaAndThePfcFrameOfAGroup) {
    // The switch description's ingress side: every data priority in priority group 0 (pg_map), PFC with a
    // 15,000 B ingress reserve per (port, group) and dynamic XOFF alpha 0.5 for group 0 (alpha_by_pg), a 6000 B
    // shared headroom pool, on a shared buffer of S = 100,000 B. The reserves of the 2 ports x 1 lossless group
    // are carved out of the pool: S' = 70,000 B. After the first frame (it leaves at once) the k-th charged frame
    // makes the group b = 1500 k, of which R = 15,000 sit in the reserve; XOFF when b >= R + 0.5 (S' - (b - R)),
    // i.e. b - R >= 23,333: k = 26 (25 gives 22,500 above the reserve). The next 4 go to the headroom pool and the
    // 5th is dropped. The PFC frame names every priority of the group (0-6). XON 2 MTU under the threshold,
    // departures draining the headroom first: after j departures b = 45,000 - 1500 j, h = max(0, 6000 - 1500 j),
    // XON when b <= R + 0.5 (S' - (b - h - R)) - 3000: j = 6 (36,000 <= 36,500; j = 5: 37,500 > 35,750).
    buffer_config bc;
    bc.policy = "shared";
    bc.pool_bytes = 100000;
    bc.alpha = 1;
    bc.pg_map = {{0, 0, 0, 0, 0, 0, 0, 7}};
    two_port_switch t(bc);
    t.sw.buffer().set_lossless(0x7f, 6000, 2 * 15000);
    pause_config pc;
    pc.mode = "pfc";
    pc.xoff_alpha_by_pg = {0.5, 1, 1, 1, 1, 1, 1, 1};
    pc.reserved_bytes = 15000;
    pc.headroom_pool_bytes = 6000;
    const auto* gen = t.add_pause(pc);
    t.burst(32, 4);   // priority 4, in group 0
    t.ctx.run_until(13 * us);
    EXPECT_EQ(gen->ingress_units(0, 0), 30u * 1500);
    EXPECT_EQ(gen->headroom_used(), 6000u);
    EXPECT_EQ(gen->reserved_used(), 15000u);
    EXPECT_EQ(t.sw.counters(0).drop_frames[static_cast<size_t>(drop_reason::ingress_limit)], 1u);
    // where the bytes sit: 45,000 queued = 15,000 in the ingress reserve + 6000 headroom + 24,000 shared
    EXPECT_EQ(t.sw.buffer().used(), 45000u);
    EXPECT_EQ(t.sw.buffer().ingress_reserved_used(), 15000u);
    EXPECT_EQ(t.sw.buffer().shared_pool_used() - gen->headroom_used(), 24000u);
    EXPECT_EQ(t.sw.buffer().shared_pool_size(), 70000u);
    t.ctx.run_until(1000 * us);
    ASSERT_EQ(t.back0.frames.size(), 2u);
    EXPECT_EQ(t.back0.frames[0].copy.ctl.pause.class_enable, 0x7f);
    EXPECT_EQ(t.back0.frames[0].copy.ctl.pause.quanta, 65535u);
    EXPECT_EQ(t.back0.frames[1].copy.ctl.pause.quanta, 0u);
    EXPECT_EQ(t.back0.frames[1].arrival_ps, 12 * us + 6 * 12 * us + 512000);
    EXPECT_EQ(t.out1.frames.size(), 31u);
    EXPECT_EQ(gen->reserved_used(), 0u);
    EXPECT_EQ(t.sw.buffer().ingress_reserved_used(), 0u);
    EXPECT_EQ(t.sw.buffer().used(), 0u);
}

TEST(Pause, APriorityGroupIsAllLosslessOrNot) {
    buffer_config bc;
    bc.policy = "shared";
    bc.pool_bytes = 100000;
    bc.pg_map = {{0, 0, 2, 3, 4, 5, 6, 7}};   // priorities 0 and 1 share group 0...
    two_port_switch t(bc);
    pause_config pc;
    pc.mode = "pfc";
    pc.pfc_classes = 0x02;   // ...but only 1 is lossless
    pc.xoff_bytes = 30000;
    pc.xon_bytes = 27000;
    EXPECT_THROW(t.add_pause(pc), config_error);
}

TEST(SwitchDescription, QueueMapAndDwrrWeightsDecideTheDepartureOrder) {
    // 40 frames of priority 2 then 40 of priority 5 arrive at once for port 1 (1 Gb/s). The first leaves at once.
    // (a) identity map, strict priority: the 40 of priority 5 next, then the other 39;
    // (b) priorities 2 and 5 in one queue (queue_map): one FIFO, arrival order;
    // (c) priority 2 -> queue 1, priority 5 -> queue 2, DWRR weights 1 and 3 (quanta 1500 and 4500 B): after the
    //     first, rounds of 3 frames of queue 2 and 1 of queue 1: of departures 2-41, 30 of priority 5 and 10 of 2.
    auto order = [](buffer_config bc) {
        two_port_switch t(bc);
        t.burst(40, 2);
        t.burst(40, 5);
        t.ctx.run_until(2000 * us);
        std::vector<int> prio;
        for (const auto& c : t.out1.frames)
            prio.push_back(c.copy.prio);
        return prio;
    };
    buffer_config bc;
    bc.policy = "static";
    bc.port_limit_bytes = 1 << 20;
    const auto strict = order(bc);
    ASSERT_EQ(strict.size(), 80u);
    EXPECT_EQ(strict[0], 2);
    EXPECT_EQ(std::count(strict.begin() + 1, strict.begin() + 41, 5), 40);

    buffer_config one = bc;
    one.queue_map = {{0, 1, 3, 3, 4, 3, 6, 7}};
    const auto fifo = order(one);
    ASSERT_EQ(fifo.size(), 80u);
    EXPECT_EQ(std::count(fifo.begin(), fifo.begin() + 40, 2), 40);

    param_table tbl;
    buffer_settings s;
    declare_buffer(tbl, s);
    tbl.parse_args({"--buffer-policy", "static", "--buffer-kb", "1024", "--queue-map", "0,0,1,1,2,2,3,7", "--scheduler",
                    "dwrr", "--dwrr-weights", "0,1,3,0,0,0,0,0"});
    const buffer_config dwrr = make_buffer_config(s);
    EXPECT_EQ(dwrr.dwrr_queues, 0x06);
    EXPECT_EQ(dwrr.dwrr_quantum[1], 1500u);
    EXPECT_EQ(dwrr.dwrr_quantum[2], 4500u);
    const auto shares = order(dwrr);
    ASSERT_EQ(shares.size(), 80u);
    EXPECT_EQ(std::count(shares.begin() + 1, shares.begin() + 41, 5), 30);
    EXPECT_EQ(std::count(shares.begin() + 1, shares.begin() + 41, 2), 10);
    EXPECT_EQ((std::vector<int>(shares.begin() + 1, shares.begin() + 9)), (std::vector<int>{5, 5, 5, 2, 5, 5, 5, 2}));
}

TEST(SwitchDescription, APauseOfAPriorityStopsTheQueueItMapsTo) {
    // priorities 1 and 2 share queue 1: a PFC pause of priority 2 stops priority 1's frames too (they wait in the
    // same queue), while priority 3 (its own queue) goes on
    buffer_config bc;
    bc.policy = "static";
    bc.port_limit_bytes = 1 << 20;
    bc.queue_map = {{0, 1, 1, 3, 4, 5, 6, 7}};
    two_port_switch t(bc);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    t.in1.tx->b_transport(*pause_frame(t.pool, 1u << 2, 65535), d);   // arrives at port 1 at 0.512 us
    t.sw.set_route(1, 1);
    t.ctx.run_until(1 * us);
    t.burst(3, 1);
    t.burst(3, 3);
    t.ctx.run_until(100 * us);
    ASSERT_EQ(t.out1.frames.size(), 3u);
    for (const auto& c : t.out1.frames)
        EXPECT_EQ(c.copy.prio, 3);
    EXPECT_EQ(t.sw.egress(1).frames(), 3u);
}

TEST(SwitchDescription, BadMapsAndWeightsNameTheField) {
    auto refused = [](std::vector<std::string> args, const std::string& field) {
        param_table tbl;
        buffer_settings s;
        declare_buffer(tbl, s);
        try {
            tbl.parse_args(args);
            make_buffer_config(s);
        } catch (const config_error& e) {
            EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
            return;
        }
        ADD_FAILURE() << "accepted " << args[1];
    };
    refused({"--queue-map", "0,1,2,3,4,5,6"}, "queue_map");   // 7 entries
    refused({"--queue-map", "0,1,2,3,4,5,6,5"}, "queue_map");   // control priority moved
    refused({"--queue-map", "7,1,2,3,4,5,6,7"}, "queue_map[0]");   // a data priority in the control queue
    refused({"--pg-map", "0,1,2,3,4,5,7,7"}, "pg_map[6]");
    refused({"--queue-map", "0,1,2,3,4,5,6,x"}, "queue_map");
    refused({"--queue-map", "0,1.5,2,3,4,5,6,7"}, "queue_map");
    refused({"--dwrr-weights", "1,1,1,1,1,1,1,0"}, "dwrr_weights needs scheduler dwrr");
    refused({"--scheduler", "dwrr", "--dwrr-weights", "0.5,1,1,1,1,1,1,0"}, "dwrr_weights[0]");
    refused({"--scheduler", "dwrr", "--dwrr-weights", "1,1,1,1,1,1,1,1"}, "dwrr_weights[7]");
    refused({"--alpha-by-queue", "1,1,1,1,1,1,1,1"}, "alpha_by_queue needs buffer_policy shared");
    refused({"--buffer-policy", "shared", "--alpha-by-queue", "1,0,1,1,1,1,1,1"}, "alpha_by_queue[1]");
}

TEST(SwitchDescription, EcnMarksOnThePortOrOnTheFramesQueue) {
    // step marking at K = 30,000 B: a frame for queue 2 holding 1500 B of a port holding 45,000 B is marked on
    // the port's bytes (the default) and not on its queue's (ecn_per_queue: per-queue WRED as ASICs do)
    for (bool per_queue : {false, true}) {
        buffer_config bc;
        bc.policy = "static";
        bc.port_limit_bytes = 1 << 20;
        two_port_switch t(bc);
        marking_config mc;
        mc.policy = "step";
        mc.k_bytes = 30000;
        mc.per_queue = per_queue;
        auto* h = t.sw.add_hook(make_ecn_marking(mc, rng(1, 0)));
        frame f{};
        f.ecn = ecn_ect0;
        h->on_enqueue(queue_view{1, 2, 1500, 45000, 30}, f, 0);
        EXPECT_EQ(f.ecn, per_queue ? ecn_ect0 : ecn_ce) << per_queue;
        f.ecn = ecn_ect0;
        h->on_enqueue(queue_view{1, 2, 31500, 45000, 30}, f, 0);
        EXPECT_EQ(f.ecn, ecn_ce) << per_queue;
    }
}
