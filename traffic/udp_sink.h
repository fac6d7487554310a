// SPDX-License-Identifier: Apache-2.0
// Counts what arrives for one flow and releases the frames.
#ifndef CMSWITCH_TRAFFIC_UDP_SINK_H
#define CMSWITCH_TRAFFIC_UDP_SINK_H

#include "traffic/flow_stats.h"
#include "traffic/host_stack.h"

namespace cmswitch {

class udp_sink final : public flow_endpoint {
public:
    udp_sink(host_stack& host, flow_stats& stats) : m_pool(host.nic().pool()), m_stats(stats) {
        host.bind(stats.flow, this);
    }
    void on_frame(frame* f, uint64_t now_ps) override {
        if (m_stats.received_frames == 0)
            m_stats.first_rx_ps = now_ps;
        m_stats.last_rx_ps = now_ps;
        m_stats.received_frames++;
        m_stats.received_bytes += f->bytes;
        m_stats.received_payload += f->payload;
        m_pool.release(f);
    }

private:
    frame_pool& m_pool;
    flow_stats& m_stats;
};

}   // namespace cmswitch
#endif
