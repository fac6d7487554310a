// SPDX-License-Identifier: Apache-2.0
// SONiC buffer configurations in (config/sonic_config.h) and out (platform/sonic_config_writer.h), and SONiC's
// headroom calculation (model/switch/sonic_headroom.h) against the calculation done by hand.
#include "config/errors.h"
#include "config/sonic_config.h"
#include "model/cm/pause/pause_config.h"
#include "model/switch/sonic_headroom.h"
#include "platform/scenario.h"
#include "platform/sonic_config_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace cmswitch;

namespace {
const std::string examples = std::string(CMSWITCH_SOURCE_DIR) + "/examples/";
const char* const shipped[] = {"sonic/nvidia-acs-msn2700.json", "sonic/arista-7060cx-32s-c32.json"};

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// every parameter's value, as text
std::vector<std::string> values(const param_table& t) {
    std::vector<std::string> v;
    for (const auto& p : t.params())
        v.push_back(p.name + " = " + t.value_text(p));
    return v;
}

// the workload scenario with a SONiC file's text read into it
std::unique_ptr<scenario> with_sonic(const std::string& text, const std::string& label = "test") {
    auto sc = make_scenario("workload");
    for (const auto& e : read_sonic_config(text, label, sc->params()))
        sc->params().set(e.name, e.text);
    return sc;
}

std::string refusal(const std::string& text) {
    try {
        with_sonic(text);
    } catch (const config_error& e) {
        return e.what();
    }
    return "(accepted)";
}

// a small valid file, one table replaced or added by `extra` (text inserted before the closing brace)
std::string small_file(const std::string& extra = "") {
    return R"({"PORT": {"Ethernet0": {"speed": "100000"}, "Ethernet4": {"speed": "100000"}},
 "BUFFER_POOL": {"ing": {"type": "ingress", "size": "1048576"}, "egr": {"type": "egress", "size": "1048576"}},
 "BUFFER_PROFILE": {"p": {"pool": "ing", "size": "0", "dynamic_th": "3"},
                    "q": {"pool": "egr", "size": "0", "dynamic_th": "3"}},
 "BUFFER_PG": {"Ethernet0|0": {"profile": "p"}},
 "BUFFER_QUEUE": {"Ethernet0|0": {"profile": "q"}})" +
           extra + "}";
}
}   // namespace

TEST(SonicConfig, BothShippedConfigurationsLoadWhatTheirTablesSay) {
    // NVIDIA ACS-MSN2700: 4 pools; the lossless profile size 50176 / xoff 30720: reserve 50176 - 30720 = 19456 B
    // (= its xon), headroom 30720 B; Spectrum's 96 B cells from ASIC_TABLE.
    {
        auto sc = make_scenario("workload");
        sc->params().load_sonic(examples + shipped[0]);
        const param_table& t = sc->params();
        EXPECT_EQ(t.value_text("buffer_policy"), "pools");
        EXPECT_EQ(t.value_text("cell_bytes"), "96");
        EXPECT_EQ(t.value_text("ingress_pools_kb"), "3225.5,3225.5");   // 3302912 / 1024
        EXPECT_EQ(t.value_text("egress_pools_kb"), "13618.96875,3225.5");
        EXPECT_EQ(t.value_text("pg_pool"), "1,0,0,0,0,0,0,0");   // group 0 lossy pool; 3-4 lossless pool
        EXPECT_EQ(t.value_text("pg_reserved_kb"), "0,0,0,19,19,0,0,0");
        EXPECT_EQ(t.value_text("xoff_kb"), "30");
        EXPECT_EQ(t.value_text("xon_kb"), "19");
        EXPECT_EQ(t.value_text("pfc_priorities"), "3,4");
        EXPECT_EQ(t.value_text("cable_m"), "5");
        EXPECT_EQ(t.value_text("link_gbps"), "100");
    }
    // Arista-7060CX-32S-C32 (Tomahawk): the shared headroom pool is the lossless pool's xoff, 4194112 B; the
    // lossless profile's size (1248) is below its xoff (177632): the reserve is the size itself.
    {
        auto sc = make_scenario("workload");
        sc->params().load_sonic(examples + shipped[1]);
        const param_table& t = sc->params();
        EXPECT_EQ(t.value_text("cell_bytes"), "208");
        EXPECT_EQ(t.value_text("headroom_pool_kb"), "4095.8125");
        EXPECT_EQ(t.value_text("pg_reserved_kb"), "0,0,0,1.21875,1.21875,0,0,0");
        EXPECT_EQ(t.value_text("xoff_kb"), "173.46875");
        EXPECT_EQ(t.value_text("xon_offset_kb"), "2.234375");
        EXPECT_EQ(t.value_text("queue_pool"), "0,0,0,1,1,0,0,0");
        EXPECT_EQ(t.value_text("queue_static_kb"), "0,0,0,15608.125,15608.125,0,0,0");
        // pool_kb: the larger of the ingress side (10875072 + 4194112) and the largest egress pool (15982720)
        EXPECT_EQ(t.value_text("pool_kb"), "15608.125");
    }
}

TEST(SonicConfig, BothShippedConfigurationsRunAnIncastLosslessly) {
    // 15:1 incasts of 256 KB per sender (3.75 MB into one 100G port; with 64 KB the Arista's thresholds are not
    // reached once the hosts' BQL smooths the bursts) every ms on the lossless priority 3 beside Poisson flows on
    // it: PFC pauses, nothing is dropped,
    // every flow completes, and the books agree with the buffer at the end (run() checks conservation).
    for (const char* f : shipped) {
        auto sc = make_scenario("workload");
        sc->params().parse_args({"--sonic-config", examples + f, "--topology",         "star", "--hosts",        "16",
                                 "--load",         "0.4",        "--flow-prio",        "3",    "--incast-fanin", "15",
                                 "--incast-prio",  "3",          "--incast-period-ms", "1",    "--incast-kb",    "256",
                                 "--duration-s",   "0.005"});
        const result r = sc->run();
        EXPECT_EQ(r.number("drops"), 0) << f;
        EXPECT_GT(r.number("pause_frames"), 0) << f;
        EXPECT_GT(r.number("flows_completed"), 100) << f;
        EXPECT_EQ(r.number("flows_completed"), r.number("flows_started")) << f;
    }
}

TEST(SonicConfig, ReadWriteReadGivesTheSameSwitch) {
    for (const char* f : shipped) {
        // on a star of 16 hosts: its switch's ports all 100G, as the file's
        auto a = with_sonic(slurp(examples + f), f);
        a->params().parse_args({"--topology", "star", "--hosts", "16"});
        const std::string written = write_sonic_config(a->planned_topology(), 0, a->params());
        auto b = with_sonic(written, "written");
        b->params().parse_args({"--topology", "star", "--hosts", "16"});
        EXPECT_EQ(values(a->params()), values(b->params())) << f << "\n" << written;
        // and writing it again gives the same text
        EXPECT_EQ(write_sonic_config(b->planned_topology(), 0, b->params()), written) << f;
    }
}

TEST(SonicConfig, AHeadroomFoundByARuleIsWrittenAsItsNumbers) {
    // A description with headroom sonic on 100G ports with 40 m cables and Spectrum's 96 B cells: the written file
    // holds the calculation's xoff (80896 B: the hand table below) and reads back as headroom given.
    auto a = make_scenario("workload");
    a->params().parse_args(
        {"--topology",         "star", "--hosts",   "8",    "--link-gbps",      "100", "--buffer-policy", "pools",
         "--ingress-pools-kb", "4096", "--pool-kb", "8192", "--cell-bytes",     "96",  "--headroom",      "sonic",
         "--cable-m",          "40",   "--pause",   "pfc",  "--pfc-priorities", "3"});
    const std::string written = write_sonic_config(a->planned_topology(), 0, a->params());
    auto b = with_sonic(written);
    EXPECT_EQ(b->params().value_text("headroom"), "given");
    EXPECT_EQ(b->params().value_text("xoff_kb"), "79");   // 80896 / 1024
    EXPECT_EQ(b->params().value_text("xon_kb"), "18");
    const topology ta = a->planned_topology(), tb = b->planned_topology();
    EXPECT_EQ(ta.switches[0].buffer.mmu.xoff_bytes[3], 80896u);
    EXPECT_EQ(tb.switches[0].buffer.mmu.xoff_bytes, std::vector<uint64_t>{80896});
}

TEST(SonicConfig, WhatTheModelCannotDoIsRefusedNamingTheTableAndKey) {
    EXPECT_EQ(refusal(small_file()), "(accepted)");
    const auto has = [](const std::string& msg, const std::string& what) {
        EXPECT_NE(msg.find(what), std::string::npos) << msg;
    };
    has(refusal(small_file(R"(, "WRED_PROFILE": {"AZURE_LOSSY": {"ecn": "ecn_all"}})")), "WRED_PROFILE");
    has(refusal(small_file(R"(, "SCHEDULER": {"scheduler.0": {"type": "DWRR"}})")), "SCHEDULER");
    // a pool without a size (SONiC's dynamic buffer model sizes it at run time)
    std::string t = small_file();
    t.replace(t.find(R"("type": "ingress", "size": "1048576")"), 36, R"("type": "ingress")");
    has(refusal(t), "BUFFER_POOL|ing.size");
    // trimming
    t = small_file();
    t.replace(t.find(R"("dynamic_th": "3"})"), 18, R"("dynamic_th": "3", "packet_discard_action": "trim"})");
    has(refusal(t), "BUFFER_PROFILE|p.packet_discard_action");
    // a priority group given an egress pool's profile
    t = small_file();
    t.replace(t.find(R"("Ethernet0|0": {"profile": "p"})"), 31, R"("Ethernet0|0": {"profile": "q"})");
    has(refusal(t), "BUFFER_PG|Ethernet0|0.profile");
    // profiles that differ between ports
    t = small_file();
    t.replace(t.find(R"("Ethernet0|0": {"profile": "p"})"), 31,
              R"("Ethernet0|0": {"profile": "p"}, "Ethernet4|0": {"profile": "p2"})");
    t.replace(t.find(R"("q": {"pool")"), 0, R"("p2": {"pool": "ing", "size": "1024", "dynamic_th": "3"}, )");
    has(refusal(t), "BUFFER_PG|Ethernet4|0");
    // a dynamic_th outside SAI's range, a port not in PORT, an unknown pool
    t = small_file();
    t.replace(t.find(R"("dynamic_th": "3"})"), 18, R"("dynamic_th": "9"})");
    has(refusal(t), "BUFFER_PROFILE|p.dynamic_th");
    t = small_file();
    t.replace(t.find(R"("Ethernet0|0": {"profile": "q"})"), 31, R"("Ethernet8|0": {"profile": "q"})");
    has(refusal(t), "BUFFER_QUEUE|Ethernet8|0");
    t = small_file();
    t.replace(t.find(R"("pool": "egr")"), 13, R"("pool": "nope")");
    has(refusal(t), "BUFFER_PROFILE|q.pool");
    // class 7 moved by a map
    has(refusal(small_file(R"(, "TC_TO_QUEUE_MAP": {"AZURE": {"7": "3"}},
        "PORT_QOS_MAP": {"Ethernet0": {"tc_to_queue_map": "AZURE"}})")),
        "TC_TO_QUEUE_MAP|AZURE.7");
    // a port number too long to be one
    t = small_file();
    t.replace(t.find(R"("Ethernet4": {"speed")"), 11, R"("Ethernet99999999999999999999")");
    has(refusal(t), "PORT|Ethernet99999999999999999999");
    // not JSON at all
    has(refusal("{\"PORT\": "), "test");
}

TEST(SonicConfig, TheWriterRefusesWhatSonicCannotSay) {
    auto sc = make_scenario("workload");
    sc->params().parse_args({"--topology", "star", "--hosts", "4", "--buffer-policy", "dynamic"});
    EXPECT_THROW(write_sonic_config(sc->planned_topology(), 0, sc->params()), config_error);
    auto sc2 = make_scenario("workload");
    sc2->params().parse_args({"--topology", "star", "--hosts", "4", "--buffer-policy", "pools", "--alpha", "0.7"});
    try {
        write_sonic_config(sc2->planned_topology(), 0, sc2->params());
        ADD_FAILURE();
    } catch (const config_error& e) {
        EXPECT_NE(std::string(e.what()).find("queue_dynamic_th"), std::string::npos) << e.what();
    }
}

TEST(SonicHeadroom, EqualsTheCalculationDoneByHand) {
    // SONiC's calculation (sonic_headroom.h) by hand, Spectrum's inputs (cell 96, pipeline 18 KB, MAC/PHY 0.8 KB),
    // port MTU 9100, lossless MTU 1024, 100 % small packets: worst_case_factor = 2 x 96 / 97 = 1.97938;
    // peer response = quanta x 64 B (25G 80 -> 5120, 100G 394 -> 25216, 400G 905 -> 57920);
    // bytes_on_cable = 2 L S 1e9 / 1.98e8 / 8192. E.g. 100G 40 m: 4932.13 on the cable,
    // propagation = 9100 + 4932.13 + 819.2 + 25216 = 40067.33; xoff = ceil_1024(1024 + 1.97938 x 40067.33 = 80333)
    // = 80896; xon = 18432; size = ceil_1024(xoff + xon) = 99328.
    // Beside it, the model's formula (pause_headroom_bytes): ceil(2 x rate x delay / 8) + 2 x 1500 + quanta x 64,
    // the delay L / 1.98e8 m/s in whole ps; e.g. 100G 40 m: 202020 ps, 5051 B on the wire, + 3000 + 25216 = 33267.
    struct row {
        uint64_t gbps;
        double m;
        uint64_t xoff, size, formula;
    };
    const row rows[] = {
        {25, 5, 31744, 50176, 8278},     {25, 40, 33792, 52224, 9383},     {25, 300, 49152, 67584, 17590},
        {100, 5, 72704, 91136, 28848},   {100, 40, 80896, 99328, 33267},   {100, 300, 144384, 162816, 66095},
        {400, 5, 140288, 158720, 63446}, {400, 40, 175104, 193536, 81122}, {400, 300, 429056, 447488, 212436}};
    sonic_headroom_inputs in;
    in.cell_bytes = 96;
    for (const row& r : rows) {
        const uint64_t bps = r.gbps * 1000000000ull;
        const sonic_headroom h = sonic_headroom_bytes(bps, r.m, in);
        EXPECT_EQ(h.xoff, r.xoff) << r.gbps << "G " << r.m << " m";
        EXPECT_EQ(h.xon, 18432u);
        EXPECT_EQ(h.size, r.size) << r.gbps << "G " << r.m << " m";
        const auto delay_ps = static_cast<uint64_t>(std::llround(r.m / sonic_cable_speed_mps * 1e12));
        EXPECT_EQ(pause_headroom_bytes(bps, delay_ps, 1500), r.formula) << r.gbps << "G " << r.m << " m";
    }
    // Tomahawk-3-class 254 B cells: worst_case_factor 254 / 64 = 3.96875; 100G 40 m: ceil_1024(1024 + 3.96875 x
    // 40067.33 = 160041) = 160768
    in.cell_bytes = 254;
    EXPECT_EQ(sonic_headroom_bytes(100000000000ull, 40, in).xoff, 160768u);
    // an 8-lane 400G port: xon = ceil_1024(2 x 18432 - 1024) = 35840; size adds a port MTU: ceil_1024(140288 +
    // 35840 + 9100 = 185228) = 185344
    in.cell_bytes = 96;
    in.eight_lanes = true;
    const sonic_headroom h8 = sonic_headroom_bytes(400000000000ull, 5, in);
    EXPECT_EQ(h8.xon, 35840u);
    EXPECT_EQ(h8.size, 185344u);
    // with a shared headroom pool the group's size is its xon alone
    in.eight_lanes = false;
    in.shared_headroom_pool = true;
    EXPECT_EQ(sonic_headroom_bytes(100000000000ull, 40, in).size, 18432u);
}
