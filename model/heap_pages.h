// SPDX-License-Identifier: Apache-2.0
// Transparent huge pages for the process heap, where the kernel gives them only on request (THP "madvise").
// A large network's hot state (ports, hosts, frames, the event calendar) is tens of megabytes touched at random:
// with 4 KB pages most cache misses also miss the TLB (a k = 16 fat-tree: 20-25 % of its CPU time, docs/performance.md).
// glibc's malloc asks for huge pages only when the process starts with GLIBC_TUNABLES=glibc.malloc.hugetlb=1,
// which a library cannot set; this does the same for the main heap from inside: the heap grows in steps of 64 MB
// (address space; pages are still made only when touched), each new step advised before the model touches it, and
// blocks up to 4 MB come from the heap (glibc maps those above 128 KB apart, where no advice reaches them). Only
// speed depends on it. A process that has run a network keeps up to 64 MB of freed heap for the next run. Only the
// main heap: a run in another thread allocates from that thread's glibc arena, which is not advised.
// CMSWITCH_HUGE_PAGES=0 in the environment turns it off.
#ifndef CMSWITCH_MODEL_HEAP_PAGES_H
#define CMSWITCH_MODEL_HEAP_PAGES_H

#include <atomic>
#include <cstdint>

namespace cmswitch::heap_pages {

// Before a network is built: on the first call, decides whether to advise (Linux, THP "madvise", not turned
// off) and lets the heap grow in large steps; then advises the heap as it is now. Throws config_error when
// CMSWITCH_HUGE_PAGES is set to anything but 0 or 1.
void prepare();

// Whether prepare() decided to advise (read by follow() without a lock: set once, before any run advises).
inline std::atomic<bool> g_on{false};
void advise_growth();
// What the heap grew by since the last advice, advised (cheap when it did not grow: one compare). The event
// domains call it every 65,536 events.
inline void follow() {
    if (g_on.load(std::memory_order_relaxed))
        advise_growth();
}

// Whether the heap is being advised (for the benchmarks' notes and a test).
bool active();

}   // namespace cmswitch::heap_pages
#endif
