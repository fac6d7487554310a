// SPDX-License-Identifier: Apache-2.0
#include "platform/vcd_writer.h"

#include "platform/run_control.h"

#include "config/errors.h"
#include "config/params.h"
#include "platform/scenario.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fnmatch.h>
#include <iostream>

namespace cmswitch {

namespace {
std::string vcd_code(size_t n) {   // identifiers of printable ASCII 33..126, shortest first
    std::string s;
    do {
        s += static_cast<char>(33 + n % 94);
        n /= 94;
    } while (n);
    return s;
}

std::vector<std::string> split_patterns(const std::string& text) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find(',', start);
        if (end == std::string::npos)
            end = text.size();
        std::string p = text.substr(start, end - start);
        p.erase(0, p.find_first_not_of(" \t"));
        p.erase(p.find_last_not_of(" \t") + 1);
        if (!p.empty())
            out.push_back(p);
        start = end + 1;
    }
    return out;
}
}   // namespace

void vcd_settings::validate() const {
    if (path.empty())
        return;
    if (split_patterns(signals).empty())
        throw config_error("vcd_signals = '" + signals + "': give at least one glob pattern (e.g. * or *.xoff*)");
    if (!(max_mb >= 0.001 && max_mb <= 65536))
        throw config_error("vcd_max_mb = " + format_number(max_mb) + " is out of range: allowed [0.001, 65536] MB");
    // writable? (opened for appending, so that a file already there keeps its bytes, and one made here is
    // removed again: a run that fails later leaves no empty dump behind)
    std::FILE* old = std::fopen(path.c_str(), "r");
    const bool existed = old != nullptr;
    if (old)
        std::fclose(old);
    std::FILE* f = std::fopen(path.c_str(), "a");
    if (!f)
        throw config_error("vcd = '" + path + "': cannot be written (" + std::strerror(errno) + ")");
    std::fclose(f);
    if (!existed)
        std::remove(path.c_str());
}

vcd_writer::vcd_writer(const vcd_settings& s) : m_cfg(s), m_patterns(split_patterns(s.signals)) {
    m_cfg.validate();
    m_cap = static_cast<uint64_t>(s.max_mb * 1048576.0);
    m_prev = model_trace::sink;
    model_trace::sink = this;
}

vcd_writer::~vcd_writer() {
    model_trace::sink = m_prev;
}

bool vcd_writer::selected(const std::string& full) const {
    for (const auto& p : m_patterns)
        if (fnmatch(p.c_str(), full.c_str(), 0) == 0)
            return true;
    return false;
}

trace_signal* vcd_writer::declare(const std::string& scope, const std::string& name, unsigned bits) {
    std::string full = scope.empty() ? name : scope + "." + name;
    ++m_offered;
    if (!selected(full)) {
        if (m_example.empty())
            m_example = full;
        return nullptr;
    }
    const auto id = static_cast<uint32_t>(m_defs.size());
    m_defs.push_back({std::move(full), bits, vcd_code(id)});
    m_estimate += 40 + m_defs.back().full.size();   // its $var line
    m_signals.emplace_back(this, id, bits == 0);
    return &m_signals.back();
}

void vcd_writer::change(uint32_t id, uint64_t t_ps, uint64_t bits) {
    if (t_ps >= m_cut_ps)
        return;
    const signal_def& d = m_defs[id];
    // what the change costs in the file: the value, its identifier, and a timestamp line now and then
    const uint64_t cost = (d.bits == 1   ? 1
                           : d.bits == 0 ? 24
                                         : 2 + (bits ? 64 - __builtin_clzll(bits) : 1)) +
                          d.code.size() + 1 + 8;
    if (m_estimate + cost > m_cap) {
        m_cut_ps = t_ps;
        return;
    }
    m_estimate += cost;
    m_changes.push_back({t_ps, bits, id});
}

void vcd_writer::finish(result& r, uint64_t end_ps) {
    // domains run ahead of each other: order by time, keeping each domain's own order at equal times
    std::stable_sort(m_changes.begin(), m_changes.end(),
                     [](const change_rec& a, const change_rec& b) { return a.t_ps < b.t_ps; });
    if (m_cut_ps != UINT64_MAX)
        m_changes.erase(std::lower_bound(m_changes.begin(), m_changes.end(), m_cut_ps,
                                         [](const change_rec& c, uint64_t t) { return c.t_ps < t; }),
                        m_changes.end());
    if (m_defs.empty())   // an empty dump would look like a run where nothing moved
        throw config_error("vcd_signals = '" + m_cfg.signals + "': matches none of the run's " +
                           std::to_string(m_offered) + " signals" +
                           (m_example.empty() ? std::string() : " (their names are like " + m_example + ")"));
    std::FILE* f = std::fopen(m_cfg.path.c_str(), "w");
    if (!f)
        throw config_error("vcd = '" + m_cfg.path + "': cannot be written (" + std::strerror(errno) + ")");
    std::fputs("$version cmswitch $end\n$timescale 1 ps $end\n", f);
    if (m_cut_ps != UINT64_MAX)
        std::fprintf(f, "$comment size cap of %g MB reached: changes from %llu ps on are not in this file $end\n",
                     m_cfg.max_mb, static_cast<unsigned long long>(m_cut_ps));
    // scopes from the dotted names, signals sorted by name
    std::vector<size_t> order(m_defs.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return m_defs[a].full < m_defs[b].full; });
    std::vector<std::string> open;
    for (size_t i : order) {
        const std::string& full = m_defs[i].full;
        std::vector<std::string> parts;
        size_t start = 0, dot;
        while ((dot = full.find('.', start)) != std::string::npos) {
            parts.push_back(full.substr(start, dot - start));
            start = dot + 1;
        }
        const std::string leaf = full.substr(start);
        size_t common = 0;
        while (common < open.size() && common < parts.size() && open[common] == parts[common])
            ++common;
        for (size_t k = open.size(); k > common; --k)
            std::fputs("$upscope $end\n", f);
        open.resize(common);
        for (size_t k = common; k < parts.size(); ++k) {
            std::fprintf(f, "$scope module %s $end\n", parts[k].c_str());
            open.push_back(parts[k]);
        }
        const signal_def& d = m_defs[i];
        if (d.bits == 0)
            std::fprintf(f, "$var real 64 %s %s $end\n", d.code.c_str(), leaf.c_str());
        else
            std::fprintf(f, "$var wire %u %s %s $end\n", d.bits, d.code.c_str(), leaf.c_str());
    }
    for (size_t k = open.size(); k > 0; --k)
        std::fputs("$upscope $end\n", f);
    std::fputs("$enddefinitions $end\n", f);
    uint64_t t_last = UINT64_MAX;
    char buf[80];
    for (const change_rec& c : m_changes) {
        if (c.t_ps != t_last) {
            std::fprintf(f, "#%llu\n", static_cast<unsigned long long>(c.t_ps));
            t_last = c.t_ps;
        }
        const signal_def& d = m_defs[c.id];
        if (d.bits == 1) {
            std::fprintf(f, "%c%s\n", c.value ? '1' : '0', d.code.c_str());
        } else if (d.bits == 0) {
            double v;
            std::memcpy(&v, &c.value, sizeof v);
            std::fprintf(f, "r%.17g %s\n", v, d.code.c_str());
        } else {
            int n = 0;
            uint64_t v = c.value;
            do {
                buf[n++] = static_cast<char>('0' + (v & 1));
                v >>= 1;
            } while (v);
            std::reverse(buf, buf + n);
            buf[n] = 0;
            std::fprintf(f, "b%s %s\n", buf, d.code.c_str());
        }
    }
    const uint64_t end = m_cut_ps != UINT64_MAX ? m_cut_ps : end_ps;
    if (t_last == UINT64_MAX || end > t_last)
        std::fprintf(f, "#%llu\n", static_cast<unsigned long long>(end));
    const long bytes = std::ftell(f);
    const bool ok = std::fclose(f) == 0 && bytes >= 0;
    if (!ok) {   // no part-written dump left behind
        std::remove(m_cfg.path.c_str());
        throw config_error("vcd = '" + m_cfg.path + "': writing failed (disk full?)");
    }
    r.set("vcd_file", m_cfg.path);
    r.set("vcd_signals", static_cast<int64_t>(m_defs.size()));
    r.set("vcd_changes", static_cast<int64_t>(m_changes.size()));
    r.set("vcd_bytes", static_cast<int64_t>(bytes));
    r.set("vcd_truncated_at_ms", m_cut_ps != UINT64_MAX ? static_cast<double>(m_cut_ps) / 1e9 : -1.0);
    if (m_cut_ps != UINT64_MAX)
        std::cerr << "cmswitch: vcd: the size cap of " << format_number(m_cfg.max_mb) << " MB was reached at "
                  << format_number(static_cast<double>(m_cut_ps) / 1e9) << " ms; later changes are not in "
                  << m_cfg.path << " (raise vcd_max_mb or narrow vcd_signals)\n";
}

result run_with_vcd(scenario& sc, const vcd_settings& s) {
    const simulation_lock one_at_a_time;   // the trace is the process's
    if (s.path.empty())
        return sc.run();
    sc.params().validate();   // a bad config is refused before the file is touched
    vcd_writer w(s);
    result r = sc.run();
    const uint64_t end = r.get("simulated_s") ? static_cast<uint64_t>(std::llround(r.number("simulated_s") * 1e12)) : 0;
    w.finish(r, end);
    return r;
}

}   // namespace cmswitch
