// SPDX-License-Identifier: Apache-2.0
// A switch's IEEE 802.1Qau congestion points, attached to its frame path: one qcn_congestion_point per egress
// port x data priority (0..6), run on every TCP or UDP frame enqueued; a sample with negative feedback sends a
// CNM to the frame's source, routed after the frame is queued, in the control priority and outside the buffer.
#ifndef CMSWITCH_MODEL_CM_QCN_QCN_CONGESTION_POINTS_H
#define CMSWITCH_MODEL_CM_QCN_QCN_CONGESTION_POINTS_H

#include "model/cm/qcn/qcn_cp.h"
#include "model/switch/switch_hook.h"

#include <vector>

namespace cmswitch {

class qcn_congestion_points final : public switch_hook {
public:
    // switch_id: carried in the CNMs' congestion point id (switch << 16 | port << 3 | priority). r: the switch's
    // random stream (each congestion point draws its own from it). Validates cfg (config_error).
    qcn_congestion_points(const qcn_cp_config& cfg, int switch_id, rng r);

    uint8_t events() const override { return on_enqueue_event; }
    int stage() const override { return stage_congestion_point; }
    void attach(switch_services& sw) override;
    void on_enqueue(const queue_view& q, frame& f, uint64_t now_ps) override;

    const qcn_congestion_point& at(int port, int prio) const {
        return m_cps[static_cast<size_t>(port * num_priorities + prio)];
    }

private:
    qcn_cp_config m_cfg;
    int m_id;
    rng m_rng;
    std::vector<qcn_congestion_point> m_cps;
};

}   // namespace cmswitch
#endif
