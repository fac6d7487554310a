// SPDX-License-Identifier: Apache-2.0
// Time-weighted statistics of a gauge (queue bytes): exact time average, maximum, and a histogram of the time
// spent in each occupancy band. Updated on every change of the gauge; read at any time.
#ifndef CMSWITCH_MODEL_SWITCH_OCCUPANCY_STATS_H
#define CMSWITCH_MODEL_SWITCH_OCCUPANCY_STATS_H

#include "model/types.h"

#include <cstdint>
#include <vector>

namespace cmswitch {

class occupancy_stats {
public:
    static constexpr int num_bins = 32;

    // min_bin_bytes: the histogram bands are the smallest power of two at least this wide (a shift, not a
    // division, per update); the last band also holds everything above.
    void reset(uint64_t now_ps, uint64_t min_bin_bytes) {
        m_start_ps = m_last_ps = now_ps;
        m_value = m_max = 0;
        m_area = 0;
        m_bin_shift = 0;
        while ((uint64_t{1} << m_bin_shift) < min_bin_bytes)
            ++m_bin_shift;
        m_bins.assign(num_bins, 0);
    }
    void set(uint64_t now_ps, uint64_t value) {
        accumulate(now_ps);
        m_value = value;
        if (value > m_max)
            m_max = value;
    }
    uint64_t value() const { return m_value; }
    uint64_t max() const { return m_max; }
    // Time average over [start, now].
    double mean(uint64_t now_ps) const {
        const uint64_t span = now_ps - m_start_ps;
        if (span == 0)
            return static_cast<double>(m_value);
        const uint128 area = m_area + static_cast<uint128>(m_value) * (now_ps - m_last_ps);
        return static_cast<double>(area) / static_cast<double>(span);
    }
    // Fraction of [start, now] spent in each band.
    std::vector<double> histogram(uint64_t now_ps) const {
        std::vector<double> h(num_bins, 0.0);
        const uint64_t span = now_ps - m_start_ps;
        if (span == 0)
            return h;
        for (int i = 0; i < num_bins; ++i) {
            uint64_t t = m_bins[i];
            if (i == bin_of(m_value))
                t += now_ps - m_last_ps;
            h[i] = static_cast<double>(t) / static_cast<double>(span);
        }
        return h;
    }
    uint64_t bin_bytes() const { return uint64_t{1} << m_bin_shift; }

private:
    int bin_of(uint64_t v) const {
        const uint64_t b = v >> m_bin_shift;
        return b >= num_bins ? num_bins - 1 : static_cast<int>(b);
    }
    void accumulate(uint64_t now_ps) {
        const uint64_t dt = now_ps - m_last_ps;
        m_area += static_cast<uint128>(m_value) * dt;
        m_bins[bin_of(m_value)] += dt;
        m_last_ps = now_ps;
    }

    uint64_t m_start_ps = 0, m_last_ps = 0;
    uint64_t m_value = 0, m_max = 0;
    uint128 m_area = 0;
    int m_bin_shift = 0;
    std::vector<uint64_t> m_bins = std::vector<uint64_t>(num_bins, 0);
};

} // namespace cmswitch
#endif
