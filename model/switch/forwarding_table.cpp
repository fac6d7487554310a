// SPDX-License-Identifier: Apache-2.0
#include "model/switch/forwarding_table.h"

#include "config/errors.h"

#include <systemc>

#include <utility>

namespace cmswitch {

forwarding_table::forwarding_table(std::string owner, int num_hosts, int num_ports)
    : m_owner(std::move(owner)), m_ports(num_ports), m_routes(static_cast<size_t>(num_hosts > 0 ? num_hosts : 0), -1) {}

void forwarding_table::set_route(int dst_host, int port) {
    if (dst_host < 0 || dst_host >= static_cast<int>(m_routes.size()))
        throw config_error(m_owner + ": route destination host " + std::to_string(dst_host) + " outside [0, " +
                           std::to_string(m_routes.size() - 1) + "]");
    if (port < 0 || port >= m_ports)
        throw config_error(m_owner + ": route port " + std::to_string(port) + " outside [0, " +
                           std::to_string(m_ports - 1) + "]");
    const auto status = sc_core::sc_get_status();
    if (status & (sc_core::SC_RUNNING | sc_core::SC_PAUSED | sc_core::SC_STOPPED | sc_core::SC_END_OF_SIMULATION))
        throw model_error(m_owner + ": route to host " + std::to_string(dst_host) +
                          " set after the simulation started: routes are static for a run (the transmitters into "
                          "this switch resolve a frame's egress port as they send it)");
    m_routes[static_cast<size_t>(dst_host)] = static_cast<int16_t>(port);
}

}   // namespace cmswitch
