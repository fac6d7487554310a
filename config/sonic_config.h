// SPDX-License-Identifier: Apache-2.0
// SONiC's buffer configuration (CONFIG_DB, as config_db.json holds it: table -> key -> field -> string, or the
// flat "TABLE|key" form of a redis dump) read into the parameters of a switch description with the service-pool
// MMU (buffer_policy pools; model/switch/mmu_config.h). What is read, and into what:
//   PORT                   the switch's ports, in the order of the number in their names (Ethernet0, Ethernet4,
//                          ...): port i of the model; their speed (every port one: link_gbps, where the scenario
//                          has it)
//   CABLE_LENGTH           each port's cable ("5m"): cable_m (one value when every port has the same)
//   ASIC_TABLE             (STATE_DB's; read when present) cell_size: cell_bytes; pipeline_latency, mac_phy_delay,
//                          peer_response_time (KB): the SONiC headroom calculation's inputs
//   LOSSLESS_TRAFFIC_PATTERN  mtu, small_packet_percentage: the same
//   BUFFER_POOL            ingress pools and egress pools in file order (size, type); the ingress pool's xoff:
//                          the shared headroom pool; pool_kb: the larger of the ingress side (pools and xoff)
//                          and the largest egress pool
//   BUFFER_PROFILE         what BUFFER_PG and BUFFER_QUEUE name: pool, size (the reserve; for a lossless profile
//                          whose size exceeds its xoff, the headroom is inside it: reserve = size - xoff, as SAI's
//                          XOFF_TH is counted from the top of the reserved buffer), dynamic_th or static_th,
//                          xoff, xon, xon_offset (the lossless headroom, per port: headroom given)
//   BUFFER_PG              "Ethernet0|3-4" (or "Ethernet0,Ethernet4|3-4"): each priority group's profile, the
//                          same on every port apart from the lossless headroom
//   BUFFER_QUEUE           each queue's profile, the same on every port
//   BUFFER_PORT_INGRESS_PROFILE_LIST, BUFFER_PORT_EGRESS_PROFILE_LIST  every port's reserve and limit per pool
//   PORT_QOS_MAP           pfc_enable (pause pfc, pfc_priorities), tc_to_pg_map and tc_to_queue_map naming
//   TC_TO_PRIORITY_GROUP_MAP, TC_TO_QUEUE_MAP  pg_map, queue_map (the traffic class is the model's priority)
// Refused, with the table and key named: a pool without a size (SONiC's dynamic model sizes it at run time), an
// xoff on an egress pool, a profile the model cannot give (trimming: packet_discard_action trim; a static limit
// in a port profile list), profiles that differ between ports other than by headroom, pfc_enable that differs
// between ports, a traffic class map that moves class 7 (the model's control class), and the QoS tables the
// reader does not translate (WRED_PROFILE, SCHEDULER, QUEUE: set marking and the scheduler with the model's own
// parameters). Other tables (DEVICE_METADATA, VLAN, ...) are outside the buffer and not read.
#ifndef CMSWITCH_CONFIG_SONIC_CONFIG_H
#define CMSWITCH_CONFIG_SONIC_CONFIG_H

#include "config/params.h"
#include "config/switch_description.h"

#include <string>
#include <vector>

namespace cmswitch {

// The parameters a CONFIG_DB JSON text sets, in a switch description's form (each checked against `params`:
// set them in order). file: its name in messages. Throws config_error naming the table and key.
std::vector<description_entry> read_sonic_config(const std::string& json_text, const std::string& file,
                                                 const param_table& params);
// The same from a file's path.
std::vector<description_entry> read_sonic_config_file(const std::string& path, const param_table& params);

}   // namespace cmswitch
#endif
