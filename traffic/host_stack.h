// SPDX-License-Identifier: Apache-2.0
// What runs above a host NIC: the flow endpoints of the host, found by flow id. Frames arriving at the host go to
// the endpoint registered for their flow; a frame of a flow nobody listens to is counted and released.
//
// The endpoints of every host live in one flow_directory per network, a flat array indexed by flow id with the
// two ends of each flow (a flow has one endpoint on each of its two hosts): memory grows with the flows, not with
// hosts x flows as a table per host indexed by the global flow id did (4,000 incast servers: 64 MB of such tables).
#ifndef CMSWITCH_TRAFFIC_HOST_STACK_H
#define CMSWITCH_TRAFFIC_HOST_STACK_H

#include "config/errors.h"
#include "model/nic/host_nic.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <string>
#include <vector>

namespace cmswitch {

// A transport or application endpoint of one flow on one host. Ownership of f passes with the call.
class flow_endpoint {
public:
    virtual void on_frame(frame* f, uint64_t now_ps) = 0;
    // The NIC can take this flow's frames again after back-pressure (host_nic::room).
    virtual void on_writable(uint64_t) {}

protected:
    ~flow_endpoint() = default;
};

class flow_directory {
public:
    // Registers ep as host's endpoint of flow (a later call for the same flow and host replaces it).
    void bind(uint32_t flow, int host, flow_endpoint* ep) {
        if (flow >= m_slots.size())
            m_slots.resize(std::max<size_t>(flow + 1, m_slots.size() * 3 / 2), slot{});
        slot& s = m_slots[flow];
        for (int i = 0; i < 2; ++i)
            if (s.host[i] == host || s.host[i] < 0) {
                s.host[i] = host;
                s.ep[i] = ep;
                return;
            }
        throw model_error("flow " + std::to_string(flow) + ": endpoints on hosts " + std::to_string(s.host[0]) +
                          " and " + std::to_string(s.host[1]) + " already, a third on host " + std::to_string(host) +
                          " (a flow has one endpoint on each of its two hosts)");
    }
    flow_endpoint* find(uint32_t flow, int host) const {
        if (flow >= m_slots.size())
            return nullptr;
        const slot& s = m_slots[flow];
        return s.host[0] == host ? s.ep[0] : s.host[1] == host ? s.ep[1] : nullptr;
    }

private:
    struct slot {
        int32_t host[2] = {-1, -1};
        flow_endpoint* ep[2] = {nullptr, nullptr};
    };
    std::vector<slot> m_slots;
};

class host_stack final : public frame_receiver {
public:
    host_stack(host_nic& nic, flow_directory& flows) : m_nic(nic), m_flows(flows), m_host(nic.host_id()) {
        nic.set_receiver(this);
    }

    host_nic& nic() { return m_nic; }
    int host_id() const { return m_nic.host_id(); }
    // Registers ep for frames of `flow` arriving at this host.
    void bind(uint32_t flow, flow_endpoint* ep) { m_flows.bind(flow, m_host, ep); }
    // Names in `f` the endpoint it is for (flow f->flow on host f->dst: the flow's other end), kept in `peer`
    // once that end is bound; until then the frame names nobody and is delivered through the directory.
    void name_peer(frame* f, flow_endpoint*& peer) const {
        if (!peer)
            peer = m_flows.find(f->flow, f->dst);
        f->endpoint = peer;
    }
    void receive(frame* f, uint64_t now_ps) override {
        // a frame that names its endpoint goes to it (the one the directory holds: endpoints are bound once,
        // when they are made, and live to the end of the run); else the directory finds it
        assert(!f->endpoint || f->endpoint == m_flows.find(f->flow, m_host));
        if (flow_endpoint* ep = f->endpoint ? f->endpoint : m_flows.find(f->flow, m_host))
            ep->on_frame(f, now_ps);
        else   // no endpoint of that flow on this host: the frame is freed
            m_nic.pool().release(f);
    }
    void writable(uint32_t flow, uint64_t now_ps) override {
        if (flow_endpoint* ep = m_flows.find(flow, m_host))
            ep->on_writable(now_ps);
    }

private:
    host_nic& m_nic;
    flow_directory& m_flows;
    int m_host;
};

}   // namespace cmswitch
#endif
