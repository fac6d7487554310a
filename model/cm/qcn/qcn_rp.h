// SPDX-License-Identifier: Apache-2.0
// IEEE 802.1Qau QCN reaction point at a host NIC (docs/spec/qcn-rp.md): one rate limiter per flow that has
// received a CNM, between the transport and the NIC queue. A limiter holds its flow's frames and releases them
// at its current rate CR (next release = previous + bytes x 8 / CR); a flow without an active limiter goes
// straight to the NIC queue.
//
// On a CNM with quantized feedback q: TR = CR unless inside the first byte-counter cycle, CR *= max(1 - Gd q,
// 0.5), CR >= MIN_RATE, stage counters reset, timer restarted. The byte counter (150 KB) and the timer (15 ms),
// each reloaded with x U(0.85, 1.15), drive self-increase: fast recovery (CR = (CR + TR) / 2) for FR_TH cycles,
// then active increase (TR += R_AI), then hyper-active increase (TR += R_HAI x i) when both counters are past
// FR_TH; the TR guard divides TR by 8 when it is above 10 CR at the first cycle. Variants ("variant"):
//   - "sef1" (default, sef1/congestion-control, closest to pseudocode v2.x): a stage changes when its counter
//     is > FR_TH; each counter halves its cycle once its own count is >= FR_TH; the limiter is removed when CR
//     reaches line rate with its queue empty.
//   - "ns3-rdma" (bobzhuyb/ns3-rdma): stages change at >= FR_TH, HAI step R_HAI x (min - FR_TH + 1), cycles
//     halve only in HAI, limiters are never removed.
// Devkota & Reddy's adaptive R_AI ("adaptive_rai"): M += q on each CNM, M -= 1 on each timer expiry (>= 0);
// R_AI and R_HAI are divided by max(1, M / 64).
#ifndef CMSWITCH_MODEL_CM_QCN_QCN_RP_H
#define CMSWITCH_MODEL_CM_QCN_QCN_RP_H

#include "model/frame.h"
#include "model/nic/reaction_point.h"
#include "model/port/egress_port.h"
#include "model/rng.h"
#include "model/trace_signal.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cmswitch {

struct qcn_rp_config {
    std::string variant = "sef1";   // sef1 | ns3-rdma
    bool adaptive_rai = false;
    double gd = 1.0 / 128;
    double min_dec_factor = 0.5;
    double min_rate_bps = 10e6;
    uint64_t byte_counter_bytes = 150000;
    uint64_t timer_ps = 15000000000ull;   // 15 ms
    uint32_t fast_recovery_cycles = 5;
    double rai_bps = 5e6;
    double rhai_bps = 50e6;
    double jitter = 0.15;
    uint64_t queue_limit_bytes = 1 << 20;   // per limiter; a frame that would exceed it is dropped at the NIC
    void validate() const;   // config_error naming the field
};

class qcn_reaction_point final : public reaction_point {
public:
    struct limiter {
        trace_signal* tr_rate = nullptr;   // waveform host<h>.flow<f>.rate_mbps (if a trace selects it)
        bool active = false;
        double cr = 0, tr = 0;   // bit/s
        int64_t tx_bcount = 0;
        uint32_t si_count = 0, timer_scount = 0;
        double memory = 0;   // adaptive R_AI
        frame_fifo queue;   // frames waiting for their release time
        uint64_t next_release_ps = 0;
        bool release_pending = false;
        uint64_t timer_deadline = 0, timer_entry_at = UINT64_MAX;
        uint64_t cnms = 0;
        bool waiting = false;   // a sender waits for room
    };

    // line_rate_bps: the NIC's link rate C. Throws config_error naming the field for a bad configuration.
    qcn_reaction_point(const qcn_rp_config& cfg, double line_rate_bps, rng r);

    // Takes f into its flow's limiter if that limiter is active (reaction_point::take).
    take_result take(frame* f, uint64_t now, bool backpressured = false) override;
    void on_notification(const frame& f, uint64_t now) override {
        if (f.kind == frame_kind::cnm)
            on_cnm(f.flow, f.ctl.cnm.qntz_fb, now);
    }
    void on_cnm(uint32_t flow, uint8_t qntz_fb, uint64_t now);
    void on_timer(uint32_t tag) override;

    // Bytes the flow's limiter can still take (unlimited when the flow has no active limiter).
    uint64_t room(uint32_t flow) const override {
        if (flow >= m_rl.size() || !m_rl[flow].active)
            return UINT64_MAX;
        const uint64_t q = m_rl[flow].queue.bytes;
        return q >= m_cfg.queue_limit_bytes ? 0 : m_cfg.queue_limit_bytes - q;
    }
    // Back-pressure: a sender that found no room asks to be told (once) when its limiter has drained to half.
    void want_room(uint32_t flow) override {
        if (flow < m_rl.size())
            m_rl[flow].waiting = true;
    }
    double rate_bps(uint32_t flow) const override {
        return flow < m_rl.size() && m_rl[flow].active ? m_rl[flow].cr : m_c;
    }
    uint64_t notifications(uint32_t flow) const override { return flow < m_rl.size() ? m_rl[flow].cnms : 0; }
    const limiter* find(uint32_t flow) const { return flow < m_rl.size() ? &m_rl[flow] : nullptr; }
    uint64_t cnms_received() const { return m_cnms; }

private:
    void release(uint32_t flow, uint64_t now);
    void after_transmit(uint32_t flow, uint32_t bytes, uint64_t now);
    void self_increase(limiter& rl);
    void restart_timer(uint32_t flow, uint64_t now);
    double jit() { return m_cfg.jitter > 0 ? m_rng.uniform(1 - m_cfg.jitter, 1 + m_cfg.jitter) : 1.0; }
    void schedule(uint64_t t, uint32_t flow, uint32_t type) { nic().schedule_timer(t, this, (flow << 1) | type); }

    qcn_rp_config m_cfg;
    bool m_ns3;
    double m_c;
    rng m_rng;
    std::vector<limiter> m_rl;
    uint64_t m_cnms = 0;
};

}   // namespace cmswitch
#endif
