// SPDX-License-Identifier: Apache-2.0
// The DCQCN reaction point's rate algorithm, one flow at a time (docs/spec/dcqcn.md, reaction point): what a
// CNP, a timer expiry or a sent packet does to the current rate RC, the target rate RT and alpha. Pure state and
// arithmetic, no events: the NIC endpoint (dcqcn_endpoint.h) owns the timers and calls these. Variants:
//
//   paper     (HiNA-DCN_INET, htsim) CNP: RT = RC, RC *= 1 - alpha/2, alpha = (1-g) alpha + g (cut with
//             the old alpha), T = BC = i = 0, byte counter cleared, alpha and rate timers restarted. The rate timer
//             (T, 55 us) and the byte counter (B) each count a stage and increase: max(T, BC) < F fast recovery
//             (RC = (RT + RC)/2); min(T, BC) > F hyper increase (i += 1, RT += i R_HAI); else additive (RT +=
//             R_AI); RT <= line rate. Alpha decays (1-g) every K (55 us) without a CNP.
//   ns3-rdma  (bobzhuyb/ns3-rdma) QCN-shaped: alpha updated first and the cut made with the new one,
//             stages change at >= F, HAI step R_HAI x (min(T, BC) - F + 1), both cycles halved in HAI, TR guard
//             (RT /= 8 instead of increasing when RT > 10 RC at the first stage after a cut).
//   mlx       (NVIDIA firmware as HPCC's CC_MODE 1) CNPs only set flags; alpha is updated every T_alpha
//             ((1-g) alpha + g if a CNP came in the period, else (1-g) alpha); the rate is cut at most once per
//             T_dec (RT = RC when the last increase was timer-driven, RC = max(MIN, RC (1 - alpha/2))); the rate
//             timer T_inc alone increases: stage < F fast recovery, == F additive once, > F hyper by a constant
//             R_HAI. The first CNP of a flow sets alpha = 1 and RC = RT = rate_on_first_cnp x RC.
//   plus      (DCQCN+, Yang 2018 section 4.3) CNP as paper (alpha order as configured), S = 0; no byte counter;
//             the rate timer's period is K = lambda x max(tau, MTU / RC) with tau the NP's CNP period carried
//             in the CNP; on expiry S += 1: S < F fast recovery, F <= S < 4F RT += min(RC / 10, R_l / 100),
//             S >= 4F RT += min(RC, (S - 4F) / 100 x R_l); RC = (RC + RT) / 2, RT <= line rate. The paper
//             prints "F > 4F" for the last case (read as S >= 4F; at S = 4F the step is 0) and gives no lambda
//             or R_l: lambda = 1 and R_l = the line rate by default (see docs/validation.md for the sweep).
//
// Alpha's timer without CNPs is evaluated lazily (alpha_at): the same values as a timer every K, no events.
#ifndef CMSWITCH_MODEL_CM_DCQCN_DCQCN_RP_H
#define CMSWITCH_MODEL_CM_DCQCN_DCQCN_RP_H

#include <cstdint>
#include <string>

namespace cmswitch {

enum class dcqcn_variant : uint8_t { none, paper, ns3_rdma, mlx, plus };
dcqcn_variant parse_dcqcn_variant(const std::string& name);   // config_error naming dcqcn_rp_variant

// Every constant, in model units. variant_defaults() gives each variant's values from the spec; a scheme
// overrides what the user set.
struct dcqcn_rp_config {
    dcqcn_variant variant = dcqcn_variant::paper;
    bool alpha_first = false;   // update alpha before the cut (ns3-rdma) or after it (paper, htsim)
    double g = 1.0 / 256;
    double alpha_init = 1.0;
    uint64_t alpha_timer_ps = 55000000;   // K (paper, ns3-rdma, plus); T_alpha (mlx)
    uint64_t rate_timer_ps = 55000000;   // T (paper, ns3-rdma); T_inc (mlx); unused by plus (K from tau)
    uint64_t byte_counter_bytes = 10ull << 20;   // B (paper, ns3-rdma); 0: off
    uint32_t fast_recovery = 5;   // F
    double rai_bps = 40e6;   // R_AI
    double rhai_bps = 400e6;   // R_HAI
    double min_rate_bps = 100e6;   // MIN_RATE
    // mlx
    uint64_t decrease_period_ps = 4000000;   // T_dec (rate_reduce_monitor_period)
    double rate_on_first_cnp = 1.0;   // x RC on a flow's first CNP (0 = line rate in firmware terms: 1.0 here)
    bool clamp_target_rate = false;   // RT = RC on every cut (else only after a timer-driven increase)
    // plus
    double lambda = 1.0;
    double rl_bps = 0;   // R_l; 0: the line rate
    uint32_t mtu_bytes = 1086;   // MTU in K = lambda max(tau, MTU / RC): one full frame on the wire

    void validate() const;   // config_error naming the field
};

// The spec's defaults for a variant at a line rate (mlx scales R_AI and R_HAI with bw / 25 Gb/s as HPCC does).
dcqcn_rp_config dcqcn_variant_defaults(dcqcn_variant v, double line_rate_bps);

struct dcqcn_flow {
    double rc = 0, rt = 0;   // current and target rate, bit/s
    double alpha = 1;
    uint64_t alpha_ref_ps = 0;   // paper/ns3-rdma/plus: when the alpha timer last (re)started; mlx: last tick applied
    bool limited = false;   // a CNP has arrived (before: line rate, no timers)
    uint32_t t_stage = 0, bc_stage = 0, hai_i = 0;   // paper, ns3-rdma: timer and byte stages, HAI index
    uint64_t byte_count = 0;   // bytes since the last byte-counter stage
    uint32_t stage = 0;   // mlx stage; plus S
    bool alpha_cnp = false, decrease_cnp = false;   // mlx flags
    uint64_t decrease_ref_ps = 0;   // mlx: the decrease timer's first tick (ticks every T_dec)
    uint64_t tau_ps = 0;   // plus: the last CNP period carried
    uint64_t cnps = 0;
};

// One NIC's algorithm (its line rate and constants); the per-flow state is the caller's.
class dcqcn_rate_control {
public:
    dcqcn_rate_control(const dcqcn_rp_config& cfg, double line_rate_bps);
    const dcqcn_rp_config& config() const { return m_cfg; }
    double line_rate() const { return m_line; }

    void init(dcqcn_flow& f) const;
    // A CNP arrived (tau: the DCQCN+ period it carries, 0 if none). paper/ns3-rdma/plus: the cut is made now;
    // mlx: returns true if a decrease must be scheduled (at the next T_dec tick, decrease_at()).
    bool on_cnp(dcqcn_flow& f, uint64_t now, uint64_t tau_ps) const;
    // mlx: the decrease tick the flow's pending decrease happens at, and the decrease itself.
    uint64_t decrease_at(const dcqcn_flow& f, uint64_t now) const;
    void on_decrease_timer(dcqcn_flow& f, uint64_t now) const;
    // The rate timer expired (a T / T_inc / K period without a CNP).
    void on_rate_timer(dcqcn_flow& f) const;
    // The period of the rate timer now (plus: lambda max(tau, MTU / RC)).
    uint64_t rate_timer_period(const dcqcn_flow& f) const;
    // A packet of `bytes` left (the byte counter).
    void on_sent(dcqcn_flow& f, uint32_t bytes) const;
    // Whether the rate timer still matters (false once RC and RT are back at line rate: its expiries would
    // change nothing until the next CNP, which restarts it).
    bool increasing(const dcqcn_flow& f) const { return f.limited && (f.rc < m_line || f.rt < m_line); }
    // alpha at `now` with the timer expiries since alpha_ref applied; advance() stores them (mlx ticks too).
    double alpha_at(const dcqcn_flow& f, uint64_t now) const;
    void advance_alpha(dcqcn_flow& f, uint64_t now) const;

private:
    void cut(dcqcn_flow& f) const;
    void increase(dcqcn_flow& f) const;
    uint64_t byte_threshold(const dcqcn_flow& f) const;

    dcqcn_rp_config m_cfg;
    double m_line;
};

}   // namespace cmswitch
#endif
