// SPDX-License-Identifier: Apache-2.0
// Stewart et al.'s Dynamic Buffer Limiting as a scheme (slot "marking", variant "dbl"): a dbl_queue_manager on every
// switch, with the Catalyst 4500's knobs as parameters (defaults: the paper's appendix A configuration) and the
// "congested" rule's fraction (ours, dbl_queue_manager.h).
#ifndef CMSWITCH_MODEL_CM_DBL_DBL_SCHEME_H
#define CMSWITCH_MODEL_CM_DBL_DBL_SCHEME_H

#include "model/cm/dbl/dbl_queue_manager.h"
#include "model/cm/scheme.h"

namespace cmswitch {

class dbl_scheme final : public scheme {
public:
    std::vector<std::string> variants() const override { return {"dbl"}; }
    void declare(param_table& t) override;
    void check(const std::string& v) const override;
    void install(const std::string& v, scheme_context& ctx) override;
    void report(const fabric& net, result& r) const override;
    void report_absent(result& r) const override;
    dbl_config config() const;

private:
    int64_t m_max_credits = 15, m_aggressive_credits = 5, m_aggressive_buffers = 255;
    double m_probability = 1.0, m_congested_fraction = 0.5;
    std::string m_action = "ecn";
    std::string m_flow_key = "flow";
};

}   // namespace cmswitch
#endif
