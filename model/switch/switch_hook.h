// SPDX-License-Identifier: Apache-2.0
// Attachments to a switch's frame path: congestion points (QCN), ECN/RED marking, PAUSE/PFC generation and
// recorders (traces) are switch_hooks, not code inside the switch. The switch calls, per frame:
//
//   arrival on port p  -> on_ingress (in stage order; any hook may drop the frame)
//   routing -> on_admit (in stage order; an active queue manager may drop the frame or mark it)
//   buffer admission (the buffer_manager policy) -> on_drop if refused
//   admitted           -> on_enqueue (in stage order: may mark the frame, send control frames) -> queued
//   transmission start -> on_dequeue
//   any drop           -> on_drop
//
// A hook says which of these it wants (events()); the switch calls only those, so a switch without hooks
// pays nothing for them. Hooks act on the switch through switch_services. Calls are synchronous: a hook must not
// call back into the frame path except through switch_services.
#ifndef CMSWITCH_MODEL_SWITCH_SWITCH_HOOK_H
#define CMSWITCH_MODEL_SWITCH_SWITCH_HOOK_H

#include "model/drop_reason.h"
#include "model/frame_pool.h"
#include "model/switch/buffer_manager.h"

#include <cstdint>
#include <string>

namespace cmswitch {

// One egress queue as a hook sees it when a frame arrives to it or leaves it (the frame not counted: not yet
// in, or already out), from the buffer's own account: in the switch's accounting unit (switch_services::units(),
// buffer_units.h: bytes, or cells), so that a hook compares it with thresholds converted to the same unit. Control
// frames the switch makes (PAUSE, congestion notifications) are outside the buffer and not counted.
struct queue_view {
    int port;
    int queue;   // the egress queue (the frame's priority unless a queue map says otherwise)
    uint64_t queue_units;   // that queue's occupancy, the frame itself not counted
    uint64_t port_units;   // every queue of the port, the frame itself not counted
    uint32_t port_frames;   // frames buffered for the port, every queue, the frame itself not counted
};

class switch_hook;

// What the switch lets its hooks do.
class switch_services {
public:
    virtual const std::string& switch_name() const = 0;
    virtual int num_ports() const = 0;
    virtual frame_pool& pool() = 0;
    // The accounting unit of every book of the switch (buffer_units.h): a hook converts its thresholds with it
    // when attached (units().threshold(bytes)) and compares them with queue_view's occupancies.
    virtual const buffer_units& units() const = 0;
    // Largest number of units one port can hold (its static limit or the shared pool).
    virtual uint64_t port_capacity() const = 0;
    // Frames one port's transmit queue holds: its limit under the "packets" buffer policy, else the capacity in
    // 1500-byte frames.
    virtual uint64_t port_limit_frames(int port) const = 0;
    // The buffer's state (occupancy, shared pool use) as admission sees it; non-const for ingress accounting
    // that shares the pool (PFC ingress reserves: add_ingress_reserved_used).
    virtual const buffer_manager& buffer() const = 0;
    virtual buffer_manager& buffer() = 0;
    // The ingress priority group of an 802.1p priority (buffer_config::pg_map; identity by default).
    virtual int priority_group(int prio) const = 0;
    // Queues a control frame the switch made (PAUSE, a notification) on `port` at once, in the control priority
    // and outside buffer accounting; it counts as originated by the switch.
    virtual void send_control(int port, frame* f, uint64_t now_ps) = 0;
    // Routes a control frame the switch made to its destination host, after the frame being processed has been
    // queued (a notification follows the frame it is about).
    virtual void send_routed(frame* f) = 0;
    // Calls hook->on_timer(tag, t) at t_ps (>= now) from the switch's event queue.
    virtual void schedule(uint64_t t_ps, switch_hook* hook, uint32_t tag) = 0;
    // Per-port counters of control activity that statistics report.
    virtual void count_mark(int port) = 0;
    virtual void count_cnm(int port) = 0;
    virtual void count_pause(int port, bool xoff) = 0;

protected:
    ~switch_services() = default;
};

class switch_hook {
public:
    enum event_mask : uint8_t {
        on_ingress_event = 1,
        on_enqueue_event = 2,
        on_dequeue_event = 4,
        on_drop_event = 8,
        on_admit_event = 16
    };
    // Order among hooks of one switch (lower first): ingress accounting, then congestion points, then marking,
    // then recorders; hooks of equal stage keep the order they were added in.
    enum stage_order : int {
        stage_ingress_accounting = 10,
        stage_congestion_point = 20,
        stage_marking = 30,
        stage_recorder = 100
    };

    virtual ~switch_hook() = default;
    virtual uint8_t events() const = 0;
    virtual int stage() const = 0;
    // Called once when the hook is added to a switch.
    virtual void attach(switch_services& sw) { m_sw = &sw; }

    // A frame arrived on in_port (data or notification; PAUSE frames are the transmitter's, never shown).
    // Return drop_reason::none to let it on.
    virtual drop_reason on_ingress(int in_port, frame& f, uint64_t now_ps) {
        (void)in_port;
        (void)f;
        (void)now_ps;
        return drop_reason::none;
    }
    // A data frame routed to queue q, before the buffer's admission: an active queue manager may refuse it (the
    // switch drops it with that reason) or mark it.
    virtual drop_reason on_admit(const queue_view& q, frame& f, uint64_t now_ps) {
        (void)q;
        (void)f;
        (void)now_ps;
        return drop_reason::none;
    }
    // A data frame admitted to queue q, about to be queued.
    virtual void on_enqueue(const queue_view& q, frame& f, uint64_t now_ps) {
        (void)q;
        (void)f;
        (void)now_ps;
    }
    // A frame's transmission starts (it leaves queue q); a hook may still mark it (ECN marking at dequeue).
    virtual void on_dequeue(const queue_view& q, frame& f, uint64_t now_ps) {
        (void)q;
        (void)f;
        (void)now_ps;
    }
    // The switch dropped f at `port` (the egress port, or the ingress port for ingress and routing drops).
    virtual void on_drop(int port, const frame& f, drop_reason why, uint64_t now_ps) {
        (void)port;
        (void)f;
        (void)why;
        (void)now_ps;
    }
    virtual void on_timer(uint32_t tag, uint64_t now_ps) {
        (void)tag;
        (void)now_ps;
    }

protected:
    switch_services& services() const { return *m_sw; }

private:
    switch_services* m_sw = nullptr;
};

}   // namespace cmswitch
#endif
