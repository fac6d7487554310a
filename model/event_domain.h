// SPDX-License-Identifier: Apache-2.0
// A time-ordered queue of model events behind one sc_event and one SC_METHOD. Blocks (switches, NICs) schedule
// their own events here (frame arrivals, transmitter wakeups, timers) instead of keeping a SystemC event each:
// the kernel slows down as pending timed notifications grow (DESIGN.md: 29 M events/s with 1 pending, 7.2 M
// with 1000), so a scenario keeps a handful of domains however many blocks it has (see network.h).
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
#include <vector>

namespace cmswitch {

// A block that receives its events from a domain. kind/index/ptr mean what the block chose when scheduling.
class event_handler {
public:
    virtual void on_event(uint32_t kind, uint32_t index, void* ptr) = 0;
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

    // t_ps >= now.
    void schedule(uint64_t t_ps, event_handler* h, uint32_t kind, uint32_t index, void* ptr) {
        uint32_t slot;
        if (m_free.empty()) {
            slot = static_cast<uint32_t>(m_slots.size());
            if (slot > slot_mask)
                overflow();
            m_slots.push_back(timed_entry{t_ps, h, kind, index, ptr});
        } else {
            slot = m_free.back();
            m_free.pop_back();
            m_slots[slot] = timed_entry{t_ps, h, kind, index, ptr};
        }
        push((static_cast<uint128>(t_ps) << 64) | ((m_seq++ & seq_mask) << slot_bits) | slot);
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

    // The entries not yet dispatched, in no particular order.
    std::vector<timed_entry> pending() const;
    uint64_t dispatched() const { return m_dispatched; }
    void reset();

private:
    void dispatch();
    [[noreturn]] void overflow() const;
    [[noreturn]] void past(uint64_t t_ps, uint64_t now) const;
    // Keys are time(64) | sequence(40) | slot(24): one 128-bit comparison orders by time and, at equal times,
    // by scheduling order; the entry itself waits in m_slots.
    static constexpr int slot_bits = 24;
    static constexpr uint64_t slot_mask = (1ull << slot_bits) - 1;
    static constexpr uint64_t seq_mask = (1ull << (64 - slot_bits)) - 1;
    static uint64_t time_of(uint128 k) { return static_cast<uint64_t>(k >> 64); }

    // Calendar queue: the near future (4096 buckets of 2^shift ps: 17 ms at the default 4.2 us, 268 us at a 40
    // Gb/s network's 65 ns; measured in bench/) in buckets kept sorted (earliest last); what lies beyond waits in a binary heap and moves into the buckets as the
    // calendar advances. Pops cost O(1) where a heap of the same entries costs O(log n).
    int bucket_shift = 22;
    static constexpr uint64_t num_buckets = 4096;
    void push(uint128 k);
    const uint128* peek();     // earliest key, or null; advances the calendar to its bucket
    void pop_peeked();         // removes the key peek() returned
    void ring_insert(uint128 k);
    [[gnu::noinline]] static void place_in_long_bucket(std::vector<uint128>& bucket);
    void migrate();

    std::vector<std::vector<uint128>> m_buckets;
    uint64_t m_occupied[num_buckets / 64] = {};   // bit per non-empty bucket, to skip empty ones fast
    uint64_t m_cur = 0;        // absolute bucket number of the calendar's first bucket
    size_t m_ring_count = 0;
    key_heap<uint128> m_heap;   // beyond the calendar's end
    std::vector<timed_entry> m_slots;
    std::vector<uint32_t> m_free;
    uint64_t m_seq = 0;
    uint64_t m_armed_ps = std::numeric_limits<uint64_t>::max();
    uint64_t m_dispatched = 0;
    uint64_t m_activations = 0;
    bool m_dispatching = false;
    bool m_decoupled;
    sc_core::sc_event m_wake;
};

} // namespace cmswitch
#endif
