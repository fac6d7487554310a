// SPDX-License-Identifier: Apache-2.0
#include "model/nic/dynamic_queue_limit.h"

#include <algorithm>

namespace cmswitch {

namespace {
uint64_t above(uint64_t a, uint64_t b) {   // a - b, or 0
    return a > b ? a - b : 0;
}
}   // namespace

void dynamic_queue_limit::reset(uint64_t now_ps) {
    m_queued = m_completed = 0;
    m_limit = m_limit_max = m_min;
    m_last_skb = m_prev_last_skb = 0;
    m_prev_queued = m_prev_over = 0;
    m_lowest_slack = UINT64_MAX;
    m_slack_start_ps = now_ps;
}

void dynamic_queue_limit::completed(uint64_t bytes, uint64_t now_ps) {
    // 1. the batch against the state at the previous one
    const uint64_t completed = m_completed + bytes;
    uint64_t over = above(m_queued - m_completed, m_limit);
    const uint64_t in_progress = m_queued - completed;
    const uint64_t prev_in_progress = m_prev_queued - m_completed;
    const bool all_prev_completed = completed >= m_prev_queued;
    uint64_t limit = m_limit;
    if ((over && !in_progress) || (m_prev_over && all_prev_completed)) {
        // 2. starved
        limit += above(completed, m_prev_queued) + m_prev_over;
        m_slack_start_ps = now_ps;
        m_lowest_slack = UINT64_MAX;
    } else if (in_progress && prev_in_progress && !all_prev_completed) {
        // 3. busy throughout: the slack, taken off once per hold time
        uint64_t slack = above(limit + m_prev_over, 2 * (completed - m_completed));
        if (m_prev_over)
            slack = std::max(slack, above(m_prev_last_skb, m_prev_over));
        m_lowest_slack = std::min(m_lowest_slack, slack);
        if (now_ps > m_slack_start_ps + m_hold_ps) {
            limit = above(limit, m_lowest_slack);
            m_slack_start_ps = now_ps;
            m_lowest_slack = UINT64_MAX;
        }
    }
    // 4. bounds
    limit = std::clamp(limit, m_min, m_max);
    if (limit != m_limit) {
        m_limit = limit;
        over = 0;
    }
    m_limit_max = std::max(m_limit_max, m_limit);
    m_prev_over = over;
    m_prev_last_skb = m_last_skb;
    m_completed = completed;
    m_prev_queued = m_queued;
}

}   // namespace cmswitch
