// SPDX-License-Identifier: Apache-2.0
#include "model/cm/dbl/dbl_scheme.h"

#include "config/errors.h"
#include "config/params.h"
#include "config/result.h"
#include "model/switch/ethernet_switch.h"

#include <memory>

namespace cmswitch {

void dbl_scheme::declare(param_table& t) {
    t.add_int("dbl_max_credits", &m_max_credits, 1, 15, "frames", "DBL: credits each flow gets when a queue congests");
    t.add_int("dbl_aggressive_credits", &m_aggressive_credits, 1, 15, "frames",
              "DBL: a flow with this many credits or fewer is aggressive (paper 5)");
    t.add_int("dbl_aggressive_buffers", &m_aggressive_buffers, 0, 255, "frames",
              "DBL: frames an aggressive flow may have queued before its next is dropped (paper 255)");
    t.add_real("dbl_exceed_probability", &m_probability, 0, 1, "",
               "DBL: probability of the exceed action on an aggressive flow's frame (paper 100 %)");
    t.add_choice("dbl_exceed_action", &m_action, {"ecn", "drop"},
                 "DBL: mark ECN-capable frames (drop the others) or drop every frame of an aggressive flow");
    t.add_real("dbl_congested_fraction", &m_congested_fraction, 0, 1, "",
               "DBL: a transmit queue is congested from this fraction of its frame limit (ours: 0.5 gives the "
               "paper's marking at 120-130 frames of one flow, 70-80 of each of two)",
               true);
    t.add_choice("dbl_flow_key", &m_flow_key, {"flow", "hosts", "queue"},
                 "DBL: what a flow is: the transport's own (layer-4 ports) or every frame between two hosts (a "
                 "switch that does not parse SCTP's ports) or the whole transmit queue as one");
}

dbl_config dbl_scheme::config() const {
    dbl_config c;
    c.max_credits = static_cast<uint32_t>(m_max_credits);
    c.aggressive_credits = static_cast<uint32_t>(m_aggressive_credits);
    c.aggressive_buffers = static_cast<uint32_t>(m_aggressive_buffers);
    c.exceed_probability = m_probability;
    c.exceed_ecn = m_action == "ecn";
    c.congested_fraction = m_congested_fraction;
    c.flow_by_hosts = m_flow_key == "hosts";
    c.flow_by_queue = m_flow_key == "queue";
    return c;
}

void dbl_scheme::check(const std::string&) const {
    if (m_aggressive_credits >= m_max_credits)
        throw config_error("dbl_aggressive_credits = " + std::to_string(m_aggressive_credits) +
                           ": must be < dbl_max_credits = " + std::to_string(m_max_credits) +
                           " (else every flow is aggressive from its first frame)");
}

void dbl_scheme::install(const std::string&, scheme_context& ctx) {
    for (int s = 0; s < ctx.net.num_switches(); ++s)
        ctx.net.switch_at(s).add_hook(std::make_unique<dbl_queue_manager>(
            config(), rng(ctx.seed, stream_id(random_stream::dbl, static_cast<uint64_t>(s)))));
}

void dbl_scheme::report(const fabric& net, result& r) const {
    uint64_t marks = 0, drops = 0;
    for (int s = 0; s < net.num_switches(); ++s)
        if (const auto* h = net.switch_at(s).find_hook<dbl_queue_manager>()) {
            marks += h->marks();
            drops += h->drops();
        }
    r.set("dbl_marks", static_cast<int64_t>(marks));
    r.set("dbl_drops", static_cast<int64_t>(drops));
}

void dbl_scheme::report_absent(result& r) const {
    r.set("dbl_marks", int64_t{0});
    r.set("dbl_drops", int64_t{0});
}

}   // namespace cmswitch
