// SPDX-License-Identifier: Apache-2.0
// The transmit side of a port (switch egress or host NIC): 8 priority FIFOs served in strict priority or by DWRR
// (weighted queues below the strict ones) onto one
// link. Not a module: it lives inside the switch or NIC and uses that module's event queue. Buffer admission is
// the owner's job; a frame's bytes leave the queue when its transmission starts (as in ns-2/ns-3, the frame
// being serialized is on the wire, not in the queue).
#ifndef CMSWITCH_MODEL_PORT_EGRESS_PORT_H
#define CMSWITCH_MODEL_PORT_EGRESS_PORT_H

#include "model/ethernet_link.h"
#include "model/event_domain.h"
#include "model/frame.h"
#include "model/frame_protocol.h"
#include "model/port/occupancy_stats.h"
#include "model/trace_signal.h"

#include <array>
#include <string>

#include <cstdint>
#include <memory>
#include <vector>

namespace cmswitch {

class buffer_manager;   // the switch's (model/switch/buffer_manager.h); a NIC's port has none

using frame_tx_socket = tlm::tlm_initiator_socket<32, frame_protocol>;

struct frame_fifo {
    frame* head = nullptr;
    frame* tail = nullptr;
    uint32_t frames = 0;
    uint64_t bytes = 0;

    void push(frame* f) {
        f->next = nullptr;
        if (tail)
            tail->next = f;
        else
            head = f;
        tail = f;
        ++frames;
        bytes += f->bytes;
    }
    frame* pop() {
        frame* f = head;
        head = f->next;
        if (!head)
            tail = nullptr;
        --frames;
        bytes -= f->bytes;
        f->next = nullptr;
        return f;
    }
};

class egress_port;

// Where a block takes in frames from a link: its arrival event (kind, index: the port it arrives on) in its
// event domain. A port wired straight to it (egress_port::connect) schedules the arrival itself.
// A switch's in-port also gives its forwarding table (routes, by destination host: an index into ports, or -1):
// the transmitter looks the frame's egress port up as it sends the frame, while the frame is at hand, and the
// arrival goes to that port (routed_kind, index | the egress port's index << 16), which hands it to its owner.
// The event domain fetches an entry's handler ahead of running it, so the egress port the frame will join is
// in the caches when it arrives; a large network otherwise waits there for the table and then the port. Frames
// with no route and PAUSE frames (for the in-port's own transmitter) arrive at `handler` as before.
// A switch that forwards after a pipeline latency, or cut-through, gives its timing too: the transmitter then
// schedules the arrival when the switch acts on the frame (egress_port::timed_arrival): its last bit plus the
// pipeline; cut-through, its first cut_through_bytes plus the pipeline, with the last bit's time in the frame's
// enq_ps (what the switch needs if it must store the frame after all). PAUSE frames act on their last bit.
struct frame_sink {
    event_domain* events = nullptr;
    event_handler* handler = nullptr;
    uint32_t kind = 0;
    uint16_t index = 0;   // (ports < 32768)
    uint16_t cut_through_bytes = 0;   // 0: store-and-forward
    const int16_t* routes = nullptr;
    egress_port* ports = nullptr;
    uint32_t num_routes = 0;
    uint32_t pipeline_ns = 0;
    // the kind of an arrival routed to its egress port (the receiving switch's event kind for it)
    static constexpr uint32_t routed_kind = 4;
};
static_assert(sizeof(frame_sink) == 48, "a sink fills the transmitter's second line with its domain");

// Told when a frame leaves a queue (its transmission starts): the switch passes it on to its hooks.
class dequeue_listener {
public:
    virtual void on_dequeue(uint32_t port_index, frame& f, uint64_t now_ps) = 0;

protected:
    ~dequeue_listener() = default;
};

class alignas(64) egress_port final : public event_handler {   // (its lines as laid out below)
public:
    // Statistics of one port, kept as plain counters (read by recorders at the end or by samplers).
    struct counters {
        uint64_t tx_frames = 0, tx_bytes = 0;
        uint128 wait_sum_ps = 0;   // sum over transmitted frames of (tx start - enqueue)
        uint64_t wait_max_ps = 0;
    };

    // owner: the block the port belongs to, told of the frames routed to this port (frame_sink::routes); index:
    // this port's index in the owner (up to 65,535); buffer: the switch buffer the queued bytes are accounted in
    // (released when transmission starts), or null. Frames then leave through connect()'s link or a bound socket
    // (bind_socket). The port schedules its own "transmitter free" events (handler: the port).
    void attach(event_domain* events, event_handler* owner, uint32_t index, buffer_manager* buffer = nullptr) {
        if (index > UINT16_MAX)
            bad_attach(index);
        m_buffer = buffer;
        m_owner = owner;
        m_events = events;
        m_index = static_cast<uint16_t>(index);
    }
    void reset(uint64_t now_ps, uint64_t histogram_bin_bytes);
    // The transmitter's way out, one of two (the last call wins):
    //  - a TLM socket (frame_protocol.h), bound to an ethernet_link or any other target: the embedding path;
    //  - connect: the link's timing and the receiving block, called directly (what a network builds: no
    //    socket objects, and one call per frame instead of a chain of virtual calls through four sockets).
    // The frame's times are the same either way.
    void bind_socket(frame_tx_socket* socket) {
        m_socket = socket;
        m_peer = frame_sink{};
    }
    void connect(link_timing link, const frame_sink& peer) {
        m_link = std::move(link);
        m_peer = peer;
        m_socket = nullptr;
    }
    // The connected link's timing (connect), e.g. to give it a rate schedule.
    link_timing& link() { return m_link; }

    // Takes ownership of f (already admitted). Starts transmitting at once if the link is idle.
    void enqueue(frame* f, uint64_t now) { enqueue(f, now, m_qmap[f->prio]); }
    // The same into queue qi (= queue_of(f->prio), known to the caller).
    void enqueue(frame* f, uint64_t now, int qi) {
        if (passes_through(now, qi)) {
            pass_through(f, now, qi);
            return;
        }
        f->enq_ps = now;
        m_q[qi].push(f);
        m_nonempty |= static_cast<uint8_t>(1u << qi);
        m_bytes += f->bytes;
        ++m_frames;
        if (m_features && ((m_features & feature_waveforms) || m_qshadow != qi))   // (before m_occ moves)
            observe_queue(now, qi);
        m_occ.set(now, m_bytes);
        if (m_busy_until <= now && !m_wakeup_pending)
            try_transmit(now);
        else
            request_wakeup();
    }
    // The fast path's rule, in one place: a frame enqueued now into queue qi goes straight to the wire
    // (pass_through: the same counters and statistics as a trip through the queue, without the trip; most ACKs and
    // every frame into an idle link) only when
    //   - the port is idle: no frame queued, the transmitter free, no transmitter-free event pending;
    //   - no port feature watches the queues (m_features: per-queue statistics, waveform signals; a feature that
    //     must see every frame sets its bit there);
    //   - the frame's queue is neither paused (PFC) nor scheduled by DWRR (per-queue masks).
    // Everything else takes the queue (enqueue, then try_transmit).
    bool passes_through(uint64_t now, int qi) const {
        return !(m_nonempty | m_features) && !m_wakeup_pending && m_busy_until <= now &&
               !(((m_qpaused | m_dwrr) >> qi) & 1);
    }
    // Port features that take every frame off the fast path (bits of m_features).
    enum port_feature : uint8_t {
        feature_queue_stats = 1,   // per-queue occupancy statistics (track_queues)
        feature_waveforms = 2,   // waveform signals (trace_as)
    };
    uint8_t features() const { return m_features; }

    // The port's events: its transmitter free (kind_transmitter_free), or a frame routed to it by the sink of
    // the in-port it arrives on (frame_sink::routes): to the owner, with this port's index in the upper 16 bits
    // of index. The event domain has fetched the port's first line ahead of the event.
    static constexpr uint32_t kind_transmitter_free = UINT32_MAX;
    static_assert(kind_transmitter_free != event_domain::frame_arrival_kind, "a transmitter's event is no arrival");
    void on_event(uint32_t kind, uint32_t index, void* ptr) override {
        if (kind == kind_transmitter_free) {
            m_wakeup_pending = false;
            try_transmit(now_ps());
            return;
        }
        // the rest of the port's hot lines, all at once, while the owner takes the frame in
        const char* p = reinterpret_cast<const char*>(this);
        __builtin_prefetch(p + 64);
        __builtin_prefetch(p + 128);
        __builtin_prefetch(p + 192);
        __builtin_prefetch(p + 256);   // (queue 0's line)
        // and the owner's (a switch keeps what an arrival reads in the line of its handler's vtable pointer:
        // switch_arrival_path) and the buffer account's
        __builtin_prefetch(m_owner);
        __builtin_prefetch(m_buffer);
        m_owner->on_event(kind, index | (m_index << 16), ptr);
    }
    // Starts fetching the route the receiving switch's sink will give f (depart looks it up).
    void prefetch_route(const frame& f) const {
        if (m_peer.routes && f.dst < m_peer.num_routes)
            __builtin_prefetch(m_peer.routes + f.dst);
    }
    const frame* arriving_frame(uint32_t kind, void* ptr) const override {
        return kind == kind_transmitter_free ? nullptr : static_cast<const frame*>(ptr);
    }

    // 802.3x PAUSE / 802.1Qbb PFC received for this transmitter: the priorities in class_mask stop for quanta x
    // 512 bit times at the link rate (replacing any running pause; 0 = resume now). The frame on the wire is
    // finished; priority 7 (control frames: PAUSE, CNM) is never paused. kind_pause_expiry: the owner's event
    // kind for the end of a pause (on_pause_expiry must follow).
    void configure_pause(uint64_t link_rate_bps, uint32_t kind_pause_expiry) {
        m_rate_bps = link_rate_bps;
        m_kind_pause_expiry = kind_pause_expiry;
    }
    void on_pause(uint8_t class_mask, uint32_t quanta, uint64_t now);
    void on_pause_expiry(uint64_t now);
    uint8_t paused() const { return m_paused; }   // priorities (not queues)
    uint64_t paused_ps(uint64_t now) const {   // time with at least one priority paused
        return m_pause ? m_pause->total_ps + (m_paused ? now - m_pause->since : 0) : 0;
    }
    uint64_t pause_frames_received() const { return m_pause ? m_pause->received : 0; }
    // Pause episodes of a priority (from the pause that stopped it to its expiry or XON): the durations of those
    // that ended, and the running one's start if it is paused now.
    const std::vector<uint64_t>& pause_episodes_ps(int prio) const;
    bool paused(int prio) const { return (m_paused >> prio) & 1; }
    uint64_t pause_episode_start_ps(int prio) const { return m_pause ? m_pause->episode_start[prio] : 0; }
    void set_dequeue_listener(dequeue_listener* l) {
        m_dequeue = l;
        m_has_dequeue = l != nullptr;
    }
    // Waveform signals under `scope` (model/trace_signal.h): <scope>.bytes (every priority), <scope>.q<p>_bytes
    // and <scope>.paused<p> (a PAUSE/PFC in force at this transmitter), those the open trace selects.
    void trace_as(const std::string& scope);
    // Scheduling: strict priority (the default), or the priorities in dwrr_mask shared by deficit weighted round
    // robin (quantum[p] bytes added per round; shares in proportion to the quanta while backlogged), served when
    // no priority outside the mask (strict, above them) is ready. Quanta of 1500 B or more. Throws config_error.
    void set_dwrr(uint8_t dwrr_mask, const uint32_t (&quantum)[num_priorities]);

    // The egress queue of each 802.1p priority (identity by default; buffer_config::queue_map). A PAUSE/PFC
    // of a priority stops the queue it maps to.
    void set_queue_map(const std::array<uint8_t, num_priorities>& queue_map) {
        for (int p = 0; p < num_priorities; ++p)
            m_qmap[p] = queue_map[static_cast<size_t>(p)];
    }
    int queue_of(int prio) const { return m_qmap[prio]; }
    // Time-weighted occupancy of each queue (queue_occupancy), kept from this call on (one more update per frame).
    void track_queues(uint64_t now_ps, uint64_t histogram_bin_bytes);
    // (A copy: while one queue alone has held frames, the statistics of the others are made on demand.)
    occupancy_stats queue_occupancy(int queue) const;

    uint64_t bytes() const { return m_bytes; }
    uint32_t frames() const { return m_frames; }
    // Idle for a frame of queue qi: nothing queued, the transmitter free and no wakeup due, the queue not paused
    // (what a cut-through switch asks before it forwards a frame whose last bit has not arrived).
    bool idle_for(uint64_t now, int qi) const {
        return !m_nonempty && !m_wakeup_pending && m_busy_until <= now && !((m_qpaused >> qi) & 1);
    }
    // Keeps the idle transmitter from starting before t_ps (a cut-through frame into a faster port waits until
    // its last bit can no longer be overtaken).
    void hold_until(uint64_t t_ps) {
        if (t_ps > m_busy_until)
            m_busy_until = t_ps;
    }
    // The link's rate as configure_pause gave it (0: not given).
    uint64_t rate_bps() const { return m_rate_bps; }
    // fn(frame) for every frame waiting in a queue (not the one on the wire), queue by queue, oldest first.
    template <typename F>
    void for_each_queued(F&& fn) const {
        for (const frame_fifo& q : m_q)
            for (const frame* f = q.head; f; f = f->next)
                fn(*f);
    }
    uint64_t bytes(int queue) const { return m_q[queue].bytes; }
    uint64_t busy_until() const { return m_busy_until; }
    counters stats() const { return counters{m_tx_frames, m_tx_bytes, m_wait_sum_ps, m_wait_max_ps}; }
    const occupancy_stats& occupancy() const { return m_occ; }

private:
    void try_transmit(uint64_t now);
    void pass_through(frame* f, uint64_t now, int qi);
    // f leaves queue qi now (out of the queue and its byte counts already): the buffer, listeners, statistics,
    // then the wire. level_moved: the port's level changed (a frame taken from the queue), not a frame passing
    // an empty port, whose level stays at zero.
    template <bool level_moved>
    inline void depart(frame* f, uint64_t now, int qi);
    [[noreturn]] void unconnected() const;
    // When a switch with a pipeline latency or cut-through acts on f (see frame_sink), its last bit due at
    // last_bit_ps; out of line: only such switches' links take it.
    [[gnu::noinline]] uint64_t timed_arrival(frame& f, uint64_t now, uint64_t last_bit_ps);
    [[noreturn]] static void bad_attach(uint32_t index);
    // Out of line on purpose: inlined, the listener's code costs every transmission register spills, listener
    // or not (measured with callgrind on the DCTCP incast).
    [[gnu::noinline]] void notify_dequeue(frame& f, uint64_t now);
    [[gnu::noinline]] void trace_levels(uint64_t now, int queue);
    // the per-queue statistics and waveform signals (out of line: one branch per frame when neither is on)
    [[gnu::noinline]] void observe_queue(uint64_t now, int queue);
    // The event's pointer is the frame that would go next as things stand (the strict-priority head; null under
    // DWRR): only a hint, which the event domain fetches ahead of the event (a queued frame has gone cold since
    // it was queued); try_transmit decides when the event comes.
    void request_wakeup() {
        const uint8_t ready = m_nonempty & static_cast<uint8_t>(~m_qpaused);
        if (!m_wakeup_pending && ready) {
            m_wakeup_pending = true;
            const uint8_t strict = ready & static_cast<uint8_t>(~m_dwrr);
            frame* next = strict ? m_q[31 - __builtin_clz(static_cast<unsigned>(strict))].head : nullptr;
            m_events->schedule(m_busy_until, this, kind_transmitter_free, m_index, next);
        }
    }

    // The state every frame touches, in the object's first five cache lines (bench/cache_misses.sh counts what
    // each line costs):
    //   1. the flags, levels and times, the owner and the buffer account (every visit);
    //   2. the event domain and the peer (a transmission), the frame count;
    //   3. the link's timing and the other counters (a transmission);
    //   4. the occupancy statistics' update (every change of the level);
    //   5. their cold tail, then the first queue (where an uncongested network's frames wait).
    // A frame queued behind another reads lines 1, 4 and 5; a transmission all five. What only some ports use
    // (a pause received, DWRR, per-queue statistics, waveform signals) lives out of line, made when first needed:
    // a network of thousands of ports keeps a few hundred bytes per port in the caches, each line of it cold by
    // the time the port's next frame comes.
    uint8_t m_nonempty = 0;
    uint8_t m_paused = 0;   // priorities paused
    uint8_t m_qpaused = 0;   // queues paused (those the paused priorities map to)
    uint8_t m_dwrr = 0;   // priorities under DWRR
    bool m_wakeup_pending = false;
    uint8_t m_features = 0;   // port_feature bits: per-queue statistics, waveform signals
    // Per-queue statistics while a single queue has held frames since they began: that queue's statistics are
    // the port's (m_occ), the others' are at zero, and nothing is updated per frame. The queue (0-7), -1 before
    // any frame, -2 when every queue is tracked on its own (or none is).
    int8_t m_qshadow = -2;
    uint8_t m_qmap[num_priorities] = {0, 1, 2, 3, 4, 5, 6, 7};
    bool m_has_dequeue = false;   // m_dequeue is set (read here: the listener itself sits on a cold line)
    uint16_t m_index = 0;
    uint32_t m_frames = 0;
    event_handler* m_owner = nullptr;   // (in the first line: a routed arrival goes through it)
    uint64_t m_bytes = 0;
    uint64_t m_busy_until = 0;
    buffer_manager* m_buffer = nullptr;
    event_domain* m_events = nullptr;
    frame_sink m_peer;   // connect(): the receiving block
    uint64_t m_tx_frames = 0;   // (the counters, in two lines: stats())
    link_timing m_link;   // connect(): the link's timing
    uint128 m_wait_sum_ps = 0;   // sum over transmitted frames of (tx start - enqueue)
    uint64_t m_tx_bytes = 0;
    uint64_t m_wait_max_ps = 0;
    alignas(64) occupancy_stats m_occ;   // its update in the fourth line, its cold tail (32 bytes) in the fifth
    alignas(32) frame_fifo m_q[num_priorities];   // queue 0 (an uncongested network's) ends the fifth line
    dequeue_listener* m_dequeue = nullptr;
    frame_tx_socket* m_socket = nullptr;   // bind_socket()
    uint64_t m_rate_bps = 0;   // the link's, for pause quanta
    uint32_t m_kind_pause_expiry = 0;

    void set_paused(uint8_t mask, uint64_t now);
    int pick_dwrr(uint8_t ready);

    struct pause_state {   // made by the first PAUSE/PFC received
        uint64_t until[num_priorities] = {};
        uint64_t expiry_at = UINT64_MAX;   // the earliest pause-expiry event pending (UINT64_MAX: none)
        uint64_t since = 0, total_ps = 0, received = 0;
        uint64_t episode_start[num_priorities] = {};
        std::vector<uint64_t> episodes[num_priorities];
    };
    struct dwrr_state {   // set_dwrr
        uint32_t quantum[num_priorities] = {};
        uint64_t deficit[num_priorities] = {};
        int rr = 0;   // the DWRR class whose turn it is
        bool rr_credited = false;   // its quantum for this turn was added
    };
    struct observers {   // trace_as, or per-queue statistics once two queues have held frames
        occupancy_stats qocc[num_priorities];
        trace_signal* tr_bytes = nullptr;
        trace_signal* tr_q[num_priorities] = {};
        trace_signal* tr_paused[num_priorities] = {};
    };
    std::unique_ptr<pause_state> m_pause;
    std::unique_ptr<dwrr_state> m_dwrr_state;
    std::unique_ptr<observers> m_obs;
    // qocc from start_ps, each at its queue's bytes now, or at zero (a start in the past)
    void track_every_queue(uint64_t start_ps, uint64_t bin_bytes, bool at_zero);
    observers& obs() {
        if (!m_obs)
            m_obs = std::make_unique<observers>();
        return *m_obs;
    }
};

}   // namespace cmswitch
#endif
