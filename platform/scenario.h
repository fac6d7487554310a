// SPDX-License-Identifier: Apache-2.0
// A scenario is a named experiment: a topology, a workload, the congestion-management schemes chosen in its
// slots and its recorders, with a parameter table and a run(). The command line (one subcommand per scenario)
// and the Python package both go through make_scenario(), the one registry.
#ifndef CMSWITCH_PLATFORM_SCENARIO_H
#define CMSWITCH_PLATFORM_SCENARIO_H

#include "config/params.h"
#include "config/result.h"
#include "model/cm/scheme.h"
#include "model/switch/buffer_manager.h"
#include "platform/run_cost.h"
#include "platform/topology.h"

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace cmswitch {

class network;

// What a scenario builds for one run besides the network: its workload and recorders. It lives from build to the
// end of report and goes before the network does.
class scenario_run {
public:
    virtual ~scenario_run() = default;
};

// What plan() decides: the network to build and the simulated time the run ends at.
struct scenario_plan {
    topology topo;
    uint64_t end_ps = 0;
};

// A scenario runs in phases, driven by run() and check() (not virtual: every scenario runs the same way):
//   1. the parameter table validates every field's range and type;
//   2. the memory budget: estimate_cost() against memory_budget();
//   3. plan(): the rules between fields, unit conversions, the slots' schemes; the network to build (no
//      SystemC object yet);
//   4. build(): in a fresh simulation context, the network, then the schemes, workload and recorders on it;
//   5. the run, to plan().end_ps;
//   6. report(): every summary value and table, from the recorders and the network.
// check() is phases 1-4 without the run: everything a run refuses before simulated time starts.
class scenario {
public:
    virtual ~scenario() = default;
    virtual const char* name() const = 0;
    virtual const char* description() const = 0;
    param_table& params() { return m_params; }
    // Validates every parameter (config_error naming the field), builds the network in a fresh simulation
    // context, runs it, checks conservation (model_error if it fails) and returns the metrics.
    result run();
    // Everything run() checks before simulated time starts, without running: the parameters, the cross-field
    // rules and whatever building the network refuses (a PFC headroom that does not fit, say). config_error
    // naming the field; a few ms for most configs.
    void check();
    // The network a run of the current config would build (phases 1-3, then each port's cable and lossless
    // headroom as the network works them out: describe_switch_ports), without building it: what a SONiC
    // configuration is written from (platform/sonic_config_writer.h).
    topology planned_topology();

    // What a run of the current (valid) config will hold in memory, item by item (run_cost.h).
    virtual void estimate_cost(run_cost& c) const = 0;
    run_cost cost() const {
        run_cost c;
        estimate_cost(c);
        return c;
    }
    // The memory a run may plan for, bytes (0: default_memory_budget_bytes()): run() and check() refuse a config
    // whose estimate exceeds it, naming the field, before anything is built.
    void set_memory_budget(double bytes);
    double memory_budget() const { return m_budget_bytes > 0 ? m_budget_bytes : default_memory_budget_bytes(); }

protected:
    // The phases (see above). plan() may write the result's first keys; build() and report() get the same result.
    virtual scenario_plan plan(result& r) = 0;
    virtual std::unique_ptr<scenario_run> build(network& net, result& r) = 0;
    virtual void report(network& net, scenario_run& run, result& r) = 0;

    param_table m_params;
    scheme_set m_schemes;
    double m_budget_bytes = 0;

private:
    scenario_plan prepare(result& r);   // phases 1-3
};

// A scenario whose parameter table writes into a plain settings struct (the user's units, one field per
// parameter), read by run().
template <typename Config>
class configured_scenario : public scenario {
public:
    Config& config() { return m_cfg; }

protected:
    Config m_cfg;
};

// The switch buffer a scenario offers (buffer_policy, buffer_kb, pool_kb, alpha, reserved_kb): a static per-port
// limit, a shared pool with dynamic thresholds, or a shared-buffer MMU (reserved space per queue + a dynamic-threshold
// shared pool). A scenario's settings struct derives from it and sets its own defaults.
struct buffer_settings {
    std::string buffer_policy = "static";
    double buffer_kb = 150;
    double pool_kb = 1024;
    double alpha = 1.0;
    double reserved_kb = 0;
    // the switch description's class handling (buffer_config): priority -> queue and -> priority group maps,
    // the scheduler, DWRR weights per queue, alpha per queue
    std::vector<double> queue_map, pg_map;
    std::string scheduler = "strict";
    std::vector<double> dwrr_weights;
    std::vector<double> alpha_by_queue;
    // the accounting unit of every book (buffer_units.h): cells of cell_bytes (0: byte-exact), a per-frame overhead
    int64_t cell_bytes = 0;
    int64_t cell_overhead_bytes = 0;
    // "pools": service pools, priority-group and queue profiles, headroom, slices (model/switch/mmu_config.h)
    std::vector<double> ingress_pools_kb, egress_pools_kb, pg_pool, queue_pool;
    std::vector<double> pg_reserved_kb, pg_dynamic_th, pg_static_kb;
    std::vector<double> queue_reserved_kb, queue_dynamic_th, queue_static_kb;
    std::vector<double> port_ingress_reserved_kb, port_ingress_dynamic_th, port_egress_reserved_kb,
        port_egress_dynamic_th;
    std::vector<double> xoff_kb, xon_kb, xon_offset_kb;
    double headroom_pool_kb = 0;
    std::string headroom = "formula";
    int64_t slices = 1, pipes = 1;
    std::string slice_map = "single";
    std::vector<double> slice_map_list;
    std::vector<double> cable_m;
    // forwarding (model/switch/ethernet_switch.h)
    std::string forwarding = "store-and-forward";
    int64_t pipeline_ns = 0, cut_through_bytes = 64;
    // SONiC's headroom calculation's inputs (headroom sonic; model/switch/sonic_headroom.h)
    int64_t sonic_port_mtu = 9100, sonic_lossless_mtu = 1024, sonic_lanes = 4;
    double sonic_gearbox_delay_ns = 0;
    double sonic_small_packet_percent = 100, sonic_pipeline_latency_kb = 18, sonic_mac_phy_delay_kb = 0.8,
           sonic_peer_response_kb = 3.8;
};
// Declares buffer_policy (the registry's policies: buffer_policies()), buffer_kb, pool_kb, alpha, reserved_kb,
// alpha_by_queue, the accounting unit (cell_bytes, cell_overhead_bytes) and the class handling (queue_map, pg_map,
// scheduler, dwrr_weights).
void declare_buffer(param_table& t, buffer_settings& b);
buffer_config make_buffer_config(const buffer_settings& b);

// The wall-clock time of a run, reported as wall_s.
class run_clock {
public:
    run_clock() : m_t0(std::chrono::steady_clock::now()) {}
    void report(result& r) const {
        r.set("wall_s", std::chrono::duration<double>(std::chrono::steady_clock::now() - m_t0).count());
    }

private:
    std::chrono::steady_clock::time_point m_t0;
};

// Where the last scenario::run() of this thread spent its CPU time (the calling thread's CPU clock) and the heap
// its model took: for the benchmarks (bench/bench_scale), not part of a result (results are deterministic).
struct run_phases {
    double setup_cpu_s = 0;   // validate, plan, build the network and the traffic
    double run_cpu_s = 0;   // the simulation and the report (with the end-of-run account)
    double teardown_cpu_s = 0;   // destroying the model
    double heap_built_bytes = 0;   // heap in use after the build less before it (glibc's count; 0 elsewhere)
};
const run_phases& last_run_phases();

// What every run ends its summary with: the conservation account (model_error if it fails), simulated_s,
// events and, if given, what an event is.
void report_run_end(result& r, const network& net, double simulated_s, const char* events_kind = nullptr);

// Throws config_error listing the known names. A deprecated name (renamed_scenario) is still made, as the
// scenario it now is; the front ends warn.
std::unique_ptr<scenario> make_scenario(const std::string& name);
const std::vector<std::string>& scenario_names();
// The current name of a scenario's former name, or nullptr when `name` is not a former name. Former names are
// accepted for one release after the rename.
const char* renamed_scenario(const std::string& name);
// Every (former name, current name) pair.
std::vector<std::pair<std::string, std::string>> renamed_scenarios();

}   // namespace cmswitch
#endif
