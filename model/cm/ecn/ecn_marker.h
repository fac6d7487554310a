// SPDX-License-Identifier: Apache-2.0
// Egress ECN marking, evaluated on every admitted frame against the instantaneous queue of its egress port
// (what is already queued, the arriving frame not counted; in bytes here, in the switch's units once a marking
// hook converts it: in_units). Only ECN-capable frames (ECT) are marked (CE);
// others pass unchanged. Policies, chosen by name with make_ecn_marker():
//  - "none"
//  - "step": mark iff queue > K (DCTCP; RED with Kmin = Kmax = K and Pmax = 1)
//  - "red":  mark with probability Pmax (q - Kmin) / (Kmax - Kmin) for Kmin < q < Kmax, always for q >= Kmax
//            (instantaneous queue, no averaging, as DCTCP-style data-centre RED is configured)
#ifndef CMSWITCH_MODEL_CM_ECN_ECN_MARKER_H
#define CMSWITCH_MODEL_CM_ECN_ECN_MARKER_H

#include "model/rng.h"
#include "model/switch/buffer_units.h"

#include <cstdint>
#include <memory>
#include <string>

namespace cmswitch {

struct marking_config {
    std::string policy = "none";
    uint64_t k_bytes = 20 * 1500;   // step
    uint64_t kmin_bytes = 20 * 1500;   // red
    uint64_t kmax_bytes = 60 * 1500;   // red
    double pmax = 0.1;   // red
    bool per_queue = false;   // the frame's egress queue (queue_map) rather than the whole port
};

class ecn_marker {
public:
    virtual ~ecn_marker() = default;
    // Probability of marking a frame that arrives to a queue of q (bytes, or the units the marker was converted to).
    virtual double probability(uint64_t q) const = 0;
    bool should_mark(uint64_t q, rng& r) const { return decide(probability(q), r); }

protected:
    static bool decide(double p, rng& r) { return p >= 1.0 || (p > 0.0 && r.uniform() < p); }
};

class step_marker final : public ecn_marker {
public:
    explicit step_marker(uint64_t k) : m_k(k) {}
    double probability(uint64_t q) const override { return q > m_k ? 1.0 : 0.0; }
    bool should_mark(uint64_t q, rng&) const { return q > m_k; }
    uint64_t k() const { return m_k; }
    // The same marker with K (bytes) in a switch's units.
    step_marker in_units(const buffer_units& u) const { return step_marker(u.threshold(m_k)); }

private:
    uint64_t m_k;
};

class red_marker final : public ecn_marker {
public:
    red_marker(uint64_t kmin, uint64_t kmax, double pmax) : m_kmin(kmin), m_kmax(kmax), m_pmax(pmax) {}
    double probability(uint64_t q) const override {
        if (q <= m_kmin)
            return 0.0;
        if (q >= m_kmax)
            return 1.0;
        return m_pmax * static_cast<double>(q - m_kmin) / static_cast<double>(m_kmax - m_kmin);
    }
    bool should_mark(uint64_t q, rng& r) const { return decide(red_marker::probability(q), r); }
    // The same marker with Kmin and Kmax (bytes) in a switch's units.
    red_marker in_units(const buffer_units& u) const {
        return red_marker(u.threshold(m_kmin), u.threshold(m_kmax), m_pmax);
    }

private:
    uint64_t m_kmin, m_kmax;
    double m_pmax;
};

// Null for "none". Throws config_error naming the field for a bad policy or thresholds.
std::unique_ptr<ecn_marker> make_ecn_marker(const marking_config& cfg);

}   // namespace cmswitch
#endif
