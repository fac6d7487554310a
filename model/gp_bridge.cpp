// SPDX-License-Identifier: Apache-2.0
#include "model/gp_bridge.h"

#include "model/control_frames.h"

#include <algorithm>
#include <cstring>

namespace cmswitch {

namespace {
constexpr unsigned char mac_control[6] = {0x01, 0x80, 0xC2, 0x00, 0x00, 0x01};
constexpr uint16_t tpid_8021q = 0x8100, ethertype_ipv4 = 0x0800, ethertype_mac_control = 0x8808;
constexpr uint16_t opcode_pause = 0x0001, opcode_pfc = 0x0101;

void put16(unsigned char* p, uint16_t v) {
    p[0] = static_cast<unsigned char>(v >> 8);
    p[1] = static_cast<unsigned char>(v);
}
uint16_t get16(const unsigned char* p) {
    return static_cast<uint16_t>((p[0] << 8) | p[1]);
}
}   // namespace

void host_mac(uint16_t host, unsigned char* mac) {
    const unsigned char m[6] = {
        0x02, 0x00, 0x00, 0x00, static_cast<unsigned char>(host >> 8), static_cast<unsigned char>(host)};
    std::memcpy(mac, m, 6);
}

gp_bridge::gp_bridge(sc_core::sc_module_name name, frame_pool& pool)
    : sc_module(name), gp_in("gp_in"), frame_out("frame_out"), frame_in("frame_in"), gp_out("gp_out"), m_pool(pool) {
    gp_in.register_b_transport(this, &gp_bridge::from_gp);
    frame_in.register_b_transport(this, &gp_bridge::from_frame);
}

void gp_bridge::encode(const frame& f, std::vector<unsigned char>& out) {
    out.assign(f.bytes, 0);
    unsigned char* p = out.data();
    if (f.kind == frame_kind::pause) {   // MAC control, untagged
        std::memcpy(p, mac_control, 6);
        host_mac(f.src, p + 6);
        put16(p + 12, ethertype_mac_control);
        if (f.ctl.pause.class_enable == 0xff) {   // 802.3x
            put16(p + 14, opcode_pause);
            put16(p + 16, f.ctl.pause.quanta);
        } else {   // 802.1Qbb: the vector, then a quanta per class
            put16(p + 14, opcode_pfc);
            put16(p + 16, f.ctl.pause.class_enable);
            for (int c = 0; c < 8; ++c)
                put16(p + 18 + 2 * c, ((f.ctl.pause.class_enable >> c) & 1) ? f.ctl.pause.quanta : 0);
        }
        return;
    }
    host_mac(f.dst, p);
    host_mac(f.src, p + 6);
    put16(p + 12, tpid_8021q);
    put16(p + 14, static_cast<uint16_t>(f.prio << 13));   // PCP, DEI 0, VLAN 0
    put16(p + 16, ethertype_ipv4);
    p[18] = 0x45;   // IPv4, 20-byte header
    p[19] = static_cast<unsigned char>(f.ecn & 3);   // DSCP 0, ECN
}

bool gp_bridge::decode(const unsigned char* data, uint32_t length, frame_fields& meta, pause_fields& pause) {
    if (length < min_frame_bytes)
        return false;
    meta = frame_fields{};
    meta.bytes = length;
    if (std::memcmp(data, mac_control, 6) == 0) {
        if (get16(data + 12) != ethertype_mac_control)
            return false;
        const uint16_t op = get16(data + 14);
        meta.kind = frame_kind::pause;
        meta.prio = control_priority;
        meta.src = meta.dst = switch_address;
        if (op == opcode_pause) {
            pause = pause_fields{0xff, get16(data + 16)};
        } else if (op == opcode_pfc) {
            const auto vec = static_cast<uint8_t>(get16(data + 16));
            uint16_t quanta = 0;   // the model pauses every enabled class for one time: the longest given
            for (int c = 0; c < 8; ++c)
                if ((vec >> c) & 1)
                    quanta = std::max(quanta, get16(data + 18 + 2 * c));
            pause = pause_fields{vec, quanta};
        } else {
            return false;
        }
        return true;
    }
    if (data[0] != 0x02 || data[1] || data[2] || data[3] || data[6] != 0x02 || data[7] || data[8] || data[9])
        return false;   // not the bridge's host MAC format
    meta.dst = get16(data + 4);
    meta.src = get16(data + 10);
    uint16_t type = get16(data + 12);
    const unsigned char* l3 = data + 14;
    if (type == tpid_8021q) {
        meta.prio = static_cast<uint8_t>(get16(data + 14) >> 13);
        type = get16(data + 16);
        l3 = data + 18;
    }
    if (type == ethertype_ipv4)
        meta.ecn = static_cast<uint8_t>(l3[1] & 3);
    meta.kind = frame_kind::udp;
    meta.payload = length;
    return true;
}

void gp_bridge::from_gp(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    if (gp.get_command() != tlm::TLM_WRITE_COMMAND) {
        gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        ++m_refused;
        return;
    }
    const uint32_t length = gp.get_data_length();
    if (length < min_frame_bytes || length > max_frame_bytes || !gp.get_data_ptr()) {
        gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
        ++m_refused;
        return;
    }
    frame_fields meta;
    pause_fields pause{};
    gp_frame_extension* ext = nullptr;
    gp.get_extension(ext);
    if (ext) {
        meta = ext->meta;
        meta.bytes = length;
        pause = ext->pause;
    } else if (!decode(gp.get_data_ptr(), length, meta, pause)) {
        gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
        ++m_refused;
        return;
    }
    frame* f = m_pool.acquire();
    static_cast<frame_fields&>(*f) = meta;
    f->next = nullptr;
    f->ingress = 0xffff;
    if (f->kind == frame_kind::pause)
        f->ctl.pause = pause;
    // the call comes from outside the model's event domains: its time is the kernel's
    const uint64_t saved = model_clock::now;
    model_clock::now = sc_core::sc_time_stamp().value();
    f->created_ps = model_clock::now;
    sc_core::sc_time d = delay;
    frame_out->b_transport(*f, d);   // f now belongs to the receiver
    model_clock::now = saved;
    ++m_in;
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void gp_bridge::from_frame(int, frame& f, sc_core::sc_time& delay) {
    encode(f, m_buf);
    m_ext.meta = f;
    m_ext.meta.next = nullptr;
    m_ext.pause = f.kind == frame_kind::pause ? f.ctl.pause : pause_fields{};
    m_gp.set_command(tlm::TLM_WRITE_COMMAND);
    m_gp.set_address(0);
    m_gp.set_data_ptr(m_buf.data());
    m_gp.set_data_length(static_cast<unsigned int>(m_buf.size()));
    m_gp.set_streaming_width(static_cast<unsigned int>(m_buf.size()));
    m_gp.set_byte_enable_ptr(nullptr);
    m_gp.set_dmi_allowed(false);
    m_gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    m_gp.set_extension(&m_ext);
    // the local time offset of the event domain that runs this call, plus the link's delay to the last bit
    const uint64_t kernel = sc_core::sc_time_stamp().value();
    const uint64_t offset = now_ps() > kernel ? now_ps() - kernel : 0;
    sc_core::sc_time d = ps_time(offset) + delay;
    gp_out->b_transport(m_gp, d);
    m_gp.clear_extension(&m_ext);
    if (m_gp.get_response_status() != tlm::TLM_OK_RESPONSE)
        ++m_rejected;
    ++m_out;
    m_pool.release(&f);
}

}   // namespace cmswitch
