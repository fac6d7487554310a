// SPDX-License-Identifier: Apache-2.0
// The event domain's ordering: by time, then by scheduling order; near (calendar) and far (heap) entries.
#include "config/errors.h"
#include "model/event_domain.h"
#include "model/frame_pool.h"
#include "model/heap_pages.h"
#include "model/rng.h"
#include "platform/queue_sampler.h"
#include "platform/scenario.h"
#include "testing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <tuple>

using namespace cmswitch;

namespace {
struct recorder final : event_handler {
    std::vector<std::tuple<uint64_t, uint64_t, uint32_t>> seen;   // model time, kernel time, index
    void on_event(uint32_t, uint32_t index, void*) override {
        seen.emplace_back(now_ps(), sc_core::sc_time_stamp().value(), index);
    }
};

void check_order(bool decoupled) {
    sim_context ctx;
    event_domain d("d", decoupled);
    recorder r;
    rng g(7, 0);
    std::vector<std::pair<uint64_t, uint32_t>> expect;
    // times spread from 0 to 1 s: many land in the calendar, many beyond it (in the heap), with ties
    for (uint32_t i = 0; i < 20000; ++i) {
        uint64_t t = g.below(4) == 0 ? g.below(1000) * 1000000ull : g.below(1000000000000ull);
        d.schedule(t, &r, 0, i, nullptr);
        expect.emplace_back(t, i);
    }
    std::stable_sort(expect.begin(), expect.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    ctx.run_until(2000000000000ull);
    ASSERT_EQ(r.seen.size(), expect.size());
    for (size_t i = 0; i < expect.size(); ++i) {
        ASSERT_EQ(std::get<0>(r.seen[i]), expect[i].first) << i;
        ASSERT_EQ(std::get<2>(r.seen[i]), expect[i].second) << i;
        if (!decoupled) {
            ASSERT_EQ(std::get<1>(r.seen[i]), expect[i].first);   // kernel time follows every entry
        }
    }
}
}   // namespace

TEST(EventDomain, OrdersByTimeThenSchedulingOrder) {
    check_order(false);
}
TEST(EventDomain, DecoupledDomainKeepsTheSameOrderAndModelTime) {
    check_order(true);
}

TEST(EventDomain, BothKindsOfDomainStopBeforeTheEndOfTheRun) {
    // the kernel stops before it runs what is due at the end of an sc_start, so a domain driven by it leaves an
    // entry due exactly then to the next run; a decoupled domain, which runs ahead, used to dispatch it (and a
    // run cut into chunks, as Python's and a progress-reporting one are, then counted different events)
    for (const bool decoupled : {false, true}) {
        sim_context ctx;
        event_domain d("d", decoupled);
        recorder r;
        d.schedule(5, &r, 0, 0, nullptr);
        d.schedule(10, &r, 0, 1, nullptr);
        d.schedule(11, &r, 0, 2, nullptr);
        ctx.run_until(10);
        ASSERT_EQ(r.seen.size(), 1u) << "decoupled " << decoupled;   // the entry at the end time waits
        ctx.run_until(20);
        EXPECT_EQ(r.seen.size(), 3u) << "decoupled " << decoupled;
    }
}

namespace {
// Counts its events; each schedules the next one period later, so that every one falls on a sampling instant.
struct ticker final : event_handler {
    event_domain* d = nullptr;
    uint64_t period = 0, count = 0;
    void on_event(uint32_t, uint32_t, void*) override {
        ++count;
        d->schedule(now_ps() + period, this, 0, 0, nullptr);
    }
};

std::vector<double> sampled_counts(const std::vector<uint64_t>& cuts) {
    sim_context ctx;
    event_domain d("d", true);
    queue_sampler s("s", 100);
    ticker t;
    t.d = &d;
    t.period = 100;
    d.schedule(100, &t, 0, 0, nullptr);
    s.watch_counter("count", &t.count);
    for (uint64_t cut : cuts)
        ctx.run_until(cut);
    return s.counter_values(0);
}
}   // namespace

TEST(EventDomain, ASamplerSeesTheSameStateHoweverTheRunIsCutIntoChunks) {
    // A decoupled domain runs ahead up to the sampler's next instant, its entries due then included; cut into
    // chunks at sampling instants, it stops before each cut and its entry due then meets the sampler's tick in
    // one kernel step. The sample must read the state after the entries due at its instant either way (Python
    // cuts its runs by wall time: results must not depend on where).
    const std::vector<double> whole = sampled_counts({1000});
    const std::vector<double> cut = sampled_counts({200, 300, 500, 700, 800, 1000});
    ASSERT_EQ(whole.size(), 9u);   // samples at 100 .. 900 (the kernel stops before what is due at 1000)
    for (size_t k = 0; k < whole.size(); ++k)
        EXPECT_EQ(whole[k], static_cast<double>(k + 1)) << k;   // the entry at the same instant counted
    EXPECT_EQ(cut, whole);
}

TEST(EventDomain, EntriesScheduledBehindTheCalendarAfterAPauseKeepTheirOrder) {
    // The calendar moves ahead to a far entry while the run is paused; entries then scheduled from outside, the
    // first later than the second, restart it twice. A bug left the first in the heap inside the calendar, and
    // it came out one calendar turn (num_buckets x bucket width) late.
    sim_context ctx;
    event_domain d("d", true);
    recorder r;
    d.schedule(1000000, &r, 0, 0, nullptr);   // 1 us
    d.schedule(100000000000ull, &r, 0, 1, nullptr);   // 100 ms: where the calendar waits
    ctx.run_until(1000000000ull);   // 1 ms
    ASSERT_EQ(r.seen.size(), 1u);
    d.schedule(1044000000ull, &r, 0, 2, nullptr);   // 1.044 ms, then earlier ones
    d.schedule(1012000000ull, &r, 0, 3, nullptr);
    d.schedule(1000000000ull, &r, 0, 4, nullptr);
    d.schedule(1056000000ull, &r, 0, 5, nullptr);
    ctx.run_until(2000000000ull);
    ASSERT_EQ(r.seen.size(), 5u);
    EXPECT_EQ(std::get<0>(r.seen[1]), 1000000000ull);
    EXPECT_EQ(std::get<0>(r.seen[2]), 1012000000ull);
    EXPECT_EQ(std::get<0>(r.seen[3]), 1044000000ull);
    EXPECT_EQ(std::get<0>(r.seen[4]), 1056000000ull);
}

namespace {
// seen: (model time, scheduling order) of each dispatched entry, in dispatch order
void expect_time_then_scheduling_order(const std::vector<std::pair<uint64_t, uint32_t>>& seen) {
    for (size_t i = 1; i < seen.size(); ++i) {
        ASSERT_LE(seen[i - 1].first, seen[i].first) << i;
        if (seen[i - 1].first == seen[i].first) {
            ASSERT_LT(seen[i - 1].second, seen[i].second) << i;
        }
    }
}

// 1,000 streams, each scheduling its next entry 0-2 ns after its last (ties included), 300,000 entries in all:
// hundreds of entries per 4.2 us bucket, then one stream alone, an entry every 10 us.
struct dense_streams final : event_handler {
    event_domain* d = nullptr;
    rng g{11, 0};
    uint32_t scheduled = 0;
    std::vector<std::pair<uint64_t, uint32_t>> seen;   // time, scheduling order
    void on_event(uint32_t, uint32_t index, void*) override {
        seen.emplace_back(now_ps(), index);
        if (scheduled < 300000) {
            d->schedule(now_ps() + g.below(2001), this, 0, scheduled++, nullptr);
        } else if (scheduled < 300000 + 140000 && (index == 299999 || index >= 300000)) {
            d->schedule(now_ps() + 10000000, this, 0, scheduled++, nullptr);   // one stream goes on alone
        }
    }
};
}   // namespace

TEST(EventDomain, NarrowsItsBucketsWhereEventsCrowdAndKeepsTheOrder) {
    // The calendar's width is set for the fastest link (4.2 us here); crowded, it narrows its buckets (adapt())
    // and widens them back when the entries thin out. The order must not change: by time, then scheduling order.
    sim_context ctx;
    event_domain d("d", true);
    d.set_bucket_shift(22);
    dense_streams s;
    s.d = &d;
    for (; s.scheduled < 1000; ++s.scheduled)
        d.schedule(0, &s, 0, s.scheduled, nullptr);
    ctx.run_until(200000000ull);   // 200 us: the dense part (about 300 ns of model time per 1,000 entries)
    const int narrowed = d.bucket_shift_now();
    EXPECT_LE(narrowed, 14);   // 1,000 entries per ~2 ns: from 4.2 us to at most 16 ns wide
    ctx.run_until(2000000000000ull);   // the sparse tail, 10 us apart
    EXPECT_GT(d.bucket_shift_now(), narrowed);
    ASSERT_EQ(s.seen.size(), static_cast<size_t>(s.scheduled));
    ASSERT_NO_FATAL_FAILURE(expect_time_then_scheduling_order(s.seen));
}

namespace {
// streams that each schedule their next entry 1-3 us ahead; from a given dispatch on, each entry also leaves a
// burst of extra one-shot entries spread over the next millisecond
struct few_then_many final : event_handler {
    event_domain* d = nullptr;
    rng g{13, 0};
    uint32_t scheduled = 0;
    uint64_t dispatched = 0;
    uint64_t crowd_from = ~0ull;
    uint64_t most_buckets = 0;   // while crowded
    std::vector<std::pair<uint64_t, uint32_t>> seen;
    void on_event(uint32_t kind, uint32_t index, void*) override {
        seen.emplace_back(now_ps(), index);
        ++dispatched;
        if (kind != 0)
            return;
        d->schedule(now_ps() + 1000000 + g.below(2000001), this, 0, scheduled++, nullptr);
        if (dispatched >= crowd_from && dispatched < crowd_from + 300000) {
            d->schedule(now_ps() + g.below(1000000001), this, 1, scheduled++, nullptr);
            most_buckets = std::max(most_buckets, d->buckets_now());
        }
    }
};
}   // namespace

TEST(EventDomain, SizesItsCalendarToThePendingEntriesAndKeepsTheOrder) {
    // A calendar walks every bucket once a turn: with a few dozen entries pending it uses few buckets (about four
    // per entry, at least 64), with thousands its 4,096. The order must not change with either.
    sim_context ctx;
    event_domain d("d", true);
    few_then_many s;
    s.d = &d;
    for (; s.scheduled < 8; ++s.scheduled)
        d.schedule(0, &s, 0, s.scheduled, nullptr);
    EXPECT_EQ(d.buckets_now(), 4096u);
    ctx.run_until(500000000000ull);   // 0.5 s: 8 streams, about 250,000 entries, 8 pending
    EXPECT_EQ(d.buckets_now(), 64u);   // 4 x 8 = 32 wanted, 64 the least
    s.crowd_from = s.dispatched;
    ctx.run_until(1000000000000ull);   // a stream's entry leaves one more within 1 ms: about 2,000 pending
    EXPECT_EQ(s.most_buckets, 4096u);
    EXPECT_EQ(d.buckets_now(), 64u);   // and back to 8 pending
    ASSERT_EQ(s.seen.size(), s.dispatched);
    ASSERT_NO_FATAL_FAILURE(expect_time_then_scheduling_order(s.seen));
}

// Speed only, but it must happen where the kernel gives huge pages on request: after a run, the heap's memory
// (a block allocated now) lies in a mapping the kernel marks advised ("hg" in /proc/self/smaps).
TEST(EventDomain, ARunAdvisesTheHeapForHugePagesWhereTheKernelWantsAdvice) {
    std::ifstream mode_file("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string mode;
    std::getline(mode_file, mode);
    if (mode.find("[madvise]") == std::string::npos)
        GTEST_SKIP() << "transparent huge pages not in madvise mode here: " << mode;
    auto sc = make_scenario("overload");
    sc->params().parse_args({"--duration-s", "0.001"});
    sc->run();
    if (!heap_pages::active())
        GTEST_SKIP() << "off (CMSWITCH_HUGE_PAGES=0, or a sanitizer's allocator)";
    std::vector<std::unique_ptr<char[]>> blocks;
    for (int i = 0; i < 64; ++i)
        blocks.emplace_back(new char[1024]);
    heap_pages::follow();
    const auto at = reinterpret_cast<uintptr_t>(blocks.back().get());
    std::ifstream smaps("/proc/self/smaps");
    std::string line;
    bool inside = false, advised = false, found = false;
    while (std::getline(smaps, line)) {
        unsigned long lo = 0, hi = 0;
        if (std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi) == 2) {   // a mapping's first line: its range
            inside = at >= lo && at < hi;
            continue;
        }
        if (inside && line.rfind("VmFlags:", 0) == 0) {
            found = true;
            advised = line.find(" hg") != std::string::npos;
        }
    }
    ASSERT_TRUE(found) << "no mapping holds " << at;
    EXPECT_TRUE(advised);
}

TEST(EventDomain, ABadHugePagesSettingIsRefusedWithItsName) {
    ::setenv("CMSWITCH_HUGE_PAGES", "off", 1);
    try {
        heap_pages::prepare();
        ::unsetenv("CMSWITCH_HUGE_PAGES");
        FAIL() << "no error";
    } catch (const config_error& e) {
        ::unsetenv("CMSWITCH_HUGE_PAGES");
        EXPECT_NE(std::string(e.what()).find("CMSWITCH_HUGE_PAGES = 'off': must be 0"), std::string::npos) << e.what();
    }
}

namespace {
// 3,000 streams on a 10 Gb/s-like grid: each entry schedules its stream's next 0.05-3 us ahead on a 10 ns grid
// (ties between streams), and while crowded also a one-shot entry up to 50 us ahead (beyond the coarse blocks:
// the heap) and one at the current instant; entries scheduled from outside between two runs land behind the
// calendar. Then the streams stop one by one until a few remain.
struct crowded_streams final : event_handler {
    event_domain* d = nullptr;
    rng g{17, 0};
    uint32_t scheduled = 0;
    uint64_t dispatched = 0;
    uint64_t stop_after = ~0ull;
    bool saw_blocks = false, saw_plain = false;
    std::vector<std::pair<uint64_t, uint32_t>> seen;
    void on_event(uint32_t kind, uint32_t index, void*) override {
        seen.emplace_back(now_ps(), index);
        ++dispatched;
        (d->coarse_blocks_now() ? saw_blocks : saw_plain) = true;
        if (kind != 0)
            return;
        if (dispatched > stop_after && g.below(4) != 0)
            return;   // the stream ends
        d->schedule(now_ps() + 10000 * (5 + g.below(296)), this, 0, scheduled++, nullptr);
        if (dispatched <= stop_after && g.below(8) == 0) {
            d->schedule(now_ps() + 10000 * g.below(5001), this, 1, scheduled++, nullptr);
            d->schedule(now_ps(), this, 1, scheduled++, nullptr);
        }
    }
};
}   // namespace

TEST(EventDomain, CoarseBlocksBehindAShortCalendarKeepTheOrder) {
    // Thousands pending: a short calendar with coarse blocks behind it (appended unsorted, sorted into the
    // buckets a block at a time). The order must stay: by time, then scheduling order, also for entries
    // scheduled behind the calendar from outside and across the changes back to a plain calendar.
    for (const bool decoupled : {true, false}) {
        sim_context ctx;
        event_domain d("d", decoupled);
        d.set_bucket_shift(20);
        crowded_streams s;
        s.d = &d;
        for (; s.scheduled < 3000; ++s.scheduled)
            d.schedule(10000 * s.g.below(100), &s, 0, s.scheduled, nullptr);
        ctx.run_until(2000000000ull);   // 2 ms: about 2 M entries, 3,000+ pending
        EXPECT_TRUE(d.coarse_blocks_now());
        // from outside, behind where the calendar may have moved to: ties with pending entries and each other
        for (int i = 0; i < 200; ++i)
            d.schedule(2000000000ull + 10000 * s.g.below(50), &s, 1, s.scheduled++, nullptr);
        s.stop_after = s.dispatched;
        ctx.run_until(4000000000ull);
        EXPECT_TRUE(s.saw_blocks);
        EXPECT_TRUE(s.saw_plain);   // back to a plain calendar as the streams thinned out
        ASSERT_GT(s.seen.size(), 1000000u);
        ASSERT_EQ(s.seen.size(), s.dispatched);
        EXPECT_EQ(s.dispatched, static_cast<uint64_t>(s.scheduled) - d.pending().size());
        ASSERT_NO_FATAL_FAILURE(expect_time_then_scheduling_order(s.seen));
    }
}

namespace {
// Counts its entries by kind; an arrival carries its frame.
struct arrivals_and_others final : event_handler {
    uint64_t arrivals = 0, others = 0;
    void on_event(uint32_t kind, uint32_t, void* ptr) override {
        if (kind == event_domain::frame_arrival_kind) {
            ++arrivals;
            EXPECT_NE(ptr, nullptr);
        } else {
            ++others;
        }
    }
};
}   // namespace

TEST(EventDomain, ReadsAheadOnlyIntoFrameArrivalsNotOtherKindsWithTheTopBitSet) {
    // With its largest calendar (4,096 buckets at first) the domain reads the endpoint an arriving frame names
    // one entry ahead. Other kinds may have the top bit set with nothing behind ptr (an egress port's
    // "transmitter free" is UINT32_MAX, with ptr null when its queue is empty): those must not be read.
    sim_context ctx;
    event_domain d("d", true);
    d.set_bucket_shift(20);   // about 1 us a bucket: six entries to a bucket, the last one's next in the next
    ASSERT_EQ(d.buckets_now(), 4096u);
    frame_pool pool;
    arrivals_and_others h;
    std::vector<frame*> frames;
    for (uint32_t i = 0; i < 3000; ++i) {
        const uint64_t t = 500000ull * (i / 3);
        if (i % 3 == 1) {
            frames.push_back(pool.acquire());   // naming no endpoint (null: nothing to fetch)
            d.schedule(t, &h, event_domain::frame_arrival_kind, i, frames.back());
        } else {
            d.schedule(t, &h, UINT32_MAX - (i % 2), i, nullptr);
        }
    }
    ctx.run_until(1000000000ull);
    EXPECT_EQ(h.arrivals, 1000u);
    EXPECT_EQ(h.others, 2000u);
    for (frame* f : frames)
        pool.release(f);
}
