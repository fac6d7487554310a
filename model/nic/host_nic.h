// SPDX-License-Identifier: Apache-2.0
// A host's network interface: one egress port (8 strict-priority queues with a byte limit) onto the host's link,
// behind the host's queueing discipline and small-queue accounting (host_qdisc.h: fifo, today's behaviour when
// nothing else is configured, or fq with a NIC ring), and the receive path up to the host stack. It is also the
// host's timer service: a host's events (frame arrivals, transmitter wakeups, timers of transports and
// applications) all run from the NIC's event_domain.
#ifndef CMSWITCH_MODEL_NIC_HOST_NIC_H
#define CMSWITCH_MODEL_NIC_HOST_NIC_H

#include "model/drop_reason.h"
#include "model/event_domain.h"
#include "model/frame_pool.h"
#include "model/frame_protocol.h"
#include "model/nic/host_qdisc.h"
#include "model/nic/reaction_point.h"
#include "model/port/egress_port.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace cmswitch {

// What sits above the NIC (the host stack). Ownership of f passes with the call: the receiver releases it.
class frame_receiver {
public:
    virtual void receive(frame* f, uint64_t now_ps) = 0;
    // A flow that found its reaction point's limiter full (see host_nic::room) may send again.
    virtual void writable(uint32_t flow, uint64_t now_ps) = 0;

protected:
    ~frame_receiver() = default;
};

// What a frame's arrival at the host and a departure from its NIC read of the NIC, in one cache line with the two
// handlers' vtable pointers: a NIC is aligned to a line and this is its first base, at the start of the object.
// A large network finds every host cold on every frame; one line is one miss.
class host_nic_path : public event_handler, public dequeue_listener {
protected:
    frame_receiver* m_upper = nullptr;
    std::unique_ptr<reaction_point> m_rp;
    uint64_t m_delivered_frames = 0, m_delivered_bytes = 0;
    uint64_t m_latency_ps = 0;   // host_egress_config::latency_ps
    int m_host = 0;
    bool m_rp_receives = false;   // m_rp wants on_receive
    bool m_rp_dequeues = false;   // m_rp wants on_egress_dequeue
    bool m_shaped = false;   // m_qdisc.config().active()
    bool m_rx_slow = false;   // an arriving frame waits for the receive poll or the host latency

    ~host_nic_path() = default;
};
static_assert(sizeof(host_nic_path) <= 64, "an arrival's and a departure's fields share the handlers' line");

class alignas(64) host_nic : private host_nic_path,
                             public sc_core::sc_module,
                             private nic_services,
                             private host_qdisc_owner,
                             private receive_poll_owner {
public:
    // The NIC's TLM sockets, made on first use (before the simulation starts): binding tx() makes it the
    // NIC's way out. A network connects the NIC directly instead (connect), without socket objects.
    frame_initiator_socket& tx();
    frame_target_socket<host_nic>& rx();
    // The NIC transmits onto a link with this timing into `peer` (another block's arrival_sink).
    void connect(link_timing link, const frame_sink& peer) { m_port.connect(std::move(link), peer); }
    // Where a link into this NIC delivers its frames.
    frame_sink arrival_sink() { return frame_sink{&m_events, this, ev_arrival, 0}; }
    // The timing of the link the NIC is connected to (connect), e.g. to give it a rate schedule.
    link_timing& link() { return m_port.link(); }

    // queue_limit_bytes: byte limit of the egress queue (all priorities); > 0, validated by the caller.
    host_nic(sc_core::sc_module_name name, int host_id, uint64_t queue_limit_bytes, frame_pool& pool,
             event_domain& events);

    int host_id() const override { return m_host; }
    frame_pool& pool() { return m_pool; }
    void set_receiver(frame_receiver* upper) { m_upper = upper; }

    // Hands f to the NIC for transmission (ownership passes). Counts it as offered to the network.
    // Returns false if the queue limit dropped it. backpressured: the sender checks room() first (TCP).
    // With a host latency, f reaches the qdisc that much later (and a drop then is counted, not returned).
    bool send(frame* f, bool backpressured = false);

    // Back-pressure for senders that can wait (TCP): bytes the flow may hand to send() now without its
    // reaction point's limiter overflowing, or 0 when its socket is over its small-queue limit (host_qdisc.h;
    // retransmission: twice the limit); when it is too little, want_room() asks for a writable() call later.
    // exempt: the small queue does not hold the sender back (Linux: at most one segment unacknowledged).
    uint64_t room(uint32_t flow, bool retransmission = false, bool exempt = false) const {
        if (m_shaped && !exempt && m_qdisc.over_limit(flow, retransmission))
            return 0;
        return m_rp ? m_rp->room(flow) : UINT64_MAX;
    }
    void want_room(uint32_t flow) {
        if (m_shaped && m_qdisc.over_limit(flow))
            m_qdisc.want_room(flow);
        if (m_rp)
            m_rp->want_room(flow);
    }

    // The host's egress below its transports (qdisc, small queues, NIC ring; host_qdisc.h) and its software
    // latency both ways. Before any frame.
    void configure_egress(const host_egress_config& cfg);
    const host_qdisc& qdisc() const { return m_qdisc; }
    const receive_poll& rx_poll() const { return m_poll; }
    uint64_t latency_ps() const { return m_latency_ps; }
    // Whether anything beyond a plain FIFO runs (a transport then reports its pacing rate).
    bool shaped() const { return m_shaped; }
    void set_pacing_rate(uint32_t flow, uint64_t bps) {
        if (m_shaped)
            m_qdisc.set_pacing_rate(flow, bps);
    }

    // Host timer service: on_timer(tag) is called on `client` at t_ps (>= now).
    void schedule_timer(uint64_t t_ps, timer_client* client, uint32_t tag) override {
        m_events.schedule(t_ps, this, ev_timer, tag, client);
    }

    // The NIC's reaction point (QCN, DCQCN): it takes the frames of the flows it limits, and congestion
    // notifications arriving at this NIC go to it (and no further). Replaces any earlier one.
    void set_reaction_point(std::unique_ptr<reaction_point> rp);
    const reaction_point* get_reaction_point() const { return m_rp.get(); }
    // The reaction point if it is an R, else null.
    template <typename R>
    const R* reaction_point_as() const {
        return dynamic_cast<const R*>(m_rp.get());
    }

    // The rate of this NIC's link (turns received PAUSE quanta into time).
    void set_link_rate(uint64_t rate_bps) { m_port.configure_pause(rate_bps, ev_pause_expiry); }
    uint64_t consumed_frames() const { return m_consumed_frames; }

    void reset();
    const egress_port& egress() const { return m_port; }
    // The egress scheduler (egress_port::set_dwrr).
    void set_dwrr(uint8_t mask, const uint32_t (&quantum)[num_priorities]) { m_port.set_dwrr(mask, quantum); }
    uint64_t offered_frames() const { return m_offered_frames; }
    uint64_t offered_bytes() const { return m_offered_bytes; }
    uint64_t delivered_frames() const { return m_delivered_frames; }
    uint64_t delivered_bytes() const { return m_delivered_bytes; }
    uint64_t dropped_frames() const { return m_dropped_frames; }
    uint64_t dropped_bytes() const { return m_dropped_bytes; }
    // Drops by reason (nic_queue_full, rate_limiter_full).
    uint64_t dropped_frames(drop_reason why) const { return m_drop_frames[static_cast<size_t>(why)]; }
    // One dropped frame, as a trace records it (record_drops).
    struct drop_record {
        uint64_t t_ps;
        uint64_t seq;   // the frame's seq (TCP: first byte; SCTP DATA: first TSN)
        uint32_t flow;
        uint32_t bytes;
        frame_kind kind;
        uint8_t flags;   // tcp_flags / sctp_flags by kind
        drop_reason why;
    };
    // Appends the frames this NIC drops from now on to `log` (null: stop), the first `limit` of them (a bounded
    // trace: the drops beyond are still counted). For traces; off, a drop costs nothing more.
    void record_drops(std::vector<drop_record>* log, size_t limit) {
        m_drop_log = log;
        m_drop_log_limit = limit;
    }
    // Adds the frames and bytes waiting in egress queues.
    void queued(uint64_t& frames, uint64_t& bytes) const;
    // A frame on the incoming link (sent to this block, last bit not yet in): a pending arrival.
    const frame* arriving_frame(uint32_t kind, void* ptr) const override {
        return kind == ev_arrival ? static_cast<const frame*>(ptr) : nullptr;
    }

private:
    enum : uint32_t {
        ev_arrival = event_domain::frame_arrival_kind,
        ev_timer = 2,
        ev_pause_expiry = 3,
        ev_qdisc = 4,
        ev_tx_interrupt = 5,
        ev_sent = 6,   // a frame through the send latency (index: backpressured)
        ev_received = 7,   // a frame through the receive latency
        ev_rx_interrupt = 8
    };
    [[gnu::always_inline]] inline bool send_now(frame* f, bool backpressured);
    [[gnu::noinline]] void send_later(frame* f, bool backpressured);   // through the host latency (off the fast path)
    void deliver(frame* f);
    void receive(int, frame& f, sc_core::sc_time& delay);
    void on_event(uint32_t kind, uint32_t index, void* ptr) override;
    void transmit(frame* f, uint64_t now_ps) override { m_port.enqueue(f, now_ps); }
    void send_own(frame* f) override;   // the NIC's own frames (CNPs): no software on the way
    frame_pool& frames() override { return m_pool; }
    uint64_t egress_backlog_bytes() const override { return m_port.bytes(); }
    uint64_t egress_free_at() const override { return m_port.busy_until(); }
    void on_dequeue(uint32_t, frame& f, uint64_t now_ps) override {
        if (m_shaped)
            m_qdisc.on_tx_start(f, now_ps);
        if (m_rp_dequeues)
            m_rp->on_egress_dequeue(now_ps);
    }
    // host_qdisc_owner
    bool to_ring(frame* f, uint64_t now_ps) override { return admit(f, now_ps, true); }
    uint64_t ring_queue_bytes(int queue) const override { return m_port.bytes(queue); }
    int ring_queue_of(int prio) const override { return m_port.queue_of(prio); }
    void qdisc_wakeup_at(uint64_t t_ps) override { m_events.schedule(t_ps, this, ev_qdisc, 0, nullptr); }
    void socket_writable(uint32_t flow, uint64_t now_ps) override { flow_writable(flow, now_ps); }
    void qdisc_drop(frame* f, drop_reason why) override { drop(f, why); }
    uint64_t tx_end_ps(const frame& f, uint64_t now_ps) override {
        link_timing& l = m_port.link();
        return l.rate_bps() ? now_ps + l.serialization_ps(f.bytes, now_ps) : now_ps;
    }
    void tx_interrupt_at(uint64_t t_ps) override { m_events.schedule(t_ps, this, ev_tx_interrupt, 0, nullptr); }
    // receive_poll_owner
    void rx_interrupt_at(uint64_t t_ps) override { m_events.schedule(t_ps, this, ev_rx_interrupt, 0, nullptr); }
    void rx_deliver(frame* f) override { to_stack(f); }
    void arrive(frame* f);   // a frame's last bit in
    void to_stack(frame* f);   // through the receive latency, if any, to deliver()
    // Into the NIC queue or the reaction point's limiter, or dropped at the NIC's limit (false).
    bool admit(frame* f, uint64_t now_ps, bool backpressured);
    void update_dequeue_listener();
    void flow_writable(uint32_t flow, uint64_t now_ps) override {
        if (m_upper)
            m_upper->writable(flow, now_ps);
    }

    // (What an arrival and a departure read is in host_nic_path, the object's first line.) What a send reads
    // besides, then the egress port on lines of its own.
    uint64_t m_offered_frames = 0, m_offered_bytes = 0;
    uint64_t m_limit;
    frame_pool& m_pool;
    event_domain& m_events;
    egress_port m_port;
    host_qdisc m_qdisc;
    receive_poll m_poll;
    std::unique_ptr<frame_initiator_socket> m_tx;
    std::unique_ptr<frame_target_socket<host_nic>> m_rx;
    uint64_t m_dropped_frames = 0, m_dropped_bytes = 0;
    uint64_t m_drop_frames[num_drop_reasons] = {};
    std::vector<drop_record>* m_drop_log = nullptr;
    size_t m_drop_log_limit = 0;
    void drop(frame* f, drop_reason why);
    uint64_t m_consumed_frames = 0;
    uint64_t m_held_frames = 0, m_held_bytes = 0;   // frames in the host latency, either way
};

}   // namespace cmswitch
#endif
