// SPDX-License-Identifier: Apache-2.0
// One SystemC simulation context per run, so that any number of runs work in one process (measured: no memory
// growth over 1000 runs). Create a sim_context first, build the model, run, delete the model, then let the
// sim_context go: deleting the context before the model crashes.
//
// One simulation at a time per process. SystemC keeps the current simulation context in process-wide globals
// (sc_curr_simcontext and the kernel's own statics), and so does the model (model_clock, model_trace): two
// threads building or running models at once corrupt each other's runs, sometimes without an error. Every
// sim_context therefore holds the process's simulation_lock from its construction to its destruction (the whole
// build, run and teardown); runs from several threads of one process wait for each other and each gives exactly
// the result it gives alone. Parallelism comes from processes (the Python package's sweep forks workers).
#ifndef CMSWITCH_PLATFORM_SIM_CONTEXT_H
#define CMSWITCH_PLATFORM_SIM_CONTEXT_H

#include "platform/run_control.h"

#include <systemc>

namespace cmswitch {

class sim_context {
public:
    // Waits for the process's simulation lock (run_control's interrupt check is asked while it waits), then makes
    // a fresh SystemC context current. model_error if this thread already has a live sim_context.
    sim_context();
    ~sim_context();
    sim_context(const sim_context&) = delete;
    sim_context& operator=(const sim_context&) = delete;

    // Runs the simulation until t_ps (absolute). Rethrows errors raised inside processes as C++ exceptions.
    // With an interrupt check or a progress report installed (run_control), runs in chunks (about 50 ms of wall
    // time each), asks the check and reports progress between them; results do not depend on the chunking.
    void run_until(uint64_t t_ps);

private:
    void run_chunk(uint64_t t_ps);
    simulation_lock m_lock;   // first: taken before the context exists, released after it is gone
    sc_core::sc_simcontext* m_ctx;
};

}   // namespace cmswitch
#endif
