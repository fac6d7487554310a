// SPDX-License-Identifier: Apache-2.0
#include "traffic/tcp/sack_scoreboard.h"

#include <algorithm>
#include <iterator>

namespace cmswitch {

bool sack_scoreboard::update(uint64_t ack, uint64_t high_tx, const range* blocks, int n) {
    uint64_t fresh = 0;
    for (int i = 0; i < n; ++i) {
        const uint64_t b = std::max(blocks[i].first, ack);
        const uint64_t e = std::min(blocks[i].second, high_tx);
        if (e <= b)
            continue;
        fresh += (e - b) - sacked_in(b, e);
        auto it = std::lower_bound(m_sacked.begin(), m_sacked.end(), std::make_pair(b, e));
        if (it != m_sacked.begin() && std::prev(it)->second >= b)
            --it;
        // merge every interval touching [b, e)
        uint64_t nb = b, ne = e;
        auto first = it;
        while (it != m_sacked.end() && it->first <= ne) {
            nb = std::min(nb, it->first);
            ne = std::max(ne, it->second);
            ++it;
        }
        it = m_sacked.erase(first, it);
        m_sacked.insert(it, {nb, ne});
    }
    // forget what the cumulative ACK now covers
    size_t drop = 0;
    while (drop < m_sacked.size() && m_sacked[drop].second <= ack)
        ++drop;
    m_sacked.erase(m_sacked.begin(), m_sacked.begin() + static_cast<std::ptrdiff_t>(drop));
    if (!m_sacked.empty() && m_sacked.front().first < ack)
        m_sacked.front().first = ack;
    return fresh > 0;
}

uint64_t sack_scoreboard::bytes() const {
    uint64_t n = 0;
    for (const auto& b : m_sacked)
        n += b.second - b.first;
    return n;
}

uint64_t sack_scoreboard::sacked_in(uint64_t b, uint64_t e) const {
    uint64_t n = 0;
    for (const auto& s : m_sacked) {
        const uint64_t lo = std::max(b, s.first), hi = std::min(e, s.second);
        if (hi > lo)
            n += hi - lo;
    }
    return n;
}

uint64_t sack_scoreboard::lost_below(uint64_t snd_una, uint64_t smss, uint32_t dup_thresh) const {
    uint64_t bytes = 0;
    uint32_t blocks = 0;
    for (auto it = m_sacked.rbegin(); it != m_sacked.rend(); ++it) {
        bytes += it->second - it->first;
        if (bytes > (dup_thresh - 1) * smss || ++blocks >= dup_thresh)
            return it->first;
    }
    return snd_una;
}

uint64_t sack_scoreboard::skip(uint64_t seq) const {
    for (const auto& b : m_sacked)
        if (b.first <= seq && seq < b.second)
            return b.second;
    return seq;
}

uint64_t sack_scoreboard::clip(uint64_t from, uint64_t end) const {
    for (const auto& b : m_sacked)
        if (b.first > from)
            return std::min(end, b.first);
    return end;
}

}   // namespace cmswitch
