// SPDX-License-Identifier: Apache-2.0
// DCQCN and DCQCN+ as schemes (docs/spec/dcqcn.md):
//  - dcqcn_cp_scheme, slot "marking", variant "dcqcn": the congestion point, RED-like marking of ECN-capable
//    frames on the instantaneous queue of the frame's priority at a switch egress port, p = 0 up to Kmin, Pmax (q -
//    Kmin) / (Kmax - Kmin) up to Kmax, 1 above; at dequeue (both ns-3 simulators; the queue after the departing
//    frame left) or at enqueue.
//  - dcqcn_scheme, slot "cm", variants "dcqcn" and "dcqcn+": the NIC engine on every host (dcqcn_endpoint.h:
//    the notification point at receivers, the reaction point and QP scheduler at senders), for transport rdma.
//    Every constant is a parameter; those where the variants disagree default to 0, "the variant's value"
//    (dcqcn_variant_defaults).
#ifndef CMSWITCH_MODEL_CM_DCQCN_DCQCN_SCHEME_H
#define CMSWITCH_MODEL_CM_DCQCN_DCQCN_SCHEME_H

#include "model/cm/dcqcn/dcqcn_endpoint.h"
#include "model/cm/scheme.h"
#include "model/rng.h"
#include "model/switch/switch_hook.h"

namespace cmswitch {

// The marking probability of the DCQCN congestion point for a queue of q bytes.
class dcqcn_marker {
public:
    dcqcn_marker(uint64_t kmin, uint64_t kmax, double pmax) : m_kmin(kmin), m_kmax(kmax), m_pmax(pmax) {}
    double probability(uint64_t q) const {
        if (q <= m_kmin)
            return 0.0;
        if (q > m_kmax)
            return 1.0;
        return m_pmax * static_cast<double>(q - m_kmin) / static_cast<double>(m_kmax - m_kmin);
    }
    // The same marker with Kmin and Kmax (bytes) in a switch's units.
    dcqcn_marker in_units(const buffer_units& u) const {
        return dcqcn_marker(u.threshold(m_kmin), u.threshold(m_kmax), m_pmax);
    }

private:
    uint64_t m_kmin, m_kmax;
    double m_pmax;
};

class dcqcn_cp_scheme final : public scheme {
public:
    std::vector<std::string> variants() const override { return {"dcqcn"}; }
    void declare(param_table& t) override;
    void check(const std::string& v) const override;
    void install(const std::string& v, scheme_context& ctx) override;
    dcqcn_marker marker() const;

private:
    double m_kmin_kb = 5, m_kmax_kb = 200, m_pmax = 0.01;   // the DCQCN paper's
    std::string m_mark_at = "dequeue";
};

class dcqcn_scheme final : public scheme {
public:
    std::vector<std::string> variants() const override { return {"dcqcn", "dcqcn+"}; }
    void declare(param_table& t) override;
    std::string transport() const override { return "rdma"; }
    void check(const std::string& v) const override;
    void install(const std::string& v, scheme_context& ctx) override;
    // The engine's configuration for variant v ("dcqcn", "dcqcn+"; "none": QP scheduling only) at a line rate.
    dcqcn_endpoint_config config(const std::string& v, double line_rate_bps, uint32_t mtu_bytes) const;

private:
    std::string m_variant = "paper", m_cut_order = "variant";
    double m_g = 1.0 / 256, m_alpha_init = 0, m_alpha_timer_us = 0, m_rate_timer_us = 0, m_byte_counter_kb = 0;
    int64_t m_fast_recovery = 0;
    double m_rai_mbps = 0, m_rhai_mbps = 0, m_min_rate_mbps = 0, m_decrease_period_us = 0;
    double m_rate_on_first_cnp = 1;
    bool m_clamp = false;
    double m_cnp_interval_us = 50;
    double m_lambda = 1, m_rl_gbps = 0, m_cnp_cost_us = 1, m_window_us = 1000, m_max_interval_us = 1000;
};

// Puts an RDMA engine of `variant` (dcqcn, dcqcn+, or none: QP scheduling at line rate only) on every host NIC
// with a link (the scheme's install; a scenario without DCQCN uses it with "none" so that its QPs are scheduled).
void install_rdma_endpoints(fabric& net, const dcqcn_scheme& s, const std::string& variant, uint32_t mtu_bytes);

}   // namespace cmswitch
#endif
