// SPDX-License-Identifier: Apache-2.0
// A RoCEv2 NIC's congestion-control engine (one per host NIC): the reaction point of its sending queue pairs and
// the notification point of its receiving ones (docs/spec/dcqcn.md, notification and reaction points).
//
// RP and QP scheduler: every RDMA data frame of the host passes through it. Each QP has a small buffer in the NIC
// (qp_buffer_bytes; the sender waits for room, as a QP waits for its work queue) and a rate limiter: after a frame
// of b bytes the QP may send again at now + 8 b / RC. Eligible QPs wait in one round-robin list; the NIC pulls the
// next one onto the wire whenever the wire is free and its egress queue holds nothing (the host's own ACKs and
// CNPs, a frame held by PFC), so the link runs at line rate whenever any QP may send, no QP exceeds its rate, and
// nothing piles up in the NIC (or is lost there) when the QPs' rates add up to more than the link. (Until
// 2026-11: pulled when nothing waited behind the frame on the wire, so a QP's frame could wait one frame time in
// the queue and its next send counted from then; the same wire times, one event fewer per such frame.) Rates
// follow dcqcn_rate_control (variant none: line rate always).
//
// NP: a CE-marked data frame of a flow makes a CNP to its sender unless one went for that flow less than the
// interval ago (N, 50 us; 0: a CNP per marked frame). DCQCN+ (adaptive): the interval is tau = clamp(n x c, N,
// tau_max), n the flows that delivered data to this NIC in the previous window (W, 1 ms) and c the NIC's time
// per CNP (1 us): the NP spreads the CNPs it can make over the flows it serves, as Yang 2018 section 4.2 asks
// (minimum from the hardware, longer with the incast's scale); the CNP carries tau to the RP. The paper gives no
// rule; this one and its constants are our choice (docs/validation.md shows the sensitivity).
#ifndef CMSWITCH_MODEL_CM_DCQCN_DCQCN_ENDPOINT_H
#define CMSWITCH_MODEL_CM_DCQCN_DCQCN_ENDPOINT_H

#include "model/cm/dcqcn/dcqcn_rp.h"
#include "model/key_heap.h"
#include "model/nic/reaction_point.h"
#include "model/port/egress_port.h"
#include "model/trace_signal.h"

#include <cstdint>
#include <vector>

namespace cmswitch {

struct dcqcn_np_config {
    bool enabled = true;
    uint64_t cnp_interval_ps = 50000000;   // N (DCQCN+: the smallest tau)
    bool adaptive = false;   // DCQCN+
    uint64_t cnp_cost_ps = 1000000;   // c: the NIC's time per CNP
    uint64_t window_ps = 1000000000;   // W: flows counted over this window
    uint64_t max_interval_ps = 1000000000;   // tau_max
};

struct dcqcn_endpoint_config {
    dcqcn_rp_config rp;
    dcqcn_np_config np;
    uint64_t qp_buffer_bytes = 2 * 1086;   // per QP in the NIC (>= rp.mtu_bytes)
};

class dcqcn_endpoint final : public reaction_point {
public:
    struct qp {
        frame_fifo queue;
        uint64_t next_tx_ps = 0;
        bool ready = false, pace_pending = false, waiting = false, decrease_pending = false;   // pace_pending: held
        uint64_t rate_next_ps = 0;   // the rate timer's next expiry (0: stopped); applied lazily (advance_rate)
        dcqcn_flow cc;
    };

    dcqcn_endpoint(const dcqcn_endpoint_config& cfg, double line_rate_bps);

    uint8_t nic_events() const override { return on_receive_event | on_egress_dequeue_event; }
    take_result take(frame* f, uint64_t now, bool backpressured) override;
    void on_notification(const frame& f, uint64_t now) override;
    void on_receive(const frame& f, uint64_t now) override;
    void on_egress_dequeue(uint64_t now) override { pump(now); }
    void on_timer(uint32_t tag) override;
    uint64_t room(uint32_t flow) const override {
        const uint64_t q = flow < m_qp.size() ? m_qp[flow].queue.bytes : 0;
        return q >= m_cfg.qp_buffer_bytes ? 0 : m_cfg.qp_buffer_bytes - q;
    }
    void want_room(uint32_t flow) override { at(flow).waiting = true; }
    double rate_bps(uint32_t flow) const override;   // with the rate timer's expiries up to now applied
    uint64_t notifications(uint32_t flow) const override { return flow < m_qp.size() ? m_qp[flow].cc.cnps : 0; }

    const qp* find(uint32_t flow) const { return flow < m_qp.size() ? &m_qp[flow] : nullptr; }
    uint64_t cnps_sent() const { return m_cnps_sent; }
    uint64_t cnps_received() const { return m_cnps_received; }
    // DCQCN+ NP: the CNP period now, and the flows counted in the last window.
    uint64_t cnp_period_ps() const { return m_tau_ps; }
    uint32_t flows_counted() const { return m_np_flows_last; }

private:
    enum : uint32_t { tag_pace = 0, tag_decrease = 2 };
    qp& at(uint32_t flow) { return flow < m_qp.size() ? m_qp[flow] : add_qp(flow); }
    [[gnu::noinline]] qp& add_qp(uint32_t flow);
    void pump(uint64_t now);
    void make_eligible(uint32_t flow, uint64_t now);
    void release(uint32_t flow, uint64_t now);
    void restart_rate_timer(qp& q, uint64_t now);
    void advance_rate(qp& q, uint64_t now) const;
    void schedule(uint64_t t, uint32_t flow, uint32_t type) { nic().schedule_timer(t, this, (flow << 2) | type); }
    void count_np_flow(uint32_t flow, uint64_t now);

    dcqcn_endpoint_config m_cfg;
    dcqcn_rate_control m_cc;
    std::vector<qp> m_qp;
    // waveform host<h>.flow<f>.rate_mbps per QP, declared on first use when a trace is open: the rate as it
    // is applied (timer expiries are applied lazily, when the QP sends or gets a CNP)
    bool m_traced = model_trace::active();
    std::vector<trace_signal*> m_tr_rate;
    std::vector<bool> m_tr_declared;
    [[gnu::noinline]] void trace_rate(uint32_t flow, const qp& q, uint64_t now);
    // QPs that may send now, in turn: a FIFO ring (a QP is in it at most once, so it holds at most every QP)
    struct flow_ring {
        std::vector<uint32_t> slots = std::vector<uint32_t>(64);   // a power of two
        size_t head = 0, count = 0;
        bool empty() const { return count == 0; }
        uint32_t front() const { return slots[head]; }
        void pop_front() {
            head = (head + 1) & (slots.size() - 1);
            --count;
        }
        void push_back(uint32_t flow) {
            if (count == slots.size())
                grow();
            slots[(head + count++) & (slots.size() - 1)] = flow;
        }
        void grow();
    } m_ready;
    // QPs held by their rate limiter, earliest first: key next_tx_ps << 32 | flow (ties go to the lower flow)
    key_heap<uint128> m_pacing;
    static uint64_t pacing_time(uint128 k) { return static_cast<uint64_t>(k >> 32); }
    uint64_t m_wake_at = UINT64_MAX;   // the pacing wake-up scheduled (earliest)
    bool m_pumping = false;
    uint64_t m_cnps_sent = 0, m_cnps_received = 0;
    // NP
    struct np_flow {
        uint64_t last_cnp_ps = 0;
        bool sent = false;
        uint64_t window = UINT64_MAX;
    };
    std::vector<np_flow> m_np;
    uint64_t m_tau_ps;
    uint64_t m_window = 0, m_window_end = 0;
    uint32_t m_np_flows = 0, m_np_flows_last = 0;
};

}   // namespace cmswitch
#endif
