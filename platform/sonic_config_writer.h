// SPDX-License-Identifier: Apache-2.0
// A switch of a planned network written as SONiC's buffer configuration (CONFIG_DB JSON, as config_db.json holds
// it), the reverse of config/sonic_config.h: reading the text back gives the same switch. What is written:
//   PORT                   Ethernet0, Ethernet4, ... (four lanes each; eight with sonic_lanes 8), one per switch
//                          port, in port order: lanes, speed (Mb/s) and mtu (sonic_port_mtu)
//   CABLE_LENGTH|AZURE     each port's cable (cable_m, or its link's delay at 1.98e8 m/s)
//   ASIC_TABLE|MODEL       cell_size (cell_bytes, when celled) and the headroom calculation's pipeline_latency,
//                          mac_phy_delay and peer_response_time (KB); SONiC keeps this table in STATE_DB
//   LOSSLESS_TRAFFIC_PATTERN|AZURE  mtu, small_packet_percentage
//   BUFFER_POOL            ingress_pool_<n>, egress_pool_<n> (dynamic mode; the shared headroom pool as the xoff of
//                          the lossless groups' ingress pool)
//   BUFFER_PROFILE         one per distinct profile: ingress_profile_<n> (lossy groups), pg_lossless_<n>_profile
//                          (one per distinct headroom; size = reserve + xoff when the group reserves, else 0),
//                          egress_profile_<n> (queues), port_ingress_profile_<n>, port_egress_profile_<n>
//   BUFFER_PG, BUFFER_QUEUE  every port's groups and queues, runs of equal profiles as ranges (Ethernet0|3-4)
//   BUFFER_PORT_INGRESS_PROFILE_LIST, BUFFER_PORT_EGRESS_PROFILE_LIST  when port-level profiles are given
//   PORT_QOS_MAP|<port>    pfc_enable (pause pfc: pfc_priorities), tc_to_pg_map, tc_to_queue_map: AZURE, from
//   TC_TO_PRIORITY_GROUP_MAP|AZURE, TC_TO_QUEUE_MAP|AZURE  pg_map and queue_map
// A lossless headroom found by a rule (headroom formula or sonic) is written as the numbers it gave for each port,
// so the file reads back with headroom given. SONiC has no table for what stays in the switch description: the
// slices and pipes, forwarding, pipeline_ns, cut_through_bytes, cell_overhead_bytes, sonic_gearbox_delay_ns,
// marking and the scheduler.
// Refused (config_error naming the field): a buffer policy other than pools, a queue's alpha that is not a power of
// two (SONiC's dynamic_th is log2 alpha), PFC without pfc_priorities.
#ifndef CMSWITCH_PLATFORM_SONIC_CONFIG_WRITER_H
#define CMSWITCH_PLATFORM_SONIC_CONFIG_WRITER_H

#include "config/params.h"
#include "platform/topology.h"

#include <string>

namespace cmswitch {

// Switch `sw` of `topo` (a scenario's planned_topology()) as CONFIG_DB JSON text; `params` (the scenario's) gives
// pause, pfc_priorities and the headroom calculation's inputs.
std::string write_sonic_config(const topology& topo, int sw, const param_table& params);

}   // namespace cmswitch
#endif
