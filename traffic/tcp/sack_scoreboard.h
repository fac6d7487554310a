// SPDX-License-Identifier: Apache-2.0
// A SACK sender's scoreboard (RFC 6675 section 3 and 4): the byte ranges above the cumulative ACK that the
// receiver has reported (RFC 2018 blocks), sorted and disjoint, and the queries loss recovery makes of them:
// bytes SACKed in a range, IsLost as one boundary, the next unSACKed byte, where a segment must stop short of
// a SACKed block. Usable by any transport with selective acknowledgement (TCP SACK, SCTP gap reports).
#ifndef CMSWITCH_TRAFFIC_TCP_SACK_SCOREBOARD_H
#define CMSWITCH_TRAFFIC_TCP_SACK_SCOREBOARD_H

#include <cstdint>
#include <utility>
#include <vector>

namespace cmswitch {

class sack_scoreboard {
public:
    using range = std::pair<uint64_t, uint64_t>;   // [begin, end)

    // An ACK of `ack` reported `n` blocks: adds them (clipped to [ack, high_tx)), merging neighbours, and
    // forgets what the cumulative ACK covers. Returns true if it SACKed bytes not SACKed before.
    bool update(uint64_t ack, uint64_t high_tx, const range* blocks, int n);

    bool empty() const { return m_sacked.empty(); }
    uint64_t bytes() const;   // SACKed bytes in all
    uint64_t sacked_in(uint64_t b, uint64_t e) const;   // SACKed bytes in [b, e)
    // IsLost(s) for an unSACKed byte s: more than (dup_thresh - 1) x SMSS SACKed above s, or dup_thresh
    // discontiguous SACKed blocks above it. Both grow as s falls, so the lost bytes are those under one boundary,
    // returned; snd_una when none is lost.
    uint64_t lost_below(uint64_t snd_una, uint64_t smss, uint32_t dup_thresh) const;
    uint64_t skip(uint64_t seq) const;   // the first byte >= seq that is not SACKed
    // A segment from `from` ends at `end` or earlier, at the start of the first SACKed block above from.
    uint64_t clip(uint64_t from, uint64_t end) const;
    uint64_t highest_end() const { return m_sacked.empty() ? 0 : m_sacked.back().second; }
    uint64_t highest_begin() const { return m_sacked.back().first; }   // (not empty)
    const std::vector<range>& blocks() const { return m_sacked; }

private:
    std::vector<range> m_sacked;
};

}   // namespace cmswitch
#endif
