// SPDX-License-Identifier: Apache-2.0
#include "model/cm/qcn/qcn_cp.h"

#include "config/errors.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace cmswitch {

namespace {
// 8-level table, bytes (150, 75, 50, 37.5, 30, 25, 21.5, 18.5 KB)
constexpr uint64_t standard_table[8] = {150000, 75000, 50000, 37500, 30000, 25000, 21500, 18500};
}   // namespace

void qcn_cp_config::validate() const {
    if (sampling != "standard" && sampling != "memory" && sampling != "detailed")
        throw config_error("qcn_cp = '" + sampling + "': allowed values are standard, memory, detailed");
    if (quantizer != "linear" && quantizer != "linear64")
        throw config_error("qcn_quantizer = '" + quantizer + "': allowed values are linear, linear64");
    if (qeq_bytes == 0)
        throw config_error("qcn_qeq_kb = 0: must be > 0");
    if (!(w >= 0 && w <= 64)) {
        std::ostringstream m;
        m << "qcn_w = " << w << ": allowed range [0, 64]";
        throw config_error(m.str());
    }
    if (!(jitter >= 0 && jitter < 1)) {
        std::ostringstream m;
        m << "qcn_jitter = " << jitter << ": allowed range [0, 1)";
        throw config_error(m.str());
    }
}

qcn_congestion_point::qcn_congestion_point(const qcn_cp_config& cfg, uint64_t buffer_bytes, rng r)
    : m_cfg(cfg), m_buffer(buffer_bytes), m_rng(r) {
    cfg.validate();
    kind = cfg.sampling == "memory" ? 1 : cfg.sampling == "detailed" ? 2 : 0;
    m_quantizer = cfg.quantizer == "linear64" ? 1 : 0;
    m_fbmax = static_cast<int64_t>(std::llround(static_cast<double>(cfg.qeq_bytes) * (2 * cfg.w + 1)));
    m_time_to_mark = static_cast<int64_t>(interval_bytes(0));
}

uint8_t qcn_congestion_point::quantize(int64_t fb_abs) const {
    if (fb_abs <= 0)
        return 0;
    const int64_t q = m_quantizer == 1 ? (64 * fb_abs) / m_fbmax : (63 * fb_abs) / m_fbmax;
    return static_cast<uint8_t>(std::min<int64_t>(63, q));
}

int64_t qcn_congestion_point::feedback(uint64_t qlen) const {
    const double qoff = static_cast<double>(qlen) - static_cast<double>(m_cfg.qeq_bytes);
    const double qdelta = static_cast<double>(qlen) - static_cast<double>(m_qlen_old);
    const double fb = -(qoff + m_cfg.w * qdelta);
    return std::clamp(static_cast<int64_t>(std::floor(fb)), -m_fbmax, int64_t{0});
}

uint64_t qcn_congestion_point::interval_bytes(uint8_t q) const {
    const uint64_t top = standard_table[7] * m_cfg.sample_base_bytes / 150000;
    if (kind == 2 && q > 56) {
        // geometric from the standard top band (q = 56) down to detailed_min_bytes (q = 63)
        const double lo = static_cast<double>(std::min(m_cfg.detailed_min_bytes, top));
        const double t = static_cast<double>(q - 56) / 7.0;
        return static_cast<uint64_t>(
            std::llround(static_cast<double>(top) * std::pow(lo / static_cast<double>(top), t)));
    }
    const uint64_t base = standard_table[q >> 3];
    return base * m_cfg.sample_base_bytes / 150000;
}

qcn_feedback qcn_congestion_point::on_arrival(uint32_t bytes, uint64_t qlen, uint64_t now_ps) {
    qcn_feedback out;
    if (kind == 1) {
        // congestion memory: count upward crossings of the threshold, decay one step per period
        while (m_memory > 0 && now_ps - m_last_decay_ps >= m_cfg.memory_decay_ps) {
            --m_memory;
            m_last_decay_ps += m_cfg.memory_decay_ps;
        }
        const bool above = static_cast<double>(qlen) > m_cfg.memory_fraction * static_cast<double>(m_buffer);
        if (above && !m_above && m_memory < 7) {
            if (m_memory == 0)
                m_last_decay_ps = now_ps;
            ++m_memory;
        }
        m_above = above;
    }
    const int64_t fb = feedback(qlen);
    const uint8_t q = quantize(-fb);
    m_time_to_mark -= bytes;
    if (m_time_to_mark < 0) {
        ++m_samples;
        out.qdelta = static_cast<int64_t>(qlen) - static_cast<int64_t>(m_qlen_old);
        out.qoff = static_cast<int64_t>(m_cfg.qeq_bytes) - static_cast<int64_t>(qlen);
        m_qlen_old = qlen;
        double next = static_cast<double>(interval_bytes(q)) *
                      (m_cfg.jitter > 0 ? m_rng.uniform(1 - m_cfg.jitter, 1 + m_cfg.jitter) : 1.0);
        if (kind == 1)
            next /= static_cast<double>(uint64_t{1} << m_memory);
        m_time_to_mark = static_cast<int64_t>(next);
        if (q > 0) {
            out.send = true;
            out.qntz_fb = q;
            ++m_cnms;
        }
    }
    return out;
}

}   // namespace cmswitch
