// SPDX-License-Identifier: Apache-2.0
// Congestion-management schemes as plug-ins. A scheme is one place that
//  - declares its parameter block once (param_table; the CLI, --help and the Python config classes follow),
//  - checks its cross-field rules before anything is built,
//  - installs its switch attachments (switch_hook) and NIC reaction points on a network (the fabric),
//  - names the transport it expects, if any,
//  - reports its own metrics.
// A scenario picks one scheme per slot by a choice parameter ("marking": step, red; "cm": qcn; "pause": pause,
// pfc; "none" for no scheme). Schemes are registered by a factory (registry.cpp, one line each, or
// register_scheme at run time); a scenario built afterwards offers them.
#ifndef CMSWITCH_MODEL_CM_SCHEME_H
#define CMSWITCH_MODEL_CM_SCHEME_H

#include "config/params.h"
#include "config/result.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cmswitch {

class ethernet_switch;
class host_nic;

// What a scheme installs into: a network's switches and host NICs and its links (platform/network).
class fabric {
public:
    virtual int num_switches() const = 0;
    virtual ethernet_switch& switch_at(int i) = 0;
    virtual const ethernet_switch& switch_at(int i) const = 0;
    virtual int num_hosts() const = 0;
    virtual host_nic& nic_at(int host) = 0;
    // The link on a switch port (rate 0 if the port is unwired) and a host's link.
    virtual uint64_t port_rate_bps(int sw, int port) const = 0;
    virtual uint64_t port_delay_ps(int sw, int port) const = 0;
    virtual uint64_t host_rate_bps(int host) const = 0;

protected:
    ~fabric() = default;
};

// What a scenario tells its schemes when it installs them.
struct scheme_context {
    fabric& net;
    uint64_t seed;
    // Sending inputs that share one egress port's buffer (for rules that split it among them, such as the
    // PFC XOFF default); 0: the scenario does not say.
    int inputs_per_port = 0;
    // The largest data frame the workload sends (bytes on the wire), for rules that need it (DCQCN+'s MTU / RC).
    uint32_t mtu_bytes = 1500;
    // The 802.1p priorities the scenario's traffic uses (bit p: priority p), for rules that need traffic on a
    // class to mean anything (PFC's lossless priorities); 0: the scenario does not say.
    uint8_t traffic_priorities = 0;
    // The priorities of control frames the traffic cannot lose (RoCE ACKs and CNPs: a queue pair waits for
    // them), for rules that must keep room for them (bit p: priority p); 0: none.
    uint8_t control_priorities = 0;
};

enum class scheme_slot : uint8_t { marking, cm, pause };
constexpr int num_scheme_slots = 3;
// The choice parameter of a slot: "marking", "cm", "pause".
const char* slot_param(scheme_slot s);

class scheme {
public:
    virtual ~scheme() = default;
    // The names this scheme offers in its slot (a scheme with variants offers several: pause and pfc).
    virtual std::vector<std::string> variants() const = 0;
    // Adds its parameters to t, bound to its own fields. Called once.
    virtual void declare(param_table& t) = 0;
    // The transport it needs (a congestion-control name, or "" for any).
    virtual std::string transport() const { return ""; }
    // Cross-field checks of variant `v` before anything is built: config_error naming the field.
    virtual void check(const std::string& v) const { (void)v; }
    // Installs variant v on every switch and NIC it concerns.
    virtual void install(const std::string& v, scheme_context& ctx) = 0;
    // Values it derived when installed (an XOFF from the split rule, say), set right after installation.
    virtual void describe_setup(result& r) const { (void)r; }
    // Its metrics after the run.
    virtual void report(const fabric& net, result& r) const {
        (void)net;
        (void)r;
    }
    // The keys describe_setup and report set, at what they are when the scheme does not run (0, "none"): set for
    // every scheme of a scenario that is not chosen, so that a scenario's summary has the same keys whatever is
    // chosen (a script over a sweep reads every key of every row).
    virtual void report_absent(result& r) const { (void)r; }
};

struct scheme_entry {
    scheme_slot slot;
    std::string doc;   // one line for --help
    std::unique_ptr<scheme> (*make)();
};

// Adds a scheme to the registry; model_error if one of its variant names is already taken in its slot.
void register_scheme(const scheme_entry& e);
// Every registered scheme, built-ins first (registry.cpp).
const std::vector<scheme_entry>& registered_schemes();

// The schemes of one scenario: one instance of every registered scheme of the slots it offers (so that every
// parameter exists whatever is chosen), the choice per slot, and the calls into the chosen ones.
class scheme_set {
public:
    // Instantiates the slot's schemes and declares their parameters in t; with_choice: also the slot's choice
    // parameter (a scenario with a choice of its own selects with select()).
    void declare(param_table& t, scheme_slot slot, const std::string& choice_help, bool with_choice = true);
    void select(scheme_slot slot, const std::string& variant);   // config_error if not offered
    const std::string& selected(scheme_slot slot) const { return m_choice[static_cast<size_t>(slot)]; }
    bool active(scheme_slot slot) const { return selected(slot) != "none"; }
    // The chosen schemes' checks; transport: the scenario's (config_error if a scheme needs another).
    void check(const std::string& transport) const;
    void install(scheme_context& ctx);
    void describe_setup(result& r) const;
    void report(scheme_slot slot, const fabric& net, result& r) const;
    // The names a slot offers besides "none", in registration order.
    std::vector<std::string> offered(scheme_slot slot) const;
    // The scheme of the slot if one is chosen, else null.
    scheme* chosen(scheme_slot slot) const;

private:
    struct slot_state {
        std::vector<std::unique_ptr<scheme>> schemes;
        std::vector<std::string> names;   // "none", then every variant
    };
    slot_state m_slots[num_scheme_slots];
    std::string m_choice[num_scheme_slots] = {"none", "none", "none"};
};

}   // namespace cmswitch
#endif
