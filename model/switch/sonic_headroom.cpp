// SPDX-License-Identifier: Apache-2.0
#include "model/switch/sonic_headroom.h"

#include <cmath>

namespace cmswitch {

namespace {
// IEEE 802.3 31B.3.7 pause quanta per operating speed (Mb/s), as SONiC lists them; 0 for a speed not listed
uint32_t listed_quanta(uint64_t speed_mbps) {
    struct row {
        uint64_t mbps;
        uint32_t quanta;
    };
    static const row table[] = {{100, 1},     {1000, 2},     {10000, 67},   {25000, 80},   {40000, 118},
                                {50000, 147}, {100000, 394}, {200000, 453}, {400000, 905}, {800000, 905}};
    for (const row& r : table)
        if (r.mbps == speed_mbps)
            return r.quanta;
    return 0;
}

double ceil_1024(double x) {
    return std::ceil(x / 1024) * 1024;
}
}   // namespace

sonic_headroom sonic_headroom_bytes(uint64_t speed_bps, double cable_m, const sonic_headroom_inputs& in) {
    const double speed = static_cast<double>(speed_bps) / 1e6;   // Mb/s
    const double cell = in.cell_bytes;
    // 1-2: how many bytes of buffer a byte of the lossless traffic may take
    const double worst_case_factor = cell > 128 ? cell / 64 : (cell > 0 ? 2 * cell / (1 + cell) : 1.0);
    const double cell_occupancy = (100 - in.small_packet_percent + in.small_packet_percent * worst_case_factor) / 100;
    // 3: what the peer still sends after it received the XOFF
    const uint32_t quanta = listed_quanta(static_cast<uint64_t>(std::llround(speed)));
    const double peer_response = quanta ? quanta * 512.0 / 8 : in.peer_response_kb * 1024;
    // 4-5: in flight on the cable (both ways) and in a gearbox
    const double bytes_on_cable = 2 * cable_m * speed * 1e9 / sonic_cable_speed_mps / (8 * 1024);
    const double bytes_on_gearbox = in.gearbox_delay_ns > 0 ? speed * in.gearbox_delay_ns / (8 * 1024) : 0;
    // 6
    double pipeline_latency = in.pipeline_latency_kb * 1024;
    double speed_overhead = 0;
    if (in.eight_lanes) {
        pipeline_latency = pipeline_latency * 2 - 1024;
        speed_overhead = in.port_mtu;
    }
    // 7-10
    const double propagation =
        in.port_mtu + bytes_on_cable + 2 * bytes_on_gearbox + in.mac_phy_delay_kb * 1024 + peer_response;
    sonic_headroom h;
    const double xoff = ceil_1024(in.lossless_mtu + propagation * cell_occupancy);
    const double xon = ceil_1024(pipeline_latency);
    h.xoff = static_cast<uint64_t>(xoff);
    h.xon = static_cast<uint64_t>(xon);
    h.size = static_cast<uint64_t>(in.shared_headroom_pool ? xon : ceil_1024(xoff + xon + speed_overhead));
    return h;
}

}   // namespace cmswitch
