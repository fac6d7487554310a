// SPDX-License-Identifier: Apache-2.0
// ECN marking at a switch's egress queues, attached to its frame path: each ECN-capable frame admitted to a port
// is set to CE with the marker policy's probability for the port's instantaneous queue (what is already buffered,
// the frame not counted; ecn_marker.h), or its egress queue's (per_queue: WRED per queue, as ASICs mark), in the
// switch's accounting unit: the thresholds, given in bytes, are converted to it when the hook is attached (a K
// of 20 KB is 81 cells of 254 B). The hook is a template over the (final) policy class so that the per-frame
// decision is a direct, inlinable call; make_ecn_marking picks the instance for a configuration.
#ifndef CMSWITCH_MODEL_CM_ECN_ECN_MARKING_H
#define CMSWITCH_MODEL_CM_ECN_ECN_MARKING_H

#include "model/cm/ecn/ecn_marker.h"
#include "model/switch/switch_hook.h"

#include <memory>

namespace cmswitch {

// The marker of an attached ecn_marking hook, whatever its policy.
class ecn_marking_hook : public switch_hook {
public:
    uint8_t events() const override { return on_enqueue_event; }
    int stage() const override { return stage_marking; }
    virtual const ecn_marker& marker() const = 0;
};

template <typename Marker>
class ecn_marking final : public ecn_marking_hook {
public:
    // r: the switch's random stream for marking decisions.
    ecn_marking(Marker marker, rng r, bool per_queue) : m_marker(std::move(marker)), m_rng(r), m_per_queue(per_queue) {}

    void attach(switch_services& sw) override {
        switch_hook::attach(sw);
        m_marker = m_marker.in_units(sw.units());
    }
    void on_enqueue(const queue_view& q, frame& f, uint64_t) override {
        if (f.ecn != ecn_not_ect && f.ecn != ecn_ce &&
            m_marker.Marker::should_mark(m_per_queue ? q.queue_units : q.port_units, m_rng)) {
            f.ecn = ecn_ce;
            services().count_mark(q.port);
        }
    }
    const ecn_marker& marker() const override { return m_marker; }

private:
    Marker m_marker;
    rng m_rng;
    bool m_per_queue;
};

// The marking hook for cfg, or null for policy "none". Throws config_error naming the field for a bad policy
// or thresholds (as make_ecn_marker).
std::unique_ptr<ecn_marking_hook> make_ecn_marking(const marking_config& cfg, rng r);

}   // namespace cmswitch
#endif
