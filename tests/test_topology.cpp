// SPDX-License-Identifier: Apache-2.0
// Topology checks and forwarding tables.
#include "config/errors.h"
#include "platform/network.h"
#include "testing.h"

#include <gtest/gtest.h>

using namespace cmswitch;

namespace {
void expect_config_error(const topology& t, const std::string& words) {
    sim_context ctx;
    try {
        network net(t);
        ADD_FAILURE() << "no error, expected: " << words;
    } catch (const config_error& e) {
        EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
}
}   // namespace

TEST(Topology, ChainRoutesEveryHostThroughTheTrunks) {
    sim_context ctx;
    network net(chain_topology(3, 2, 1000000000ull, 10000000000ull, 1000000, buffer_config{}));
    // switch 0: hosts 0,1 on ports 0,1; trunk right on port 2
    EXPECT_EQ(net.sw(0).route(0), 0);
    EXPECT_EQ(net.sw(0).route(1), 1);
    EXPECT_EQ(net.sw(0).route(5), 2);
    // switch 1: hosts 2,3; port 2 = left trunk, port 3 = right trunk
    EXPECT_EQ(net.sw(1).route(0), 2);
    EXPECT_EQ(net.sw(1).route(3), 1);
    EXPECT_EQ(net.sw(1).route(4), 3);
    // switch 2: hosts 4,5; port 2 = left trunk
    EXPECT_EQ(net.sw(2).route(1), 2);
    EXPECT_EQ(net.sw(2).route(5), 1);
}

TEST(Topology, HostWithoutLinkIsRefused) {
    topology t = star_topology(4, 1000000000ull, 0, buffer_config{});
    t.hosts = 5;   // host 4 exists but is wired to nothing
    t.switches[0].ports = 5;
    t.links.push_back(link_spec{node_ref::of_switch(0), 4, node_ref::of_switch(0), 4, 1000000000ull, 0});
    expect_config_error(t, "linked twice");
    t.links.pop_back();
    expect_config_error(t, "host 4 has no link");
}

TEST(Topology, DanglingPortZeroRateAndDisconnectedSwitchAreRefused) {
    topology t = star_topology(3, 1000000000ull, 0, buffer_config{});
    t.switches[0].ports = 4;
    expect_config_error(t, "switch 0 port 3 is dangling");
    t = star_topology(3, 1000000000ull, 0, buffer_config{});
    t.links[1].rate_bps = 0;
    expect_config_error(t, "link 1 rate = 0");
    // two separate stars: no route from one switch to the other's hosts
    t = star_topology(2, 1000000000ull, 0, buffer_config{});
    t.hosts = 4;
    t.switches.push_back(switch_spec{2, buffer_config{}});
    t.links.push_back(link_spec{node_ref::of_host(2), 0, node_ref::of_switch(1), 0, 1000000000ull, 0});
    t.links.push_back(link_spec{node_ref::of_host(3), 0, node_ref::of_switch(1), 1, 1000000000ull, 0});
    expect_config_error(t, "no route from switch 1 to host 0");
    t = star_topology(2, 1000000000ull, 0, buffer_config{});
    t.switches[0].buffer.port_limit_bytes = 0;
    expect_config_error(t, "buffer_kb (the port limit)");
}

TEST(Topology, FatTreeOfFourPortSwitches) {
    // k = 4: k^3/4 = 16 hosts, k^2/2 = 8 edges + 8 aggregations + (k/2)^2 = 4 cores = 20 switches, 16 host
    // links + 16 edge-aggregation + 16 aggregation-core = 48 links (Al-Fares et al.)
    const topology t = fat_tree_topology(4, 10000000000ull, 10000000000ull, 1000000, buffer_config{});
    EXPECT_EQ(t.hosts, 16);
    EXPECT_EQ(t.switches.size(), 20u);
    EXPECT_EQ(t.links.size(), 48u);
    sim_context ctx;
    network net(t);
    // host 0 sits on port 0 of edge 0; host 1 on its port 1; the way down is fixed
    EXPECT_EQ(net.sw(0).route(0), 0);
    EXPECT_EQ(net.sw(0).route(1), 1);
    // up is an equal-cost choice: from edge 0 toward host 2 (same pod, other edge) and host 15 (pod 3), a port to
    // an aggregation (2 or 3); from aggregation 8 (pod 0) toward pod 3 a port to a core (2 or 3); a core goes
    // down to the destination's pod (core port = pod)
    for (int h : {2, 15}) {
        EXPECT_GE(net.sw(0).route(h), 2);
        EXPECT_LE(net.sw(0).route(h), 3);
    }
    EXPECT_GE(net.sw(8).route(15), 2);
    for (int c = 16; c < 20; ++c)
        EXPECT_EQ(net.sw(c).route(15), 3);
    // the hash spreads destinations over every core: each aggregation of pod 0 uses both its core ports for the
    // 12 hosts of the other pods, so all four cores carry traffic from pod 0 (destination mod 2 at both tiers
    // would use only two of them)
    for (int agg : {8, 9}) {
        int used[2] = {0, 0};
        for (int h = 4; h < 16; ++h)
            ++used[net.sw(agg).route(h) - 2];
        EXPECT_GT(used[0], 0) << agg;
        EXPECT_GT(used[1], 0) << agg;
    }
    EXPECT_THROW(fat_tree_topology(5, 1, 1, 0, buffer_config{}), config_error);
}
