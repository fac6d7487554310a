// SPDX-License-Identifier: Apache-2.0
// A congestion-management reaction point at a host NIC (QCN's per-flow rate limiters; DCQCN's next): it sits
// between the transport and the NIC's egress queue, takes the frames of flows it is limiting and releases them
// onto the queue at its own pace, consumes the notifications addressed to it (CNM, CNP) and gives back-pressure
// to senders that can wait. The NIC owns at most one; without one, frames go straight to the queue.
#ifndef CMSWITCH_MODEL_NIC_REACTION_POINT_H
#define CMSWITCH_MODEL_NIC_REACTION_POINT_H

#include "model/event_domain.h"
#include "model/frame.h"
#include "model/frame_pool.h"

#include <cstdint>
#include <vector>

namespace cmswitch {

// What the NIC lets its reaction point do.
class nic_services {
public:
    // Puts a frame the reaction point held onto the NIC's egress queue.
    virtual void transmit(frame* f, uint64_t now_ps) = 0;
    // The flow's limiter has room again for a sender that asked (want_room).
    virtual void flow_writable(uint32_t flow, uint64_t now_ps) = 0;
    // The host's timer service: client->on_timer(tag) at t_ps (>= now).
    virtual void schedule_timer(uint64_t t_ps, timer_client* client, uint32_t tag) = 0;
    // Sends a frame the NIC itself makes (a CNP): counted as offered by this host, queued like any other.
    virtual void send_own(frame* f) = 0;
    virtual frame_pool& frames() = 0;
    // Bytes waiting in the egress queue behind the frame on the wire (a scheduler that pulls keeps this small).
    virtual uint64_t egress_backlog_bytes() const = 0;
    // When the frame on the wire (if any) ends: the egress can start another from then on.
    virtual uint64_t egress_free_at() const = 0;
    // The host this NIC belongs to (names of waveform signals).
    virtual int host_id() const = 0;

protected:
    ~nic_services() = default;
};

class reaction_point : public timer_client {
public:
    virtual ~reaction_point() = default;
    // Called once when the NIC takes it.
    virtual void attach(nic_services& nic) { m_nic = &nic; }
    // Which further NIC events it wants (the NIC calls only those): every frame arriving for the host (a
    // notification point sees the data it receives), and every transmission start of the egress queue (a
    // scheduler that pulls frames releases the next one then).
    enum nic_event_mask : uint8_t { on_receive_event = 1, on_egress_dequeue_event = 2 };
    virtual uint8_t nic_events() const { return 0; }
    virtual void on_receive(const frame& f, uint64_t now_ps) {
        (void)f;
        (void)now_ps;
    }
    virtual void on_egress_dequeue(uint64_t now_ps) { (void)now_ps; }

    // Takes f if its flow is being limited (taken); not_limited: the NIC queues it itself; over_limit: the
    // flow's limiter is full and the NIC drops f - never for a back-pressured sender, which sends only with room
    // (retransmissions may go a little over).
    // The NIC calls take only for flows the reaction point says it limits (an inline check, so that the frames of
    // unlimited flows, most of them, cost no virtual call).
    enum class take_result { not_limited, taken, over_limit };
    virtual take_result take(frame* f, uint64_t now_ps, bool backpressured) = 0;
    bool limiting(uint32_t flow) const { return m_take_all || (flow < m_limiting.size() && m_limiting[flow]); }
    // A congestion notification for this host arrived (frame_kind::cnm): act on it. The NIC releases f after.
    virtual void on_notification(const frame& f, uint64_t now_ps) = 0;

    // Back-pressure: bytes the flow may hand over now (UINT64_MAX when it is not limited); a sender that finds
    // too little calls want_room and is told (flow_writable) once there is room again.
    virtual uint64_t room(uint32_t flow) const = 0;
    virtual void want_room(uint32_t flow) = 0;

    // Frames held (for the NIC's queue limit, checked on every send, and the conservation count).
    uint64_t queued_bytes() const { return m_held_bytes; }
    uint64_t queued_frames() const { return m_held_frames; }
    // The sending rate the reaction point currently allows the flow (the line rate when it is not limited).
    virtual double rate_bps(uint32_t flow) const = 0;
    // Notifications the flow has received (CNMs, CNPs).
    virtual uint64_t notifications(uint32_t flow) const = 0;

protected:
    nic_services& nic() const { return *m_nic; }
    // An implementation counts the frames it takes and releases with these.
    void count_held(const frame& f) {
        m_held_bytes += f.bytes;
        ++m_held_frames;
    }
    void count_released(const frame& f) {
        m_held_bytes -= f.bytes;
        --m_held_frames;
    }
    // An implementation that schedules every frame it can (an RDMA NIC's QP scheduler) asks for all of them.
    void take_every_frame() { m_take_all = true; }
    // An implementation says which flows it limits (take is called for those only).
    void set_limiting(uint32_t flow, bool on) {
        if (flow >= m_limiting.size())
            m_limiting.resize(flow + 1, 0);
        m_limiting[flow] = on ? 1 : 0;
    }

private:
    nic_services* m_nic = nullptr;
    uint64_t m_held_bytes = 0, m_held_frames = 0;
    std::vector<uint8_t> m_limiting;   // per flow
    bool m_take_all = false;
};

}   // namespace cmswitch
#endif
