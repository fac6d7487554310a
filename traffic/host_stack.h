// SPDX-License-Identifier: Apache-2.0
// What runs above a host NIC: a table of flow endpoints by flow id. Frames arriving at the host go to the
// endpoint registered for their flow; a frame of a flow nobody listens to is counted and released.
#ifndef CMSWITCH_TRAFFIC_HOST_STACK_H
#define CMSWITCH_TRAFFIC_HOST_STACK_H

#include "model/nic/host_nic.h"

#include <cstdint>
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

class host_stack final : public frame_receiver {
public:
    explicit host_stack(host_nic& nic) : m_nic(nic) { nic.set_receiver(this); }

    host_nic& nic() { return m_nic; }
    int host_id() const { return m_nic.host_id(); }
    // Registers ep for frames of `flow` arriving at this host.
    void bind(uint32_t flow, flow_endpoint* ep) {
        if (flow >= m_endpoints.size())
            m_endpoints.resize(flow + 1, nullptr);
        m_endpoints[flow] = ep;
    }
    void receive(frame* f, uint64_t now_ps) override {
        flow_endpoint* ep = f->flow < m_endpoints.size() ? m_endpoints[f->flow] : nullptr;
        if (ep)
            ep->on_frame(f, now_ps);
        else   // no endpoint of that flow on this host: the frame is freed
            m_nic.pool().release(f);
    }
    void writable(uint32_t flow, uint64_t now_ps) override {
        if (flow < m_endpoints.size() && m_endpoints[flow])
            m_endpoints[flow]->on_writable(now_ps);
    }

private:
    host_nic& m_nic;
    std::vector<flow_endpoint*> m_endpoints;
};

}   // namespace cmswitch
#endif
