// SPDX-License-Identifier: Apache-2.0
// Dynamic Buffer Limiting on a switch's transmit queues, as Stewart et al. 2011 describe the Cisco Catalyst 4500's (their
// section 2.2; Cisco documents the knobs, not the algorithm, so the "congested" rule is ours, from what the paper
// measured):
//  - a transmit queue is congested while it holds at least congested_fraction x its frame limit (0.5: 120 of the
//    240 frames of a 100 Mb/s port, 960 of 1920 on 1 Gb/s, where the paper saw no DBL activity at all);
//  - when a queue becomes congested every flow with frames in it gets max_credits credits (a flow that arrives
//    later, max_credits on its first frame); each frame a flow adds while the queue is congested costs a credit;
//  - a flow whose credits fall to aggressive_credits or below is aggressive (non-responsive) until the queue is
//    no longer congested, when credits are forgotten;
//  - a frame of an aggressive flow that already has aggressive_buffers frames queued is dropped; otherwise the
//    exceed action applies with probability exceed_probability: "ecn" marks an ECN-capable frame CE and drops any
//    other (SACKs, handshakes: the paper's explanation of its DBL drops), "drop" drops it.
// With the paper's settings (15 credits, aggressive at 5, 100 %, 255 buffers) one flow is marked from 130 frames
// queued (paper: 120-130) and two flows from 70 frames each (paper: 70-80).
// Flows are told apart by frame.flow (layer-4 ports) or, with flow_by_hosts, by the pair of hosts. DBL drops count as drop_reason
// aqm; the queue's own overflow stays a tail drop of the buffer policy.
#ifndef CMSWITCH_MODEL_CM_DBL_DBL_QUEUE_MANAGER_H
#define CMSWITCH_MODEL_CM_DBL_DBL_QUEUE_MANAGER_H

#include "model/rng.h"
#include "model/switch/switch_hook.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cmswitch {

struct dbl_config {
    uint32_t max_credits = 15;   // 1..15 on the switch
    uint32_t aggressive_credits = 5;   // 1..15
    uint32_t aggressive_buffers = 255;   // 0..255 frames
    double exceed_probability = 1.0;
    bool exceed_ecn = true;   // exceed action: mark (ECN) or drop
    double congested_fraction = 0.5;   // of the port's frame limit (our rule, see above)
    // What a "flow" is: the transport's own flow (an SCTP association, a TCP connection: the switch reads
    // layer-4 ports) or every frame between one source host and one destination host (a switch that does not
    // parse SCTP's ports, as the paper suspects its Catalyst did, footnote 35)
    bool flow_by_hosts = false;
    bool flow_by_queue = false;   // every frame of the transmit queue one flow (no flow identification at all)
};

class dbl_queue_manager final : public switch_hook {
public:
    dbl_queue_manager(const dbl_config& cfg, rng r);
    uint8_t events() const override { return on_admit_event | on_enqueue_event | on_dequeue_event; }
    int stage() const override { return stage_marking; }
    void attach(switch_services& sw) override;

    drop_reason on_admit(const queue_view& q, frame& f, uint64_t now_ps) override;
    void on_enqueue(const queue_view& q, frame& f, uint64_t now_ps) override;
    void on_dequeue(const queue_view& q, frame& f, uint64_t now_ps) override;

    // State, for tests and reports.
    bool congested(int port) const { return m_ports[static_cast<size_t>(port)].congested; }
    uint32_t threshold_frames(int port) const { return m_ports[static_cast<size_t>(port)].threshold; }
    // Credits of `flow` at `port` (max_credits if unknown) and whether it is aggressive.
    uint32_t credits(int port, uint32_t flow) const;
    bool aggressive(int port, uint32_t flow) const;
    uint64_t marks() const { return m_marks; }
    uint64_t drops() const { return m_drops; }

private:
    struct flow_state {
        uint32_t flow;
        uint32_t queued;   // frames of the flow in the transmit queue
        uint32_t credits;
        bool aggressive;
    };
    struct port_state {
        uint32_t threshold = 0;
        bool congested = false;
        std::vector<flow_state> flows;   // flows with frames queued or credits in use (a handful per port)
    };
    uint32_t key(const frame& f) const {
        if (m_cfg.flow_by_queue)
            return 0;
        return m_cfg.flow_by_hosts ? (uint32_t{f.src} << 16 | f.dst) : f.flow;
    }
    flow_state& find(port_state& p, uint32_t flow);
    const flow_state* find(const port_state& p, uint32_t flow) const;

    dbl_config m_cfg;
    rng m_rng;
    std::vector<port_state> m_ports;
    uint64_t m_marks = 0, m_drops = 0;
};

}   // namespace cmswitch
#endif
