// SPDX-License-Identifier: Apache-2.0
// A recorder on a switch's frame path: the queueing delay (enqueue to transmission start) of every data frame of
// one kind leaving one egress port, kept whole so that percentiles are exact.
#ifndef CMSWITCH_PLATFORM_DELAY_RECORDER_H
#define CMSWITCH_PLATFORM_DELAY_RECORDER_H

#include "model/switch/switch_hook.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace cmswitch {

class delay_recorder final : public switch_hook {
public:
    delay_recorder(int port, frame_kind kind) : m_port(port), m_kind(kind) {}
    uint8_t events() const override { return on_dequeue_event; }
    int stage() const override { return stage_recorder; }
    void on_dequeue(const queue_view& q, frame& f, uint64_t now) override {
        if (q.port == m_port && f.kind == m_kind && f.flags == 0) {
            const auto ns = static_cast<uint32_t>(std::min<uint64_t>((now - f.enq_ps) / 1000, UINT32_MAX));
            m_ns.push_back(ns);
            if (now >= m_window_ps) {   // the measurement window: after the warm-up
                m_window_ns.push_back(ns);
                m_window_payload += f.payload;
            }
        }
    }
    // From `ps` on, frames are also counted in the window (its delays, its payload bytes); default: never.
    void set_window_start(uint64_t ps) { m_window_ps = ps; }
    uint64_t window_payload_bytes() const { return m_window_payload; }
    size_t samples() const { return m_ns.size(); }
    // The p-quantile (nearest rank) of the delays in us; 0 without samples.
    // Several at once (one copy of the samples; each order statistic found in what lies above the previous one).
    // window: the delays inside the measurement window only.
    std::vector<double> quantiles_us(std::vector<double> ps, bool window = false) const {
        std::vector<double> out(ps.size(), 0.0);
        const std::vector<uint32_t>& src = window ? m_window_ns : m_ns;
        if (src.empty())
            return out;
        std::vector<uint32_t> v = src;
        std::vector<size_t> order(ps.size());
        for (size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::sort(order.begin(), order.end(), [&ps](size_t a, size_t b) { return ps[a] < ps[b]; });
        size_t from = 0;
        for (const size_t i : order) {
            const double p = ps[i];
            const size_t rank = std::min(
                v.size() - 1, static_cast<size_t>(std::ceil(p * static_cast<double>(v.size()))) - (p > 0 ? 1 : 0));
            std::nth_element(v.begin() + static_cast<std::ptrdiff_t>(from),
                             v.begin() + static_cast<std::ptrdiff_t>(rank), v.end());
            out[i] = v[rank] * 1e-3;
            from = rank;
        }
        return out;
    }

private:
    int m_port;
    frame_kind m_kind;
    std::vector<uint32_t> m_ns;
    uint64_t m_window_ps = UINT64_MAX;
    std::vector<uint32_t> m_window_ns;
    uint64_t m_window_payload = 0;
};

}   // namespace cmswitch
#endif
