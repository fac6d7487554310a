// SPDX-License-Identifier: Apache-2.0
// An N-port output-queued Ethernet switch: static forwarding table (destination host -> egress port), buffer
// admission by a buffer_manager policy, 8 queues per egress port under strict priority or DWRR, and attachments
// on its frame path (switch_hook.h: congestion points, marking, PAUSE/PFC generation, recorders). Its events
// (frame arrivals, transmitter-free wakeups, its hooks' timers) run from an event_domain, shared or its own.
//
// Forwarding (buffer_config::forwarding): store-and-forward takes a frame pipeline_ns after its last bit arrived.
// Cut-through takes it pipeline_ns after its first cut_through_bytes arrived and sends it on at once when its egress
// port is idle for it (nothing queued, the transmitter free, its queue not paused) and not slower than its ingress
// port; into a faster port its start waits until its last bit can no longer be overtaken (start >= last bit in +
// pipeline - its serialization out). Otherwise the switch stores the frame: it is taken again, as a
// store-and-forward switch takes it, pipeline_ns after its last bit. The frames of each kind are counted
// (cut_through_frames, cut_through_stored). One-hop latency of an idle switch, first bit in to first bit out:
// cut_through_bytes at the ingress rate + pipeline_ns cut-through, the frame's time + pipeline_ns stored. The TLM
// socket path (rx/tx) carries a frame's last bit only: frames through it are stored.
#ifndef CMSWITCH_MODEL_SWITCH_ETHERNET_SWITCH_H
#define CMSWITCH_MODEL_SWITCH_ETHERNET_SWITCH_H

#include "model/drop_reason.h"
#include "model/event_domain.h"
#include "model/frame_pool.h"
#include "model/frame_protocol.h"
#include "model/port/egress_port.h"
#include "model/switch/buffer_manager.h"
#include "model/switch/forwarding_table.h"
#include "model/switch/switch_hook.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace cmswitch {

// What a frame's arrival reads of its switch, in one cache line with the switch's event handler: a switch is
// aligned to a line and this is its first base, so the handler's vtable pointer (offset 0) and these fields fill
// the object's first line, which the egress port a routed arrival joins fetches with its own lines
// (egress_port::on_event). A large network finds every switch cold on every frame; one line is one miss.
class switch_arrival_path : public event_handler {
protected:
    // the stages an arrival runs, in order
    enum stage : int { ingress_stage, admit_stage, enqueue_stage, num_arrival_stages };
    struct arrived_count {   // what arrived on a port (ethernet_switch::arrivals)
        uint64_t frames = 0, bytes = 0;
    };
    egress_port* m_port_array = nullptr;
    arrived_count* m_arrived_array = nullptr;   // null: arrivals not counted (ethernet_switch::count_arrivals)
    buffer_manager* m_buffer_account = nullptr;
    switch_hook* m_first_hook[num_arrival_stages] = {};   // each stage's first hook, or null
    uint8_t m_more_hooks = 0;   // bit s: stage s has more than one (then all of them are in the switch's vector)
    bool m_routed_pending = false;   // control frames wait to be routed (ethernet_switch::send_routed)
    bool m_cut_through = false;   // forwarding cut-through (ethernet_switch::cut_through)

    ~switch_arrival_path() = default;
};

static_assert(sizeof(switch_arrival_path) <= 64, "an arrival's fields share the handler's line");

class alignas(64) ethernet_switch : private switch_arrival_path,
                                    public sc_core::sc_module,
                                    private dequeue_listener,
                                    private switch_services {
public:
    struct port_counters {
        uint64_t marks = 0;   // frames set to CE at this egress port
        uint64_t cnms = 0;   // congestion notifications sent about this egress port's queues
        uint64_t pause_sent = 0, xon_sent = 0;   // PAUSE/PFC frames sent out of this port (XOFF, XON)
        std::array<uint64_t, num_drop_reasons> drop_frames{};
        std::array<uint64_t, num_drop_reasons> drop_bytes{};
        std::array<uint64_t, num_priorities> drop_frames_by_prio{};   // every reason, by the frame's priority
    };

    // Throws config_error on a bad buffer configuration or num_ports < 1. id: this switch's number in its
    // network (carried in the notifications it sends).
    ethernet_switch(sc_core::sc_module_name name, int num_ports, int num_hosts, const buffer_config& buffer,
                    frame_pool& pool, event_domain& events, int id = 0);

    // A port's TLM sockets, made on first use (before the simulation starts): binding tx(port) makes it the
    // port's way out. A network connects its ports directly instead (connect), without socket objects.
    frame_target_socket<ethernet_switch>& rx(int port);
    frame_initiator_socket& tx(int port);
    // Port `port` transmits onto a link with this timing into `peer` (another block's arrival_sink).
    void connect(int port, link_timing link, const frame_sink& peer) {
        m_ports[static_cast<size_t>(port)].connect(std::move(link), peer);
    }
    // Where a link into port `port` delivers its frames: with the forwarding table, so the transmitter sends each
    // frame to the egress port it will join (frame_sink; the table's static-route rule: forwarding_table.h).
    frame_sink arrival_sink(int port) {
        frame_sink s;
        s.events = &m_events;
        s.handler = this;
        s.kind = ev_arrival;
        s.index = static_cast<uint16_t>(port);
        s.routes = m_fib.table();
        s.ports = m_ports.data();
        s.num_routes = m_fib.size();
        s.pipeline_ns = m_forwarding.pipeline_ns;   // (the switch's timing: the transmitter schedules by it)
        s.cut_through_bytes = static_cast<uint16_t>(m_forwarding.cut_through ? m_forwarding.cut_through_bytes : 0);
        return s;
    }
    // Frames a cut-through switch forwarded cut-through, and those it stored instead (busy, paused or slower
    // egress port); 0 for a store-and-forward switch.
    uint64_t cut_through_frames() const { return m_ct_frames; }
    uint64_t cut_through_stored() const { return m_ct_stored; }
    bool cut_through() const { return m_forwarding.cut_through; }
    // The timing of the link port `port` is connected to (connect), e.g. to give it a rate schedule.
    link_timing& port_link(int port) { return m_ports[static_cast<size_t>(port)].link(); }

    // The next-hop seam (forwarding_table.h): static routes, set before the simulation starts.
    void set_route(int dst_host, int port) { m_fib.set_route(dst_host, port); }
    int route(int dst_host) const { return m_fib.route(dst_host); }
    const forwarding_table& forwarding() const { return m_fib; }
    int num_ports() const override { return static_cast<int>(m_ports.size()); }
    int id() const { return m_id; }

    // Adds an attachment (the switch owns it) and returns it.
    template <typename H>
    H* add_hook(std::unique_ptr<H> h) {
        H* raw = h.get();
        insert_hook(std::move(h));
        return raw;
    }
    // The first attached hook of type H, or null.
    template <typename H>
    H* find_hook() const {
        for (const auto& h : m_hooks)
            if (auto* p = dynamic_cast<H*>(h.get()))
                return p;
        return nullptr;
    }
    // Every transmitter learns its link rate (to turn received pause quanta into time).
    void set_port_rate(int port, uint64_t rate_bps) {
        m_ports[static_cast<size_t>(port)].configure_pause(rate_bps, ev_pause_expiry);
    }
    uint64_t consumed_frames() const { return m_consumed_frames; }
    uint64_t consumed_bytes() const { return m_consumed_bytes; }
    uint64_t originated_frames() const { return m_originated_frames; }
    uint64_t originated_bytes() const { return m_originated_bytes; }

    void reset();
    const egress_port& egress(int port) const { return m_ports[static_cast<size_t>(port)]; }
    // A port's scheduler: the priorities in mask under DWRR with these quanta (egress_port::set_dwrr).
    void set_dwrr(int port, uint8_t mask, const uint32_t (&quantum)[num_priorities]) {
        m_ports[static_cast<size_t>(port)].set_dwrr(mask, quantum);
    }
    // The ingress priority group of an 802.1p priority (buffer_config::pg_map).
    int pg_of(int prio) const { return m_pg_map[static_cast<size_t>(prio)]; }
    port_counters counters(int port) const { return m_counters[static_cast<size_t>(port)]; }
    using switch_arrival_path::arrived_count;   // frames, bytes
    // The frames and bytes that arrived on each port (PAUSE frames included), counted from this call on: off
    // by default, so that an arrival touches no line of its in-port (a large network finds it cold; nothing in
    // a run's results reads it, and a port's arrivals are its link peer's transmissions less those in flight).
    void count_arrivals();
    // What arrived on a port since count_arrivals() (throws model_error when it was not called).
    arrived_count arrivals(int port) const;
    // The buffer manager: its state (occupancy, shared pool use) and, non-const, its configuration by schemes
    // (PFC on a shared buffer: set_lossless, ingress reserves). Also switch_services'.
    const buffer_manager& buffer() const override { return *m_buffer; }
    buffer_manager& buffer() override { return *m_buffer; }
    void track_pool_occupancy() { m_buffer->track_pool_occupancy(); }   // see buffer_manager
    // Every egress queue's time-weighted occupancy from now on (egress_port::queue_occupancy).
    void track_queue_occupancy();
    // Adds the frames and bytes waiting in egress queues.
    void queued(uint64_t& frames, uint64_t& bytes) const;
    // Throws model_error if the buffer's books disagree with the frames in the egress queues: every admitted frame
    // queued, charged again, against the books' units and bytes (the end-of-run account, buffer_manager).
    void check_buffer() const;
    // A frame on the incoming link (sent to this block, last bit not yet in): a pending arrival.
    const frame* arriving_frame(uint32_t kind, void* ptr) const override {
        return kind == ev_arrival || kind == ev_routed_arrival || kind == ev_stored_arrival
                   ? static_cast<const frame*>(ptr)
                   : nullptr;
    }

private:
    // ev_routed_arrival: an arrival sent to its egress port (arrival_sink), index = in-port | egress port << 16;
    // ev_stored_arrival: a frame a cut-through switch stored, taken at its last bit (index the same; 0xffff: no
    // egress port known)
    enum : uint32_t {
        ev_arrival = 0,
        ev_pause_expiry = 2,
        ev_hook_timer = 3,
        ev_routed_arrival = frame_sink::routed_kind,
        ev_stored_arrival = 5
    };
    // A cut-through switch's decision for a frame whose first bytes are in: true to forward it now; false when it
    // is stored (scheduled again at its last bit, or dropped without a route).
    [[gnu::noinline]] void cut_through_arrival(int in_port, frame* f, uint64_t now, int out);
    bool cut_through_now(int in_port, frame* f, uint64_t now, int& out);
    void insert_hook(std::unique_ptr<switch_hook> h);
    void on_dequeue(uint32_t port, frame& f, uint64_t now) override;
    void receive(int port, frame& f, sc_core::sc_time& delay);
    void on_event(uint32_t kind, uint32_t index, void* ptr) override;
    // out: the egress port the sink resolved (-1: look it up)
    void forward(int in_port, frame* f, uint64_t now, int out);
    void switch_frame(int in_port, frame* f, uint64_t now) { switch_frame(in_port, f, now, route_of(*f)); }
    void switch_frame(int in_port, frame* f, uint64_t now, int out);
    int route_of(const frame& f) const { return m_fib.next_hop(f); }
    void drop(int port, frame* f, drop_reason why);
    void flush_routed(int port, uint64_t now);
    // Egress queue (port, queue) as hooks see it: the buffer's account, in its units.
    queue_view view(int port, int queue) const {
        return queue_view{port, queue, m_buffer_account->queue_units(port, queue), m_buffer_account->port_units(port),
                          static_cast<uint32_t>(m_buffer_account->port_frames(port))};
    }

    // switch_services
    const std::string& switch_name() const override { return m_name; }
    frame_pool& pool() override { return m_pool; }
    const buffer_units& units() const override { return m_buffer->units(); }
    uint64_t port_capacity() const override { return m_buffer->port_capacity(); }
    int priority_group(int prio) const override { return m_pg_map[static_cast<size_t>(prio)]; }
    uint64_t port_limit_frames(int port) const override { return m_buffer->port_limit_frames(port); }
    void send_control(int port, frame* f, uint64_t now_ps) override;
    void send_routed(frame* f) override {
        m_routed.push_back(f);
        m_routed_pending = true;
    }
    void schedule(uint64_t t_ps, switch_hook* hook, uint32_t tag) override {
        m_events.schedule(t_ps, this, ev_hook_timer, tag, hook);
    }
    void count_mark(int port) override { m_counters[static_cast<size_t>(port)].marks++; }
    void count_cnm(int port) override { m_counters[static_cast<size_t>(port)].cnms++; }
    void count_pause(int port, bool xoff) override {
        (xoff ? m_counters[static_cast<size_t>(port)].pause_sent : m_counters[static_cast<size_t>(port)].xon_sent)++;
    }

    // Calls fn(hook) for the hooks of an arrival stage in order while it returns true; false when one stopped it.
    // The usual stage has no hook or one, read from the switch's first line (switch_arrival_path).
    template <typename F>
    bool each_hook(stage s, F&& fn) {
        switch_hook* h = m_first_hook[s];
        if (!h)
            return true;
        if (!((m_more_hooks >> s) & 1))
            return fn(h);
        for (switch_hook* x : m_stage_hooks[s])
            if (!fn(x))
                return false;
        return true;
    }

    // (What an arrival reads is in switch_arrival_path, the object's first line: the arrays and the buffer
    // account below, and each stage's first hook.)
    frame_pool& m_pool;
    event_domain& m_events;
    std::vector<egress_port> m_ports;
    // What arrived on each port (once count_arrivals() is called), apart from the other counters: every frame
    // adds here, so a switch keeps these in a few cache lines instead of a line of each port's counters
    std::vector<arrived_count> m_arrived;
    std::unique_ptr<buffer_manager> m_buffer;
    std::vector<switch_hook*> m_stage_hooks[num_arrival_stages];   // ingress, admit, enqueue, in stage order
    std::vector<switch_hook*> m_dequeue_hooks, m_drop_hooks;
    std::vector<frame*> m_routed;   // control frames to route once the current frame is queued
    std::vector<port_counters> m_counters;
    forwarding_table m_fib;   // the next hop of each destination host
    std::vector<std::unique_ptr<switch_hook>> m_hooks;   // in stage order
    int m_id = 0;
    std::array<uint8_t, num_priorities> m_pg_map;
    uint64_t m_originated_frames = 0, m_originated_bytes = 0;
    uint64_t m_consumed_frames = 0, m_consumed_bytes = 0;   // PAUSE frames taken by this switch
    buffer_config::forwarding_config m_forwarding;
    uint64_t m_ct_frames = 0, m_ct_stored = 0;
    std::string m_name;
    std::vector<std::unique_ptr<frame_target_socket<ethernet_switch>>> m_rx;
    std::vector<std::unique_ptr<frame_initiator_socket>> m_tx;
};

}   // namespace cmswitch
#endif
