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
#include <memory>

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

    // The records in sequence order, in a ring of a power-of-two size made with the first record and given back
    // when the last is acknowledged, so that a finished or idle flow keeps none. A ring, not a std::deque (576
    // bytes even when empty, and a record behind two lookups): an ACK reads its first records through one
    // pointer kept here, and in a large network they have gone cold since they were sent.
    class segment_list {
    public:
        segment_list() = default;
        segment_list(const segment_list& o) { *this = o; }
        segment_list& operator=(const segment_list& o) {
            if (this == &o)
                return *this;
            clear();
            if (o.m_size) {
                reserve(o.m_size);
                for (uint32_t i = 0; i < o.m_size; ++i)
                    m_buf[i] = o[i];
                m_size = o.m_size;
            }
            return *this;
        }
        bool empty() const { return m_size == 0; }
        size_t size() const { return m_size; }
        segment& operator[](size_t i) { return m_buf[(m_head + i) & m_mask]; }
        const segment& operator[](size_t i) const { return m_buf[(m_head + i) & m_mask]; }
        segment& front() { return m_buf[m_head]; }
        const segment& front() const { return m_buf[m_head]; }
        const segment& back() const { return (*this)[m_size - 1]; }
        void push_back(const segment& s) {
            if (m_size == capacity())
                reserve(m_size + 1);
            (*this)[m_size] = s;
            ++m_size;
        }
        void pop_front() {
            m_head = (m_head + 1) & m_mask;
            if (--m_size == 0)
                clear();
        }
        // s becomes record i (0 < i <= size): the records before it or those after it move by one, the fewer.
        void insert(size_t i, const segment& s) {
            if (m_size == capacity())
                reserve(m_size + 1);
            if (i < m_size / 2) {
                m_head = (m_head - 1) & m_mask;
                for (size_t j = 0; j < i; ++j)
                    (*this)[j] = (*this)[j + 1];
            } else {
                for (size_t j = m_size; j > i; --j)
                    (*this)[j] = (*this)[j - 1];
            }
            (*this)[i] = s;
            ++m_size;
        }
        // The index of the first record for which pred is false (pred true for a prefix of the records).
        template <class Pred>
        size_t partition_point(Pred pred) const {
            size_t lo = 0, n = m_size;
            while (n > 0) {
                const size_t half = n / 2;
                if (pred((*this)[lo + half])) {
                    lo += half + 1;
                    n -= half + 1;
                } else {
                    n = half;
                }
            }
            return lo;
        }
        // Starts fetching record i's line (i < size), for an access a while from now.
        void prefetch(size_t i) const { __builtin_prefetch(&(*this)[i]); }
        void clear() {
            m_buf.reset();
            m_head = m_size = m_mask = 0;
        }
        bool holds_storage() const { return m_buf != nullptr; }

    private:
        size_t capacity() const { return m_buf ? size_t{m_mask} + 1 : 0; }
        void reserve(size_t n) {   // room for n records at least (16 at first), in order from the ring's start
            size_t cap = std::max<size_t>(capacity(), 16);
            while (cap < n)
                cap *= 2;
            if (m_buf && cap == capacity())
                return;
            std::unique_ptr<segment[]> buf(new segment[cap]);
            for (uint32_t i = 0; i < m_size; ++i)
                buf[i] = (*this)[i];
            m_buf = std::move(buf);
            m_head = 0;
            m_mask = static_cast<uint32_t>(cap - 1);
        }
        std::unique_ptr<segment[]> m_buf;   // null: no record
        uint32_t m_head = 0, m_size = 0, m_mask = 0;
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
