// SPDX-License-Identifier: Apache-2.0
// The modules of one simulated network, built from a topology: a frame pool, host NICs with their stacks,
// switches, each link's ends connected directly (egress_port::connect), with forwarding tables computed by
// shortest path.
// Construct inside a live sim_context and destroy before it.
#ifndef CMSWITCH_PLATFORM_NETWORK_H
#define CMSWITCH_PLATFORM_NETWORK_H

#include "model/cm/pause/pause_config.h"
#include "model/cm/scheme.h"
#include "model/ethernet_link.h"
#include "model/event_domain.h"
#include "model/frame_pool.h"
#include "model/nic/host_nic.h"
#include "model/switch/ethernet_switch.h"
#include "platform/topology.h"
#include "traffic/host_stack.h"

#include <memory>
#include <string>
#include <vector>

namespace cmswitch {

// Where every frame that entered the network is at the end of a run.
struct conservation {
    uint64_t offered_frames = 0, offered_bytes = 0;   // handed to NICs or made by switches (CNMs)
    uint64_t delivered_frames = 0, delivered_bytes = 0;   // arrived at NICs
    uint64_t dropped_frames = 0, dropped_bytes = 0;   // NIC and switch drops
    uint64_t queued_frames = 0, queued_bytes = 0;   // in NIC and switch queues
    uint64_t in_flight_frames = 0, in_flight_bytes = 0;   // on links
    uint64_t live_frames = 0;   // frames the pool has handed out and not got back
    bool holds() const {
        return offered_frames == delivered_frames + dropped_frames + queued_frames + in_flight_frames &&
               offered_bytes == delivered_bytes + dropped_bytes + queued_bytes + in_flight_bytes &&
               live_frames == queued_frames + in_flight_frames;
    }
    std::string describe() const;
};

// Before a network's blocks are made: links' delays from cables given in metres, and each service-pool buffer's
// lossless headroom per port by its rule (mmu_config::headroom_rule). network's constructor calls it; a SONiC
// configuration written from a plan (platform/sonic_config_writer.h) calls it on the plan's topology.
void describe_switch_ports(topology& topo);

// A module of its own ("network"), so that its blocks are its children: see teardown() for why.
class network final : public sc_core::sc_module, public fabric {
public:
    // Validates the topology (throws config_error naming the host, switch, port or link) and builds it.
    explicit network(const topology& topo) : network(sc_core::sc_module_name("network"), topo) {}
    network(sc_core::sc_module_name name, const topology& topo);
    ~network();

    frame_pool& pool() { return m_pool; }
    int num_hosts() const override { return static_cast<int>(m_nics.size()); }
    int num_switches() const override { return static_cast<int>(m_switches.size()); }
    host_nic& nic(int host) { return *m_nics[static_cast<size_t>(host)]; }
    const host_nic& nic(int host) const { return *m_nics[static_cast<size_t>(host)]; }
    host_stack& stack(int host) { return *m_stacks[static_cast<size_t>(host)]; }
    std::vector<host_stack*> stacks() {   // by host id
        std::vector<host_stack*> all;
        for (auto& s : m_stacks)
            all.push_back(s.get());
        return all;
    }
    ethernet_switch& sw(int i) { return *m_switches[static_cast<size_t>(i)]; }
    const ethernet_switch& sw(int i) const { return *m_switches[static_cast<size_t>(i)]; }
    const topology& topo() const { return m_topo; }

    // fabric: what congestion-management schemes install into
    ethernet_switch& switch_at(int i) override { return sw(i); }
    const ethernet_switch& switch_at(int i) const override { return sw(i); }
    host_nic& nic_at(int host) override { return nic(host); }
    uint64_t port_rate_bps(int sw, int port) const override;
    uint64_t port_delay_ps(int sw, int port) const override;
    uint64_t host_rate_bps(int host) const override;

    // PAUSE/PFC generation on every switch (headroom checked per port from its link; config_error if short).
    void enable_pause(const pause_config& cfg);

    conservation account() const;
    // Throws model_error with the whole account if conservation does not hold.
    void check_conservation() const;
    // Model events handled so far (entries dispatched from all modules' own queues).
    uint64_t events() const;

private:
    void build();
    void teardown();   // every block, last created first
    void validate() const;
    void compute_routes();
    const link_spec* port_link(int sw, int port) const;

    topology m_topo;
    frame_pool m_pool;
    std::vector<std::unique_ptr<host_nic>> m_nics;
    flow_directory m_flows;   // every host's flow endpoints (before the stacks: they refer to it)
    std::vector<std::unique_ptr<host_stack>> m_stacks;
    std::vector<std::unique_ptr<ethernet_switch>> m_switches;
    std::vector<std::unique_ptr<event_domain>> m_domains;
    enum class block : uint8_t { domain, host, sw };
    struct created {
        block kind;
        size_t index;
    };
    std::vector<created> m_created;   // the blocks in the order they were made (teardown's order depends on it)
};

}   // namespace cmswitch
#endif
