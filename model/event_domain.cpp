// SPDX-License-Identifier: Apache-2.0
#include "model/event_domain.h"

#include "config/errors.h"
#include "model/frame.h"
#include "model/heap_pages.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace cmswitch {

event_domain::event_domain(sc_core::sc_module_name name, bool decoupled)
    : sc_module(name), m_buckets(max_buckets), m_coarse(coarse_blocks), m_decoupled(decoupled) {
    SC_METHOD(dispatch);
    sensitive << m_wake;
    dont_initialize();
}

void event_domain::set_bucket_shift(int shift) {
    if (shift < 10 || shift > 40)
        throw model_error(std::string(name()) + ": bucket shift " + std::to_string(shift) + " outside [10, 40]");
    if (m_ring_count || !m_heap.empty())
        throw model_error(std::string(name()) + ": bucket width changed with events pending");
    bucket_shift = m_set_shift = shift;
}

void event_domain::reset() {
    bucket_shift = m_set_shift;
    m_nb = max_buckets;
    m_emptied = 0;
    for (auto& b : m_buckets)
        b.clear();
    for (auto& c : m_coarse)
        c.clear();
    for (auto& w : m_occupied)
        w = 0;
    m_cur = 0;
    m_ring_end = m_coarse_end = max_buckets;
    m_block_shift = 0;
    m_ring_count = 0;
    m_coarse_count = 0;
    m_heap.clear();
    m_armed_ps = std::numeric_limits<uint64_t>::max();
    m_dispatched = 0;
    m_wake.cancel();
}

void event_domain::dispatch() {
    const uint64_t now = sc_core::sc_time_stamp().value();
    uint64_t horizon = now;
    if (m_decoupled) {
        // our own notification has fired: what is pending belongs to other processes
        const uint64_t other = sc_core::sc_time_to_pending_activity().value();
        // events before the end of the current sc_start only: the kernel stops before it runs what is due at
        // that time, so an event due exactly then waits for the next sc_start, whichever way the run is cut
        // into chunks (running ahead to the end inclusive dispatched it in one run and not in a chunked one)
        horizon = std::max(now, model_clock::run_end - 1);
        if (other < horizon - now)
            horizon = now + other;
    }
    ++m_activations;
    m_dispatching = true;
    const entry* top;
    while ((top = peek()) != nullptr && top->t_ps <= horizon) {
        const entry e = *top;
        // pop it; the next entry of this bucket (usually the next to run): start fetching what it will touch,
        // its block and its frame, while this one runs (in a large network both have gone cold since it was
        // queued)
        const uint64_t idx = m_cur & (m_nb - 1);
        bucket& b = m_buckets[idx];
        const entry* n1 = nullptr;   // the next to run, if this bucket holds it
        if (++b.head == b.size) {
            b.clear();
            m_occupied[idx / 64] &= ~(1ull << (idx % 64));
            ++m_emptied;
        } else {
            n1 = top + 1;
            __builtin_prefetch(n1->handler);
            __builtin_prefetch(n1->ptr);
        }
        if (m_nb == max_buckets || m_block_shift) {
            // a large calendar (thousands of entries pending, each bucket and what its entries point to gone cold
            // since it was filled): the bucket three ahead's first entry, and what the next bucket's first entry
            // will touch, fetched while this one runs
            const bucket& ahead = m_buckets[(m_cur + 3) & (m_nb - 1)];
            __builtin_prefetch(ahead.data.get() + ahead.head);
            const bucket& next = m_buckets[(m_cur + 1) & (m_nb - 1)];
            const entry* first = next.empty() ? nullptr : next.begin();
            if (first) {
                __builtin_prefetch(first->handler);
                __builtin_prefetch(first->ptr);
            }
            // Frames arriving at a host, two steps: the entry after next (n2), its frame's second line (where
            // the endpoint it names is); the next entry (n1), that endpoint (its frame's line fetched a step
            // before). Both looked for in this bucket and the next only.
            const entry* n2;
            if (n1) {
                n2 = n1 + 1 < b.end() ? n1 + 1 : first;
            } else {
                n1 = first;
                n2 = first && first + 1 < next.end() ? first + 1 : nullptr;
            }
            if (n2 && n2->kind == frame_arrival_kind)
                __builtin_prefetch(static_cast<const char*>(n2->ptr) + 64);
            if (n1 && n1->kind == frame_arrival_kind)
                __builtin_prefetch(static_cast<const frame*>(n1->ptr)->endpoint);
        }
        --m_ring_count;
        ++m_dispatched;
        model_clock::now = e.t_ps;
        e.handler->on_event(e.kind, e.index, e.ptr);
        if ((m_dispatched & 0xffff) == 0) {
            adapt();
            heap_pages::follow();   // the heap's growth advised for huge pages
            if (model_clock::interrupt_poll && model_clock::interrupt_poll()) {
                model_clock::interrupted =
                    true;   // stop here, unarmed: the kernel runs out of work, the run loop throws
                model_clock::now = now;
                m_dispatching = false;
                return;
            }
        }
    }
    model_clock::now = now;
    m_dispatching = false;
    if (!top) {
        m_armed_ps = std::numeric_limits<uint64_t>::max();
    } else {
        m_armed_ps = top->t_ps;
        m_wake.notify(ps_time(m_armed_ps - now));
    }
}

std::vector<timed_entry> event_domain::pending() const {
    std::vector<timed_entry> out;
    auto add = [&out](const entry& e) { out.push_back(timed_entry{e.t_ps, e.handler, e.kind, e.index, e.ptr}); };
    for (const auto& b : m_buckets)
        for (const entry& e : b)
            add(e);
    for (const auto& c : m_coarse)
        for (const entry& e : c)
            add(e);
    for (const far_entry& x : m_heap.keys())
        add(x.e);
    return out;
}

void event_domain::frames_in_flight(uint64_t& frames, uint64_t& bytes) const {
    auto add = [&](const entry& e) {
        if (const frame* f = e.handler->arriving_frame(e.kind, e.ptr)) {
            ++frames;
            bytes += f->bytes;
        }
    };
    for (const auto& b : m_buckets)
        for (const entry& e : b)
            add(e);
    for (const auto& c : m_coarse)
        for (const entry& e : c)
            add(e);
    for (const far_entry& x : m_heap.keys())
        add(x.e);
}

void event_domain::past(uint64_t t_ps, uint64_t now) const {
    throw model_error(std::string(name()) + ": an event was scheduled at " + std::to_string(t_ps) +
                      " ps, before the current time " + std::to_string(now) + " ps");
}

void event_domain::push_outside(const entry& e) {
    const uint64_t b = e.t_ps >> bucket_shift;
    if (b < m_cur) {
        // earlier than the calendar's start (an event from another, non-decoupled domain after peek() moved
        // ahead): restart the calendar here
        restart_calendar(b);
    }
    push(e);
}

void event_domain::push(const entry& e) {
    const uint64_t b = e.t_ps >> bucket_shift;   // >= m_cur
    if (b < m_ring_end)
        ring_insert(e);
    else if (b < m_coarse_end)
        coarse_append(e);
    else
        m_heap.push(far_entry{e, m_seq++});
}

void event_domain::grow(bucket& b) {
    const uint32_t cap = b.cap ? 2 * b.cap : 8;
    std::unique_ptr<entry[]> data(new entry[cap]);
    std::copy(b.data.get() + b.head, b.data.get() + b.size, data.get());
    b.size -= b.head;
    b.head = 0;
    b.data = std::move(data);
    b.cap = cap;
}

void event_domain::sort_last(bucket& b) {
    // keep the bucket sorted: a new key is usually the latest and stays at the end; an earlier one walks back
    // in a short bucket, a long one (many events in a bucket's time) is searched instead
    entry* keys = b.data.get();
    const uint32_t last = b.size - 1;
    if (last - b.head > 32) {
        const entry k = keys[last];
        // after every key due at the same time: they were scheduled earlier
        entry* at = std::upper_bound(keys + b.head, keys + last, k,
                                     [](const entry& x, const entry& y) { return x.t_ps < y.t_ps; });
        std::move_backward(at, keys + last, keys + last + 1);
        *at = k;
    } else {
        for (uint32_t i = last; i > b.head && keys[i].t_ps < keys[i - 1].t_ps; --i)
            std::swap(keys[i - 1], keys[i]);
    }
}

void event_domain::adapt() {
    // 65,536 events went out since the last call, from m_emptied buckets (a bucket refilled and emptied again
    // counts twice: it is what the calendar walked)
    const double per_bucket = 65536.0 / static_cast<double>(std::max<uint64_t>(1, m_emptied));
    m_emptied = 0;
    int shift = bucket_shift;
    if (per_bucket > 8 && shift > min_shift)   // to about 2 per bucket
        shift = std::max(min_shift, shift - static_cast<int>(std::log2(per_bucket / 2)));
    else if (per_bucket < 1.5 && shift < m_set_shift)
        ++shift;
    // As many buckets as about four per pending entry (a power of two, 64 to 4,096): the calendar walks every
    // bucket once a turn, and a turn of 4,096 for a few dozen entries (a 16-server incast) finds each bucket
    // gone cold since the last; what lies beyond the shorter span waits in the heap.
    // With thousands pending, a calendar of 4,096 buckets still finds each bucket cold when an entry goes in (a
    // turn of the calendar ago) and the entry's line cold when it comes out: the calendar then becomes a short
    // one of 128 buckets, which stays in the caches, behind coarse blocks that take entries by appending at
    // their end (a line in use) and go into the buckets a block at a time.
    uint64_t nb = m_nb;
    int block = m_block_shift;
    const uint64_t want = 4 * (m_ring_count + m_coarse_count + m_heap.size());
    if (want > tiered_from) {
        block = tiered_block_shift;
        nb = tiered_buckets;
    } else if (block && want > tiered_from / 4) {
        // (stays tiered: no back and forth near the threshold)
    } else {
        if (block) {
            block = 0;
            nb = max_buckets;
        }
        if (want > nb && nb < max_buckets)
            nb = std::min<uint64_t>(max_buckets, uint64_t{1} << (64 - __builtin_clzll(want - 1)));
        else if (want <= nb / 4 && nb > min_buckets)
            nb =
                std::max<uint64_t>(min_buckets, uint64_t{1} << (64 - __builtin_clzll(std::max<uint64_t>(want, 2) - 1)));
    }
    if (shift == bucket_shift && nb == m_nb && block == m_block_shift)
        return;
    // the calendar restarted at the last dispatched time (every pending entry is due at or after it)
    bucket_shift = shift;
    m_nb = nb;
    m_block_shift = block;
    restart_calendar(model_clock::now >> shift);
}

void event_domain::restart_calendar(uint64_t first_bucket) {
    // every bucketed key back in the heap, the calendar starting at first_bucket. Keys due at one time share a
    // bucket, in their order: numbering them as they come keeps it (the heap's keys are all due later)
    for (auto& b : m_buckets) {
        for (const entry& x : b)
            m_heap.push(far_entry{x, m_seq++});
        b.clear();
    }
    // a block's entries due at one time are in their order (what came from the heap first, then what was
    // appended), and no bucket or other block holds an entry due at the same time
    for (auto& c : m_coarse) {
        for (const entry& x : c)
            m_heap.push(far_entry{x, m_seq++});
        c.clear();
    }
    for (auto& w : m_occupied)
        w = 0;
    m_ring_count = 0;
    m_coarse_count = 0;
    // the keys just moved may lie inside the new calendar: back into their buckets and blocks, so that every heap
    // key is again beyond the calendar's end (peek() skips buckets on that promise; a key left in the heap would
    // come out one calendar turn late)
    start_calendar(first_bucket);
}

void event_domain::start_calendar(uint64_t first_bucket) {
    m_cur = first_bucket;
    if (!m_block_shift) {
        advance();
        return;
    }
    // blocks start at multiples of their width: the first may begin before first_bucket (nothing is due there)
    m_ring_end = first_bucket & ~((uint64_t{1} << m_block_shift) - 1);
    open_coarse();
    distribute();
}

void event_domain::open_coarse() {
    // the heap's keys come out in (time, seq) order: a block's entries due at one time keep their order, and
    // they come before anything appended to the block later (scheduled later)
    m_coarse_end = m_ring_end + (coarse_blocks << m_block_shift);
    while (!m_heap.empty() && (m_heap.top().e.t_ps >> bucket_shift) < m_coarse_end) {
        const entry e = m_heap.top().e;
        m_heap.pop();
        coarse_append(e);
    }
}

void event_domain::distribute() {
    // a block goes in whole once it fits: the buckets hold between m_nb / 2 and m_nb buckets' time ahead
    const uint64_t width = uint64_t{1} << m_block_shift;
    while (m_ring_end + width <= m_cur + m_nb) {
        bucket& c = m_coarse[(m_ring_end >> m_block_shift) & (coarse_blocks - 1)];
        m_coarse_count -= c.size;
        // in the block's order: a stable insertion keeps the order of entries due at one time
        for (const entry& x : c)
            ring_insert(x);
        c.clear();
        m_ring_end += width;
        open_coarse();
    }
}

void event_domain::migrate_from_heap() {
    while (!m_heap.empty() && (m_heap.top().e.t_ps >> bucket_shift) < m_cur + m_nb) {
        const entry e = m_heap.top().e;
        m_heap.pop();
        ring_insert(e);
    }
}

const event_domain::entry* event_domain::peek() {
    for (;;) {
        if (m_ring_count == 0) {
            if (m_coarse_count) {   // the next block into the buckets (they hold nothing before its start)
                m_cur = m_ring_end;
                distribute();
                continue;
            }
            if (m_heap.empty())
                return nullptr;
            start_calendar(m_heap.top().e.t_ps >> bucket_shift);   // jump over the empty stretch
            continue;
        }
        const bucket& b = m_buckets[m_cur & (m_nb - 1)];
        if (!b.empty())
            return b.begin();
        // skip to the next occupied bucket (the ring holds something), then let the heap fill the buckets
        // that the calendar's end passed on the way
        const uint64_t idx = m_cur & (m_nb - 1);
        uint64_t word = m_occupied[idx / 64] & (~0ull << (idx % 64));
        uint64_t w = idx / 64;
        uint64_t skipped;
        if (word) {
            skipped = w * 64 + static_cast<uint64_t>(__builtin_ctzll(word)) - idx;
        } else {
            for (;;) {
                w = (w + 1) % (m_nb / 64);
                if (m_occupied[w])
                    break;
            }
            const uint64_t next = w * 64 + static_cast<uint64_t>(__builtin_ctzll(m_occupied[w]));
            skipped = (next - idx) & (m_nb - 1);
        }
        // heap keys and blocks all lie at or beyond the old calendar end, which is past the bucket we skip to
        m_cur += skipped;
        advance();
    }
}

}   // namespace cmswitch
