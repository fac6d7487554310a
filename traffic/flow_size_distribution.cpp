// SPDX-License-Identifier: Apache-2.0
#include "traffic/flow_size_distribution.h"

#include "config/errors.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace cmswitch {

namespace {
// The built-in distributions (the same points as data/flow_sizes/<name>.csv): size in bytes, CDF in percent.
struct builtin {
    const char* name;
    std::vector<std::pair<double, double>> points;
};
const std::vector<builtin>& builtins() {
    static const std::vector<builtin> b{
        {"web-search",
         {{0, 0},
          {10000, 15},
          {20000, 20},
          {30000, 30},
          {50000, 40},
          {80000, 53},
          {200000, 60},
          {1000000, 70},
          {2000000, 80},
          {5000000, 90},
          {10000000, 97},
          {30000000, 100}}},
        {"data-mining",
         {{1460, 0},
          {1460, 50},
          {2920, 60},
          {4380, 70},
          {10220, 80},
          {389820, 90},
          {3076220, 95},
          {97333820, 99},
          {973333820, 100}}},
        {"fb-hadoop",
         {{0, 0},      {100, 1},     {200, 2},     {300, 5},        {350, 15},     {400, 20},      {500, 30},
          {600, 40},   {700, 50},    {1000, 60},   {2000, 67},      {7000, 70},    {30000, 72},    {50000, 82},
          {80000, 87}, {120000, 90}, {300000, 95}, {1000000, 97.5}, {2000000, 99}, {10000000, 100}}},
    };
    return b;
}
}   // namespace

flow_size_distribution::flow_size_distribution(std::vector<std::pair<double, double>> points, const std::string& what)
    : m_points(std::move(points)) {
    if (m_points.size() < 2)
        throw config_error(what + ": a flow-size CDF needs at least 2 points");
    for (size_t i = 0; i < m_points.size(); ++i) {
        const auto& p = m_points[i];
        if (!(p.first >= 0) || !(p.second >= 0 && p.second <= 1))
            throw config_error(what + ": point " + std::to_string(i + 1) + " (" + std::to_string(p.first) + ", " +
                               std::to_string(p.second * 100) + " %): sizes must be >= 0, probabilities in [0, 100] %");
        if (i > 0 && (p.first < m_points[i - 1].first || p.second < m_points[i - 1].second))
            throw config_error(what + ": point " + std::to_string(i + 1) +
                               ": sizes and probabilities must not decrease");
    }
    if (std::fabs(m_points.back().second - 1) > 1e-9)
        throw config_error(what + ": the last point's probability must be 100 %");
    if (m_points.back().first < 1)
        throw config_error(what + ": the largest size must be at least 1 byte");
}

const std::vector<std::string>& flow_size_distribution::builtin_names() {
    static const std::vector<std::string> n = [] {
        std::vector<std::string> v;
        for (const auto& b : builtins())
            v.push_back(b.name);
        return v;
    }();
    return n;
}

std::vector<std::pair<double, double>> flow_size_distribution::parse_csv(const std::string& text,
                                                                         const std::string& what) {
    std::vector<std::pair<double, double>> pts;
    std::istringstream in(text);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
        ++n;
        const auto first = line.find_first_not_of(" \t\r");
        if (first == std::string::npos || line[first] == '#')
            continue;
        std::replace(line.begin(), line.end(), ',', ' ');
        std::istringstream ls(line);
        double s, c;
        if (!(ls >> s >> c)) {
            if (pts.empty() && std::isalpha(static_cast<unsigned char>(line[first])))
                continue;   // a header
            throw config_error(what + ": line " + std::to_string(n) + ": expected 'size_bytes,cdf_percent'");
        }
        pts.emplace_back(s, c / 100);
    }
    return pts;
}

flow_size_distribution flow_size_distribution::named(const std::string& name) {
    for (const auto& b : builtins())
        if (name == b.name) {
            auto pts = b.points;
            for (auto& p : pts)
                p.second /= 100;
            return flow_size_distribution(std::move(pts), name);
        }
    std::ifstream f(name);
    if (!f) {
        std::string known;
        for (const auto& b : builtins())
            known += std::string(known.empty() ? "" : ", ") + b.name;
        throw config_error("flow_sizes = '" + name + "': neither a built-in distribution (" + known +
                           ") nor a readable CSV file");
    }
    std::stringstream ss;
    ss << f.rdbuf();
    return flow_size_distribution(parse_csv(ss.str(), "flow_sizes file " + name), "flow_sizes file " + name);
}

uint64_t flow_size_distribution::sample(rng& r) const {
    const double u = r.uniform();
    // the first point whose probability exceeds u; interpolate on the piece below it
    const auto it = std::upper_bound(m_points.begin(), m_points.end(), u,
                                     [](double x, const std::pair<double, double>& p) { return x < p.second; });
    double size;
    if (it == m_points.begin()) {
        size = it->first;
    } else if (it == m_points.end()) {
        size = m_points.back().first;
    } else {
        const auto& a = *std::prev(it);
        const auto& b = *it;
        size = a.first + (b.first - a.first) * (u - a.second) / (b.second - a.second);
    }
    return std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(size)));
}

double flow_size_distribution::mean() const {
    double m = m_points.front().first * m_points.front().second;   // an atom at the first size
    for (size_t i = 1; i < m_points.size(); ++i)
        m += (m_points[i].second - m_points[i - 1].second) * (m_points[i].first + m_points[i - 1].first) / 2;
    return m;
}

}   // namespace cmswitch
