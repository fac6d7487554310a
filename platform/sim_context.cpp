// SPDX-License-Identifier: Apache-2.0
#include "platform/sim_context.h"

#include "config/errors.h"
#include "model/frame_protocol.h"

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <pthread.h>
#include <string>

namespace cmswitch {

namespace {
// Process-wide settings of the SystemC report handler, made once: errors and fatals throw (never abort the
// process, which may be a Python interpreter), warnings and infos are not printed on stdout.
void configure_reports_once() {
    static std::once_flag once;
    std::call_once(once, [] {
        using namespace sc_core;
        sc_report_handler::set_actions(SC_INFO, SC_DO_NOTHING);
        sc_report_handler::set_actions(SC_WARNING, SC_DO_NOTHING);
        sc_report_handler::set_actions(SC_ERROR, SC_THROW);
        sc_report_handler::set_actions(SC_FATAL, SC_THROW);
    });
}

}   // namespace

namespace {
bool g_context_live = false;   // under the simulation lock

// A process forked while another of its threads runs a model (a sweep's workers started beside a run) starts
// with none: the context it copied belongs to a thread it does not have, so it is left as it is (never touched,
// never freed) and the child's first run makes a fresh one. (The simulation lock is reset likewise, run_control.)
void forget_context_in_child() {
    g_context_live = false;
    sc_core::sc_curr_simcontext = nullptr;
    sc_core::sc_default_global_context = nullptr;
}
const int g_context_atfork = pthread_atfork(nullptr, nullptr, forget_context_in_child);
}   // namespace

sim_context::sim_context() {
    (void)g_context_atfork;
    if (g_context_live)
        throw model_error("a simulation context is already live in this thread: one simulation at a time (build, "
                          "run and delete a model before starting the next)");
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
    configure_reports_once();
    m_ctx = new sc_core::sc_simcontext;
    sc_core::sc_curr_simcontext = m_ctx;
    sc_core::sc_default_global_context = m_ctx;
    sc_core::sc_set_time_resolution(1.0, sc_core::SC_PS);
    model_clock::now = 0;
    model_clock::run_end = UINT64_MAX;
    g_context_live = true;
}

sim_context::~sim_context() {
    // delete the context while it is still the current one: its teardown asks for the current context, and with
    // none SystemC would build (and leak) a fresh one
    sc_core::sc_curr_simcontext = m_ctx;
    sc_core::sc_default_global_context = m_ctx;
    // The kernel's timed notifications still pending at the end of a run (each event domain's next wake-up, a
    // sampler's tick) are cells of a process-wide pool. Deleting the context deletes their queue but not the cells,
    // so each run lost them for good (about 18 bytes a run). The model's events are gone by now, which cancelled
    // their notifications, and asking for the next pending time pops and frees every cancelled cell.
    sc_core::sc_pending_activity_at_future_time(m_ctx);
    delete m_ctx;
    sc_core::sc_curr_simcontext = nullptr;
    sc_core::sc_default_global_context = nullptr;
    g_context_live = false;
}

void sim_context::run_until(uint64_t t_ps) {
    model_clock::interrupted = false;
    if (!run_control::wants_chunks()) {
        run_chunk(t_ps);
        return;
    }
    run_control::started_running(sc_core::sc_time_stamp().value(), t_ps);
    // adaptive chunks: double while a chunk takes under 25 ms of wall time, halve above 100 ms
    uint64_t chunk = 1000000000ull;   // 1 ms simulated to start
    for (;;) {
        const uint64_t now = sc_core::sc_time_stamp().value();
        if (now >= t_ps)
            break;
        const uint64_t until = t_ps - now > chunk ? now + chunk : t_ps;
        const auto w0 = std::chrono::steady_clock::now();
        run_chunk(until);
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
        if (model_clock::interrupted || run_control::interrupt_requested()) {
            model_clock::interrupted = false;
            throw run_interrupted();
        }
        run_control::report_running(sc_core::sc_time_stamp().value());
        if (wall < 0.025 && chunk < (uint64_t{1} << 62))
            chunk *= 2;
        else if (wall > 0.1 && chunk > 1000000ull)
            chunk /= 2;
    }
}

void sim_context::run_chunk(uint64_t t_ps) {
    const uint64_t now = sc_core::sc_time_stamp().value();
    if (t_ps <= now)
        return;
    model_clock::run_end = t_ps;   // horizon of temporally decoupled event domains
    try {
        sc_core::sc_start(ps_time(t_ps - now));
        model_clock::now = t_ps;
        model_clock::run_end = UINT64_MAX;
    } catch (const config_error&) {
        throw;
    } catch (const model_error&) {
        throw;
    } catch (const sc_core::sc_report& r) {
        // an exception inside a process reaches us as an sc_report: a bug of the model, never bad input
        // (configurations are validated before the run starts)
        throw model_error(std::string("simulation stopped: ") + r.what());
    }
}

}   // namespace cmswitch
