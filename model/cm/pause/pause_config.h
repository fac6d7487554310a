// SPDX-License-Identifier: Apache-2.0
// Switch-side 802.3x PAUSE / 802.1Qbb PFC generation (docs/spec/pause-pfc.md, generation at the switch): every buffered byte
// is charged to the (ingress port, class) it arrived on - class = priority for PFC, one class for PAUSE - until
// its transmission starts. At XOFF bytes the switch sends a PAUSE (pause_quanta) out of that ingress port and
// repeats it at half its duration while still above XON; at XON or below it sends XON (pause time 0).
//
// Headroom: what still arrives after XOFF is decided must fit above XOFF. Per ingress port:
//   2 x rate x propagation delay (data still on the wire, and the PAUSE on its way back)
//   + 2 x MTU (the peer may have just started a maximum frame; ours may wait behind one we are sending)
//   + response time: the IEEE 802.3 31B.3.7 budget in quanta (1 Gb/s 2, 10 Gb/s 67, 25 Gb/s 80, 40 Gb/s 118,
//     50 Gb/s 147, 100 Gb/s 394, 200 Gb/s 453, 400 Gb/s 905) x 512 bits.
// A frame that would take an ingress class above ingress_limit_bytes is dropped (drop reason ingress_limit);
// with the check passing that never happens.
#ifndef CMSWITCH_MODEL_CM_PAUSE_PAUSE_CONFIG_H
#define CMSWITCH_MODEL_CM_PAUSE_PAUSE_CONFIG_H

#include <cstdint>
#include <string>
#include <vector>

namespace cmswitch {

struct pause_config {
    std::string mode = "none";   // none | pause (802.3x, all priorities) | pfc (802.1Qbb, per priority)
    uint64_t xoff_bytes = 130 * 1000;   // Atikoglu & Prabhakar 2008: Watermark_hi 130 KB
    uint64_t xon_bytes = 110 * 1000;   // Atikoglu & Prabhakar 2008: Watermark_lo 110 KB
    uint32_t pause_quanta = 65535;   // pause time of each XOFF frame
    uint8_t pfc_classes = 0x7f;   // pfc: the lossless priorities (control priority 7 never pauses)
    uint32_t mtu_bytes = 1500;
    uint64_t ingress_limit_bytes = 0;   // per ingress class; 0: XOFF + the required headroom of the port
    // Dynamic XOFF (shared buffers): an ingress class pauses its peer when its bytes reach xoff_alpha x the free
    // bytes of the switch's shared pool (headroom not counted), and resumes 2 MTU below that; 0: static XOFF/XON.
    double xoff_alpha = 0;
    // Dynamic XOFF per ingress priority group (8 entries; empty: xoff_alpha for every group).
    std::vector<double> xoff_alpha_by_pg;
    // Ingress reserved (guaranteed) space of every (ingress port, lossless priority group): its first bytes,
    // carved out of the shared pool; the class pauses its peer only when its bytes reach this plus its XOFF
    // (static, or alpha x the free shared bytes). 0: none.
    uint64_t reserved_bytes = 0;
    // A shared headroom pool: bytes that arrive at a paused ingress class go to one pool of the switch, shared by
    // all its classes; a frame that does not fit is dropped (ingress_limit). 0: each port's own headroom above
    // a static XOFF (the per-port limit).
    uint64_t headroom_pool_bytes = 0;

    bool enabled() const { return mode != "none"; }
    bool dynamic_xoff() const { return xoff_alpha > 0 || !xoff_alpha_by_pg.empty(); }
};

// The IEEE 802.3 31B.3.7 response time in quanta for a port rate (the next listed rate at or above it).
uint32_t pause_response_quanta(uint64_t rate_bps);
// Headroom a port needs above XOFF (bytes).
uint64_t pause_headroom_bytes(uint64_t rate_bps, uint64_t delay_ps, uint32_t mtu_bytes);

// The default watermarks when `inputs` sending inputs share one egress port's buffer of port_buffer_bytes:
// each input's share (buffer / inputs) minus its headroom is its XOFF; XON is 2 MTU lower. The split is
// lossless only if XOFF leaves at least 3 MTU (min_xoff_bytes) below the share's headroom.
struct pause_split {
    uint64_t share_bytes;
    uint64_t headroom_bytes;
    uint64_t xoff_bytes;   // 0 when the headroom takes the whole share
    uint64_t xon_bytes;
    bool lossless;
};
pause_split split_port_buffer(uint64_t port_buffer_bytes, int inputs, uint64_t rate_bps, uint64_t delay_ps,
                              uint32_t mtu_bytes = 1500);
// XON for an XOFF when none is given: 2 MTU lower (0 if XOFF is smaller).
inline uint64_t default_xon_bytes(uint64_t xoff_bytes, uint32_t mtu_bytes = 1500) {
    return xoff_bytes > 2ull * mtu_bytes ? xoff_bytes - 2ull * mtu_bytes : 0;
}
// The smallest XOFF the model accepts as lossless: 3 MTU.
inline uint64_t min_xoff_bytes(uint32_t mtu_bytes = 1500) {
    return 3ull * mtu_bytes;
}

}   // namespace cmswitch
#endif
