// SPDX-License-Identifier: Apache-2.0
// One SystemC simulation context per run, so that any number of runs work in one process (DESIGN.md, measured:
// no memory growth over 1000 runs). Create a sim_context first, build the model, run, delete the model, then
// let the sim_context go: deleting the context before the model crashes.
#ifndef CMSWITCH_PLATFORM_SIM_CONTEXT_H
#define CMSWITCH_PLATFORM_SIM_CONTEXT_H

#include <systemc>

namespace cmswitch {

class sim_context {
public:
    sim_context();
    ~sim_context();
    sim_context(const sim_context&) = delete;
    sim_context& operator=(const sim_context&) = delete;

    // Runs the simulation until t_ps (absolute). Rethrows errors raised inside processes as C++ exceptions.
    void run_until(uint64_t t_ps);

private:
    sc_core::sc_simcontext* m_ctx;
};

} // namespace cmswitch
#endif
