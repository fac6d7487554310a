// SPDX-License-Identifier: Apache-2.0
#include "platform/topology.h"

#include "config/errors.h"

#include <string>

namespace cmswitch {

topology star_topology(int hosts, uint64_t rate_bps, uint64_t delay_ps, const buffer_config& buffer) {
    if (hosts < 2)
        throw config_error("hosts = " + std::to_string(hosts) + ": a star needs at least 2 hosts");
    topology t;
    t.hosts = hosts;
    t.switches.push_back(switch_spec{hosts, buffer});
    for (int i = 0; i < hosts; ++i)
        t.links.push_back(link_spec{node_ref::of_host(i), 0, node_ref::of_switch(0), i, rate_bps, delay_ps});
    return t;
}

topology chain_topology(int switches, int hosts_per_switch, uint64_t host_rate_bps, uint64_t trunk_rate_bps,
                        uint64_t delay_ps, const buffer_config& buffer) {
    if (switches < 1)
        throw config_error("switches = " + std::to_string(switches) + ": a chain needs at least 1 switch");
    if (hosts_per_switch < 1)
        throw config_error("hosts_per_switch = " + std::to_string(hosts_per_switch) + ": must be >= 1");
    topology t;
    t.hosts = switches * hosts_per_switch;
    for (int s = 0; s < switches; ++s) {
        const int trunks = (s > 0 ? 1 : 0) + (s + 1 < switches ? 1 : 0);
        t.switches.push_back(switch_spec{hosts_per_switch + trunks, buffer});
        for (int j = 0; j < hosts_per_switch; ++j)
            t.links.push_back(link_spec{node_ref::of_host(s * hosts_per_switch + j), 0, node_ref::of_switch(s), j,
                                        host_rate_bps, delay_ps});
    }
    for (int s = 0; s + 1 < switches; ++s) {
        const int right_port = hosts_per_switch + (s > 0 ? 1 : 0);
        const int left_port_next = hosts_per_switch;
        t.links.push_back(link_spec{node_ref::of_switch(s), right_port, node_ref::of_switch(s + 1), left_port_next,
                                    trunk_rate_bps, delay_ps});
    }
    return t;
}

}   // namespace cmswitch

namespace cmswitch {

topology fat_tree_topology(int k, uint64_t host_rate_bps, uint64_t fabric_rate_bps, uint64_t delay_ps,
                           const buffer_config& buffer) {
    if (k < 2 || k > 64 || k % 2)
        throw config_error("fat_tree_k = " + std::to_string(k) + ": must be even, 2 to 64");
    const int h = k / 2;
    topology t;
    t.hosts = k * h * h;
    t.multipath = "hashed";
    for (int s = 0; s < k * k + h * h; ++s)   // k^2/2 edges, k^2/2 aggregations, (k/2)^2 cores: k ports each
        t.switches.push_back(switch_spec{k, buffer});
    const int agg0 = k * h, core0 = k * k;
    for (int p = 0; p < k; ++p)
        for (int e = 0; e < h; ++e) {
            const int edge = p * h + e;
            for (int j = 0; j < h; ++j)
                t.links.push_back(link_spec{node_ref::of_host(edge * h + j), 0, node_ref::of_switch(edge), j,
                                            host_rate_bps, delay_ps});
            for (int a = 0; a < h; ++a)
                t.links.push_back(link_spec{node_ref::of_switch(edge), h + a, node_ref::of_switch(agg0 + p * h + a), e,
                                            fabric_rate_bps, delay_ps});
        }
    for (int p = 0; p < k; ++p)
        for (int a = 0; a < h; ++a)
            for (int i = 0; i < h; ++i)
                t.links.push_back(link_spec{node_ref::of_switch(agg0 + p * h + a), h + i,
                                            node_ref::of_switch(core0 + a * h + i), p, fabric_rate_bps, delay_ps});
    return t;
}

topology leaf_spine_topology(int leaves, int hosts_per_leaf, int spines, uint64_t host_rate_bps,
                             uint64_t fabric_rate_bps, uint64_t delay_ps, const buffer_config& buffer) {
    if (leaves < 1 || hosts_per_leaf < 1 || spines < 1)
        throw config_error("leaf-spine: leaves = " + std::to_string(leaves) +
                           ", hosts_per_leaf = " + std::to_string(hosts_per_leaf) +
                           ", spines = " + std::to_string(spines) + ": each must be >= 1");
    topology t;
    t.hosts = leaves * hosts_per_leaf;
    for (int l = 0; l < leaves; ++l)
        t.switches.push_back(switch_spec{hosts_per_leaf + spines, buffer});
    for (int s = 0; s < spines; ++s)
        t.switches.push_back(switch_spec{leaves, buffer});
    for (int l = 0; l < leaves; ++l) {
        for (int j = 0; j < hosts_per_leaf; ++j)
            t.links.push_back(link_spec{node_ref::of_host(l * hosts_per_leaf + j), 0, node_ref::of_switch(l), j,
                                        host_rate_bps, delay_ps});
        for (int s = 0; s < spines; ++s)
            t.links.push_back(link_spec{node_ref::of_switch(l), hosts_per_leaf + s, node_ref::of_switch(leaves + s), l,
                                        fabric_rate_bps, delay_ps});
    }
    return t;
}

}   // namespace cmswitch
