// SPDX-License-Identifier: Apache-2.0
// A switch's next-hop seam: the egress port a frame for a destination host leaves by (next_hop), from static
// routes, one per destination host, set while the network is built (set_route).
//
// The precondition the fast path relies on: routes are static for a run. The transmitter of every link into a
// switch looks a frame's egress port up in this table while it sends the frame (frame_sink::routes, read through
// table()), and schedules the arrival straight to that port, so a route changed once frames are on the wire would
// not reach them; set_route refuses a change once the simulation has started (model_error). A route that depends
// on the moment (adaptive routing, flowlet load balancing, packet spraying) is decided at the switch on arrival
// instead: a switch with such a policy gives its sinks no table (frame_sink::routes null), so that every frame
// arrives at the switch unrouted and next_hop decides there.
#ifndef CMSWITCH_MODEL_SWITCH_FORWARDING_TABLE_H
#define CMSWITCH_MODEL_SWITCH_FORWARDING_TABLE_H

#include "model/frame.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cmswitch {

class forwarding_table {
public:
    // num_hosts destinations, every one without a route (-1) until set_route; ports: the switch's (< 32768).
    forwarding_table(std::string owner, int num_hosts, int num_ports);
    // The route to dst_host. config_error for a host or port outside the switch's range; model_error once the
    // simulation runs (routes are static: see above).
    void set_route(int dst_host, int port);
    int route(int dst_host) const { return m_routes[static_cast<size_t>(dst_host)]; }
    // The egress port of f, or -1 (no route: the switch drops it as no_route).
    int next_hop(const frame& f) const { return f.dst < m_routes.size() ? m_routes[f.dst] : -1; }
    // The table itself, for the transmitters that resolve a frame's port as they send it (frame_sink).
    const int16_t* table() const { return m_routes.data(); }
    uint32_t size() const { return static_cast<uint32_t>(m_routes.size()); }

private:
    std::string m_owner;
    int m_ports;
    std::vector<int16_t> m_routes;   // by destination host: the egress port, -1 none
};

}   // namespace cmswitch
#endif
