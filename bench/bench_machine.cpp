// SPDX-License-Identifier: Apache-2.0
// The machine's own speed, beside the model's: the same fixed work timed in CPU seconds, so that records taken
// on different days can be told apart by the machine as well as by the code. This machine is a shared virtual
// one whose speed moves by up to 2x from one day to the next (other tenants, the host's memory system); a
// model figure read without these beside it cannot say which of the two moved.
//   - integer chain: a dependent xorshift chain (6 operations a step), the core's clock and nothing else;
//   - independent adds: 8 adds a step on 8 registers, none waiting for another, so the step costs what the core's
//     execution units can issue. At the chain's clock and 4 integer units, about 2.25 cycles a step on a core
//     of its own. A virtual machine's core may be one hardware thread of two (SMT) whose other thread runs
//     another tenant: then this column grows while the two latency columns do not, and so does a model run
//     that fits the caches (the model issues several instructions a cycle, the latency tests one);
//   - pointer chase over 256 KB, 4 MB, 16 MB and 256 MB: one random dependent load at a time, 64 bytes apart,
//     the latency of the cache level (or memory) that size lands in, on huge pages where the kernel gives them
//     on request (as the model's heap, model/heap_pages.h).
// A model run whose working set fits the second level (256 KB) moves with the first columns; the 16-host cases
// need the last level too (a few MB), and the k = 16 fat-tree (about 140 MB resident) moves with memory. On a
// day when other tenants hold the shared last-level cache, the 4 MB or 16 MB chase costs what memory does.
// No model code is run.
#include "bench/bench_args.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <numeric>
#ifdef __linux__
#include <sys/mman.h>
#endif

namespace {

double cpu_s() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

uint64_t xorshift(uint64_t x) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
}

volatile uint64_t g_sink;   // keeps each chain's result alive

double integer_chain_ns(long steps) {
    uint64_t x = 88172645463325252ull;
    const double t0 = cpu_s();
    for (long i = 0; i < steps; ++i)
        x = xorshift(x);
    const double t = cpu_s() - t0;
    g_sink = x;
    return t / static_cast<double>(steps) * 1e9;
}

double independent_adds_ns(long steps) {
    uint64_t v0 = 0, v1 = 0, v2 = 0, v3 = 0, v4 = 0, v5 = 0, v6 = 0, v7 = 0;
    const double t0 = cpu_s();
    for (long i = 0; i < steps; ++i) {
        v0 += 1;
        v1 += 3;
        v2 += 5;
        v3 += 7;
        v4 += 9;
        v5 += 11;
        v6 += 13;
        v7 += 15;
        // each sum kept in a register and added step by step (no multiply folding the loop away)
        asm volatile("" : "+r"(v0), "+r"(v1), "+r"(v2), "+r"(v3), "+r"(v4), "+r"(v5), "+r"(v6), "+r"(v7));
    }
    const double t = cpu_s() - t0;
    g_sink = v0 ^ v1 ^ v2 ^ v3 ^ v4 ^ v5 ^ v6 ^ v7;
    return t / static_cast<double>(steps) * 1e9;
}

// One cycle through every 64-byte line of `bytes`, in a random order (a fixed seed: every run the same order).
double chase_ns(size_t bytes, long steps) {
    const size_t lines = bytes / 64;
    constexpr size_t huge = size_t{2} << 20;
    const size_t alloc = (bytes + huge - 1) / huge * huge;
    std::unique_ptr<uint64_t, decltype(&std::free)> owner(static_cast<uint64_t*>(std::aligned_alloc(huge, alloc)),
                                                          &std::free);
    uint64_t* mem = owner.get();
    if (!mem) {
        std::fprintf(stderr, "bench_machine: cannot allocate %zu bytes\n", alloc);
        std::exit(1);
    }
#ifdef __linux__
    madvise(mem, alloc, MADV_HUGEPAGE);   // a hint: where the kernel gives none, 4 KB pages and their walks
#endif
    std::unique_ptr<size_t[]> order_owner(new size_t[lines]);
    size_t* order = order_owner.get();
    std::iota(order, order + lines, size_t{0});
    uint64_t s = 2463534242ull;
    for (size_t i = lines - 1; i > 0; --i) {
        s = xorshift(s);
        std::swap(order[i], order[s % (i + 1)]);
    }
    for (size_t i = 0; i < lines; ++i)
        mem[order[i] * 8] = order[(i + 1) % lines] * 8;
    size_t p = order[0] * 8;
    for (size_t i = 0; i < lines; ++i)   // one turn first: the pages are touched and the caches hold what fits
        p = mem[p];
    const double t0 = cpu_s();
    for (long i = 0; i < steps; ++i)
        p = mem[p];
    const double t = cpu_s() - t0;
    g_sink = p;
    return t / static_cast<double>(steps) * 1e9;
}

}   // namespace

int main(int argc, char** argv) {
    const int reps =
        bench_repetitions(argc, argv, "bench_machine",
                          "The machine's speed: a dependent integer chain, 8 independent adds, and pointer chases over "
                          "256 KB, 4 MB, 16 MB and 256 MB, CPU ns per step (best of the repetitions); prints a "
                          "markdown table row.");
    const size_t sizes[] = {size_t{256} << 10, size_t{4} << 20, size_t{16} << 20, size_t{256} << 20};
    double chain = 1e30, adds = 1e30;
    double chase[4] = {1e30, 1e30, 1e30, 1e30};
    for (int r = 0; r < reps; ++r) {
        chain = std::min(chain, integer_chain_ns(200000000));
        adds = std::min(adds, independent_adds_ns(200000000));
        for (int i = 0; i < 4; ++i)
            chase[i] = std::min(chase[i], chase_ns(sizes[i], 5000000));
    }
    std::printf("| %.3f | %.3f | %.1f | %.1f | %.1f | %.1f |\n", chain, adds, chase[0], chase[1], chase[2], chase[3]);
    return 0;
}
