// SPDX-License-Identifier: Apache-2.0
#include "platform/run_control.h"

#include "model/frame_protocol.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <pthread.h>
#include <thread>

namespace cmswitch {

namespace {

struct lock_state {
    std::timed_mutex mutex;
    std::atomic<std::thread::id> owner{};
    int depth = 0;   // touched only by the owner
};

struct hooks_state {
    std::function<bool()> interrupted;
    std::function<void(const run_progress&)> progress;
    std::function<uint64_t()> events;
    std::chrono::steady_clock::time_point t0;
    double first_after_s = 5, next_report_s = 5, last_poll_s = 0;
    bool running = false;
    double run_wall0 = 0;
    uint64_t run_sim0 = 0, end_ps = 0, events0 = 0;
};

lock_state* g_lock = new lock_state;   // never freed: the process's, for its whole life
hooks_state g_hooks;

// A child forked while another thread held the lock (a sweep forking its workers while a thread of the same
// program runs a model) would inherit it locked by a thread it does not have: the child starts unlocked and
// without its parent's hooks (the parent's context, if one was live, is left to the parent).
void reset_in_child() {
    g_lock = new lock_state;
    g_hooks = hooks_state{};
    model_clock::interrupt_poll = nullptr;
    model_clock::interrupted = false;
}
const int g_atfork = pthread_atfork(nullptr, nullptr, reset_in_child);

double wall_now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - g_hooks.t0).count();
}

bool poll_interrupt() {
    return g_hooks.interrupted && g_hooks.interrupted();
}

uint64_t event_count() {
    return g_hooks.events ? g_hooks.events() : 0;
}

void report(run_progress p) {
    g_hooks.progress(p);
    // reports at 5, 10, 20, 40 s ... at most a minute apart (first_after_s 5)
    g_hooks.next_report_s = p.wall_s + std::min(std::max(p.wall_s, g_hooks.first_after_s), 60.0);
}

}   // namespace

namespace {
std::string duration_text(double s) {
    char buf[64];
    if (s < 60)
        std::snprintf(buf, sizeof buf, "%.0f s", s);
    else if (s < 3600)
        std::snprintf(buf, sizeof buf, "%d min %02d s", static_cast<int>(s / 60), static_cast<int>(s) % 60);
    else if (s < 86400 * 3)
        std::snprintf(buf, sizeof buf, "%d h %02d min", static_cast<int>(s / 3600), static_cast<int>(s / 60) % 60);
    else
        std::snprintf(buf, sizeof buf, "%.0f days", s / 86400);
    return buf;
}

std::string sim_time_text(double ps, double unit_ps, const char* unit) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4g %s", ps / unit_ps, unit);
    return buf;
}
}   // namespace

std::string progress_line(const run_progress& p, const std::string& scenario) {
    std::string line = scenario + ": ";
    if (p.building)
        return line + "building the model, " + duration_text(p.wall_s) + " so far";
    const double end = static_cast<double>(p.end_ps);
    const double unit = end >= 1e12 ? 1e12 : end >= 1e9 ? 1e9 : 1e6;
    const char* name = end >= 1e12 ? "s" : end >= 1e9 ? "ms" : "us";
    char buf[160];
    std::snprintf(buf, sizeof buf, " of %s simulated (%.0f %%), %.2f M events/s, %s so far",
                  sim_time_text(end, unit, name).c_str(),
                  end > 0 ? 100.0 * static_cast<double>(p.simulated_ps) / end : 0.0, p.events_per_s * 1e-6,
                  duration_text(p.wall_s).c_str());
    line += sim_time_text(static_cast<double>(p.simulated_ps), unit, "").c_str();
    while (!line.empty() && line.back() == ' ')
        line.pop_back();
    line += buf;
    if (p.left_s >= 0)
        line += ", about " + duration_text(p.left_s) + " left";
    return line;
}

simulation_lock::simulation_lock(const std::function<bool()>& interrupted) {
    (void)g_atfork;
    lock_state& s = *g_lock;
    if (s.owner.load() == std::this_thread::get_id()) {
        ++s.depth;
        return;
    }
    if (interrupted) {
        while (!s.mutex.try_lock_for(std::chrono::milliseconds(50)))
            if (interrupted())
                throw run_interrupted();
    } else {
        s.mutex.lock();
    }
    s.owner.store(std::this_thread::get_id());
    s.depth = 1;
}

simulation_lock::~simulation_lock() {
    lock_state& s = *g_lock;
    if (--s.depth == 0) {
        s.owner.store(std::thread::id());
        s.mutex.unlock();
    }
}

bool simulation_lock::held() {
    return g_lock->owner.load() == std::this_thread::get_id();
}

namespace run_control {

void set_interrupt_check(std::function<bool()> interrupted) {
    g_hooks.interrupted = std::move(interrupted);
    // the event domains ask too, every 65,536 events, so that a chunk that runs long stops within it
    model_clock::interrupt_poll = g_hooks.interrupted ? &poll_interrupt : nullptr;
    model_clock::interrupted = false;
}

void set_progress(std::function<void(const run_progress&)> report_fn, double first_after_s) {
    g_hooks.progress = std::move(report_fn);
    g_hooks.t0 = std::chrono::steady_clock::now();
    g_hooks.first_after_s = g_hooks.next_report_s = first_after_s;
    g_hooks.last_poll_s = 0;
    g_hooks.running = false;
}

void set_event_counter(std::function<uint64_t()> count) {
    g_hooks.events = std::move(count);
}

void poll_build() {
    if (!g_hooks.interrupted && !g_hooks.progress)
        return;
    const double wall = wall_now();
    if (wall - g_hooks.last_poll_s < 0.02)
        return;
    g_hooks.last_poll_s = wall;
    if (poll_interrupt())
        throw run_interrupted();
    if (g_hooks.progress && wall >= g_hooks.next_report_s) {
        run_progress p;
        p.building = true;
        p.wall_s = wall;
        report(p);
    }
}

bool wants_chunks() {
    return g_hooks.interrupted || g_hooks.progress;
}

bool interrupt_requested() {
    return poll_interrupt();
}

void started_running(uint64_t now_ps, uint64_t end_ps) {
    g_hooks.running = true;
    g_hooks.run_wall0 = wall_now();
    g_hooks.run_sim0 = now_ps;
    g_hooks.end_ps = end_ps;
    g_hooks.events0 = event_count();
}

void report_running(uint64_t now_ps) {
    if (!g_hooks.progress || !g_hooks.running)
        return;
    const double wall = wall_now();
    if (wall < g_hooks.next_report_s)
        return;
    run_progress p;
    p.building = false;
    p.wall_s = wall;
    p.simulated_ps = now_ps;
    p.end_ps = g_hooks.end_ps;
    p.events = event_count();
    const double ran = wall - g_hooks.run_wall0;
    if (ran > 0) {
        p.events_per_s = static_cast<double>(p.events - g_hooks.events0) / ran;
        const double done = static_cast<double>(now_ps - g_hooks.run_sim0);
        if (done > 0)
            p.left_s = static_cast<double>(g_hooks.end_ps - now_ps) / done * ran;
    }
    report(p);
}

}   // namespace run_control

run_hooks::run_hooks(std::function<bool()> interrupted, std::function<void(const run_progress&)> progress,
                     double first_progress_after_s)
    : m_lock(interrupted) {
    run_control::set_interrupt_check(std::move(interrupted));
    run_control::set_progress(std::move(progress), first_progress_after_s);
}

run_hooks::~run_hooks() {
    run_control::set_interrupt_check(nullptr);
    run_control::set_progress(nullptr);
}

}   // namespace cmswitch
