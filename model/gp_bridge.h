// SPDX-License-Identifier: Apache-2.0
// A bridge between the TLM-2.0 generic payload (how other vendors' Ethernet models speak) and our frame protocol
// (model/frame_protocol.h), so that a switch of this model can be bound to a MAC, PHY or traffic generator
// written against tlm_generic_payload. Not a hardware block: the adapter an integrator puts on a link.
//
//   foreign initiator --gp--> [gp_in  gp_bridge  frame_out] --frames--> switch port / link
//   foreign target   <--gp--  [gp_out gp_bridge  frame_in ] <--frames-- switch port / link
//
// Payload. A write (TLM_WRITE_COMMAND) whose data is one Ethernet frame as it goes on the wire without preamble
// and inter-frame gap: data_length = the frame's bytes (64 .. 9216, as the model counts them). Its metadata comes
// from a gp_frame_extension if the payload carries one (the model's own fields: destination and source host,
// priority, ECN, flow, sequence, kind and the PAUSE/PFC fields), else from the bytes, by these conventions:
//   - destination / source MAC 02:00:00:00:hh:hh = host hhhh (big endian); 01:80:C2:00:00:01 = MAC control;
//   - an 802.1Q tag (TPID 0x8100) gives the priority (PCP); untagged frames have priority 0;
//   - EtherType 0x8808 with opcode 0x0001 is an 802.3x PAUSE (quanta at bytes 16-17 untagged), 0x0101 a PFC
//     (class-enable vector, then eight quanta);
//   - EtherType 0x0800: the ECN bits are the low two bits of the IPv4 TOS byte.
// Frames leaving the model are written both ways: the bytes by the same conventions (the rest of the frame is
// zero) and a gp_frame_extension with the full metadata, set on the payload for the call.
//
// Timing contract (TLM-2.0 loosely timed, blocking transport only):
//   - gp_in.b_transport(gp, delay): `delay` is an offset from the caller's sc_time_stamp() that the bridge
//     passes on unchanged with the frame, in our protocol's meaning: bound directly to a switch port, the time
//     the frame's last bit has arrived there; bound to an ethernet_link, the time its first bit leaves (the link
//     adds serialization and propagation, and the caller keeps to the line rate: the link does not queue). The
//     bridge copies what it needs and returns at once with TLM_OK_RESPONSE and `delay` unchanged; the payload
//     stays the caller's. A read, a length outside 64 .. 9216 bytes or a frame image it cannot read gets
//     TLM_COMMAND_ERROR_RESPONSE / TLM_BURST_ERROR_RESPONSE / TLM_GENERIC_ERROR_RESPONSE and is counted in
//     refused(). May be called from an SC_THREAD or an SC_METHOD.
//   - gp_out: the bridge calls the target's b_transport once per frame with a payload it owns (valid during the
//     call only) and `delay` = the offset from sc_time_stamp() at which the frame's last bit arrives: the model's
//     event domains may run ahead of the kernel (temporal decoupling), and that local offset is in the delay,
//     as the LT coding style does. The call comes from an SC_METHOD: the target must not wait(). A response
//     other than TLM_OK_RESPONSE counts the frame in rejected(); the frame is consumed either way.
#ifndef CMSWITCH_MODEL_GP_BRIDGE_H
#define CMSWITCH_MODEL_GP_BRIDGE_H

#include "model/frame_pool.h"
#include "model/frame_protocol.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <vector>

namespace cmswitch {

// The model's metadata of a frame on a generic payload (see the header comment). `meta.bytes` is ignored on the
// way in (data_length counts); every other field of frame_fields is taken as given.
struct gp_frame_extension : tlm::tlm_extension<gp_frame_extension> {
    frame_fields meta;
    pause_fields pause{};   // for meta.kind == frame_kind::pause
    tlm::tlm_extension_base* clone() const override { return new gp_frame_extension(*this); }
    void copy_from(const tlm::tlm_extension_base& other) override {
        *this = static_cast<const gp_frame_extension&>(other);
    }
};

// The MAC of host h by the bridge's convention (02:00:00:00:hh:hh), into 6 bytes.
void host_mac(uint16_t host, unsigned char* mac);

class gp_bridge : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<gp_bridge> gp_in;   // generic payload in ...
    frame_initiator_socket frame_out;   // ... frames out
    frame_target_socket<gp_bridge> frame_in;   // frames in ...
    tlm_utils::simple_initiator_socket<gp_bridge> gp_out;   // ... generic payload out

    gp_bridge(sc_core::sc_module_name name, frame_pool& pool);

    uint64_t frames_in() const { return m_in; }   // accepted on gp_in
    uint64_t refused() const { return m_refused; }   // refused on gp_in (an error response)
    uint64_t frames_out() const { return m_out; }   // delivered on gp_out
    uint64_t rejected() const { return m_rejected; }   // delivered on gp_out with an error response

    // The frame image the bridge writes for f (data_length = f.bytes), by the conventions above.
    static void encode(const frame& f, std::vector<unsigned char>& out);
    // Reads the metadata of a frame image; false if it is not one (too short, a destination of another format).
    static bool decode(const unsigned char* data, uint32_t length, frame_fields& meta, pause_fields& pause);

private:
    void from_gp(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    void from_frame(int, frame& f, sc_core::sc_time& delay);

    frame_pool& m_pool;
    std::vector<unsigned char> m_buf;
    tlm::tlm_generic_payload m_gp;
    gp_frame_extension m_ext;
    uint64_t m_in = 0, m_refused = 0, m_out = 0, m_rejected = 0;
};

}   // namespace cmswitch
#endif
