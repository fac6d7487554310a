// SPDX-License-Identifier: Apache-2.0
// The TLM-2.0 generic-payload bridge: a foreign initiator's frames cross a switch of the model and
// reach a foreign target at the times a hand calculation gives; frame images and metadata survive both ways.
#include "model/gp_bridge.h"

#include "model/control_frames.h"
#include "model/ethernet_link.h"
#include "model/event_domain.h"
#include "model/switch/ethernet_switch.h"
#include "platform/sim_context.h"

#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstring>
#include <vector>

using namespace cmswitch;

namespace {

// Another vendor's traffic generator: raw frame images (no extension), one every `gap`. An SC_METHOD (not an
// SC_THREAD: the sanitizer run's LeakSanitizer cannot scan SystemC's coroutine stacks).
struct gp_generator : sc_core::sc_module {
    SC_HAS_PROCESS(gp_generator);
    tlm_utils::simple_initiator_socket<gp_generator> out;
    std::vector<std::vector<unsigned char>> frames;
    sc_core::sc_time gap;
    std::vector<tlm::tlm_response_status> status;
    size_t next = 0;
    gp_generator(sc_core::sc_module_name n, sc_core::sc_time g) : sc_module(n), out("out"), gap(g) {
        SC_METHOD(send_one);
    }
    void send_one() {
        if (next >= frames.size())
            return;
        auto& bytes = frames[next++];
        tlm::tlm_generic_payload gp;
        gp.set_command(tlm::TLM_WRITE_COMMAND);
        gp.set_data_ptr(bytes.data());
        gp.set_data_length(static_cast<unsigned>(bytes.size()));
        gp.set_streaming_width(static_cast<unsigned>(bytes.size()));
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        out->b_transport(gp, d);
        status.push_back(gp.get_response_status());
        next_trigger(gap);
    }
};

// Another vendor's MAC: records when each frame's last bit arrives, its bytes and the extension.
struct gp_sink : sc_core::sc_module {
    tlm_utils::simple_target_socket<gp_sink> in;
    struct rec {
        uint64_t t_ps;
        std::vector<unsigned char> bytes;
        bool has_ext;
        frame_fields meta;
    };
    std::vector<rec> got;
    explicit gp_sink(sc_core::sc_module_name n) : sc_module(n), in("in") {
        in.register_b_transport(this, &gp_sink::b_transport);
    }
    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
        gp_frame_extension* ext = nullptr;
        gp.get_extension(ext);
        got.push_back({(sc_core::sc_time_stamp() + delay).value(),
                       std::vector<unsigned char>(gp.get_data_ptr(), gp.get_data_ptr() + gp.get_data_length()),
                       ext != nullptr, ext ? ext->meta : frame_fields{}});
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

std::vector<unsigned char> image(uint16_t dst, uint16_t src, uint8_t prio, uint8_t ecn, uint32_t bytes) {
    frame f;
    static_cast<frame_fields&>(f) = frame_fields{};
    f.dst = dst;
    f.src = src;
    f.prio = prio;
    f.ecn = ecn;
    f.bytes = bytes;
    std::vector<unsigned char> out;
    gp_bridge::encode(f, out);
    return out;
}

}   // namespace

TEST(GpBridge, FrameImagesRoundTrip) {
    const auto img = image(513, 7, 5, ecn_ect0, 1500);
    ASSERT_EQ(img.size(), 1500u);
    const unsigned char dst_mac[6] = {0x02, 0, 0, 0, 0x02, 0x01};   // host 513 = 0x0201
    EXPECT_EQ(std::memcmp(img.data(), dst_mac, 6), 0);
    EXPECT_EQ(img[12], 0x81);   // 802.1Q
    EXPECT_EQ(img[14] >> 5, 5);   // PCP
    frame_fields m;
    pause_fields p{};
    ASSERT_TRUE(gp_bridge::decode(img.data(), 1500, m, p));
    EXPECT_EQ(m.dst, 513);
    EXPECT_EQ(m.src, 7);
    EXPECT_EQ(m.prio, 5);
    EXPECT_EQ(m.ecn, ecn_ect0);
    EXPECT_EQ(m.bytes, 1500u);
    // PFC: classes 3 and 5 at 1000 quanta
    frame_pool pool;
    frame* pf = make_pause_frame(pool, 0x28, 1000, 0);
    std::vector<unsigned char> pimg;
    gp_bridge::encode(*pf, pimg);
    EXPECT_EQ(pimg[12], 0x88);
    EXPECT_EQ(pimg[13], 0x08);
    EXPECT_EQ(pimg[15], 0x01);   // opcode 0x0101
    ASSERT_TRUE(gp_bridge::decode(pimg.data(), 64, m, p));
    EXPECT_EQ(m.kind, frame_kind::pause);
    EXPECT_EQ(p.class_enable, 0x28);
    EXPECT_EQ(p.quanta, 1000);
    pool.release(pf);
    // not a frame image of the convention
    std::vector<unsigned char> junk(64, 0xAB);
    EXPECT_FALSE(gp_bridge::decode(junk.data(), 64, m, p));
}

TEST(GpBridge, ForeignFramesCrossTheSwitchAtHandCalculatedTimes) {
    sim_context ctx;
    frame_pool pool;
    event_domain events("events", true);
    buffer_config bc;
    bc.policy = "static";
    bc.port_limit_bytes = 100000;
    ethernet_switch sw("sw", 2, 2, bc, pool, events);
    sw.set_route(0, 0);
    sw.set_route(1, 1);
    // host 0 is a foreign generator behind bridge a, host 1 a foreign MAC behind bridge b; 1 Gb/s, 1 us links
    gp_bridge a("a", pool), b("b", pool);
    ethernet_link l0("l0", 1000000000ull, 1000000), l1("l1", 1000000000ull, 1000000);
    gp_generator gen("gen", sc_core::sc_time(12, sc_core::SC_US)), idle("idle", sc_core::SC_ZERO_TIME);
    gp_sink mac_a("mac_a"), mac_b("mac_b");
    gen.out.bind(a.gp_in);
    a.frame_out.bind(l0.a_in);
    l0.a_out.bind(sw.rx(0));
    sw.tx(0).bind(l0.b_in);
    l0.b_out.bind(a.frame_in);
    a.gp_out.bind(mac_a.in);
    idle.out.bind(b.gp_in);
    b.frame_out.bind(l1.a_in);
    l1.a_out.bind(sw.rx(1));
    sw.tx(1).bind(l1.b_in);
    l1.b_out.bind(b.frame_in);
    b.gp_out.bind(mac_b.in);
    gen.frames = {image(1, 0, 3, ecn_ce, 1500), image(1, 0, 0, ecn_not_ect, 64), image(1, 0, 6, ecn_ect1, 9000)};
    std::vector<unsigned char> junk(100, 0xAB);
    gen.frames.push_back(junk);
    ctx.run_until(200000000ull);   // 200 us

    ASSERT_EQ(mac_b.got.size(), 3u);
    // frame 1 leaves at 0: 12 us on l0 + 1 us, store and forward, 12 us on l1 + 1 us: last bit at 26 us
    EXPECT_EQ(mac_b.got[0].t_ps, 26000000u);
    // frame 2 (64 B, 0.512 us) leaves at 12 us and is at the switch at 13.512 us, where port 1 sends frame 1
    // until 25 us: then 0.512 + 1 us to b, 26.512 us
    EXPECT_EQ(mac_b.got[1].t_ps, 26512000u);
    // frame 3 (9000 B, 72 us) leaves at 24 us: 24 + 72 + 1 = 97 us at the switch, + 73 us: 170 us
    EXPECT_EQ(mac_b.got[2].t_ps, 170000000u);
    // metadata both ways: the image's header, and the extension
    const uint8_t prio[3] = {3, 0, 6}, ecn[3] = {ecn_ce, ecn_not_ect, ecn_ect1};
    const uint32_t bytes[3] = {1500, 64, 9000};
    for (size_t i = 0; i < 3; ++i) {
        const auto& r = mac_b.got[i];
        EXPECT_EQ(r.bytes.size(), bytes[i]);
        frame_fields m;
        pause_fields p{};
        ASSERT_TRUE(gp_bridge::decode(r.bytes.data(), static_cast<uint32_t>(r.bytes.size()), m, p));
        EXPECT_EQ(m.dst, 1);
        EXPECT_EQ(m.prio, prio[i]);
        EXPECT_EQ(m.ecn, ecn[i]);
        ASSERT_TRUE(r.has_ext);
        EXPECT_EQ(r.meta.prio, prio[i]);
        EXPECT_EQ(r.meta.bytes, bytes[i]);
    }
    EXPECT_TRUE(mac_a.got.empty());
    // the frame image of no known format was refused, the others accepted
    ASSERT_EQ(gen.status.size(), 4u);
    EXPECT_EQ(gen.status[0], tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(gen.status[3], tlm::TLM_GENERIC_ERROR_RESPONSE);
    EXPECT_EQ(a.frames_in(), 3u);
    EXPECT_EQ(a.refused(), 1u);
    EXPECT_EQ(b.frames_out(), 3u);
    EXPECT_EQ(pool.live(), 0u);
}

TEST(GpBridge, AForeignPauseStopsTheSwitchPort) {
    sim_context ctx;
    frame_pool pool;
    event_domain events("events", true);
    ethernet_switch sw("sw", 1, 1, buffer_config{}, pool, events);
    sw.set_route(0, 0);
    sw.set_port_rate(0, 1000000000ull);   // quanta into time
    gp_bridge a("a", pool);
    gp_generator gen("gen", sc_core::SC_ZERO_TIME);
    gp_sink mac("mac");
    gen.out.bind(a.gp_in);
    a.frame_out.bind(sw.rx(0));   // directly: the delay is the last bit's arrival
    sw.tx(0).bind(a.frame_in);
    a.gp_out.bind(mac.in);
    frame_pool tmp;
    frame* pf = make_pause_frame(tmp, 0xff, 0xffff, 0);
    std::vector<unsigned char> img;
    gp_bridge::encode(*pf, img);
    tmp.release(pf);
    gen.frames = {img};
    ctx.run_until(1000000ull);
    EXPECT_EQ(sw.egress(0).pause_frames_received(), 1u);
    EXPECT_EQ(sw.egress(0).paused(), 0x7f);   // every priority but the control one, for 65535 x 512 ns
    // a read is refused
    tlm::tlm_generic_payload gp;
    unsigned char buf[64] = {};
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_data_ptr(buf);
    gp.set_data_length(64);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    gen.out->b_transport(gp, d);
    EXPECT_EQ(gp.get_response_status(), tlm::TLM_COMMAND_ERROR_RESPONSE);
    gp.set_command(tlm::TLM_WRITE_COMMAND);
    gp.set_data_length(10);
    gen.out->b_transport(gp, d);
    EXPECT_EQ(gp.get_response_status(), tlm::TLM_BURST_ERROR_RESPONSE);
}
