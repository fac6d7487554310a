// SPDX-License-Identifier: Apache-2.0
// The service-pool MMU ("pools"): dual admission, lossless headroom, slices, against hand calculations; the older
// policies as its special cases.
#include "config/errors.h"
#include "model/switch/service_pool_mmu.h"
#include "platform/scenario.h"
#include "testing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

using namespace cmswitch;
using namespace cmswitch::testing;

namespace {
// The switch's books alone, built from a description; in byte-exact units unless cell_bytes is set.
buffer_config pools(uint64_t buffer_bytes) {
    buffer_config c;
    c.policy = "pools";
    c.pool_bytes = buffer_bytes;
    c.mmu.egress_pool_bytes = {buffer_bytes};
    return c;
}

struct listener final : flow_control_listener {
    std::vector<std::pair<char, int>> events;   // ('x' or 'o', port)
    void on_xoff(int port, int, uint64_t) override { events.emplace_back('x', port); }
    void on_xon(int port, int, uint64_t) override { events.emplace_back('o', port); }
};

// Frames of `bytes` from in_port (priority prio) to (port, queue) until one is refused: how many, and why not.
std::pair<int, drop_reason> fill(buffer_manager& b, int in_port, int port, int queue, uint32_t bytes,
                                 uint8_t prio = 0) {
    int n = 0;
    for (;;) {
        const drop_reason r = admit_bytes(b, port, queue, bytes, in_port, prio);
        if (r != drop_reason::none)
            return {n, r};
        ++n;
    }
}
}   // namespace

TEST(ServicePools, ALossyFrameIsRefusedAtIngressWhileItsQueueHasRoom) {
    // Ingress pool of 300,000 B, priority group 0 with dynamic_th -1 (alpha 1/2): the group is admitted while its
    // shared units g < (300,000 - g) / 2, i.e. up to g < 100,000: 67 frames of 1500 B (100,500 B); the 68th is
    // refused at ingress. The egress queue (one pool of 1 MB, alpha 8) would take 8/9 of 1 MB.
    buffer_config c = pools(1000000);
    c.mmu.ingress_pool_bytes = {300000};
    c.mmu.pg_limit[0].dynamic_th = -1;
    c.mmu.queue_limit[0].dynamic_th = 3;
    service_pool_mmu m(c, 4);
    const auto [n, why] = fill(m, 0, 3, 0, 1500);
    EXPECT_EQ(n, 67);
    EXPECT_EQ(why, drop_reason::ingress_threshold);
    EXPECT_EQ(m.group_units(0, 0, 0), 67u * 1500);
    EXPECT_EQ(m.queue_units(3, 0), 67u * 1500);   // the queue had room: 8 x (1 MB - 100,500 B) free
    EXPECT_EQ(m.slice_report(0).ingress_drops, 1u);
    EXPECT_EQ(m.slice_report(0).egress_drops, 0u);
    // another port's group has its own limit: 1/2 of what the pool has free now, (300,000 - 100,500) / 2
    const auto [n2, why2] = fill(m, 1, 3, 0, 1500);
    EXPECT_EQ(n2, 45);   // g2 < (199,500 - g2) / 2 -> g2 < 66,500: 45 frames (67,500 B)
    EXPECT_EQ(why2, drop_reason::ingress_threshold);
    // no limit (dynamic_th 7): only the pool's room refuses
    buffer_config open = c;
    open.mmu.pg_limit[0].dynamic_th = shared_limit::no_limit_th;
    service_pool_mmu m2(open, 4);
    const auto [n3, why3] = fill(m2, 0, 3, 0, 1500);
    EXPECT_EQ(n3, 200);   // 300,000 / 1500
    EXPECT_EQ(why3, drop_reason::ingress_pool_full);
}

TEST(ServicePools, ALossyFrameIsRefusedAtEgressWhileItsGroupHasRoom) {
    // Ingress pool 1 MB (groups alpha 8), egress pool 300,000 B with queue alpha 1/2: two ports feed queue 0 of
    // port 3, which holds q < (300,000 - q) / 2, up to 100,500 B (67 frames) as above, the ingress groups far
    // from their limits
    buffer_config c = pools(1000000);
    c.mmu.ingress_pool_bytes = {1000000};
    c.mmu.egress_pool_bytes = {300000};
    c.mmu.pg_limit[0].dynamic_th = 3;
    c.mmu.queue_limit[0].dynamic_th = -1;
    service_pool_mmu m(c, 4);
    int n = 0;
    drop_reason why = drop_reason::none;
    while (why == drop_reason::none) {
        why = admit_bytes(m, 3, 0, 1500, n % 2, 0);
        n += why == drop_reason::none;
    }
    EXPECT_EQ(n, 67);
    EXPECT_EQ(why, drop_reason::dynamic_threshold);
    EXPECT_EQ(m.group_units(0, 0, 0) + m.group_units(0, 1, 0), 67u * 1500);
    EXPECT_EQ(m.slice_report(0).egress_drops, 1u);
    EXPECT_EQ(m.slice_report(0).ingress_drops, 0u);
    // a static egress limit: queue 1 up to 30,000 B of shared space (20 frames fit, the 21st would pass it)
    buffer_config s = c;
    s.mmu.queue_limit[1].static_bytes = 30000;
    service_pool_mmu ms(s, 4);
    const auto [k, why_static] = fill(ms, 0, 3, 1, 1500);
    EXPECT_EQ(k, 20);
    EXPECT_EQ(why_static, drop_reason::queue_limit);
    // the pool's room: no egress limit, the pool of 300,000 B takes 200 frames
    buffer_config full = c;
    full.mmu.queue_limit[0].dynamic_th = shared_limit::no_limit_th;
    service_pool_mmu mf(full, 4);
    const auto [f, why_full] = fill(mf, 0, 3, 0, 1500);
    EXPECT_EQ(f, 200);
    EXPECT_EQ(why_full, drop_reason::pool_full);
}

TEST(ServicePools, ReservedSpaceIsUsedFirstOnBothSides) {
    // group 0 reserves 15,000 B on every one of 4 ports: the ingress pool's shared size is 300,000 - 60,000; the
    // first 10 frames of a group take no shared space
    buffer_config c = pools(1000000);
    c.mmu.ingress_pool_bytes = {300000};
    c.mmu.pg_reserved_bytes[0] = 15000;
    c.mmu.queue_reserved_bytes[0] = 4500;
    c.mmu.pg_limit[0].dynamic_th = 0;
    service_pool_mmu m(c, 4);
    EXPECT_EQ(m.ingress_pool_shared_size(0, 0), 240000u);
    EXPECT_EQ(m.egress_pool_shared_size(0, 0), 1000000u - 4 * 4500);
    for (int i = 0; i < 10; ++i)
        ASSERT_EQ(admit_bytes(m, 3, 0, 1500, 0), drop_reason::none);
    EXPECT_EQ(m.ingress_pool_used(0, 0), 0u);
    EXPECT_EQ(m.egress_pool_used(0, 0), 15000u - 4500);
    ASSERT_EQ(admit_bytes(m, 3, 0, 1500, 0), drop_reason::none);
    EXPECT_EQ(m.ingress_pool_used(0, 0), 1500u);
    // with alpha 1 the group's shared part stops at g < 240,000 - g: 80 more frames (120,000 B), then refused
    const auto [n, why] = fill(m, 0, 3, 0, 1500);
    EXPECT_EQ(n, 79);
    EXPECT_EQ(why, drop_reason::ingress_threshold);
    EXPECT_EQ(m.ingress_pool_used(0, 0), 120000u);
    // draining gives back the shared part first
    release_bytes(m, 3, 0, 1500, 0);
    EXPECT_EQ(m.ingress_pool_used(0, 0), 118500u);
    m.check_accounting("mmu", m.used(), m.used());
    // reserves larger than their pool are refused with the pool named
    c.mmu.pg_reserved_bytes[0] = 80000;
    try {
        service_pool_mmu bad(c, 4);
        ADD_FAILURE();
    } catch (const config_error& e) {
        EXPECT_NE(std::string(e.what()).find("ingress_pools_kb[0]"), std::string::npos) << e.what();
    }
}

TEST(ServicePools, APortsLimitInAPoolBindsAcrossItsQueues) {
    // Egress pool 0 of 300,000 B on 4 ports, every port reserving 15,000 B in it (SONiC's port profile list):
    // shared size 240,000 B. Queues 0 and 1 have no limit of their own (dynamic_th 7) but port 3's limit in the
    // pool is alpha 1/2: the port's shared units p are admitted while p < (240,000 - p) / 2, p < 80,000 (its
    // reserve first: 10 frames take no shared space): both queues together, 10 + 54 frames (p = 81,000 B), the
    // 65th refused
    buffer_config c = pools(1000000);
    c.mmu.egress_pool_bytes = {300000};
    c.mmu.queue_limit[0].dynamic_th = shared_limit::no_limit_th;
    c.mmu.queue_limit[1].dynamic_th = shared_limit::no_limit_th;
    c.mmu.port_egress_reserved_bytes[0] = 15000;
    c.mmu.port_egress_dynamic_th[0] = -1;
    service_pool_mmu m(c, 4);
    EXPECT_EQ(m.egress_pool_shared_size(0, 0), 240000u);
    for (int i = 0; i < 10; ++i)
        ASSERT_EQ(admit_bytes(m, 3, i % 2, 1500, 0), drop_reason::none);
    EXPECT_EQ(m.egress_pool_used(0, 0), 0u);
    int n = 10;
    while (admit_bytes(m, 3, n % 2, 1500, 0) == drop_reason::none)
        ++n;
    EXPECT_EQ(n, 64);
    EXPECT_EQ(m.egress_pool_used(0, 0), 81000u);
    // another port has its own reserve and limit: p2 < (159,000 - p2) / 2, p2 < 53,000: 36 frames (54,000 B)
    int k = 0;
    while (admit_bytes(m, 2, 0, 1500, 0) == drop_reason::none)
        ++k;
    EXPECT_EQ(k, 10 + 36);
    m.check_accounting("mmu", m.used(), m.used());
}

TEST(ServicePools, LosslessGroupsAreNeverDroppedWhileHeadroomLasts) {
    // Group 3 lossless, alpha 1/8 (dynamic_th -3) on an ingress pool of 540,000 B: XOFF when its shared units
    // reach (540,000 - g) / 8, g >= 60,000: after 40 frames (60,000 B). Then every frame goes into its headroom,
    // 30,000 B (20 frames); the 21st is dropped (ingress_limit): a headroom too small for what was in flight.
    buffer_config c = pools(1000000);
    c.mmu.ingress_pool_bytes = {540000};
    c.mmu.xoff_bytes = {30000};
    c.mmu.xon_bytes = {15000};
    c.pg_map = {0, 1, 2, 3, 4, 5, 6, 7};
    service_pool_mmu m(c, 4);
    listener l;
    m.set_lossless_groups(1u << 3, &l);
    for (int i = 0; i < 39; ++i)
        ASSERT_EQ(admit_bytes(m, 2, 3, 1500, 1, 3), drop_reason::none);
    EXPECT_TRUE(l.events.empty());
    ASSERT_EQ(admit_bytes(m, 2, 3, 1500, 1, 3), drop_reason::none);   // the 40th: 60,000 B = (540,000 - 60,000) / 8
    ASSERT_EQ(l.events.size(), 1u);
    EXPECT_EQ(l.events[0], std::make_pair('x', 1));
    EXPECT_TRUE(m.xoff(1, 3));
    for (int i = 0; i < 20; ++i)
        ASSERT_EQ(admit_bytes(m, 2, 3, 1500, 1, 3), drop_reason::none) << i;
    EXPECT_EQ(m.group_headroom(0, 1, 3), 30000u);
    EXPECT_EQ(admit_bytes(m, 2, 3, 1500, 1, 3), drop_reason::ingress_limit);
    EXPECT_EQ(l.events.size(), 1u);   // one XOFF, however many frames went into headroom
    // the lossless queue has no egress limit: the egress pool of 100,000 B took what the ingress admitted
    EXPECT_EQ(m.queue_units(2, 3), 90000u);
    // draining: headroom first, then shared; XON at 15,000 B of the group's units (no offset): 50 frames out
    for (int i = 0; i < 49; ++i)
        release_bytes(m, 2, 3, 1500, 1, 3);
    EXPECT_EQ(l.events.size(), 1u);
    EXPECT_EQ(m.group_headroom(0, 1, 3), 0u);
    release_bytes(m, 2, 3, 1500, 1, 3);   // 15,000 B left
    ASSERT_EQ(l.events.size(), 2u);
    EXPECT_EQ(l.events[1], std::make_pair('o', 1));
    EXPECT_FALSE(m.xoff(1, 3));
    m.check_accounting("mmu", m.used(), m.used());
}

TEST(ServicePools, TheXonOffsetResumesNearTheLimit) {
    // SAI's reading: with an offset, XON at max(xon, the group's limit - xon_offset). Group 3, alpha 1/8, pool
    // 540,000 B: XOFF at 40 frames (60,000 B). With xon_offset 6,000 B the group resumes at or below
    // (540,000 - g) / 8 - 6,000 as it drains.
    buffer_config c = pools(1000000);
    c.mmu.ingress_pool_bytes = {540000};
    c.mmu.xoff_bytes = {30000};
    c.mmu.xon_bytes = {0};
    c.mmu.xon_offset_bytes = {6000};
    service_pool_mmu m(c, 4);
    listener l;
    m.set_lossless_groups(1u << 3, &l);
    for (int i = 0; i < 40; ++i)
        ASSERT_EQ(admit_bytes(m, 2, 3, 1500, 1, 3), drop_reason::none);
    ASSERT_EQ(l.events.size(), 1u);
    int out = 0;
    while (l.events.size() == 1) {
        release_bytes(m, 2, 3, 1500, 1, 3);
        ++out;
    }
    // after k frames out, g = 60,000 - 1500 k; resume when g <= (540,000 - g) / 8 - 6,000 <=> 9 g <= 492,000:
    // g <= 54,666, k = 4 (g = 54,000)
    EXPECT_EQ(out, 4);
    EXPECT_EQ(l.events[1].first, 'o');
}

TEST(ServicePools, AnIncastFromOnePipeReachesOneSliceAndFromAllPipesTwo) {
    // 8 ports in 4 pipes of 2, 4 slices served Tomahawk-style (each: one half of the ingress pipes x one half of
    // the egress pipes). An egress pool of 4,000,000 B is 1,000,000 B per slice; queue alpha 1. Port 7 (pipe 3)
    // receives: from ports of pipe 0 every frame is in slice 1 (ingress half 0, egress half 1), and the queue
    // holds q < 1,000,000 - q there: alpha / (1 + alpha) of one slice's pool, 500,000 B to within a frame. From
    // ports of every pipe its frames are in slices 1 and 3: twice that.
    buffer_config c = pools(4000000);
    c.mmu.slices = 4;
    c.mmu.pipes = 4;
    c.mmu.slice_map_name = "tomahawk";
    c.alpha = 1;
    c.cell_bytes = 0;
    service_pool_mmu one_pipe(c, 8);
    EXPECT_EQ(one_pipe.slice_of(0, 7), 1);
    EXPECT_EQ(one_pipe.slice_of(5, 7), 3);
    EXPECT_EQ(one_pipe.slice_of(5, 1), 2);
    EXPECT_EQ(one_pipe.slice_of(1, 2), 0);
    for (bool stop = false; !stop;)
        for (int in : {0, 1})
            stop = stop || admit_bytes(one_pipe, 7, 0, 1500, in) != drop_reason::none;
    EXPECT_NEAR(static_cast<double>(one_pipe.queue_units(7, 0)), 500000.0, 1500 * 2);
    EXPECT_LE(one_pipe.queue_units(7, 0), 500000u + 1500);
    EXPECT_EQ(one_pipe.slice_report(1).egress_drops, 1u);   // the slice that dropped is named
    EXPECT_EQ(one_pipe.slice_report(3).egress_drops, 0u);
    service_pool_mmu all_pipes(c, 8);
    std::vector<bool> done(7, false);
    for (int left = 7; left > 0;)
        for (int in = 0; in < 7; ++in)
            if (!done[static_cast<size_t>(in)] && admit_bytes(all_pipes, 7, 0, 1500, in) != drop_reason::none) {
                done[static_cast<size_t>(in)] = true;
                --left;
            }
    EXPECT_NEAR(static_cast<double>(all_pipes.queue_units(7, 0)), 1000000.0, 1500 * 4);
    EXPECT_NEAR(static_cast<double>(all_pipes.queue_slice_units(1, 7, 0)), 500000.0, 1500 * 2);
    EXPECT_NEAR(static_cast<double>(all_pipes.queue_slice_units(3, 7, 0)), 500000.0, 1500 * 2);
    EXPECT_GT(all_pipes.slice_report(1).egress_drops, 0u);
    EXPECT_GT(all_pipes.slice_report(3).egress_drops, 0u);
    EXPECT_EQ(all_pipes.slice_report(0).egress_drops + all_pipes.slice_report(2).egress_drops, 0u);
    // Tomahawk-4-style: 2 slices by the ingress half
    c.mmu.slices = 2;
    c.mmu.slice_map_name = "tomahawk4";
    service_pool_mmu th4(c, 8);
    EXPECT_EQ(th4.slice_of(0, 7), 0);
    EXPECT_EQ(th4.slice_of(3, 0), 0);
    EXPECT_EQ(th4.slice_of(4, 0), 1);
    EXPECT_EQ(th4.slice_of(7, 7), 1);
}

TEST(ServicePools, BadDescriptionsNameTheField) {
    const auto refused = [](const buffer_config& c, const std::string& field) {
        try {
            service_pool_mmu m(c, 8);
            ADD_FAILURE() << "accepted: " << field;
        } catch (const config_error& e) {
            EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
        }
    };
    buffer_config c = pools(1000000);
    c.mmu.ingress_pool_bytes = {2000000};   // a pool larger than the buffer
    refused(c, "ingress_pools_kb[0]");
    c = pools(1000000);
    c.mmu.egress_pool_bytes = {500000, 2000000};
    refused(c, "egress_pools_kb[1]");
    c = pools(1000000);
    c.mmu.ingress_pool_bytes = {600000};
    c.mmu.headroom_pool_bytes = 600000;   // ingress pools and the headroom pool beyond the buffer
    refused(c, "headroom_pool_kb");
    c = pools(1000000);
    c.mmu.ingress_pool_bytes = {500000, 200000};
    c.mmu.pg_pool[3] = 2;   // a group mapped to no pool
    refused(c, "pg_pool[3]");
    c = pools(1000000);
    c.mmu.queue_pool[5] = 1;
    refused(c, "queue_pool[5]");
    c = pools(1000000);
    c.mmu.slices = 4;
    c.mmu.pipes = 4;
    c.mmu.slice_map = {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2};   // 15 of 16 pipe pairs: one unserved
    refused(c, "slice_map_list");
    c.mmu.slice_map.push_back(4);   // a slice that does not exist
    refused(c, "slice_map_list[15]");
    c.mmu.slice_map = {0, 1, 2, 2, 0, 1, 2, 2, 0, 1, 2, 2, 0, 1, 2, 2};   // slice 3 serves nothing
    refused(c, "slice 3");
    c = pools(1000000);
    c.mmu.slices = 2;   // a single map for two slices
    refused(c, "slice_map");
    c.mmu.slice_map_name = "tomahawk";   // needs 4
    refused(c, "slices = 4");
    c = pools(1000000);
    c.mmu.queue_limit[2].dynamic_th = -8;
    refused(c, "queue_dynamic_th[2]");
}

TEST(ServicePools, TodaysSharedAndDynamicPoliciesAreItsSpecialCases) {
    // Egress-only pools (no ingress pools) with pool_kb, alpha and reserved_kb are the "shared" policy, and with
    // no reserve the "dynamic" one: the same runs, number for number (the incast, and the workload at 25 Gb/s)
    const auto run = [](const std::string& scenario, std::vector<std::string> args, const std::string& policy) {
        auto sc = make_scenario(scenario);
        args.insert(args.end(), {"--buffer-policy", policy});
        sc->params().parse_args(args);
        result r = sc->run();
        for (auto t = r.tables.begin(); t != r.tables.end(); ++t)
            if (t->first == "slices") {   // (the pools policy's own books; the rest must be the same)
                r.tables.erase(t);
                break;
            }
        std::string json = r.to_json();
        const std::string key = "\"buffer_policy\": \"" + policy + "\"";
        if (const size_t at = json.find(key); at != std::string::npos)
            json.erase(at, key.size());
        const size_t w = json.find("\"wall_s\": ");
        json.erase(w, json.find(',', w) - w);
        return json;
    };
    const std::vector<std::string> incast{"--flows",   "16",  "--min-rto-ms", "10",  "--duration-s",  "0.2",
                                          "--pool-kb", "128", "--alpha",      "0.5", "--reserved-kb", "0.5"};
    EXPECT_EQ(run("incast", incast, "shared"), run("incast", incast, "pools"));
    const std::vector<std::string> dynamic{"--flows", "16",        "--min-rto-ms", "10",      "--duration-s",
                                           "0.2",     "--pool-kb", "96",           "--alpha", "2"};
    EXPECT_EQ(run("incast", dynamic, "dynamic"), run("incast", dynamic, "pools"));
    const std::vector<std::string> workload{"--topology",   "star",  "--hosts",   "8",   "--load",  "0.5",
                                            "--duration-s", "0.004", "--pool-kb", "256", "--alpha", "1"};
    EXPECT_EQ(run("workload", workload, "shared"), run("workload", workload, "pools"));
}

TEST(ServicePools, PfcOnItsPriorityGroupsIsLosslessWithTheFormulasHeadroom) {
    // A 16-server TCP incast at 1 Gb/s over 25 us links into a switch of service pools, priority 0 lossless
    // (the incast's): the groups pause their servers at alpha 1/8 of the ingress pool's free space, and the
    // headroom the formula gives each port (2 x 3,125 B on the cable + 2 MTU + 2 quanta: 9,378 B) takes what is
    // in flight. Nothing is dropped; with a headroom of 2 KB given per port, frames in flight are lost (ingress_limit).
    const auto run = [](std::vector<std::string> extra) {
        auto sc = make_scenario("incast");
        std::vector<std::string> args{
            "--flows", "16",  "--buffer-policy",  "pools", "--pool-kb",    "1024", "--ingress-pools-kb", "768",
            "--pause", "pfc", "--pfc-priorities", "0",     "--duration-s", "0.2"};
        args.insert(args.end(), extra.begin(), extra.end());
        sc->params().parse_args(args);
        return sc->run();
    };
    const result ok = run({});
    EXPECT_EQ(ok.number("drops"), 0);
    EXPECT_GT(ok.number("pause_frames"), 0);
    EXPECT_GT(ok.number("headroom_pool_peak_kb"), 0);
    EXPECT_LE(ok.number("headroom_pool_peak_kb"), 16 * 9378.0 / 1024);
    EXPECT_GT(ok.number("goodput_mbps"), 900);
    const result small = run({"--headroom", "given", "--xoff-kb", "2", "--xon-offset-kb", "3"});
    EXPECT_GT(small.number("drops_ingress_limit"), 0);
    EXPECT_EQ(small.number("drops"), small.number("drops_ingress_limit"));
    // the generator's own book's settings have no effect on this buffer: refused, naming them
    auto sc = make_scenario("incast");
    sc->params().parse_args({"--buffer-policy", "pools", "--ingress-pools-kb", "512", "--pause", "pfc",
                             "--pfc-priorities", "0", "--pause-xoff-alpha", "1", "--duration-s", "0.01"});
    try {
        sc->run();
        ADD_FAILURE();
    } catch (const config_error& e) {
        EXPECT_NE(std::string(e.what()).find("pause_xoff_alpha"), std::string::npos) << e.what();
    }
    // and PFC needs the ingress book
    auto sc2 = make_scenario("incast");
    sc2->params().parse_args(
        {"--buffer-policy", "pools", "--pause", "pfc", "--pfc-priorities", "0", "--duration-s", "0.01"});
    EXPECT_THROW(sc2->run(), config_error);
}
