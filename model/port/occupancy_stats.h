// SPDX-License-Identifier: Apache-2.0
// Time-weighted statistics of a gauge (queue bytes): exact time average, maximum, a histogram of the time spent
// in each occupancy band, and the time-weighted distribution (percentiles, CDF) in log-linear buckets. Updated on
// every change of the gauge; read at any time.
#ifndef CMSWITCH_MODEL_PORT_OCCUPANCY_STATS_H
#define CMSWITCH_MODEL_PORT_OCCUPANCY_STATS_H

#include "model/types.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace cmswitch {

// Time spent at each level of a gauge, in log-linear buckets (the HDR-histogram layout): levels below 256 have a
// bucket each; above, every power of two is split into 128 buckets, so a bucket is at most 1/128 (0.8 %) of its
// lower edge wide. Quantiles are the lower edge of the bucket where the cumulative time first reaches p: exact for
// levels that are bucket edges (every level below 256, and m x 2^k for 128 <= m < 256), otherwise at most 0.8 %
// below the true quantile. Storage grows with the largest level seen (about 2,200 buckets for 5 MB).
class level_histogram {
public:
    static constexpr int sub_bits = 7;
    static constexpr uint64_t sub = uint64_t{1} << sub_bits;

    static size_t index(uint64_t v) {
        if (v < 2 * sub)
            return static_cast<size_t>(v);
        const int shift = 63 - __builtin_clzll(v) - sub_bits;   // >= 1
        return static_cast<size_t>((static_cast<uint64_t>(shift) + 1) * sub + ((v >> shift) - sub));
    }
    static uint64_t lower_edge(size_t i) {
        if (i < 2 * sub)
            return i;
        const uint64_t shift = i / sub - 1;
        return (i % sub + sub) << shift;
    }
    level_histogram() = default;
    level_histogram(const level_histogram& o) { *this = o; }
    level_histogram& operator=(const level_histogram& o) {
        if (this != &o) {
            for (int k = 0; k < recent_slots; ++k) {
                m_recent_index[k] = o.m_recent_index[k];
                m_recent_t[k] = o.m_recent_t[k];
            }
            m_next_slot = o.m_next_slot;
            m_s = o.m_s ? std::make_unique<store>(*o.m_s) : nullptr;
        }
        return *this;
    }
    level_histogram(level_histogram&&) = default;
    level_histogram& operator=(level_histogram&&) = default;

    // Adds dt of time at `level`. The time goes first to three recently used buckets kept in the object (a
    // queue's level moves a frame at a time, so it mostly returns to one of them), then, when evicted from them,
    // to eight more buckets in one line beside the bucket array, and reaches the array only when evicted from
    // those: a large network updates thousands of these, each bucket array is kilobytes that the caches cannot
    // hold, and a queue near a deep level (a bucket 1/128 of it wide) walks over more buckets than three. Sums of
    // integers: the totals are exact whatever the order.
    void add(uint64_t level, uint64_t dt) {
        if (!dt)
            return;
        const uint16_t i = static_cast<uint16_t>(index(level));
        for (int k = 0; k < recent_slots; ++k)
            if (m_recent_index[k] == i) {
                const uint64_t sum = m_recent_t[k] + dt;
                if (sum <= UINT32_MAX) {
                    m_recent_t[k] = static_cast<uint32_t>(sum);
                    return;
                }
                spill(k, dt);
                return;
            }
        evict_into(i, dt);
    }
    void clear() {
        m_s.reset();
        for (int k = 0; k < recent_slots; ++k) {
            m_recent_index[k] = no_bucket;
            m_recent_t[k] = 0;
        }
        m_next_slot = 0;
    }
    // fn(lower edge, time) for every bucket
    template <typename F>
    void for_each(F&& fn) const {
        const std::vector<uint64_t> t = totals();
        for (size_t i = 0; i < t.size(); ++i)
            fn(lower_edge(i), t[i]);
    }
    // The p-quantile (0 < p <= 1) of the time-weighted level, with `extra_dt` more at `extra_level` (the running
    // segment); 0 when no time was recorded.
    uint64_t quantile(double p, uint64_t extra_level = 0, uint64_t extra_dt = 0) const {
        const std::vector<uint64_t> all = totals();
        const size_t xi = extra_dt ? index(extra_level) : 0;
        long double total = extra_dt;
        for (uint64_t t : all)
            total += t;
        if (total <= 0)
            return 0;
        // (p x total less a relative 1e-12: p = 0.4 of 100 ps is 40 ps, though 0.4 is a little more than 2/5)
        const long double target = p * total * (1 - 1e-12L);
        long double cum = 0;
        const size_t n = std::max(all.size(), xi + 1);
        for (size_t i = 0; i < n; ++i) {
            cum += (i < all.size() ? all[i] : 0) + (i == xi ? extra_dt : 0);
            if (cum >= target && cum > 0)
                return lower_edge(i);
        }
        return lower_edge(n - 1);
    }
    // (lower edge, fraction of the time at or below that bucket) for every bucket that holds time.
    std::vector<std::pair<uint64_t, double>> cdf(uint64_t extra_level = 0, uint64_t extra_dt = 0) const {
        std::vector<std::pair<uint64_t, double>> out;
        const std::vector<uint64_t> all = totals();
        const size_t xi = extra_dt ? index(extra_level) : 0;
        long double total = extra_dt;
        for (uint64_t t : all)
            total += t;
        if (total <= 0)
            return out;
        long double cum = 0;
        const size_t n = std::max(all.size(), xi + 1);
        for (size_t i = 0; i < n; ++i) {
            const uint64_t t = (i < all.size() ? all[i] : 0) + (i == xi ? extra_dt : 0);
            if (!t)
                continue;
            cum += t;
            out.emplace_back(lower_edge(i), static_cast<double>(cum / total));
        }
        return out;
    }

private:
    static constexpr int recent_slots = 3;
    static constexpr int victim_slots = 8;
    static constexpr uint16_t no_bucket = UINT16_MAX;   // (the largest index, that of 2^64 - 1, is 7,423)
    // A victim entry: (index + 1) << time_bits | time (a recent slot's, under 2^32 ps), 0 when free.
    static constexpr int time_bits = 32;
    static constexpr uint64_t time_mask = (uint64_t{1} << time_bits) - 1;
    struct store {
        alignas(64) uint64_t victim[victim_slots] = {};
        std::vector<uint64_t> t;   // the bucket array, as long as the largest index that reached it
    };
    static_assert(7423 + 1 < (uint64_t{1} << (64 - time_bits)), "an index fits above the time");

    // A bucket's victim entry (direct mapped): a queue's walk visits buckets a few indices apart, and the xor
    // spreads strides of 1, 2, 4 and 8 over all eight entries.
    static size_t victim_of(uint16_t i) { return static_cast<size_t>((i ^ (i >> 3)) & (victim_slots - 1)); }
    static void add_to_array(store& s, uint16_t i, uint64_t dt) {
        if (i >= s.t.size())
            s.t.resize(i + size_t{1}, 0);
        s.t[i] += dt;
    }
    // the bucket array with the victim and recent buckets' time added
    std::vector<uint64_t> totals() const {
        std::vector<uint64_t> t = m_s ? m_s->t : std::vector<uint64_t>{};
        auto add = [&t](size_t i, uint64_t dt) {
            if (i >= t.size())
                t.resize(i + 1, 0);
            t[i] += dt;
        };
        if (m_s)
            for (uint64_t e : m_s->victim)
                if (e)
                    add(static_cast<size_t>((e >> time_bits) - 1), e & time_mask);
        for (int k = 0; k < recent_slots; ++k)
            if (m_recent_index[k] != no_bucket)
                add(m_recent_index[k], m_recent_t[k]);
        return t;
    }
    // Recent slot k's time would pass 2^32 ps with dt: the slot's time and dt go to the array.
    [[gnu::noinline]] void spill(int k, uint64_t dt) {
        if (!m_s)
            m_s = std::make_unique<store>();
        add_to_array(*m_s, m_recent_index[k], m_recent_t[k] + dt);
        m_recent_t[k] = 0;
    }
    // i is not in the recent slots: it takes the next one (round robin: the oldest), with its time from its
    // victim entry if it was there, and the bucket that held the slot goes to its own victim entry, whose previous
    // bucket's time goes to the array. A bucket is in at most one of the recent slots and the victim line (one
    // that comes into the slots leaves the line); the array may hold time of any.
    [[gnu::noinline]] void evict_into(uint16_t i, uint64_t dt) {
        if (!m_s)
            m_s = std::make_unique<store>();
        store& s = *m_s;
        uint64_t t = dt;
        uint64_t& vi = s.victim[victim_of(i)];
        if ((vi >> time_bits) == uint64_t{i} + 1u) {
            t += vi & time_mask;
            vi = 0;
        }
        if (t > UINT32_MAX) {   // too long for a slot
            add_to_array(s, i, t);
            t = 0;
        }
        const int k = m_next_slot;
        m_next_slot = static_cast<uint8_t>((k + 1) % recent_slots);
        const uint16_t old = m_recent_index[k];
        const uint64_t old_t = m_recent_t[k];
        m_recent_index[k] = i;
        m_recent_t[k] = static_cast<uint32_t>(t);
        if (old == no_bucket)
            return;
        uint64_t& vo = s.victim[victim_of(old)];
        if (vo)
            add_to_array(s, static_cast<uint16_t>((vo >> time_bits) - 1), vo & time_mask);
        vo = ((uint64_t{old} + 1) << time_bits) | old_t;
    }

    // The recent buckets first (20 bytes that every update reads: a slot's time is at most 2^32 ps, 4.3 ms,
    // before it goes on), then the victim line and the bucket array, made at the first eviction (a pointer: 8
    // bytes in the owner's lines).
    uint16_t m_recent_index[recent_slots] = {no_bucket, no_bucket, no_bucket};
    uint8_t m_next_slot = 0;
    uint32_t m_recent_t[recent_slots] = {};
    std::unique_ptr<store> m_s;
};

class occupancy_stats {
public:
    static constexpr int num_bins = 32;

    // min_bin_bytes: the histogram bands are the smallest power of two at least this wide (a shift, not a
    // division, per update); the last band also holds everything above.
    void reset(uint64_t now_ps, uint64_t min_bin_bytes) {
        m_start_ps = m_last_ps = now_ps;
        m_value = m_max = 0;
        m_area = 0;
        m_bin_shift = shift_for(min_bin_bytes);
        m_levels.clear();
    }
    // The band width reset(now, min_bin_bytes) gives.
    static uint64_t bin_for(uint64_t min_bin_bytes) { return uint64_t{1} << shift_for(min_bin_bytes); }
    void set(uint64_t now_ps, uint64_t value) {
        accumulate(now_ps);
        m_value = value;
        if (value > m_max)
            m_max = value;
    }
    // set(now, value() + transient) then set(now, value()): the level touches it for no time (the maximum sees it).
    // The level itself goes on: its time since the last change is counted at the next (or at a reading), the
    // same integers summed in one piece instead of two.
    void touch(uint64_t transient) {
        if (m_value + transient > m_max)
            m_max = m_value + transient;
    }
    uint64_t value() const { return m_value; }
    uint64_t start_ps() const { return m_start_ps; }
    uint64_t max() const { return m_max; }
    // Time average over [start, now].
    double mean(uint64_t now_ps) const {
        const uint64_t span = now_ps - m_start_ps;
        if (span == 0)
            return static_cast<double>(m_value);
        const uint128 area = m_area + static_cast<uint128>(m_value) * (now_ps - m_last_ps);
        return static_cast<double>(area) / static_cast<double>(span);
    }
    // Fraction of [start, now] spent in each band. From the level buckets: every band edge (j x 2^k, j <= 32) is
    // a bucket edge, so each bucket lies inside one band and the sums are exact.
    std::vector<double> histogram(uint64_t now_ps) const {
        std::vector<double> h(num_bins, 0.0);
        const uint64_t span = now_ps - m_start_ps;
        if (span == 0)
            return h;
        std::vector<uint64_t> t(num_bins, 0);
        m_levels.for_each([&](uint64_t level, uint64_t dt) { t[static_cast<size_t>(bin_of(level))] += dt; });
        t[static_cast<size_t>(bin_of(m_value))] += now_ps - m_last_ps;
        for (int i = 0; i < num_bins; ++i)
            h[static_cast<size_t>(i)] = static_cast<double>(t[static_cast<size_t>(i)]) / static_cast<double>(span);
        return h;
    }
    uint64_t bin_bytes() const { return uint64_t{1} << m_bin_shift; }
    // Time-weighted p-quantile of the gauge over [start, now] (level_histogram's resolution).
    uint64_t quantile(double p, uint64_t now_ps) const { return m_levels.quantile(p, m_value, now_ps - m_last_ps); }
    std::vector<std::pair<uint64_t, double>> cdf(uint64_t now_ps) const {
        return m_levels.cdf(m_value, now_ps - m_last_ps);
    }

private:
    static int shift_for(uint64_t min_bin_bytes) {
        int shift = 0;
        while ((uint64_t{1} << shift) < min_bin_bytes)
            ++shift;
        return shift;
    }
    int bin_of(uint64_t v) const {
        const uint64_t b = v >> m_bin_shift;
        return b >= num_bins ? num_bins - 1 : static_cast<int>(b);
    }
    void accumulate(uint64_t now_ps) {
        const uint64_t dt = now_ps - m_last_ps;
        m_area += static_cast<uint128>(m_value) * dt;
        m_levels.add(m_value, dt);
        m_last_ps = now_ps;
    }

    // What every update touches, in the first 64 bytes (one cache line where the owner aligns the object: the
    // egress port does): the area, times and levels, and the level histogram's recent buckets. The bucket
    // array's pointer, the start and the band width follow.
    uint128 m_area = 0;
    uint64_t m_last_ps = 0;
    uint64_t m_value = 0, m_max = 0;
    level_histogram m_levels;
    uint64_t m_start_ps = 0;
    int m_bin_shift = 0;
};
static_assert(sizeof(level_histogram) == 32, "the recent buckets take 20 bytes (24 with padding), the store pointer 8");
static_assert(sizeof(occupancy_stats) == 96, "an update's fields are the first 64 bytes");

}   // namespace cmswitch
#endif
