// SPDX-License-Identifier: Apache-2.0
// IEEE 802.1Qau QCN as a scheme (slot "cm", name "qcn"): a congestion point per egress port and priority on
// every switch (qcn_congestion_points.h) and a reaction point on every host NIC at its link's rate (qcn_rp.h).
// Its parameters keep the qcn_ prefix; the CP sampling table, the RP variant and adaptive R_AI are choices.
#ifndef CMSWITCH_MODEL_CM_QCN_QCN_SCHEME_H
#define CMSWITCH_MODEL_CM_QCN_QCN_SCHEME_H

#include "model/cm/qcn/qcn_cp.h"
#include "model/cm/qcn/qcn_rp.h"
#include "model/cm/scheme.h"

#include <cstdint>
#include <string>

namespace cmswitch {

class qcn_scheme final : public scheme {
public:
    std::vector<std::string> variants() const override { return {"qcn"}; }
    void declare(param_table& t) override;
    void check(const std::string& v) const override;
    void install(const std::string& v, scheme_context& ctx) override;
    // qcn_cp, qcn_rp (the sampling and reaction-point choices) and cnms (notifications sent by all switches).
    void report(const fabric& net, result& r) const override;
    void report_absent(result& r) const override;

    qcn_cp_config cp_config() const;
    qcn_rp_config rp_config() const;

private:
    std::string m_cp = "standard";   // standard | memory | detailed
    std::string m_rp = "standard";   // standard | adaptive-rai
    std::string m_rp_variant = "sef1";   // sef1 | ns3-rdma
    std::string m_quantizer = "linear";
    double m_qeq_kb = 26000.0 / 1024;   // 26000 B, the 802.1Qau benchmark list
    double m_w = 2;
    double m_sample_base_kb = 150000.0 / 1024;
    double m_memory_decay_ms = 250;
    double m_detailed_min_kb = 1000.0 / 1024;
    double m_gd = 1.0 / 128;
    double m_min_rate_mbps = 10;
    double m_byte_counter_kb = 150000.0 / 1024;
    double m_timer_ms = 15;
    int64_t m_fast_recovery = 5;
    double m_rai_mbps = 5;
    double m_rhai_mbps = 50;
    double m_rl_queue_kb = 1024;
};

}   // namespace cmswitch
#endif
