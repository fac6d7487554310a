// SPDX-License-Identifier: Apache-2.0
// A TCP sender's segments in flight, one record each (Linux's retransmission queue), with what RFC 8985 RACK needs:
// each segment's last transmission time, SACKed / lost / retransmitted marks, and the RACK state (the send time,
// end and RTT of the most recently sent segment that was delivered). RACK marks a segment lost when a segment sent
// after it has been delivered and more than RACK.rtt + the reordering window has passed since it was sent; a
// segment not yet that old gives the reorder timer. Counts for the pipe (RFC 6675 / Linux packets_in_flight):
// bytes outstanding - SACKed - lost + retransmitted and not yet delivered or lost again.
#ifndef CMSWITCH_TRAFFIC_TCP_RACK_H
#define CMSWITCH_TRAFFIC_TCP_RACK_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>

namespace cmswitch {

class rack_scoreboard {
public:
    struct segment {
        uint64_t begin, end;
        uint64_t xmit_ps;   // its last transmission
        uint8_t flags;
    };
    enum : uint8_t { sacked = 1, lost = 2, retransmitted = 4, rexmit_out = 8 };

    // [seq, seq + len) was sent at now: new data above every record, or a retransmission of recorded bytes (the
    // records it covers take its time; they are split where it starts or ends inside one).
    void on_send(uint64_t seq, uint64_t len, uint64_t now, bool retransmission);
    // What one ACK delivered: the cumulative ACK `ack` and SACK blocks (absolute [begin, end), any order). Updates
    // RACK from every segment it delivers; tsecr: the ACK's timestamp echo (0: none). Returns the bytes newly
    // delivered (cumulatively acknowledged or SACKed for the first time).
    struct range {
        uint64_t begin, end;
    };
    uint64_t on_ack(uint64_t ack, const range* sack, int n, uint64_t now, uint64_t tsecr);
    // RACK loss detection (RFC 8985 6.2 step 5): marks lost the segments sent before RACK's that are older than
    // RACK.rtt + reo_wnd; returns the bytes it newly marked lost, and in *timeout_ps the time until the next one
    // would be (0: none waits).
    uint64_t detect_loss(uint64_t now, uint64_t reo_wnd_ps, uint64_t* timeout_ps);
    // A retransmission timeout: every segment not SACKed is lost (Linux tcp_enter_loss).
    void mark_all_lost();
    // RACK's reordering window (RFC 8985 6.2 step 4; Linux tcp_rack_reo_wnd): 0 while no reordering was seen and the
    // sender is in recovery or has dup_thresh segments SACKed; else min(min_rtt / 4, srtt).
    uint64_t reo_wnd(bool in_recovery, uint64_t srtt_ps, uint32_t dup_thresh) const;

    // The first lost segment not SACKed and not retransmitted since it was marked, at or above `from`: false if
    // none. Sets seq, len.
    bool next_lost(uint64_t from, uint64_t& seq, uint64_t& len) const;
    bool advanced() const { return m_advanced; }   // RACK moved on the last on_ack
    uint64_t outstanding_bytes() const { return m_segs.empty() ? 0 : m_segs.back().end - m_segs.front().begin; }
    uint64_t sacked_bytes() const { return m_sacked; }
    uint64_t lost_bytes() const { return m_lost; }   // lost and not SACKed
    uint64_t rexmit_out_bytes() const { return m_rexmit_out; }
    uint32_t sacked_segments() const { return m_sacked_segs; }
    uint64_t pipe() const { return outstanding_bytes() - m_sacked - m_lost + m_rexmit_out; }
    bool empty() const { return m_segs.empty(); }
    const segment& head() const { return m_segs.front(); }
    const segment& tail() const { return m_segs.back(); }
    uint64_t min_rtt_ps() const { return m_min_rtt; }
    uint64_t rack_rtt_ps() const { return m_rtt; }
    uint64_t rack_xmit_ps() const { return m_xmit; }
    bool reordering_seen() const { return m_reord; }
    size_t size() const { return m_segs.size(); }
    bool holds_storage() const { return m_segs.holds_storage(); }   // false: no record, nothing allocated
    void clear();

private:
    size_t first_at_or_above(uint64_t seq) const;   // index of the first record with end > seq
    void split(size_t i, uint64_t at);   // record i becomes [begin, at) and [at, end)
    void set_flags(segment& s, uint8_t flags);   // keeps the byte counts
    void delivered(const segment& s, uint64_t now, uint64_t tsecr);   // RACK update (step 2)

    // The records in sequence order: a deque made with the first record and given back when the last is
    // acknowledged, so that a finished or idle flow keeps none (a std::deque holds 576 bytes even when empty). The
    // deque's own fields are kept here, not behind a pointer: an ACK reads them first, and in a large network
    // another line to fetch before the records (a ring instead, one pointer away, kept 20 % more memory at a
    // k = 16 fat-tree's peak: rings of every power of two, freed and made again, fragment the heap).
    class segment_list {
    public:
        bool empty() const { return !m_d; }
        size_t size() const { return m_d ? m_d->size() : 0; }
        segment& operator[](size_t i) { return (*m_d)[i]; }
        const segment& operator[](size_t i) const { return (*m_d)[i]; }
        segment& front() { return m_d->front(); }
        const segment& front() const { return m_d->front(); }
        const segment& back() const { return m_d->back(); }
        void push_back(const segment& s) {
            if (!m_d)
                m_d.emplace();
            m_d->push_back(s);
        }
        void pop_front() {
            m_d->pop_front();
            if (m_d->empty())
                m_d.reset();
        }
        void insert(size_t i, const segment& s) { m_d->insert(m_d->begin() + static_cast<std::ptrdiff_t>(i), s); }
        // The index of the first record for which pred is false (pred true for a prefix of the records).
        template <class Pred>
        size_t partition_point(Pred pred) const {
            return m_d ? static_cast<size_t>(std::partition_point(m_d->begin(), m_d->end(), pred) - m_d->begin()) : 0;
        }
        void clear() { m_d.reset(); }
        bool holds_storage() const { return m_d.has_value(); }

    private:
        std::optional<std::deque<segment>> m_d;   // empty: no record
    };
    segment_list m_segs;
    uint64_t m_sacked = 0, m_lost = 0, m_rexmit_out = 0;
    uint64_t m_unrepaired = 0;   // lost, not SACKed, not retransmitted since: what next_lost() finds
    uint32_t m_sacked_segs = 0;
    uint64_t m_retrans_top = 0;   // the highest end of a retransmitted record (loss detection scans up to it)
    uint64_t m_high_sacked = 0;   // the highest SACKed byte seen (a segment delivered below it arrived late)
    // RACK
    uint64_t m_xmit = 0, m_end = 0, m_rtt = 0;
    uint64_t m_min_rtt = UINT64_MAX;
    bool m_advanced = false;
    bool m_reord = false;
};

}   // namespace cmswitch
#endif
