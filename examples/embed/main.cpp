// SPDX-License-Identifier: Apache-2.0
// Embedding a cmswitch switch in your own SystemC platform: your sc_main, your modules, our switch.
//
// Two traffic generators of "another vendor" speak the TLM-2.0 generic payload; each sits behind a gp_bridge
// and a 10 Gb/s link on a port of a 3-port cmswitch switch and sends 1500-byte frames at line rate to the
// device on port 2 (a 2:1 incast), whose MAC is again a generic-payload target. The switch's output buffer is
// 64 KB per port, drop-tail: half the offered frames are dropped once it fills. Prints what arrived and what the
// switch counted.
#include <model/ethernet_link.h>
#include <model/event_domain.h>
#include <model/frame_pool.h>
#include <model/gp_bridge.h>
#include <model/switch/ethernet_switch.h>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

using namespace sc_core;

// Your traffic generator: one frame image per serialization time, to host `dst`, from host `src`.
struct generator : sc_module {
    SC_HAS_PROCESS(generator);
    tlm_utils::simple_initiator_socket<generator> out;
    generator(sc_module_name n, uint16_t src, uint16_t dst, int frames) : sc_module(n), out("out"), m_frames(frames) {
        cmswitch::frame f;
        static_cast<cmswitch::frame_fields&>(f) = cmswitch::frame_fields{};
        f.src = src;
        f.dst = dst;
        f.bytes = 1500;
        cmswitch::gp_bridge::encode(f, m_image);   // the bridge's header convention (see gp_bridge.h)
        SC_THREAD(run);
    }
    void run() {
        const sc_time ser(1.2, SC_US);   // 1500 B at 10 Gb/s
        for (int i = 0; i < m_frames; ++i) {
            tlm::tlm_generic_payload gp;
            gp.set_command(tlm::TLM_WRITE_COMMAND);
            gp.set_data_ptr(m_image.data());
            gp.set_data_length(static_cast<unsigned>(m_image.size()));
            gp.set_streaming_width(static_cast<unsigned>(m_image.size()));
            sc_time delay = SC_ZERO_TIME;   // the first bit leaves now (the bridge feeds a link)
            out->b_transport(gp, delay);
            wait(ser);
        }
    }
    int m_frames;
    std::vector<unsigned char> m_image;
};

// Your MAC: counts the frames whose last bit has arrived, and when the last one did.
struct mac : sc_module {
    tlm_utils::simple_target_socket<mac> in;
    uint64_t frames = 0, bytes = 0;
    sc_time last;
    explicit mac(sc_module_name n) : sc_module(n), in("in") { in.register_b_transport(this, &mac::b_transport); }
    void b_transport(tlm::tlm_generic_payload& gp, sc_time& delay) {   // called from an SC_METHOD: no wait()
        ++frames;
        bytes += gp.get_data_length();
        last = sc_time_stamp() + delay;
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

int sc_main(int, char*[]) {
    using namespace cmswitch;
    frame_pool pool;   // every frame of the switch comes from here
    event_domain events("events", false);   // the switch's event queue (not decoupled: your processes run too)
    buffer_config buffer;
    buffer.policy = "static";
    buffer.port_limit_bytes = 64 * 1024;
    ethernet_switch sw("switch0", 3, 3, buffer, pool, events);
    for (int host = 0; host < 3; ++host)
        sw.set_route(host, host);   // host h is on port h

    const uint64_t rate = 10000000000ull, delay_ps = 1000000;   // 10 Gb/s, 1 us
    std::vector<std::unique_ptr<ethernet_link>> links;
    std::vector<std::unique_ptr<gp_bridge>> bridges;
    std::vector<std::unique_ptr<mac>> macs;
    generator gen0("gen0", 0, 2, 1000), gen1("gen1", 1, 2, 1000);
    generator idle("idle", 2, 0, 0);
    generator* gens[3] = {&gen0, &gen1, &idle};
    for (int p = 0; p < 3; ++p) {
        const std::string i = std::to_string(p);
        sw.set_port_rate(p, rate);
        links.emplace_back(new ethernet_link(("link" + i).c_str(), rate, delay_ps));
        bridges.emplace_back(new gp_bridge(("bridge" + i).c_str(), pool));
        macs.emplace_back(new mac(("mac" + i).c_str()));
        gens[p]->out.bind(bridges[p]->gp_in);
        bridges[p]->frame_out.bind(links[p]->a_in);
        links[p]->a_out.bind(sw.rx(p));
        sw.tx(p).bind(links[p]->b_in);
        links[p]->b_out.bind(bridges[p]->frame_in);
        bridges[p]->gp_out.bind(macs[p]->in);
    }

    sc_start(sc_time(5, SC_MS));

    const auto& c = sw.counters(2);
    uint64_t drops = 0;
    for (uint64_t d : c.drop_frames)
        drops += d;
    std::printf("offered %llu frames, port 2 delivered %llu (%llu bytes, last at %.3f us), dropped %llu\n",
                static_cast<unsigned long long>(bridges[0]->frames_in() + bridges[1]->frames_in()),
                static_cast<unsigned long long>(macs[2]->frames), static_cast<unsigned long long>(macs[2]->bytes),
                macs[2]->last.to_seconds() * 1e6, static_cast<unsigned long long>(drops));
    const bool conserved = bridges[0]->frames_in() + bridges[1]->frames_in() == macs[2]->frames + drops;
    std::printf("conservation: %s\n", conserved ? "ok" : "FAILED");
    return conserved ? 0 : 1;
}
