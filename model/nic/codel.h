// SPDX-License-Identifier: Apache-2.0
// CoDel, the controlled-delay AQM (RFC 8289; Linux include/net/codel_impl.h), for one queue: the verdict on the
// packet at the head of the queue as it is about to leave. Its steps, as the RFC's pseudocode:
//  1. ok to drop: the head's sojourn time is at or above `target` and more than one MTU waits; once that has lasted
//     `interval` (first_above, set `interval` after it began), the queue is "above target";
//  2. in the dropping state: leave it as soon as the queue is not above target; else, each time the clock passes
//     drop_next, drop (or, for an ECN-capable packet with ecn on, mark CE) the head, count one more and move
//     drop_next on by interval / sqrt(count) (the control law);
//  3. not dropping and above target: drop (or mark) the head and enter the dropping state, with count going on
//     from where the previous dropping state left it (count - lastcount) if that state ended less than 16
//     intervals ago, else 1; drop_next = now + interval / sqrt(count);
//  4. apart from the control law, a passing ECN-capable head whose sojourn exceeds ce_threshold (when set) is marked
//     CE (Linux's ce_threshold, added for DCTCP hosts).
// The square root is the exact one (Linux approximates it by Newton steps on a reciprocal: the drop times differ in
// the last digits).
#ifndef CMSWITCH_MODEL_NIC_CODEL_H
#define CMSWITCH_MODEL_NIC_CODEL_H

#include <cstdint>

namespace cmswitch {

struct codel_params {
    uint64_t target_ps = 5000000000ull;   // 5 ms (fq_codel's default)
    uint64_t interval_ps = 100000000000ull;   // 100 ms
    uint32_t mtu_bytes = 1514;   // psched_mtu
    bool ecn = true;   // fq_codel marks ECN-capable packets instead of dropping them
    uint64_t ce_threshold_ps = 0;   // 0: off
};

class codel {
public:
    enum class verdict : uint8_t { pass, mark, drop };
    // The head packet, `sojourn_ps` in the queue, is about to leave with `backlog_bytes` waiting (itself included).
    // drop: it is dropped and the next head is asked about in turn; mark: it leaves marked CE; pass: it leaves.
    verdict on_head(const codel_params& p, uint64_t now, uint64_t sojourn_ps, uint64_t backlog_bytes, bool ect);
    // The queue is empty.
    void on_empty() { m_first_above = 0; }
    bool dropping() const { return m_dropping; }
    uint32_t count() const { return m_count; }

private:
    bool ok_to_drop(const codel_params& p, uint64_t now, uint64_t sojourn_ps, uint64_t backlog_bytes);
    static uint64_t control_law(const codel_params& p, uint64_t t, uint32_t count);

    uint64_t m_first_above = 0;   // 0: below target
    uint64_t m_drop_next = 0;
    uint32_t m_count = 0, m_lastcount = 0;
    bool m_dropping = false;
};

}   // namespace cmswitch
#endif
