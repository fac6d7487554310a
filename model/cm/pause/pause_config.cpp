// SPDX-License-Identifier: Apache-2.0
#include "model/cm/pause/pause_config.h"

#include "model/types.h"

namespace cmswitch {

uint32_t pause_response_quanta(uint64_t rate_bps) {
    struct row {
        uint64_t rate;
        uint32_t quanta;
    };
    static const row table[] = {{100000000ull, 1},      {1000000000ull, 2},     {10000000000ull, 67},
                                {25000000000ull, 80},   {40000000000ull, 118},  {50000000000ull, 147},
                                {100000000000ull, 394}, {200000000000ull, 453}, {400000000000ull, 905}};
    for (const row& r : table)
        if (rate_bps <= r.rate)
            return r.quanta;
    return 905;
}

uint64_t pause_headroom_bytes(uint64_t rate_bps, uint64_t delay_ps, uint32_t mtu_bytes) {
    const uint128 wire_bits = static_cast<uint128>(rate_bps) * delay_ps * 2;   // both ways, bits x 1e12
    const uint64_t wire_bytes = static_cast<uint64_t>((wire_bits + 8000000000000ull - 1) / 8000000000000ull);
    const uint64_t response_bytes = static_cast<uint64_t>(pause_response_quanta(rate_bps)) * 512 / 8;
    return wire_bytes + 2ull * mtu_bytes + response_bytes;
}

pause_split split_port_buffer(uint64_t port_buffer_bytes, int inputs, uint64_t rate_bps, uint64_t delay_ps,
                              uint32_t mtu_bytes) {
    pause_split p;
    p.share_bytes = inputs > 0 ? port_buffer_bytes / static_cast<uint64_t>(inputs) : port_buffer_bytes;
    p.headroom_bytes = pause_headroom_bytes(rate_bps, delay_ps, mtu_bytes);
    p.xoff_bytes = p.share_bytes > p.headroom_bytes ? p.share_bytes - p.headroom_bytes : 0;
    p.xon_bytes = default_xon_bytes(p.xoff_bytes, mtu_bytes);
    p.lossless = p.xoff_bytes >= min_xoff_bytes(mtu_bytes);
    return p;
}

}   // namespace cmswitch
