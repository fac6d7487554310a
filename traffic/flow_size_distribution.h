// SPDX-License-Identifier: Apache-2.0
// Flow sizes from an empirical CDF, linear between its points (as the HPCC and pFabric traffic generators read
// them). Built in: web-search, data-mining, fb-hadoop (the files in data/flow_sizes/ hold the same points; a test
// keeps them equal); or any CSV of "size_bytes,cdf_percent" lines (# comments and a header allowed).
#ifndef CMSWITCH_TRAFFIC_FLOW_SIZE_DISTRIBUTION_H
#define CMSWITCH_TRAFFIC_FLOW_SIZE_DISTRIBUTION_H

#include "model/rng.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cmswitch {

class flow_size_distribution {
public:
    // points: (size in bytes, cumulative probability in [0, 1]), sizes and probabilities non-decreasing, the
    // last probability 1. Throws config_error naming what is wrong (`what`: where the points came from).
    flow_size_distribution(std::vector<std::pair<double, double>> points, const std::string& what);

    // A built-in distribution by name, or the CSV file at that path.
    static flow_size_distribution named(const std::string& name_or_path);
    static const std::vector<std::string>& builtin_names();
    // The CSV text's points (for the built-in check and for files).
    static std::vector<std::pair<double, double>> parse_csv(const std::string& text, const std::string& what);

    // One size in bytes (at least 1).
    uint64_t sample(rng& r) const;
    // The distribution's mean in bytes (uniform within each linear piece).
    double mean() const;
    const std::vector<std::pair<double, double>>& points() const { return m_points; }

private:
    std::vector<std::pair<double, double>> m_points;
};

}   // namespace cmswitch
#endif
