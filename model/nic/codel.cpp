// SPDX-License-Identifier: Apache-2.0
#include "model/nic/codel.h"

#include <cmath>

namespace cmswitch {

uint64_t codel::control_law(const codel_params& p, uint64_t t, uint32_t count) {
    return t + static_cast<uint64_t>(static_cast<double>(p.interval_ps) / std::sqrt(static_cast<double>(count)));
}

bool codel::ok_to_drop(const codel_params& p, uint64_t now, uint64_t sojourn_ps, uint64_t backlog_bytes) {
    if (sojourn_ps < p.target_ps || backlog_bytes <= p.mtu_bytes) {   // (1)
        m_first_above = 0;
        return false;
    }
    if (m_first_above == 0) {
        m_first_above = now + p.interval_ps;
        return false;
    }
    return now >= m_first_above;
}

codel::verdict codel::on_head(const codel_params& p, uint64_t now, uint64_t sojourn_ps, uint64_t backlog_bytes,
                              bool ect) {
    const bool ok = ok_to_drop(p, now, sojourn_ps, backlog_bytes);
    const verdict act = p.ecn && ect ? verdict::mark : verdict::drop;
    if (m_dropping) {   // (2)
        if (!ok) {
            m_dropping = false;
        } else if (now >= m_drop_next) {
            ++m_count;
            m_drop_next = control_law(p, m_drop_next, m_count);
            return act;
        }
    } else if (ok) {   // (3)
        m_dropping = true;
        const uint32_t delta = m_count - m_lastcount;
        // (signed: a drop_next still ahead of now counts as recent)
        const bool recent = static_cast<int64_t>(now - m_drop_next) < static_cast<int64_t>(16 * p.interval_ps);
        m_count = delta > 1 && recent ? delta : 1;
        m_drop_next = control_law(p, now, m_count);
        m_lastcount = m_count;
        return act;
    }
    if (p.ce_threshold_ps && ect && sojourn_ps > p.ce_threshold_ps)   // (4)
        return verdict::mark;
    return verdict::pass;
}

}   // namespace cmswitch
