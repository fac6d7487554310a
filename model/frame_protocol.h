// SPDX-License-Identifier: Apache-2.0
// Our TLM-2.0 protocol type: the payload is a pooled frame, not the generic payload with address hacks.
//
// Contract of b_transport(frame& f, sc_time& delay) on every frame socket (one timing path, in the link only):
//  - the transmitter calls it at the instant the first bit of f leaves, with delay == 0;
//  - the link adds serialization (bytes * 8 / rate) and propagation delay and forwards the call, so the receiver
//    sees delay == time from now at which the last bit arrives, and schedules the frame in its own queue;
//  - on return the transmitter finds delay == the serialization time: it is busy until now + delay.
//  Ownership of f passes to the receiver with the call.
#ifndef CMSWITCH_MODEL_FRAME_PROTOCOL_H
#define CMSWITCH_MODEL_FRAME_PROTOCOL_H

#include "model/frame.h"

#include <memory>
#include <systemc>
#include <tlm>
#include <utility>

namespace cmswitch {

struct frame_protocol {
    typedef frame tlm_payload_type;
    typedef tlm::tlm_phase tlm_phase_type;
};

using frame_fw_if = tlm::tlm_fw_transport_if<frame_protocol>;
using frame_bw_if = tlm::tlm_bw_transport_if<frame_protocol>;

// Target socket calling MODULE::fn(tag, frame&, delay) for b_transport, the only call this protocol uses.
template <typename MODULE>
class frame_target_socket final : public tlm::tlm_target_socket<32, frame_protocol>, private frame_fw_if {
public:
    using callback = void (MODULE::*)(int, frame&, sc_core::sc_time&);
    explicit frame_target_socket(const char* name) : tlm::tlm_target_socket<32, frame_protocol>(name) {
        bind(static_cast<frame_fw_if&>(*this));
    }
    void register_b_transport(MODULE* mod, callback fn, int tag = 0) {
        m_mod = mod;
        m_fn = fn;
        m_tag = tag;
    }

private:
    void b_transport(frame& f, sc_core::sc_time& delay) override { (m_mod->*m_fn)(m_tag, f, delay); }
    tlm::tlm_sync_enum nb_transport_fw(frame&, tlm::tlm_phase&, sc_core::sc_time&) override {
        SC_REPORT_ERROR("cmswitch/frame_protocol", "nb_transport_fw is not part of the frame protocol");
        return tlm::TLM_COMPLETED;
    }
    bool get_direct_mem_ptr(frame&, tlm::tlm_dmi&) override { return false; }
    unsigned int transport_dbg(frame&) override { return 0; }

    MODULE* m_mod = nullptr;
    callback m_fn = nullptr;
    int m_tag = 0;
};

// Initiator socket of a transmitter; frames go out with (*socket)->b_transport(f, delay).
class frame_initiator_socket final : public tlm::tlm_initiator_socket<32, frame_protocol>, private frame_bw_if {
public:
    explicit frame_initiator_socket(const char* name) : tlm::tlm_initiator_socket<32, frame_protocol>(name) {
        bind(static_cast<frame_bw_if&>(*this));
    }

private:
    tlm::tlm_sync_enum nb_transport_bw(frame&, tlm::tlm_phase&, sc_core::sc_time&) override {
        SC_REPORT_ERROR("cmswitch/frame_protocol", "nb_transport_bw is not part of the frame protocol");
        return tlm::TLM_COMPLETED;
    }
    void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}
};

// An object (a socket) made after `parent`'s constructor, named and parented under it as if made there
// (parent.name); the hierarchy is restored whether or not its constructor throws.
template <typename T, typename... Args>
std::unique_ptr<T> make_child(sc_core::sc_module* parent, Args&&... args) {
    sc_core::sc_simcontext* ctx = sc_core::sc_get_curr_simcontext();
    ctx->hierarchy_push(parent);
    struct pop {
        sc_core::sc_simcontext* c;
        ~pop() { c->hierarchy_pop(); }
    } restore{ctx};
    return std::make_unique<T>(std::forward<Args>(args)...);
}

// Picoseconds are the model's time unit; every simulation context runs with a 1 ps resolution.
//
// Model time. Blocks read the time of the event they are handling with now_ps(): the event_domain that runs
// them sets it. A temporally decoupled domain (TLM-2.0 loosely-timed style, event_domain.h) runs ahead of the
// kernel's sc_time_stamp() up to the next activity of any other process, so model code must never read
// sc_time_stamp() itself. Processes outside the domains (samplers) read sc_time_stamp().
//
// Process-wide, like SystemC's own current context: one simulation runs at a time per process
// (platform/sim_context.h holds the process's simulation lock for the whole build, run and teardown).
namespace model_clock {
inline uint64_t now = 0;   // time of the event being handled
inline uint64_t run_end = UINT64_MAX;   // end of the current sc_start (decoupling horizon)
// Asked by the event domains every 65,536 events when set (a front end's Ctrl-C check); true stops dispatching
// and sets `interrupted`, which the run loop turns into run_interrupted.
inline bool (*interrupt_poll)() = nullptr;
inline bool interrupted = false;
}   // namespace model_clock
inline uint64_t now_ps() {
    return model_clock::now;
}
inline sc_core::sc_time ps_time(uint64_t ps) {
    return sc_core::sc_time::from_value(ps);
}

}   // namespace cmswitch
#endif
