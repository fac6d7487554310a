// SPDX-License-Identifier: Apache-2.0
// What a front end asks of the runs of its process: one at a time (simulation_lock), stopping on Ctrl-C (an
// interrupt check asked between chunks of simulated time, every 65,536 model events and in the loops that build
// a model) and a progress report for long runs (simulated time, events per second, time left).
//
// Since one simulation runs at a time, these settings are process-wide: a front end installs them while it holds
// the simulation_lock, for the runs it makes (run_hooks does both).
#ifndef CMSWITCH_PLATFORM_RUN_CONTROL_H
#define CMSWITCH_PLATFORM_RUN_CONTROL_H

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

namespace cmswitch {

// Raised when the interrupt check asks to stop (Python: Ctrl-C), while waiting for the simulation lock, while
// building or while running. The model is then torn down as usual and the next run starts in a fresh context.
class run_interrupted : public std::runtime_error {
public:
    run_interrupted() : std::runtime_error("simulation interrupted") {}
};

// The process's one simulation at a time. Re-entrant in the thread that holds it (a front end takes it around a
// whole run, the run's sim_context takes it again). While it waits for another thread's run, `interrupted` (when
// given) is asked every 50 ms; true throws run_interrupted.
class simulation_lock {
public:
    explicit simulation_lock(const std::function<bool()>& interrupted = {});
    ~simulation_lock();
    simulation_lock(const simulation_lock&) = delete;
    simulation_lock& operator=(const simulation_lock&) = delete;
    // Whether this thread holds it.
    static bool held();
};

// A long run's progress, reported every few seconds of wall time.
struct run_progress {
    bool building = true;   // building the model (no simulated time yet), else running
    double wall_s = 0;   // since the hooks were installed
    uint64_t simulated_ps = 0;   // model time reached
    uint64_t end_ps = 0;   // where the run stops
    uint64_t events = 0;   // model events so far
    double events_per_s = 0;   // while running
    double left_s = -1;   // wall seconds left, from the rate so far (-1: not known yet)
};

// One line for a progress report: "workload: 12.5 of 100 ms simulated (12 %), 4.1 M events/s, 38 s so far,
// about 4 min 27 s left".
std::string progress_line(const run_progress& p, const std::string& scenario);

namespace run_control {
// Each installed by a front end while it holds the simulation lock, for the runs it makes; empty: none.
// interrupted() is called from the simulation's thread, in the front end's terms (Python: the GIL taken).
void set_interrupt_check(std::function<bool()> interrupted);
// report() is called first after first_after_s of wall time, then at growing intervals (doubling, at most a
// minute apart).
void set_progress(std::function<void(const run_progress&)> report, double first_after_s = 5.0);
// Called in the loops that build a model (per host, switch, link, routed destination): throws run_interrupted
// when the interrupt check says so (asked at most every 20 ms of wall time) and reports build progress.
void poll_build();
// The model's event count, for the progress report (the network registers it while it exists).
void set_event_counter(std::function<uint64_t()> count);

// For sim_context: whether run_until should run in chunks, and the check and report between them.
bool wants_chunks();
bool interrupt_requested();
void started_running(uint64_t now_ps, uint64_t end_ps);
void report_running(uint64_t now_ps);
}   // namespace run_control

// Installs an interrupt check and a progress report for its lifetime (after taking the simulation lock).
class run_hooks {
public:
    run_hooks(std::function<bool()> interrupted, std::function<void(const run_progress&)> progress,
              double first_progress_after_s = 5.0);
    ~run_hooks();
    run_hooks(const run_hooks&) = delete;
    run_hooks& operator=(const run_hooks&) = delete;

private:
    simulation_lock m_lock;
};

}   // namespace cmswitch
#endif
