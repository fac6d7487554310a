// SPDX-License-Identifier: Apache-2.0
#include "traffic/tcp/congestion_control.h"

#include "config/errors.h"
#include "traffic/tcp/cubic.h"
#include "traffic/tcp/dc_vegas.h"
#include "traffic/tcp/dctcp.h"
#include "traffic/tcp/newreno.h"
#include "traffic/tcp/tcp_config.h"
#include "traffic/tcp/vegas.h"

#include <algorithm>

namespace cmswitch {

void tcp_congestion_control::slow_start(tcp_window& w, uint64_t newly_acked) const {
    if (m_abc)   // Linux tcp_slow_start: every byte acknowledged, up to ssthresh
        w.cwnd = std::max(w.cwnd, std::min(w.cwnd + newly_acked, w.ssthresh));
    else
        w.cwnd += std::min<uint64_t>(newly_acked, m_mss);   // RFC 5681, L = 1 SMSS
}

void tcp_congestion_control::on_increase(tcp_window& w, const tcp_ack_event& a) {
    const uint64_t mss = m_mss;
    if (w.cwnd < w.ssthresh)
        slow_start(w, a.newly_acked);
    else if (m_abc)   // Linux tcp_cong_avoid_ai: one SMSS per window of bytes acknowledged
        w.cwnd += std::max<uint64_t>(1, mss * a.newly_acked / w.cwnd);
    else
        w.cwnd += std::max<uint64_t>(1, mss * mss / w.cwnd);   // congestion avoidance: ~1 SMSS per RTT
}

const std::vector<tcp_cc_entry>& congestion_controls() {
    static const std::vector<tcp_cc_entry> all = {
        {"newreno", "RFC 5681 window, RFC 6582 recovery; RFC 3168 ECN response with ecn", ecn_feedback::classic, false,
         [](const tcp_config& c) -> std::unique_ptr<tcp_congestion_control> {
             return std::make_unique<newreno>(c.ecn);
         },
         nullptr},
        {"dctcp", "RFC 8257: window cut by alpha/2 once per window of ECN-Echo", ecn_feedback::per_segment, true,
         [](const tcp_config& c) -> std::unique_ptr<tcp_congestion_control> {
             return std::make_unique<dctcp>(c.dctcp);
         },
         [](param_table& t, tcp_config& c) { c.dctcp.declare(t); }},
        {"vegas", "Linux tcp_vegas: keep alpha..beta segments queued, from per-segment RTTs", ecn_feedback::classic,
         false,
         [](const tcp_config& c) -> std::unique_ptr<tcp_congestion_control> {
             return std::make_unique<vegas>(c.vegas);
         },
         [](param_table& t, tcp_config& c) { c.vegas.declare(t); }},
        {"dc-vegas", "DCTCP's law on Vegas' queue estimate (our reading of Wang et al. 2015)", ecn_feedback::classic,
         false,
         [](const tcp_config& c) -> std::unique_ptr<tcp_congestion_control> {
             return std::make_unique<dc_vegas>(c.dc_vegas);
         },
         [](param_table& t, tcp_config& c) { c.dc_vegas.declare(t); }},
        {"cubic", "RFC 9438 CUBIC as Linux tcp_cubic (without HyStart); RFC 3168 ECN response with ecn",
         ecn_feedback::classic, false,
         [](const tcp_config& c) -> std::unique_ptr<tcp_congestion_control> {
             return std::make_unique<cubic>(c.cubic, c.ecn);
         },
         [](param_table& t, tcp_config& c) { c.cubic.declare(t); }},
    };
    return all;
}

std::vector<std::string> congestion_control_names() {
    std::vector<std::string> names;
    for (const tcp_cc_entry& e : congestion_controls())
        names.push_back(e.name);
    return names;
}

const tcp_cc_entry& find_congestion_control(const std::string& name) {
    std::string names;
    for (const tcp_cc_entry& e : congestion_controls()) {
        if (e.name == name)
            return e;
        names += (names.empty() ? "" : ", ") + e.name;
    }
    throw config_error("transport = '" + name + "': allowed values are " + names);
}

void declare_congestion_control_params(param_table& t, tcp_config& cfg) {
    for (const tcp_cc_entry& e : congestion_controls())
        if (e.declare)
            e.declare(t, cfg);
}

std::unique_ptr<tcp_congestion_control> make_congestion_control(const tcp_config& cfg) {
    std::unique_ptr<tcp_congestion_control> cc = find_congestion_control(cfg.transport).make(cfg);
    cc->set_mss(cfg.mss);
    cc->set_byte_counting(cfg.abc);
    cc->set_gso_max_bytes(static_cast<uint32_t>(cfg.gso_max_bytes));
    return cc;
}

}   // namespace cmswitch
