// SPDX-License-Identifier: Apache-2.0
// Test benches for single blocks: a capture receiver that records when each frame's last bit arrives, and
// helpers to make frames. Every test builds its bench inside its own sim_context.
#ifndef CMSWITCH_TESTS_TESTING_H
#define CMSWITCH_TESTS_TESTING_H

#include "model/ethernet_link.h"
#include "model/event_domain.h"
#include "model/frame_pool.h"
#include "model/frame_protocol.h"
#include "model/nic/host_nic.h"
#include "model/switch/ethernet_switch.h"
#include "platform/sim_context.h"

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace cmswitch::testing {

struct captured {
    uint64_t arrival_ps;   // when the last bit arrived
    frame copy;
};

// Receives frames on `rx`, records them and returns them to the pool.
class capture : public sc_core::sc_module {
public:
    frame_target_socket<capture> rx{"rx"};
    capture(sc_core::sc_module_name name, frame_pool& pool) : sc_module(name), m_pool(pool) {
        rx.register_b_transport(this, &capture::receive);
    }
    std::vector<captured> frames;

private:
    void receive(int, frame& f, sc_core::sc_time& delay) {
        frames.push_back({now_ps() + delay.value(), f});
        m_pool.release(&f);
    }
    frame_pool& m_pool;
};

// Sends frames into a target socket from outside any block (at elaboration or from a test process).
class injector : public sc_core::sc_module {
public:
    frame_initiator_socket tx{"tx"};
    explicit injector(sc_core::sc_module_name name) : sc_module(name) {}
    void send(frame* f, uint64_t delay_ps = 0) {
        sc_core::sc_time d = ps_time(delay_ps);
        tx->b_transport(*f, d);
    }
};

inline frame* make_frame(frame_pool& pool, uint32_t bytes, uint16_t dst = 0, uint8_t prio = 0, uint64_t seq = 0) {
    frame* f = pool.acquire();
    f->bytes = bytes;
    f->dst = dst;
    f->prio = prio;
    f->seq = seq;
    return f;
}

// A host NIC with `queue_bytes` of queue on a link of `delay_ps` (1 Gbps unless given) into a capture, an injector
// on the way back; its own simulation context.
struct nic_on_a_link {
    sim_context ctx;
    frame_pool pool;
    event_domain events{"events", true};
    host_nic nic;
    ethernet_link ln;
    capture cap{"cap", pool};
    injector inj{"inj"};
    nic_on_a_link(uint64_t queue_bytes, uint64_t delay_ps, uint64_t rate_bps = 1000000000ull)
        : nic("nic", 0, queue_bytes, pool, events), ln("link", rate_bps, delay_ps) {
        nic.tx().bind(ln.a_in);
        ln.a_out.bind(cap.rx);
        inj.tx.bind(ln.b_in);
        ln.b_out.bind(nic.rx());
    }
};

// A 2-port switch's port i fed by an injector in<i> and leading to a capture out<i>, over 1 Gb/s links without
// delay (an injector bypasses serialization on its side).
struct two_port_wiring {
    injector in0{"in0"}, in1{"in1"};
    capture out0, out1;
    ethernet_link l0{"l0", 1000000000ull, 0}, l1{"l1", 1000000000ull, 0};

    two_port_wiring(ethernet_switch& sw, frame_pool& pool) : out0("out0", pool), out1("out1", pool) {
        in0.tx.bind(l0.a_in);
        l0.a_out.bind(sw.rx(0));
        sw.tx(0).bind(l0.b_in);
        l0.b_out.bind(out0.rx);
        in1.tx.bind(l1.a_in);
        l1.a_out.bind(sw.rx(1));
        sw.tx(1).bind(l1.b_in);
        l1.b_out.bind(out1.rx);
    }
    // Hands f to the switch's port `port` now.
    void inject(int port, frame* f) {
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        (port == 0 ? in0 : in1).tx->b_transport(*f, d);
    }
};

// Resident set size of this process, bytes.
// A frame of `bytes` of priority prio from in_port, straight into a buffer's admission (no switch); its release.
inline drop_reason admit_bytes(buffer_manager& b, int port, int queue, uint32_t bytes, int in_port = 0,
                               uint8_t prio = 0) {
    frame f;
    f.bytes = bytes;
    f.prio = prio;
    return b.admit(in_port, port, queue, f);
}
inline void release_bytes(buffer_manager& b, int port, int queue, uint32_t bytes, int in_port = 0, uint8_t prio = 0) {
    frame f;
    f.bytes = bytes;
    f.prio = prio;
    f.ingress = static_cast<uint16_t>(in_port);
    b.release(port, queue, f);
}

inline uint64_t rss_bytes() {
    std::ifstream in("/proc/self/statm");
    uint64_t pages = 0, resident = 0;
    in >> pages >> resident;
    return resident * 4096;
}

}   // namespace cmswitch::testing
#endif
