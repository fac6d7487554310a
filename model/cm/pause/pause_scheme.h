// SPDX-License-Identifier: Apache-2.0
// The PAUSE schemes (slot "pause"): "pause" (802.3x, the whole link) and "pfc" (802.1Qbb, per priority), a
// pause_generator on every switch with per-ingress watermarks (pause_config.h). Without a given XOFF, the
// scenario's egress buffer is split among the inputs that share it (split_port_buffer).
#ifndef CMSWITCH_MODEL_CM_PAUSE_PAUSE_SCHEME_H
#define CMSWITCH_MODEL_CM_PAUSE_PAUSE_SCHEME_H

#include "model/cm/pause/pause_config.h"
#include "model/cm/scheme.h"

namespace cmswitch {

class ethernet_switch;

// A pause_generator with cfg on every switch of net, each port told its link (the headroom check runs per
// port: config_error naming the switch and port).
void install_pause(fabric& net, const pause_config& cfg);

class pause_scheme final : public scheme {
public:
    std::vector<std::string> variants() const override { return {"pause", "pfc"}; }
    void declare(param_table& t) override;
    void install(const std::string& v, scheme_context& ctx) override;
    void describe_setup(result& r) const override;
    void report(const fabric& net, result& r) const override;
    void report_absent(result& r) const override;

private:
    static void report_absent_pools(result& r);   // no headroom pool: its peaks are 0
    void refuse_split_settings(const std::string& buffer) const;
    void install_queues(const std::string& v, const pause_config& pc, const scheme_context& ctx,
                        ethernet_switch& sw) const;
    double m_xoff_kb = 0;
    double m_xon_kb = 0;
    int64_t m_quanta = 65535;
    double m_xoff_alpha = 0, m_headroom_pool_kb = 0, m_reserved_kb = 0;
    bool m_unreserved_control = false;
    std::vector<double> m_xoff_alpha_by_pg;
    std::vector<double> m_pfc_priorities;
    uint64_t m_xoff_bytes = 0;   // as installed (switch 0)
    uint64_t m_xon_bytes = 0;
};

}   // namespace cmswitch
#endif
