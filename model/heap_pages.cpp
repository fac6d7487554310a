// SPDX-License-Identifier: Apache-2.0
#include "model/heap_pages.h"

#include "config/errors.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>

// (not under a sanitizer: its allocator is not glibc's heap)
#if defined(__linux__) && defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#define CMSWITCH_HEAP_PAGES 1
#endif

namespace cmswitch::heap_pages {

namespace {
#ifdef CMSWITCH_HEAP_PAGES
std::mutex g_mutex;   // (runs in several threads: each prepares; advice comes from whichever runs)
bool g_decided = false;
constexpr uintptr_t huge = uintptr_t{2} << 20;
uintptr_t g_advised_end = 0;   // the heap's end when it was last advised

// THP "[madvise]": huge pages only for advised memory ("[always]" needs nothing, "[never]" gives none)
bool kernel_wants_advice() {
    std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string mode;
    std::getline(in, mode);
    return mode.find("[madvise]") != std::string::npos;
}

void advise(uintptr_t from, uintptr_t to) {
    from &= ~(huge - 1);   // (a range partly outside the heap is advised where it is mapped)
    to = (to + huge - 1) & ~(huge - 1);
    if (to > from)
        madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE);
}
#endif
}   // namespace

void prepare() {
    // read on every call, so that a bad value is refused wherever it is set (its effect is decided once)
    const char* env = std::getenv("CMSWITCH_HUGE_PAGES");
    if (env && std::strcmp(env, "0") != 0 && std::strcmp(env, "1") != 0)
        throw config_error(std::string("CMSWITCH_HUGE_PAGES = '") + env +
                           "': must be 0 (4 KB pages) or 1 (huge pages where the kernel gives them on request, the "
                           "default)");
#ifdef CMSWITCH_HEAP_PAGES
    const std::lock_guard<std::mutex> lock(g_mutex);
    if (!g_decided) {
        g_decided = true;
        const bool on = !(env && std::strcmp(env, "0") == 0) && kernel_wants_advice();
        if (on) {
            mallopt(M_TOP_PAD, 64 << 20);
            // blocks up to 4 MB from the heap too (glibc maps those above 128 KB apart, where no advice reaches
            // them): the frame pool's chunks of 512 KB, a large calendar's heap
            mallopt(M_MMAP_THRESHOLD, 4 << 20);
        }
        g_on.store(on);
    }
    if (!g_on.load())
        return;
    // a build allocates at once: let the heap take its next step now (blocks of 64 KB until it grows, then
    // freed, 64 MB kept on top), so that what the build touches is advised already
    const uintptr_t before = reinterpret_cast<uintptr_t>(sbrk(0));
    if (mallinfo2().keepcost < (16u << 20)) {
        void* blocks[1024];
        int n = 0;
        while (n < 1024 && reinterpret_cast<uintptr_t>(sbrk(0)) == before)
            blocks[n++] = std::malloc(64 << 10);
        while (n > 0)
            std::free(blocks[--n]);
    }
    const uintptr_t end = reinterpret_cast<uintptr_t>(sbrk(0));
    const struct mallinfo2 m = mallinfo2();
    advise(end - m.arena, end);
    g_advised_end = end;
#endif
}

void advise_growth() {
#ifdef CMSWITCH_HEAP_PAGES
    const std::lock_guard<std::mutex> lock(g_mutex);
    const uintptr_t end = reinterpret_cast<uintptr_t>(sbrk(0));
    if (end > g_advised_end) {
        advise(g_advised_end, end);
        g_advised_end = end;
    }
#endif
}

bool active() {
    return g_on.load();
}

}   // namespace cmswitch::heap_pages
