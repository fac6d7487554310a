// SPDX-License-Identifier: Apache-2.0
// A network described as data (hosts, switches, links) and the builders for the shapes the scenarios use.
// network (network.h) turns a topology into modules, checks it and computes the forwarding tables.
#ifndef CMSWITCH_PLATFORM_TOPOLOGY_H
#define CMSWITCH_PLATFORM_TOPOLOGY_H

#include "model/nic/host_qdisc.h"
#include "model/switch/buffer_manager.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cmswitch {

struct node_ref {
    enum kind_t : uint8_t { host, sw } kind = host;
    int id = 0;
    static node_ref of_host(int i) { return {host, i}; }
    static node_ref of_switch(int i) { return {sw, i}; }
};

struct link_spec {
    node_ref a;
    int a_port = 0;   // hosts have one port, 0
    node_ref b;
    int b_port = 0;
    uint64_t rate_bps = 1000000000;
    uint64_t delay_ps = 0;   // propagation delay, each direction
};

struct switch_spec {
    int ports = 0;
    buffer_config buffer;
};

struct topology {
    int hosts = 0;
    std::vector<switch_spec> switches;
    std::vector<link_spec> links;
    uint64_t nic_queue_bytes = 1024 * 1024;   // host NIC egress queue limit
    host_egress_config host_egress;   // every host's egress below its transports (a FIFO by default)
    // How blocks share event domains (event_domain.h): "shared" (one for the whole network), "grouped" (one for
    // all hosts, one per switch) or "per_block" (one per NIC and per switch). Results do not depend on it
    // beyond the order of simultaneous events; speed does (bench/).
    std::string event_domains = "shared";
    // A "shared" domain runs ahead of kernel time (event_domain.h); results are the same either way.
    bool temporal_decoupling = true;
    // Hosts that drain slower than their link for a while: from t_ps on, host `host` receives at rate_bps
    // (the link direction toward it serializes at that rate; link rate again with a later entry).
    struct service_change {
        int host;
        uint64_t t_ps;
        uint64_t rate_bps;
    };
    std::vector<service_change> host_service;
    // Equal-cost paths: "first" takes the lowest port; "by_destination" spreads destinations over them
    // (destination host mod number of equal-cost ports), deterministic ECMP; "hashed" spreads them by a hash of
    // destination and switch (no polarization where one tier's choice would repeat the tier below's, as in a
    // fat-tree).
    std::string multipath = "by_destination";
};

// Two-tier leaf-spine: `leaves` leaf switches with hosts_per_leaf hosts each (host l*hosts_per_leaf + j on port
// j of leaf l) and `spines` spine switches; leaf l's port hosts_per_leaf + s goes to spine s's port l.
topology leaf_spine_topology(int leaves, int hosts_per_leaf, int spines, uint64_t host_rate_bps,
                             uint64_t fabric_rate_bps, uint64_t delay_ps, const buffer_config& buffer);

// k-ary fat-tree (Al-Fares et al.): k pods of k/2 edge and k/2 aggregation switches, (k/2)^2 core switches,
// k^3/4 hosts. Switches: edges (pod p, e) = p k/2 + e, then aggregations k^2/2 + p k/2 + a, then cores k^2 + c.
// Host (p, e, j) = (p k/2 + e) k/2 + j on port j of its edge; edge port k/2 + a goes to aggregation a of its pod
// (port e); aggregation a's port k/2 + i goes to core a k/2 + i (port p). Multipath "hashed". k even, 2-64.
topology fat_tree_topology(int k, uint64_t host_rate_bps, uint64_t fabric_rate_bps, uint64_t delay_ps,
                           const buffer_config& buffer);

// N hosts on one switch; host i on port i.
topology star_topology(int hosts, uint64_t rate_bps, uint64_t delay_ps, const buffer_config& buffer);

// A line of switches, each with hosts_per_switch hosts; switch k holds hosts k*hosts_per_switch + j on ports j,
// then its trunk to switch k-1 (if any), then its trunk to switch k+1 (if any).
topology chain_topology(int switches, int hosts_per_switch, uint64_t host_rate_bps, uint64_t trunk_rate_bps,
                        uint64_t delay_ps, const buffer_config& buffer);

}   // namespace cmswitch
#endif
