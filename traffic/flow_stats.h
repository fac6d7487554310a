// SPDX-License-Identifier: Apache-2.0
#ifndef CMSWITCH_TRAFFIC_FLOW_STATS_H
#define CMSWITCH_TRAFFIC_FLOW_STATS_H

#include <cstdint>

namespace cmswitch {

// Per-flow counters kept by a flow's source and sink.
struct flow_stats {
    uint32_t flow = 0;
    int src = 0, dst = 0;
    uint64_t sent_frames = 0, sent_bytes = 0, sent_payload = 0;   // handed to the NIC
    uint64_t received_frames = 0, received_bytes = 0, received_payload = 0;   // arrived at the sink
    uint64_t first_rx_ps = 0, last_rx_ps = 0;
};

}   // namespace cmswitch
#endif
