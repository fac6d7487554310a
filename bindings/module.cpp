// SPDX-License-Identifier: Apache-2.0
// cmswitch._core: the one entry point Python uses. A run builds its model in a fresh SystemC context (so any
// number of runs work in one interpreter) on a simulation thread of its own, one at a time per process, while
// the caller waits with the GIL released and watches for Ctrl-C. Python never holds a SystemC object: it passes
// a scenario name and parameter strings, and gets plain dicts and NumPy arrays back.
#include "config/errors.h"
#include "config/switch_description.h"
#include "model/cm/pause/pause_config.h"
#include "model/units.h"
#include "platform/run_control.h"
#include "platform/scenario.h"
#include "platform/sonic_config_writer.h"
#include "platform/vcd_writer.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <string>
#include <thread>
#include <vector>

namespace py = pybind11;
using namespace cmswitch;

namespace {

py::dict describe(const std::string& name) {
    auto sc = make_scenario(name);
    py::dict out;
    out["description"] = sc->description();
    py::list params;
    for (const auto& p : sc->params().params()) {
        py::dict d;
        d["name"] = p.name;
        d["unit"] = p.unit;
        d["help"] = p.help;
        d["group"] = p.group;   // "" for the scenario's own, else the scheme that declared it
        switch (p.type) {
        case param_table::kind::integer:
            d["type"] = "int";
            d["default"] = p.int_value();
            d["min"] = p.lo;
            d["max"] = p.hi;
            break;
        case param_table::kind::real:
            d["type"] = "float";
            d["default"] = p.real_value();
            d["min"] = p.lo;
            d["max"] = p.hi;
            d["min_open"] = p.lo_open;
            d["min_nonzero"] = p.min_nonzero;
            break;
        case param_table::kind::choice:
            d["type"] = "choice";
            d["default"] = p.choice_value();
            d["choices"] = p.choices;
            d["csv_file"] = p.or_csv_file;
            break;
        case param_table::kind::flag:
            d["type"] = "bool";
            d["default"] = *p.b;
            break;
        case param_table::kind::list:
            d["type"] = "list";
            d["default"] = py::tuple(py::cast(*p.v));
            d["min"] = p.lo;
            d["max"] = p.hi;
            d["count"] = p.count;
            d["integers"] = p.integers;
            break;
        }
        if (!p.overridden_by.empty())   // the list that replaces this scalar when given
            d["overridden_by"] = p.overridden_by;
        if (p.is_set) {   // a profiled setting: None (the profile's value) by default
            d["profile"] = p.profile_text;
            d["default"] = py::none();
        }
        params.append(d);
    }
    out["params"] = params;
    return out;
}

py::dict to_python(const result& r) {
    py::dict summary;
    for (const auto& kv : r.summary) {
        const scalar& v = kv.second;
        if (auto b = std::get_if<bool>(&v))
            summary[kv.first.c_str()] = *b;
        else if (auto i = std::get_if<int64_t>(&v))
            summary[kv.first.c_str()] = *i;
        else if (auto d = std::get_if<double>(&v))
            summary[kv.first.c_str()] = *d;
        else
            summary[kv.first.c_str()] = std::get<std::string>(v);
    }
    py::dict tables;
    for (const auto& t : r.tables) {
        py::dict cols;
        for (const auto& c : t.second.columns)
            cols[c.first.c_str()] = py::array_t<double>(static_cast<py::ssize_t>(c.second.size()), c.second.data());
        tables[t.first.c_str()] = cols;
    }
    py::dict out;
    out["summary"] = summary;
    out["tables"] = tables;
    return out;
}

// Runs of this interpreter are made by one simulation thread of its own, in turn (the process's one simulation at
// a time). The calling thread waits with the GIL released and looks at Ctrl-C and the progress reports every
// 50 ms in Python's own terms, so the simulation never needs the GIL. On Ctrl-C the simulation stops at its next
// check (within a chunk of simulated time, or between two blocks of a model being built) and the caller raises
// KeyboardInterrupt at once, while the model's teardown finishes in the simulation thread (a large fabric takes
// seconds); the next run waits for it. One long-lived thread rather than one per run: the allocator keeps one
// arena for the runs (a thread per run grew the process by 1.5 MB in steps over 20,000 runs).
struct job_state {
    std::function<void()> body;   // owns everything it touches
    double progress_after_s = 5;
    std::atomic<bool> stop{false};
    // under the worker's mutex
    bool started = false;   // the simulation thread took it
    bool stopped = false;   // the simulation saw the stop
    bool finished = false;   // body() returned or threw, the model is gone
    std::exception_ptr error;
    std::vector<run_progress> reports;
};

class simulation_worker {
public:
    std::mutex m;
    std::condition_variable cv;   // jobs queued, started, stopped, reported or finished; the worker idle

    void submit(const std::shared_ptr<job_state>& job) {
        std::lock_guard<std::mutex> lock(m);
        m_queue.push_back(job);
        if (!m_thread_started) {
            m_thread_started = true;
            std::thread([this] { loop(); }).detach();
        }
        cv.notify_all();
    }
    // A job that has not started leaves the queue (true); a started one must be stopped.
    bool cancel(const std::shared_ptr<job_state>& job) {
        std::lock_guard<std::mutex> lock(m);
        if (job->started)
            return false;
        m_queue.erase(std::remove(m_queue.begin(), m_queue.end(), job), m_queue.end());
        return true;
    }
    void wait_idle() {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [this] { return m_queue.empty() && !m_busy; });
    }
    // At interpreter exit: the queued jobs leave the queue and the running one is asked to stop (at its next
    // check, within a second), so that the exit waits for a teardown, not for a whole run of a daemon thread.
    void stop_all() {
        std::lock_guard<std::mutex> lock(m);
        m_queue.clear();
        if (m_current)
            m_current->stop.store(true);
        cv.notify_all();
    }

private:
    void loop() {
        for (;;) {
            std::shared_ptr<job_state> job;
            {
                std::unique_lock<std::mutex> lock(m);
                cv.wait(lock, [this] { return !m_queue.empty(); });
                job = m_queue.front();
                m_queue.pop_front();
                job->started = true;
                m_busy = true;
                m_current = job;
            }
            execute(*job);
            {
                std::lock_guard<std::mutex> lock(m);
                job->finished = true;
                m_busy = false;
                m_current = nullptr;
            }
            cv.notify_all();
        }
    }
    void execute(job_state& job) {
        std::exception_ptr error;
        try {
            run_hooks hooks(
                [this, &job] {
                    if (!job.stop.load())
                        return false;
                    {
                        std::lock_guard<std::mutex> lock(m);
                        job.stopped = true;
                    }
                    cv.notify_all();
                    return true;
                },
                [this, &job](const run_progress& p) {
                    {
                        std::lock_guard<std::mutex> lock(m);
                        job.reports.push_back(p);
                    }
                    cv.notify_all();
                },
                job.progress_after_s);
            job.body();
        } catch (...) {
            error = std::current_exception();
        }
        job.body = nullptr;   // what it owned goes here, in this thread
        std::lock_guard<std::mutex> lock(m);
        job.error = error;
    }

    std::deque<std::shared_ptr<job_state>> m_queue;
    std::shared_ptr<job_state> m_current;   // the job the simulation thread runs
    bool m_busy = false;
    bool m_thread_started = false;
};

simulation_worker* g_worker = new simulation_worker;   // never freed: the process's
// A forked child has no simulation thread: it starts its own when it runs something.
const int g_worker_atfork = pthread_atfork(nullptr, nullptr, [] { g_worker = new simulation_worker; });

// Set at interpreter exit: a thread still waiting for a run (a daemon thread) must not take the GIL again, since
// the interpreter is being finalized (Python would end the thread inside the GIL's release guard's destructor,
// and the process would abort); it waits, parked, for the process to end.
std::atomic<bool> g_exiting{false};

// At interpreter exit: stops the run a daemon thread may still be inside and waits for its model's teardown, so
// that the process's static destructors do not run under it.
void wait_for_simulations() {
    (void)g_worker_atfork;
    g_exiting.store(true);
    py::gil_scoped_release release;
    g_worker->stop_all();
    g_worker->wait_idle();
}

[[noreturn]] void park_until_exit() {
    for (;;)
        std::this_thread::sleep_for(std::chrono::hours(1));
}

py::dict progress_dict(const run_progress& p, const std::string& scenario) {
    py::dict d;
    d["phase"] = p.building ? "building" : "running";
    d["wall_s"] = p.wall_s;
    d["simulated_s"] = static_cast<double>(p.simulated_ps) * 1e-12;
    d["end_s"] = static_cast<double>(p.end_ps) * 1e-12;
    d["events"] = p.events;
    d["events_per_s"] = p.events_per_s;
    d["left_s"] = p.left_s;
    d["line"] = progress_line(p, scenario);
    return d;
}

// Runs `body` (which must own everything it touches) on the simulation thread and waits for it (GIL held on
// entry). progress: None or a callable given each report as a dict; an exception it raises stops the run and
// reaches the caller. Ctrl-C while the run waits for another's, builds or runs raises KeyboardInterrupt within
// 50 ms of the simulation's next check.
void with_simulation(const py::object& progress, const std::string& scenario, std::function<void()> body,
                     double progress_after_s = 5.0) {
    auto job = std::make_shared<job_state>();
    job->body = std::move(body);
    job->progress_after_s = progress_after_s;
    simulation_worker& worker = *g_worker;
    worker.submit(job);
    bool stopping = false;
    for (;;) {
        std::vector<run_progress> reports;
        bool finished, stopped;
        {
            py::gil_scoped_release release;
            std::unique_lock<std::mutex> lock(worker.m);
            worker.cv.wait_for(lock, std::chrono::milliseconds(50),
                               [&] { return job->finished || job->stopped || !job->reports.empty(); });
            if (g_exiting.load()) {
                lock.unlock();
                park_until_exit();
            }
            reports.swap(job->reports);
            finished = job->finished;
            stopped = job->stopped;
        }
        if (stopping && (stopped || finished))
            throw py::error_already_set();   // KeyboardInterrupt (or the callback's error); teardown goes on there
        if (finished)
            break;
        if (stopping)
            continue;
        try {
            if (!progress.is_none())
                for (const run_progress& p : reports)
                    progress(progress_dict(p, scenario));
            if (PyErr_CheckSignals() != 0)
                throw py::error_already_set();
        } catch (py::error_already_set& e) {
            e.restore();   // raised once the simulation has stopped
            if (worker.cancel(job))
                throw py::error_already_set();
            stopping = true;
            job->stop.store(true);
        }
    }
    if (job->error)
        std::rethrow_exception(job->error);
}

// Parses and validates the parameters as run would, without running (ValueError naming the field); with
// build, also the cross-field rules and the model's construction (scenario::check).
void check(const std::string& name, const std::map<std::string, std::string>& params, bool build,
           double memory_budget_mb) {
    auto sc = make_scenario(name);
    for (const auto& kv : params)
        sc->params().set(kv.first, kv.second);
    sc->set_memory_budget(memory_budget_mb * 1024 * 1024);
    if (!build) {
        sc->params().validate();
        return;
    }
    std::shared_ptr<scenario> owned = std::move(sc);
    with_simulation(py::none(), name, [owned] { owned->check(); });
}

// What a run of the config would hold in memory: the total and each item with the parameter driving it.
py::dict cost(const std::string& name, const std::map<std::string, std::string>& params, double memory_budget_mb) {
    auto sc = make_scenario(name);
    for (const auto& kv : params)
        sc->params().set(kv.first, kv.second);
    sc->params().validate();
    sc->set_memory_budget(memory_budget_mb * 1024 * 1024);
    const run_cost c = sc->cost();
    py::list items;
    for (const auto& i : c.items()) {
        py::dict d;
        d["field"] = i.field;
        d["mb"] = i.bytes / (1024.0 * 1024.0);
        d["what"] = i.what;
        items.append(d);
    }
    py::dict out;
    out["memory_mb"] = c.bytes() / (1024.0 * 1024.0);
    out["budget_mb"] = sc->memory_budget() / (1024.0 * 1024.0);
    out["items"] = items;
    return out;
}

py::dict run(const std::string& name, const std::map<std::string, std::string>& params, const std::string& vcd,
             const std::string& vcd_signals, double vcd_max_mb, const py::object& progress, double memory_budget_mb,
             double progress_after_s) {
    auto sc = make_scenario(name);   // config_error (a std::invalid_argument) reaches Python as ValueError
    for (const auto& kv : params)
        sc->params().set(kv.first, kv.second);
    sc->params().validate();
    sc->set_memory_budget(memory_budget_mb * 1024 * 1024);
    vcd_settings trace;
    trace.path = vcd;
    trace.signals = vcd_signals;
    trace.max_mb = vcd_max_mb;
    trace.validate();
    auto r = std::make_shared<result>();
    std::shared_ptr<scenario> owned = std::move(sc);
    with_simulation(progress, name, [owned, trace, r] { *r = run_with_vcd(*owned, trace); }, progress_after_s);
    return to_python(*r);
}

// [(parameter, value)] for `names`, each value typed as the parameter table says.
py::list typed_values(const param_table& t, const std::vector<std::string>& names) {
    py::list out;
    for (const std::string& n : names)
        for (const auto& p : t.params())
            if (p.name == n) {
                py::object v;
                switch (p.type) {
                case param_table::kind::integer: v = py::int_(p.int_value()); break;
                case param_table::kind::real: v = py::float_(p.real_value()); break;
                case param_table::kind::choice: v = py::str(p.choice_value()); break;
                case param_table::kind::flag: v = py::bool_(*p.b); break;
                case param_table::kind::list: v = py::tuple(py::cast(*p.v)); break;
                }
                out.append(py::make_tuple(n, v));
            }
    return out;
}

// A switch description read by the core's reader (config/switch_description.h): `source` is the path of a JSON
// file or JSON text (what the Python package made of a TOML or YAML file, `label` naming that file). Returns
// [(parameter, value)] in file order, each value checked and typed as the scenario's parameter table says.
py::list read_switch(const std::string& name, const std::string& source, const std::string& label) {
    auto sc = make_scenario(name);
    param_table& t = sc->params();
    std::vector<std::string> names;
    const size_t first = source.find_first_not_of(" \t\r\n");
    if (!label.empty() && first != std::string::npos && source[first] == '{') {
        std::vector<std::string> got;
        for (const auto& e : read_description(source, "switch description " + label, t, false)) {
            try {
                t.set(e.name, e.text);
            } catch (const config_error& err) {
                throw config_error("switch description " + label + ": " + e.where + ": " + err.what());
            }
            got.push_back(e.name);
        }
        names = std::move(got);
    } else {
        names = t.load_json(source);
    }
    return typed_values(t, names);
}

// A SONiC CONFIG_DB JSON file read into a scenario's parameters (config/sonic_config.h): [(parameter, value)].
py::list read_sonic(const std::string& name, const std::string& path) {
    auto sc = make_scenario(name);
    const std::vector<std::string> names = sc->params().load_sonic(path);
    return typed_values(sc->params(), names);
}

// Switch `sw` of the network a config would build, as SONiC CONFIG_DB JSON text (platform/sonic_config_writer.h).
std::string write_sonic(const std::string& name, const std::map<std::string, std::string>& params, int sw) {
    auto sc = make_scenario(name);
    for (const auto& kv : params)
        sc->params().set(kv.first, kv.second);
    return write_sonic_config(sc->planned_topology(), sw, sc->params());
}

// The PFC/PAUSE split rule of model/cm/pause (one XOFF + headroom per input of a port's buffer), in user units.
py::dict pause_split_of(double buffer_kb, int inputs, double link_gbps, double delay_us, int mtu_bytes) {
    if (inputs < 1)
        throw config_error("inputs = " + std::to_string(inputs) + " is out of range: allowed [1, ...]");
    if (mtu_bytes < 64)
        throw config_error("mtu_bytes = " + std::to_string(mtu_bytes) + " is out of range: allowed [64, ...]");
    if (!(buffer_kb >= 0) || !(link_gbps > 0) || !(delay_us >= 0))
        throw config_error("buffer_kb, link_gbps, delay_us: must be >= 0, > 0, >= 0");
    const pause_split s = split_port_buffer(kb_to_bytes(buffer_kb), inputs, gbps_to_bps(link_gbps), us_to_ps(delay_us),
                                            static_cast<uint32_t>(mtu_bytes));
    py::dict d;
    d["share_bytes"] = s.share_bytes;
    d["headroom_bytes"] = s.headroom_bytes;
    d["xoff_bytes"] = s.xoff_bytes;
    d["xon_bytes"] = s.xon_bytes;
    d["min_xoff_bytes"] = min_xoff_bytes(static_cast<uint32_t>(mtu_bytes));
    d["lossless"] = s.lossless;
    return d;
}

}   // namespace

PYBIND11_MODULE(_core, m) {
    m.doc() = "cmswitch simulation core (private; use the cmswitch package)";
    m.attr("__version__") = CMSWITCH_VERSION;
    m.def("scenario_names", &scenario_names, "Names of the scenarios the core can run.");
    m.def(
        "renamed_scenarios",
        [] {
            py::dict d;
            for (const auto& [old_name, new_name] : renamed_scenarios())
                d[py::str(old_name)] = new_name;
            return d;
        },
        "Former scenario names still accepted (with a warning), each to its current name.");
    m.def("describe", &describe, py::arg("scenario"),
          "Parameters of a scenario: name, type, unit, default, allowed range or choices, help.");
    m.def("check", &check, py::arg("scenario"), py::arg("params"), py::arg("build") = false,
          py::arg("memory_budget_mb") = 0.0,
          "Parses and validates a scenario's parameters without running it; ValueError naming the field. With "
          "build=True also the cross-field rules and everything building the model refuses (still no run).");
    m.def("run", &run, py::arg("scenario"), py::arg("params"), py::arg("vcd") = "", py::arg("vcd_signals") = "*",
          py::arg("vcd_max_mb") = 64.0, py::arg("progress") = py::none(), py::arg("memory_budget_mb") = 0.0,
          py::arg("progress_after_s") = 5.0,
          R"doc(Runs one scenario with parameters given as strings; returns {"summary": dict, "tables": dict}.
Raises ValueError for a bad parameter (naming it and its allowed range), RuntimeError if the model breaks an
invariant, KeyboardInterrupt on Ctrl-C. progress: None, or called every few seconds of a long run with a dict
(phase, wall_s, simulated_s, end_s, events, events_per_s, left_s, line). memory_budget_mb: the memory the run may
plan for (0: CMSWITCH_MEMORY_BUDGET_MB, else half the machine's memory); a config estimated above it raises
ValueError naming the field before anything is built. One simulation at a time per process: a call
from another thread waits for the running one (the GIL released).)doc");
    m.def("cost", &cost, py::arg("scenario"), py::arg("params"), py::arg("memory_budget_mb") = 0.0,
          "What a run would hold in memory: memory_mb, budget_mb and items (field, mb, what); memory_budget_mb 0 "
          "is the default budget (CMSWITCH_MEMORY_BUDGET_MB, else half the machine's memory).");
    m.def(
        "default_memory_budget_mb", [] { return default_memory_budget_bytes() / (1024.0 * 1024.0); },
        "The memory a run may plan for when nobody says (MB): CMSWITCH_MEMORY_BUDGET_MB, else half of this "
        "machine's physical memory.");
    m.def("read_switch", &read_switch, py::arg("scenario"), py::arg("source"), py::arg("label") = "",
          "A switch description checked by the core's reader: source is a JSON file's path, or JSON text with "
          "label naming the file it came from; [(parameter, value)] in file order. ValueError naming the file, the "
          "place and the key.");
    m.def("read_sonic", &read_sonic, py::arg("scenario"), py::arg("path"),
          "A SONiC CONFIG_DB JSON file read by the core into the scenario's parameters: [(parameter, value)] in the "
          "order they are set. ValueError naming the table and key the model cannot do.");
    m.def("write_sonic", &write_sonic, py::arg("scenario"), py::arg("params"), py::arg("switch") = 0,
          "The buffer of one switch of the network the config would build, as SONiC CONFIG_DB JSON text "
          "(buffer_policy pools). ValueError naming the field SONiC cannot express.");
    m.def("pause_split", &pause_split_of, py::arg("buffer_kb"), py::arg("inputs"), py::arg("link_gbps"),
          py::arg("delay_us"), py::arg("mtu_bytes") = 1500,
          "The PAUSE/PFC default watermarks when `inputs` inputs share one port's buffer of buffer_kb over links "
          "of link_gbps and delay_us: share, headroom, XOFF, XON (bytes) and whether it is lossless (XOFF at "
          "least min_xoff_bytes). The rule the pause scheme applies when pause_xoff_kb is 0.");
    py::register_exception<model_error>(m, "ModelError", PyExc_RuntimeError);
    // a model still being torn down after Ctrl-C finishes before the interpreter's exit
    py::module_::import("atexit").attr("register")(py::cpp_function(&wait_for_simulations));
}
