// SPDX-License-Identifier: Apache-2.0
// IEEE 802.1Qau QCN congestion point (pseudocode v2.2; docs/spec/qcn-cp.md), one per egress queue
// (port x priority), evaluated on every frame arrival. Bytes throughout.
//
//   qlen   = queue bytes with the arriving frame (if admitted)
//   Fb     = -((qlen - Qeq) + w (qlen - qlen_old)), clamped to [-Fbmax, 0], Fbmax = (2w + 1) Qeq
//   q      = quantize(|Fb|) in 0..63
//   time_to_mark -= frame bytes; when it goes below 0 the frame is a sample: qlen_old = qlen, the next interval
//   is table[q] x U(0.85, 1.15), and a CNM with q > 0 goes to the frame's source.
//
// Variants of Devkota & Reddy 2010 (section VII-A):
//   - "memory":   a counter m is raised on each congestion event (the queue crossing above memory_fraction of
//                 the port's buffer) and lowered by 1 every memory_decay_ps; sampling intervals are divided by
//                 2^m (m <= 7). The decay is not given in the paper; its intent is that the memory of a heavy
//                 congestion outlasts the "period of silence" of a TCP timeout, so the default step (250 ms) is
//                 longer than a 200 ms minimum RTO (a 15 ms step would empty a full counter in 105 ms).
//   - "detailed": the heaviest band (q 56..63) is split into 8 levels (15 in all): q = 56 keeps the standard
//                 table's value (18.5 KB at the default base), and the intervals fall geometrically from there
//                 to detailed_min_bytes at q = 63 (default 1000 B: with the 15 % jitter still under one 1500-byte
//                 frame, so every frame is sampled, the paper's sample-every-packet experiment that worked best).
//                 The paper gives no values: these are ours.
#ifndef CMSWITCH_MODEL_CM_QCN_QCN_CP_H
#define CMSWITCH_MODEL_CM_QCN_QCN_CP_H

#include "model/rng.h"

#include <cstdint>
#include <string>

namespace cmswitch {

struct qcn_cp_config {
    std::string sampling = "standard";   // standard | memory | detailed
    std::string quantizer = "linear";   // linear: floor(63 |Fb| / Fbmax); linear64: min(63, floor(64 |Fb| / Fbmax))
    uint64_t qeq_bytes = 26000;   // set point (10 Gb/s benchmark list: 26 KB)
    double w = 2.0;
    uint64_t sample_base_bytes = 150000;   // 150 KB
    double jitter = 0.15;   // intervals x U(1 - jitter, 1 + jitter)
    double memory_fraction = 0.9;   // "memory": congestion event threshold, fraction of the port buffer
    uint64_t memory_decay_ps = 250000000000ull;   // "memory": m -= 1 every 250 ms (our choice, see above)
    uint64_t detailed_min_bytes = 1000;   // "detailed": interval at q = 63 (see above)
    // Validates (config_error naming the field).
    void validate() const;
};

// What a sample asks the switch to send.
struct qcn_feedback {
    bool send = false;
    uint8_t qntz_fb = 0;   // 1..63
    int64_t qoff = 0;   // Qeq - qlen (negative when congested)
    int64_t qdelta = 0;   // qlen - qlen_old
};

class qcn_congestion_point {
public:
    qcn_congestion_point() = default;
    qcn_congestion_point(const qcn_cp_config& cfg, uint64_t buffer_bytes, rng r);

    // A frame of `bytes` arrives; qlen: the queue's bytes including it if it was admitted.
    qcn_feedback on_arrival(uint32_t bytes, uint64_t qlen, uint64_t now_ps);

    // Quantized |Fb| of a queue state, exposed for tests.
    uint8_t quantize(int64_t fb_abs) const;
    int64_t feedback(uint64_t qlen) const;   // Fb after clamping, <= 0
    uint64_t interval_bytes(uint8_t q) const;   // table value before jitter and memory scaling
    uint32_t memory() const { return m_memory; }
    uint64_t samples() const { return m_samples; }
    uint64_t cnms() const { return m_cnms; }
    int64_t time_to_mark() const { return m_time_to_mark; }

private:
    qcn_cp_config m_cfg;
    int kind = 0;   // 0 standard, 1 memory, 2 detailed
    int m_quantizer = 0;
    int64_t m_fbmax = 0;
    uint64_t m_buffer = 0;
    rng m_rng;
    uint64_t m_qlen_old = 0;
    int64_t m_time_to_mark = 0;
    uint32_t m_memory = 0;
    bool m_above = false;
    uint64_t m_last_decay_ps = 0;
    uint64_t m_samples = 0, m_cnms = 0;
};

}   // namespace cmswitch
#endif
