// SPDX-License-Identifier: Apache-2.0
// One SystemC simulation context per run, so that any number of runs work in one process (DESIGN.md, measured:
// no memory growth over 1000 runs). Create a sim_context first, build the model, run, delete the model, then
// let the sim_context go: deleting the context before the model crashes.
#ifndef CMSWITCH_PLATFORM_SIM_CONTEXT_H
#define CMSWITCH_PLATFORM_SIM_CONTEXT_H

#include <functional>
#include <stdexcept>
#include <systemc>

namespace cmswitch {

// Raised by run_until when the interrupt check asks to stop (Python: Ctrl-C). The model is then torn down as
// usual, and the next run starts in a fresh context.
class run_interrupted : public std::runtime_error {
public:
    run_interrupted() : std::runtime_error("simulation interrupted") {}
};

// Raised by run_until in a build-only check (see scenario_check_build): the model was built, nothing ran.
class build_checked : public std::runtime_error {
public:
    build_checked() : std::runtime_error("model built; not run (build-only check)") {}
};

class sim_context {
public:
    sim_context();
    ~sim_context();
    sim_context(const sim_context&) = delete;
    sim_context& operator=(const sim_context&) = delete;

    // Runs the simulation until t_ps (absolute). Rethrows errors raised inside processes as C++ exceptions.
    // With an interrupt check installed, runs in chunks (about 50 ms of wall time each) and calls it between
    // them; results do not depend on the chunking.
    void run_until(uint64_t t_ps);

    // Installed by a front end (the Python binding) for the runs of this thread; returns true to stop.
    static void set_interrupt_check(std::function<bool()> check);

    // While set (this thread), run_until throws build_checked instead of running: a scenario's run() then
    // validates its whole config and builds its model, and stops before simulated time starts.
    static void set_build_only(bool on);

private:
    void run_chunk(uint64_t t_ps);
    sc_core::sc_simcontext* m_ctx;
};

} // namespace cmswitch
#endif
