// SPDX-License-Identifier: Apache-2.0
// The PFC headroom of a lossless priority group as SONiC's dynamic buffer calculation sizes it (buffermgrd in
// dynamic mode; sonic-swss cfgmgr/buffer_headroom_mellanox.lua; the design: SONiC doc/qos/
// dynamically-headroom-calculation.md), beside the model's own rule (pause_config.h, pause_headroom_bytes: twice
// the bytes on the cable, 2 MTU and the 802.3 response time). The steps, for a port of speed S Mb/s and a cable
// of L metres:
//   1. worst_case_factor = cell / 64 when the cell is over 128 bytes, else 2 cell / (1 + cell);
//   2. cell_occupancy = (100 - p + p x worst_case_factor) / 100, p = the small-packet percentage: how many bytes
//      of buffer a byte of small-packet traffic takes (a 64-byte frame in a 254-byte cell takes 4);
//   3. peer_response = quanta(S) x 512 / 8 bytes, the 802.3 31B.3.7 quanta (100M 1, 1G 2, 10G 67, 25G 80, 40G 118,
//      50G 147, 100G 394, 200G 453, 400G and 800G 905); an unlisted speed takes peer_response_kb x 1024;
//   4. bytes_on_cable = 2 L S 1e9 / 1.98e8 / (8 x 1024) (the round trip at 1.98e8 m/s; SONiC scales Mb/s by 1e9
//      and bytes by 1024, which gives 1000/1024 of the true bytes: kept, to equal SONiC's numbers);
//   5. bytes_on_gearbox = S x gearbox_ns / (8 x 1024), 0 without a gearbox;
//   6. an 8-lane port: pipeline_latency = 2 pipeline_latency - 1024 and speed_overhead = port MTU (else 0);
//   7. propagation = port_mtu + bytes_on_cable + 2 bytes_on_gearbox + mac_phy_delay + peer_response;
//   8. xoff = ceil_1024(lossless_mtu + propagation x cell_occupancy);
//   9. xon = ceil_1024(pipeline_latency);
//  10. size = xon with a shared headroom pool, else ceil_1024(xoff + xon + speed_overhead).
// pipeline_latency and mac_phy_delay are given in KB (x 1024), as SONiC's ASIC_TABLE holds them; its defaults for
// the NVIDIA Spectrum ASICs: pipeline_latency 18, mac_phy_delay 0.8, peer_response_time 3.8
// (sonic-buildimage files/build_templates/asic_table.j2). LOSSLESS_TRAFFIC_PATTERN's defaults: mtu 1024,
// small_packet_percentage 100; a port's MTU 9100.
#ifndef CMSWITCH_MODEL_SWITCH_SONIC_HEADROOM_H
#define CMSWITCH_MODEL_SWITCH_SONIC_HEADROOM_H

#include <cstdint>

namespace cmswitch {

// The speed of light in a cable that SONiC's calculation takes (m/s).
constexpr double sonic_cable_speed_mps = 1.98e8;

struct sonic_headroom_inputs {
    uint32_t cell_bytes = 0;   // the buffer's cell (0: byte-exact, a worst-case factor of 1)
    uint32_t port_mtu = 9100;
    uint32_t lossless_mtu = 1024;
    double small_packet_percent = 100;
    double pipeline_latency_kb = 18;
    double mac_phy_delay_kb = 0.8;
    double peer_response_kb = 3.8;   // for a speed the quanta table does not list
    double gearbox_delay_ns = 0;
    bool eight_lanes = false;
    bool shared_headroom_pool = false;
};

struct sonic_headroom {
    uint64_t xon = 0, xoff = 0, size = 0;   // bytes
};

sonic_headroom sonic_headroom_bytes(uint64_t speed_bps, double cable_m, const sonic_headroom_inputs& in);

}   // namespace cmswitch
#endif
