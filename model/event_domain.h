// SPDX-License-Identifier: Apache-2.0
// A time-ordered queue of model events behind one sc_event and one SC_METHOD. Blocks (switches, NICs) schedule
// their own events here (frame arrivals, transmitter wakeups, timers) instead of keeping a SystemC event each:
// the kernel slows down as pending timed notifications grow (docs/architecture.md, "What SystemC costs":
// 29 M events/s with 1 pending, 7.2 M with 1000), so a scenario keeps a handful of domains however many blocks
// it has (see network.h).
// Entries due at the same picosecond run in the order they were scheduled: runs are deterministic.
//
// Temporal decoupling: when a domain carries the whole model (no other domain can send it events), it may run
// its entries ahead of the kernel's time, up to the next pending activity of any other process or the end of
// the current sc_start, whichever comes first, instead of returning to the kernel after each timestamp. Model
// time (now_ps()) follows the entries, so results are identical with decoupling on or off (tested); only the
// number of kernel activations changes.
#ifndef CMSWITCH_MODEL_EVENT_DOMAIN_H
#define CMSWITCH_MODEL_EVENT_DOMAIN_H

#include "model/frame_protocol.h"
#include "model/key_heap.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

namespace cmswitch {

// A block that receives its events from a domain. kind/index/ptr mean what the block chose when scheduling.
class event_handler {
public:
    virtual void on_event(uint32_t kind, uint32_t index, void* ptr) = 0;
    // The frame a pending event of this block carries on a link into it (its arrival), or null: the end-of-run
    // account counts frames in flight from the domains' pending entries, one pass over each domain.
    virtual const frame* arriving_frame(uint32_t /*kind*/, void* /*ptr*/) const { return nullptr; }

protected:
    ~event_handler() = default;
};

// Something that owns timers on a host (an application, a transport endpoint, a rate limiter).
class timer_client {
public:
    virtual void on_timer(uint32_t tag) = 0;

protected:
    ~timer_client() = default;
};

struct timed_entry {
    uint64_t t_ps;
    event_handler* handler;
    uint32_t kind;
    uint32_t index;
    void* ptr;
};

class event_domain : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(event_domain);
    // decoupled: run ahead of kernel time (only for a domain that no other domain sends events to).
    event_domain(sc_core::sc_module_name name, bool decoupled);

    // The kind of a frame's arrival at a host, and of nothing else: ptr is that frame (never null), and the
    // domain reads the endpoint it names (frame::endpoint) to fetch it as the entry before it runs. (A block's
    // other kinds may be any other value: an egress port's own is UINT32_MAX, with ptr its next frame or null.)
    static constexpr uint32_t frame_arrival_kind = 0x80000000u;

    // t_ps >= now.
    void schedule(uint64_t t_ps, event_handler* h, uint32_t kind, uint32_t index, void* ptr) {
        insert(t_ps, h, kind, index, ptr);
        if (!m_dispatching && t_ps < m_armed_ps) {
            const uint64_t kernel_now = sc_core::sc_time_stamp().value();
            if (t_ps < kernel_now)
                past(t_ps, kernel_now);
            m_armed_ps = t_ps;
            m_wake.notify(ps_time(t_ps - kernel_now));
        }
    }
    bool decoupled() const { return m_decoupled; }
    // The calendar's bucket width, 2^shift ps (default 22: 4.2 us). Only speed depends on it: a bucket should
    // hold about one event, so faster links want narrower buckets (network sets it from its fastest link). Before
    // the first event only.
    void set_bucket_shift(int shift);
    uint64_t activations() const { return m_activations; }
    int bucket_shift_now() const { return bucket_shift; }   // the width adapt() chose (2^shift ps)
    uint64_t buckets_now() const { return m_nb; }   // the number of buckets adapt() chose
    bool coarse_blocks_now() const { return m_block_shift != 0; }   // whether adapt() put coarse blocks behind them

    // The entries not yet dispatched, in no particular order.
    std::vector<timed_entry> pending() const;
    // Adds the frames and bytes that pending arrivals carry (event_handler::arriving_frame), without a copy.
    void frames_in_flight(uint64_t& frames, uint64_t& bytes) const;
    uint64_t dispatched() const { return m_dispatched; }
    void reset();

private:
    void dispatch();
    [[noreturn]] void past(uint64_t t_ps, uint64_t now) const;
    // A pending entry in the calendar, kept whole in its bucket (no side table: dispatching it reads one place).
    // A bucket is kept in time order with a new entry after those due at the same time (a stable insertion), so
    // the scheduling order that breaks ties needs no field here: 32 bytes, two to a cache line.
    struct entry {
        uint64_t t_ps;
        event_handler* handler;
        void* ptr;
        uint32_t kind;
        uint32_t index;
    };
    // An entry beyond the calendar's end, in the heap: there the tie-break is explicit (seq, the order it was
    // pushed in). Entries due at one time are either all in the calendar or all in the heap (the heap holds only
    // what lies beyond the calendar's end, and moves into it as the calendar advances, in (time, seq) order).
    struct far_entry {
        entry e;
        uint64_t seq;
        uint128 key() const { return (static_cast<uint128>(e.t_ps) << 64) | seq; }
        friend bool operator<(const far_entry& a, const far_entry& b) { return a.key() < b.key(); }
    };

    // Calendar queue: the near future (up to 4096 buckets of 2^shift ps: 17 ms at the default 4.2 us, 268 us at a
    // 40 Gb/s network's 65 ns; measured in bench/; fewer buckets, down to 64, while few entries are pending) in
    // buckets kept sorted (earliest first, taken from a moving head:
    // a new key, usually the latest, goes on the end, so thousands due at one instant, an incast's synchronized
    // senders, cost O(1) each); what lies beyond waits in
    // a binary heap and moves into the buckets as the calendar advances. Pops cost O(1) where a heap of the same
    // entries costs O(log n). The width set from the fastest link suits a small network; a large one has many
    // more events per bucket (a k = 16 fat-tree: about a thousand in 262 ns, each insertion moving hundreds), so
    // the calendar counts the events it dispatches per bucket it empties and narrows its buckets while that is
    // over 8 (to about 2), widening them back, never past the set width, under 1.5 (adapt()). With thousands
    // pending, 4,096 buckets are a turn of the calendar apart in time, so each bucket and entry line is cold when
    // an entry goes in and again when it comes out: the calendar is then short (it stays in the caches) with
    // coarse blocks behind it that take an entry by appending it to a line in use (docs/performance.md). Only the
    // layout changes: entries still come out in time order, ties in scheduling order, so results do not depend
    // on it.
    int bucket_shift = 22;
    int m_set_shift = 22;   // set_bucket_shift's: the widest adapt() goes back to
    static constexpr uint64_t max_buckets = 4096;
    static constexpr uint64_t min_buckets = 64;
    uint64_t m_nb = max_buckets;   // buckets in use (the first m_nb; a power of two): adapt()'s choice
    static constexpr int min_shift = 6;   // 64 ps
    // More than 2,048 entries pending: a short calendar of 128 buckets and, after it, 64 coarse blocks of 64
    // buckets' time each (4,096 buckets in all), whose entries are appended unsorted and go into the buckets a
    // block at a time as the calendar's end reaches them; back to a plain calendar under 512 (see adapt()).
    static constexpr uint64_t tiered_buckets = 128;
    static constexpr int tiered_block_shift = 6;
    static constexpr uint64_t coarse_blocks = 64;
    static constexpr uint64_t tiered_from = 8 * 1024;   // adapt()'s wanted buckets (four per pending entry)
    // A new entry: the usual case (due inside the calendar) inline, the rest out of line.
    void insert(uint64_t t_ps, event_handler* h, uint32_t kind, uint32_t index, void* ptr) {
        const uint64_t b = t_ps >> bucket_shift;
        if (b - m_cur < m_ring_end - m_cur) {   // (before the calendar's start wraps: not here)
            ring_insert(entry{t_ps, h, ptr, kind, index});
            return;
        }
        if (b - m_ring_end < m_coarse_end - m_ring_end) {
            coarse_append(entry{t_ps, h, ptr, kind, index});
            return;
        }
        push_outside(entry{t_ps, h, ptr, kind, index});   // before the calendar's start or beyond its end
    }
    // An entry due inside the calendar, written in place at the end of its bucket; sorted unless it is earlier
    // than the bucket's latest key (kept in the header: the new entry's line is only written, so its miss does
    // not hold up what follows).
    void ring_insert(const entry& x) {
        const uint64_t idx = (x.t_ps >> bucket_shift) & (m_nb - 1);
        bucket& bk = m_buckets[idx];
        m_occupied[idx / 64] |= 1ull << (idx % 64);
        ++m_ring_count;
        if (bk.size == bk.cap)
            grow(bk);
        const bool in_order = bk.empty() || x.t_ps >= bk.last_ps;
        bk.data[bk.size++] = x;
        if (in_order)
            bk.last_ps = x.t_ps;
        else
            sort_last(bk);
    }
    void push_outside(const entry& e);
    void push(const entry& e);
    const entry* peek();   // earliest entry, or null; advances the calendar to its bucket
    // One bucket: data[head..size) pending, in order; entries before head already dispatched (the bucket starts
    // again at 0 when it empties). A flat array rather than a vector: its two counters are all the hot path
    // reads to know whether it holds anything.
    struct bucket {
        std::unique_ptr<entry[]> data;
        uint64_t last_ps = 0;   // the latest key pending (when not empty)
        uint32_t head = 0;
        uint32_t size = 0;
        uint32_t cap = 0;
        bool empty() const { return head == size; }
        const entry* begin() const { return data.get() + head; }
        const entry* end() const { return data.get() + size; }
        void clear() { head = size = 0; }
    };
    [[gnu::noinline]] static void grow(bucket& b);   // twice the room (8 entries at first)
    [[gnu::noinline]] static void sort_last(bucket& b);   // the bucket's last key walked back to its place
    // An entry due in the coarse blocks' span, appended to its block (unsorted: sorted when the block goes into
    // the buckets).
    void coarse_append(const entry& x) {
        bucket& c = m_coarse[((x.t_ps >> bucket_shift) >> m_block_shift) & (coarse_blocks - 1)];
        if (c.size == c.cap)
            grow(c);
        c.data[c.size++] = x;
        ++m_coarse_count;
    }
    // After the calendar's first bucket moved: the buckets' end follows it, and what now lies inside comes in,
    // from the heap (usually nothing: one compare) or, with coarse blocks, a block at a time.
    void advance() {
        if (!m_block_shift) {
            m_ring_end = m_coarse_end = m_cur + m_nb;
            if (!m_heap.empty() && (m_heap.top().e.t_ps >> bucket_shift) < m_ring_end)
                migrate_from_heap();
        } else if (m_ring_end + (uint64_t{1} << m_block_shift) <= m_cur + m_nb) {
            distribute();
        }
    }
    [[gnu::noinline]] void migrate_from_heap();
    [[gnu::noinline]] void distribute();   // the coarse blocks that now fit the buckets, into them
    void open_coarse();   // the coarse span's end after the buckets' end; the heap's entries inside it, into it
    void start_calendar(uint64_t first_bucket);   // the buckets and blocks empty: the calendar starts here
    void adapt();   // every 65,536 dispatches: the bucket width from the events per emptied bucket
    void restart_calendar(uint64_t first_bucket);   // every bucketed entry back through the heap

    std::vector<bucket> m_buckets;
    uint64_t m_occupied[max_buckets / 64] = {};   // bit per non-empty bucket, to skip empty ones fast
    uint64_t m_cur = 0;   // absolute bucket number of the calendar's first bucket
    // The buckets hold what is due before m_ring_end (absolute bucket number; at most m_nb after m_cur), the
    // coarse blocks what is due from there to m_coarse_end, the heap the rest.
    uint64_t m_ring_end = max_buckets;
    uint64_t m_coarse_end = max_buckets;
    int m_block_shift = 0;   // 0: no coarse blocks (m_coarse_end = m_ring_end); else 2^shift buckets a block
    std::vector<bucket> m_coarse;   // coarse_blocks of them, by absolute block number modulo coarse_blocks
    size_t m_coarse_count = 0;
    size_t m_ring_count = 0;
    uint64_t m_emptied = 0;   // buckets emptied since the last adapt()
    key_heap<far_entry> m_heap;   // beyond the calendar's end
    uint64_t m_seq = 0;   // the next far_entry's seq
    uint64_t m_armed_ps = std::numeric_limits<uint64_t>::max();
    uint64_t m_dispatched = 0;
    uint64_t m_activations = 0;
    bool m_dispatching = false;
    bool m_decoupled;
    sc_core::sc_event m_wake;
};

}   // namespace cmswitch
#endif
