// SPDX-License-Identifier: Apache-2.0
// The ECN marking schemes (slot "marking"): "step" (mark above K, DCTCP's) and "red" (probability rising from
// Kmin to Kmax, instantaneous queue), on every switch egress port (ecn_marker.h, ecn_marking.h).
#ifndef CMSWITCH_MODEL_CM_ECN_ECN_SCHEME_H
#define CMSWITCH_MODEL_CM_ECN_ECN_SCHEME_H

#include "model/cm/ecn/ecn_marker.h"
#include "model/cm/scheme.h"

namespace cmswitch {

class ecn_scheme final : public scheme {
public:
    std::vector<std::string> variants() const override { return {"step", "red"}; }
    void declare(param_table& t) override;
    void check(const std::string& v) const override;
    void install(const std::string& v, scheme_context& ctx) override;
    marking_config config(const std::string& v) const;

private:
    double m_k_kb = 29.296875;   // 20 packets of 1500 B
    double m_kmin_kb = 29.296875;
    double m_kmax_kb = 87.890625;
    double m_pmax = 0.1;
    bool m_per_queue = false;
};

}   // namespace cmswitch
#endif
