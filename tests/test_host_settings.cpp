// SPDX-License-Identifier: Apache-2.0
// The hosts' settings: declared straight into tcp_config and host_egress_config in the model's units, the host
// profiles as lists of values applied to the settings not given, and the report of what they decided.
#include "config/errors.h"
#include "config/params.h"
#include "config/result.h"
#include "platform/settings.h"
#include "traffic/tcp/tcp_sender.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace cmswitch;

TEST(HostSettings, UnitAdaptorsStoreTheModelsUnitAndReadBackTheUsers) {
    tcp_settings s;
    param_table t;
    declare_tcp(t, s);
    t.set("min_rto_ms", "0.25");   // 0.25 ms = 250,000,000 ps
    t.set("delack_ms", "40");
    t.set("jitter_ns", "1.5");   // 1,500 ps
    t.set("tsq_us", "976.5625");   // 2^-10 s
    t.set("nic_ring_kb", "64");   // 65,536 B
    t.set("pacing_ss_ratio", "150");   // a fraction: 1.5
    t.set("init_cwnd", "4");
    t.set("ssthresh_rule", "flight");
    EXPECT_EQ(s.tcp.min_rto_ps, 250000000u);
    EXPECT_EQ(s.tcp.delack_ps, 40000000000u);
    EXPECT_EQ(s.tcp.jitter_ps, 1500u);
    EXPECT_EQ(s.egress.tsq_ps, 976562500u);
    EXPECT_EQ(s.egress.ring_bytes, 65536u);
    EXPECT_DOUBLE_EQ(s.tcp.pacing_ss_ratio, 1.5);
    EXPECT_EQ(s.tcp.init_cwnd, 4u);
    EXPECT_EQ(s.tcp.ssthresh_from, tcp_config::ssthresh_rule::flight);
    EXPECT_EQ(t.value_text("min_rto_ms"), "0.25");
    EXPECT_EQ(t.value_text("jitter_ns"), "1.5");
    EXPECT_EQ(t.value_text("nic_ring_kb"), "64");
    EXPECT_EQ(t.value_text("pacing_ss_ratio"), "150");
    EXPECT_EQ(t.value_text("ssthresh_rule"), "flight");
    // out of range: refused naming the field and the range, the field unchanged
    try {
        t.set("min_rto_ms", "1e300");
        ADD_FAILURE() << "min_rto_ms = 1e300 accepted";
    } catch (const config_error& e) {
        EXPECT_STREQ(e.what(), "min_rto_ms = 1e+300 is out of range: allowed [0.001, 60000] ms");
    }
    EXPECT_EQ(s.tcp.min_rto_ps, 250000000u);
    EXPECT_THROW(t.set("init_cwnd", "0"), config_error);
    EXPECT_EQ(s.tcp.init_cwnd, 4u);
    EXPECT_THROW(t.set("jitter_ns", "0.0001"), config_error);   // below 1 ps: it would round to nothing
    // a value at a bound is kept although the field rounds it past the bound (0.001 KB: 1 byte, 0.00098 KB)
    t.set("nic_ring_kb", "0.001");
    EXPECT_EQ(s.egress.ring_bytes, 1u);
    EXPECT_NO_THROW(t.validate());
    // the defaults as the help gives them
    tcp_settings d;
    param_table td;
    declare_tcp(td, d);
    EXPECT_EQ(td.value_text("min_rto_ms"), "200");
    EXPECT_EQ(td.value_text("nic_ring_kb"), "profile");   // 3 KB in both profiles
    EXPECT_EQ(make_host_egress(d).ring_bytes, 3072u);
    EXPECT_EQ(td.value_text("tsq_max_kb"), "4096");
    EXPECT_EQ(td.value_text("pacing_ca_ratio"), "120");
}

TEST(HostSettings, EachProfileIsAListOfValuesForEveryProfiledSetting) {
    tcp_settings s;
    param_table t;
    declare_tcp(t, s);
    std::set<std::string> profiled;
    for (const auto& p : t.params())
        if (p.is_set)
            profiled.insert(p.name);
    EXPECT_EQ(profiled.size(), 24u);
    for (const auto& p : host_profiles()) {
        std::set<std::string> named;
        for (const auto& v : p.values)
            named.insert(v.first);
        EXPECT_EQ(named, profiled) << p.name;
    }
    // ns2: the values validated against ns-2; linux: a Linux 6.x server's
    const tcp_config ns2 = make_tcp_config(s);
    EXPECT_EQ(ns2.init_cwnd, 2u);
    EXPECT_FALSE(ns2.sack);
    EXPECT_EQ(ns2.mss, 1460u);
    EXPECT_FALSE(make_host_egress(s).fq());
    t.set("host_profile", "linux");
    const tcp_config lx = make_tcp_config(s);
    const host_egress_config le = make_host_egress(s);
    EXPECT_EQ(lx.init_cwnd, 10u);
    EXPECT_EQ(lx.quickacks, 16u);
    EXPECT_TRUE(lx.sack && lx.dsack && lx.timestamps && lx.rack_tlp && lx.delayed_ack && lx.abc);
    EXPECT_EQ(lx.mss, 1448u);   // 1500-byte frames beside the 12 timestamp option bytes
    EXPECT_TRUE(le.fq() && le.pacing && le.small_queues && le.bql);
    EXPECT_EQ(le.tx_coalesce_ps, 16000000u);   // mlx5's TX moderation: 16 us, 32 completions
    EXPECT_EQ(le.tx_coalesce_frames, 32u);
    // the unresolved settings keep their own values: resolving twice gives the same (the option is not taken twice)
    EXPECT_EQ(make_tcp_config(s).mss, 1448u);
    // a setting given wins over the profile; a profile's value gives way to a setting given that excludes it
    t.set("init_cwnd", "3");
    t.set("sack", "false");
    t.set("host_qdisc", "fifo");
    EXPECT_EQ(make_tcp_config(s).init_cwnd, 3u);
    EXPECT_FALSE(make_tcp_config(s).rack_tlp);
    EXPECT_FALSE(make_host_egress(s).pacing);
    t.set("rack_tlp", "true");
    EXPECT_THROW(make_tcp_config(s), config_error);   // given both ways: refused naming both
    t.set("rack_tlp", "profile");   // back to the profile's value
    EXPECT_EQ(t.value_text("rack_tlp"), "profile");
    EXPECT_NO_THROW(make_tcp_config(s));
    // the profile's 64 KB GSO gives way to a jitter (each frame delayed alone); GSO given with it is refused
    EXPECT_EQ(make_tcp_config(s).gso_max_bytes, 65536u);
    t.set("jitter_ns", "100");
    EXPECT_EQ(make_tcp_config(s).gso_max_bytes, 0u);
    t.set("gso_max_kb", "16");
    EXPECT_THROW(make_tcp_config(s), config_error);
}

TEST(HostSettings, ByteQueueLimitsNeedFqAndSizeTheRingThemselves) {
    tcp_settings s;
    param_table t;
    declare_tcp(t, s);
    t.set("host_profile", "linux");
    EXPECT_TRUE(make_host_egress(s).bql);
    // the profile's BQL gives way to a fifo qdisc or a ring size given; given with either, it is refused
    t.set("host_qdisc", "fifo");
    EXPECT_FALSE(make_host_egress(s).bql);
    t.set("bql", "true");
    EXPECT_THROW(make_host_egress(s), config_error);
    t.set("host_qdisc", "profile");
    EXPECT_TRUE(make_host_egress(s).bql);
    t.set("nic_ring_kb", "64");
    EXPECT_THROW(make_host_egress(s), config_error);
    t.set("bql", "profile");
    EXPECT_FALSE(make_host_egress(s).bql);
    EXPECT_EQ(make_host_egress(s).ring_bytes, 65536u);
    // interrupt coalescing is BQL's: given without it, refused
    t.set("tx_coalesce_us", "8");
    EXPECT_THROW(make_host_egress(s), config_error);
    t.set("nic_ring_kb", "profile");
    EXPECT_EQ(make_host_egress(s).tx_coalesce_ps, 8000000u);
    t.set("host_profile", "ns2");
    EXPECT_THROW(make_host_egress(s), config_error);
}

TEST(HostSettings, TheReportSaysWhatTheProfileDecided) {
    tcp_settings s;
    param_table t;
    declare_tcp(t, s);
    t.set("host_profile", "linux");
    t.set("quickacks", "5");
    result r;
    report_host(r, s);
    EXPECT_EQ(std::get<std::string>(*r.get("host_profile")), "linux");
    EXPECT_EQ(std::get<int64_t>(*r.get("tcp_init_cwnd")), 10);
    EXPECT_EQ(std::get<int64_t>(*r.get("tcp_quickacks")), 5);
    EXPECT_EQ(std::get<bool>(*r.get("tcp_dsack")), true);
    EXPECT_EQ(std::get<std::string>(*r.get("host_qdisc")), "fq");
    EXPECT_EQ(std::get<bool>(*r.get("host_pacing")), true);
}

TEST(HostSettings, TheMtuSizesTheSegmentsAndTheQdiscsQuanta) {
    // MTU 9000 (jumbo frames): the MSS is 9000 - 40 = 8960 B, 8948 B beside the timestamp option (linux); fq's
    // quanta are 2 and 10 frames of 9000 + 14 B, fq_codel's (and CoDel's MTU) one; a 64 KB GSO segment is
    // 65536 / 8948 = 7 segments. A quantum given stays as given.
    tcp_settings s;
    param_table t;
    declare_tcp(t, s);
    t.set("mtu_bytes", "9000");
    EXPECT_EQ(make_tcp_config(s).mss, 8960u);
    t.set("host_profile", "linux");
    EXPECT_EQ(make_tcp_config(s).mss, 8948u);
    const host_egress_config e = make_host_egress(s);
    EXPECT_EQ(e.mtu_bytes, 9000u);
    EXPECT_EQ(e.fq_quantum_bytes, 18028u);
    EXPECT_EQ(e.fq_initial_quantum_bytes, 90140u);
    EXPECT_EQ(e.fq_codel_quantum_bytes, 9014u);
    EXPECT_EQ(e.codel.mtu_bytes, 9014u);
    EXPECT_EQ(tso_autosize_segments(10000000000ull, 10000000ull, 65536, 8948), 7u);
    t.set("fq_quantum_bytes", "4000");
    EXPECT_EQ(make_host_egress(s).fq_quantum_bytes, 4000u);
    // outside 576 .. 9216 B: refused naming the field and the range
    for (const char* bad : {"575", "9217"}) {
        try {
            t.set("mtu_bytes", bad);
            ADD_FAILURE() << bad;
        } catch (const config_error& err) {
            EXPECT_NE(std::string(err.what()).find("mtu_bytes"), std::string::npos) << err.what();
            EXPECT_NE(std::string(err.what()).find("9216"), std::string::npos) << err.what();
        }
    }
}
