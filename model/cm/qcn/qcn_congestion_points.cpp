// SPDX-License-Identifier: Apache-2.0
#include "model/cm/qcn/qcn_congestion_points.h"

#include "model/control_frames.h"

namespace cmswitch {

qcn_congestion_points::qcn_congestion_points(const qcn_cp_config& cfg, int switch_id, rng r)
    : m_cfg(cfg), m_id(switch_id), m_rng(r) {
    cfg.validate();
}

void qcn_congestion_points::attach(switch_services& sw) {
    switch_hook::attach(sw);
    // the queue it sees and its set point in the switch's units (a frame's bytes still drive the sampling)
    qcn_cp_config cfg = m_cfg;
    cfg.qeq_bytes = sw.units().threshold(m_cfg.qeq_bytes);
    m_cps.clear();
    for (int p = 0; p < sw.num_ports(); ++p)
        for (int prio = 0; prio < num_priorities; ++prio)
            m_cps.emplace_back(cfg, sw.port_capacity(),
                               rng(m_rng.next(), static_cast<uint64_t>(p * num_priorities + prio)));
}

void qcn_congestion_points::on_enqueue(const queue_view& q, frame& f, uint64_t now) {
    if (f.prio >= num_priorities - 1 || (f.kind != frame_kind::tcp && f.kind != frame_kind::udp))
        return;
    // 802.1Qau: every frame enqueued, with the queue including it (a dropped frame is never sampled)
    const qcn_feedback fb = m_cps[static_cast<size_t>(q.port * num_priorities + f.prio)].on_arrival(
        f.bytes, q.queue_units + services().units().charge(f.bytes), now);
    if (!fb.send)
        return;
    const uint32_t cpid = (static_cast<uint32_t>(m_id) << 16) | (static_cast<uint32_t>(q.port) << 3) | f.prio;
    services().count_cnm(q.port);
    services().send_routed(make_cnm_frame(
        services().pool(), f,
        cnm_fields{static_cast<int32_t>(fb.qoff), static_cast<int32_t>(fb.qdelta), cpid, fb.qntz_fb}, now));
}

}   // namespace cmswitch
