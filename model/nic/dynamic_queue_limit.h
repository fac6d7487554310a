// SPDX-License-Identifier: Apache-2.0
// A NIC transmit queue's byte queue limit, as Linux's dynamic queue limits (lib/dynamic_queue_limits.c, BQL):
// the qdisc may hand the driver another skb while the bytes handed over and not yet completed are at most the
// limit (Linux stops the queue once they exceed it, so the last skb may overshoot the limit by its own size).
// The limit adapts at each batch of transmit completions (one NAPI poll after a TX interrupt):
//  1. in flight before the batch = queued - completed; over = how far that exceeded the limit (the overshoot);
//  2. the queue starved if it was over the limit and is now empty, or was over the limit at the previous batch
//     and everything queued by then is now complete (the NIC may have run dry between the two): the limit grows
//     by the bytes both queued and completed since the previous batch, plus the previous overshoot;
//  3. else, if the queue stayed busy (bytes in flight now and at the previous batch, not all of it complete), the
//     slack is max(limit + previous overshoot - 2 x the bytes of this batch, the part of the last skb that was not
//     overshoot); the lowest slack seen is taken off the limit once per hold time (Linux: HZ, one second);
//  4. the limit stays within [min, max] (Linux 0 and DQL_MAX_LIMIT); a changed limit forgets the overshoot.
// The limit therefore settles near the bytes one completion interval takes (interrupt coalescing x the rate),
// rounded up to whole skbs. Counters are 64-bit: they never wrap in a run.
#ifndef CMSWITCH_MODEL_NIC_DYNAMIC_QUEUE_LIMIT_H
#define CMSWITCH_MODEL_NIC_DYNAMIC_QUEUE_LIMIT_H

#include <cstdint>

namespace cmswitch {

class dynamic_queue_limit {
public:
    static constexpr uint64_t linux_hold_ps = 1000000000000ull;   // slack_hold_time = HZ
    static constexpr uint64_t linux_max_limit = (0xffffffffull / 16) - 65535;   // DQL_MAX_LIMIT

    explicit dynamic_queue_limit(uint64_t hold_ps = linux_hold_ps, uint64_t min_limit = 0,
                                 uint64_t max_limit = linux_max_limit)
        : m_hold_ps(hold_ps), m_min(min_limit), m_max(max_limit) {
        reset(0);
    }
    void reset(uint64_t now_ps);

    // Whether the driver takes another skb (Linux: the queue is not stopped).
    bool open() const { return in_flight() <= m_limit; }
    // `bytes` handed to the driver; `same_skb`: the rest of the skb the previous call began.
    void queued(uint32_t bytes, bool same_skb) {
        m_queued += bytes;
        m_last_skb = same_skb ? m_last_skb + bytes : bytes;
    }
    // The driver refused bytes just counted as queued (the NIC dropped the frame).
    void unqueue(uint32_t bytes) { m_queued -= bytes; }
    // A batch of transmit completions of `bytes` (at most in_flight()).
    void completed(uint64_t bytes, uint64_t now_ps);

    uint64_t limit() const { return m_limit; }
    uint64_t in_flight() const { return m_queued - m_completed; }
    uint64_t max_limit_seen() const { return m_limit_max; }

private:
    uint64_t m_hold_ps, m_min, m_max;
    uint64_t m_queued = 0, m_completed = 0;
    uint64_t m_limit = 0, m_limit_max = 0;
    uint64_t m_last_skb = 0, m_prev_last_skb = 0;
    uint64_t m_prev_queued = 0, m_prev_over = 0;
    uint64_t m_lowest_slack = UINT64_MAX, m_slack_start_ps = 0;
};

}   // namespace cmswitch
#endif
