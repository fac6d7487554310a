// SPDX-License-Identifier: Apache-2.0
// QCN options shared by the scenarios: their parameters (one definition, same names everywhere) and how they
// turn into congestion points on every switch and reaction points on every host NIC.
#ifndef CMSWITCH_PLATFORM_QCN_SETUP_H
#define CMSWITCH_PLATFORM_QCN_SETUP_H

#include "model/cm/qcn/qcn_cp.h"
#include "model/cm/qcn/qcn_rp.h"
#include "platform/network.h"
#include "model/params.h"

#include <cstdint>
#include <string>

namespace cmswitch {

struct qcn_options {
    std::string cm = "none";              // none | qcn
    std::string cp = "standard";          // standard | memory | detailed
    std::string rp = "standard";          // standard | adaptive-rai
    std::string rp_variant = "sef1";      // sef1 | ns3-rdma
    std::string quantizer = "linear";
    double qeq_kb = 26000.0 / 1024;       // 26000 B, the 802.1Qau benchmark list
    double w = 2;
    double sample_base_kb = 150000.0 / 1024;
    double memory_decay_ms = 250;
    double detailed_min_kb = 1000.0 / 1024;
    double gd = 1.0 / 128;
    double min_rate_mbps = 10;
    double byte_counter_kb = 150000.0 / 1024;
    double timer_ms = 15;
    int64_t fast_recovery = 5;
    double rai_mbps = 5;
    double rhai_mbps = 50;
    double rate_sample_us = 1000;
    double rl_queue_kb = 1024;

    bool enabled() const { return cm == "qcn"; }
    // with_cm: also the "cm" switch (a scenario that chooses QCN through a scheme name of its own omits it)
    void add_params(param_table& t, bool with_cm = true);
    qcn_cp_config cp_config() const;
    qcn_rp_config rp_config() const;
    // CPs on every switch, RPs on every NIC (at its link's rate). Validates first.
    void apply(network& net, uint64_t seed) const;
};

} // namespace cmswitch
#endif
