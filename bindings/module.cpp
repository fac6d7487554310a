// SPDX-License-Identifier: Apache-2.0
// cmswitch._core: the one entry point Python uses. A run builds its model in a fresh SystemC context (so any
// number of runs work in one interpreter), releases the GIL while SystemC runs, and checks for Ctrl-C between
// chunks of simulated time. Python never holds a SystemC object: it passes a scenario name and parameter
// strings, and gets plain dicts and NumPy arrays back.
#include "model/errors.h"
#include "model/cm/pause/pause_config.h"
#include "model/units.h"
#include "platform/scenario.h"
#include "platform/sim_context.h"
#include "platform/vcd_writer.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <string>

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
            d["default"] = *p.i;
            d["min"] = p.lo;
            d["max"] = p.hi;
            break;
        case param_table::kind::real:
            d["type"] = "float";
            d["default"] = *p.d;
            d["min"] = p.lo;
            d["max"] = p.hi;
            d["min_open"] = p.lo_open;
            d["min_nonzero"] = p.min_nonzero;
            break;
        case param_table::kind::choice:
            d["type"] = "choice";
            d["default"] = *p.s;
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

// Parses and validates the parameters as run would, without running (ValueError naming the field); with
// build, also the cross-field rules and the model's construction (scenario::check).
void check(const std::string& name, const std::map<std::string, std::string>& params, bool build) {
    auto sc = make_scenario(name);
    for (const auto& kv : params)
        sc->params().set(kv.first, kv.second);
    if (build)
        sc->check();
    else
        sc->params().validate();
}

py::dict run(const std::string& name, const std::map<std::string, std::string>& params, const std::string& vcd,
             const std::string& vcd_signals, double vcd_max_mb) {
    auto sc = make_scenario(name);   // config_error (a std::invalid_argument) reaches Python as ValueError
    for (const auto& kv : params)
        sc->params().set(kv.first, kv.second);
    sc->params().validate();
    vcd_settings trace;
    trace.path = vcd;
    trace.signals = vcd_signals;
    trace.max_mb = vcd_max_mb;
    trace.validate();
    result r;
    bool interrupted = false;
    {
        py::gil_scoped_release release;
        sim_context::set_interrupt_check([] {
            py::gil_scoped_acquire acquire;
            return PyErr_CheckSignals() != 0;   // sets KeyboardInterrupt (or what a handler raised)
        });
        try {
            r = run_with_vcd(*sc, trace);
        } catch (const run_interrupted&) {
            interrupted = true;
        } catch (...) {
            sim_context::set_interrupt_check(nullptr);
            throw;
        }
        sim_context::set_interrupt_check(nullptr);
    }
    if (interrupted)
        throw py::error_already_set();
    return to_python(r);
}

// The PFC/PAUSE split rule of model/cm/pause (one XOFF + headroom per input of a port's buffer), in user units.
py::dict pause_split_of(double buffer_kb, int inputs, double link_gbps, double delay_us, int mtu_bytes) {
    if (inputs < 1)
        throw config_error("inputs = " + std::to_string(inputs) + " is out of range: allowed [1, ...]");
    if (mtu_bytes < 64)
        throw config_error("mtu_bytes = " + std::to_string(mtu_bytes) + " is out of range: allowed [64, ...]");
    if (!(buffer_kb >= 0) || !(link_gbps > 0) || !(delay_us >= 0))
        throw config_error("buffer_kb, link_gbps, delay_us: must be >= 0, > 0, >= 0");
    const pause_split s = split_port_buffer(kb_to_bytes(buffer_kb), inputs, gbps_to_bps(link_gbps),
                                            us_to_ps(delay_us), static_cast<uint32_t>(mtu_bytes));
    py::dict d;
    d["share_bytes"] = s.share_bytes;
    d["headroom_bytes"] = s.headroom_bytes;
    d["xoff_bytes"] = s.xoff_bytes;
    d["xon_bytes"] = s.xon_bytes;
    d["min_xoff_bytes"] = min_xoff_bytes(static_cast<uint32_t>(mtu_bytes));
    d["lossless"] = s.lossless;
    return d;
}

} // namespace

PYBIND11_MODULE(_core, m) {
    m.doc() = "cmswitch simulation core (private; use the cmswitch package)";
    m.attr("__version__") = CMSWITCH_VERSION;
    m.def("scenario_names", &scenario_names, "Names of the scenarios the core can run.");
    m.def("describe", &describe, py::arg("scenario"),
          "Parameters of a scenario: name, type, unit, default, allowed range or choices, help.");
    m.def("check", &check, py::arg("scenario"), py::arg("params"), py::arg("build") = false,
          "Parses and validates a scenario's parameters without running it; ValueError naming the field. With "
          "build=True also the cross-field rules and everything building the model refuses (still no run).");
    m.def("run", &run, py::arg("scenario"), py::arg("params"), py::arg("vcd") = "", py::arg("vcd_signals") = "*",
          py::arg("vcd_max_mb") = 64.0,
          R"doc(Runs one scenario with parameters given as strings; returns {"summary": dict, "tables": dict}.
Raises ValueError for a bad parameter (naming it and its allowed range), RuntimeError if the model breaks an
invariant, KeyboardInterrupt on Ctrl-C.)doc");
    m.def("pause_split", &pause_split_of, py::arg("buffer_kb"), py::arg("inputs"), py::arg("link_gbps"),
          py::arg("delay_us"), py::arg("mtu_bytes") = 1500,
          "The PAUSE/PFC default watermarks when `inputs` inputs share one port's buffer of buffer_kb over links "
          "of link_gbps and delay_us: share, headroom, XOFF, XON (bytes) and whether it is lossless (XOFF at "
          "least min_xoff_bytes). The rule the pause scheme applies when pause_xoff_kb is 0.");
    py::register_exception<model_error>(m, "ModelError", PyExc_RuntimeError);
}
