// SPDX-License-Identifier: Apache-2.0
#include "config/params.h"

#include "config/errors.h"
#include "config/sonic_config.h"
#include "config/switch_description.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

namespace cmswitch {

std::string format_number(double v) {
    if (std::isnan(v))
        return "nan";
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

namespace {
std::string normalize(std::string name) {
    for (char& c : name)
        if (c == '-')
            c = '_';
    return name;
}
std::string range_text(const param_table::param& p) {
    std::ostringstream s;
    s << (p.lo_open ? "(" : "[") << format_number(p.lo) << ", " << format_number(p.hi) << "]";
    if (!p.unit.empty())
        s << " " << p.unit;
    return s.str();
}
std::string join(const std::vector<std::string>& v) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i)
        out += (i ? ", " : "") + v[i];
    return out;
}
}   // namespace

void param_table::add_int(const std::string& name, int64_t* field, int64_t lo, int64_t hi, const std::string& unit,
                          const std::string& help) {
    param p;
    p.name = name;
    p.type = kind::integer;
    p.unit = unit;
    p.help = help;
    p.lo = static_cast<double>(lo);
    p.hi = static_cast<double>(hi);
    p.i = field;
    p.default_text = std::to_string(*field);
    add(std::move(p));
}

void param_table::add_real(const std::string& name, double* field, double lo, double hi, const std::string& unit,
                           const std::string& help, bool lo_open) {
    param p;
    p.name = name;
    p.type = kind::real;
    p.unit = unit;
    p.help = help;
    p.lo = lo;
    p.hi = hi;
    p.lo_open = lo_open;
    p.d = field;
    p.default_text = format_number(*field);
    if (unit == "Gbps")
        p.min_nonzero = 1e-9;
    else if (unit == "Mbps")
        p.min_nonzero = 1e-6;
    else if (unit == "s")
        p.min_nonzero = 1e-12;
    else if (unit == "ms")
        p.min_nonzero = 1e-9;
    else if (unit == "us")
        p.min_nonzero = 1e-6;
    add(std::move(p));
}

void param_table::add_choice(const std::string& name, std::string* field, std::vector<std::string> choices,
                             const std::string& help, bool or_csv_file) {
    param p;
    p.or_csv_file = or_csv_file;
    p.name = name;
    p.type = kind::choice;
    p.unit = "";
    p.help = help;
    p.choices = std::move(choices);
    p.s = field;
    p.default_text = *field;
    add(std::move(p));
}

void param_table::add_flag(const std::string& name, bool* field, const std::string& help) {
    param p;
    p.name = name;
    p.type = kind::flag;
    p.unit = "";
    p.help = help;
    p.b = field;
    p.default_text = *field ? "true" : "false";
    add(std::move(p));
}

void param_table::add_list(const std::string& name, std::vector<double>* field, double lo, double hi, int count,
                           bool integers, const std::string& unit, const std::string& help) {
    param p;
    p.name = name;
    p.type = kind::list;
    p.unit = unit;
    p.help = help;
    p.lo = lo;
    p.hi = hi;
    p.count = count;
    p.integers = integers;
    p.v = field;
    add(std::move(p));
    m_params.back().default_text = value_text(m_params.back());
}

void param_table::make_profiled(bool* is_set, const std::string& profile_text) {
    make_profiled(m_params.back().name, is_set, profile_text);
}

void param_table::make_profiled(const std::string& name, bool* is_set, const std::string& profile_text) {
    const param* found = find(name);
    if (!found)
        throw model_error("make_profiled: no parameter '" + name + "'");
    param& p = m_params[static_cast<size_t>(found - m_params.data())];
    p.is_set = is_set;
    p.profile_text = profile_text;
    p.default_text = from_profile;
    p.help += " [profile: " + profile_text + "]";
}

bool param_table::given(const std::string& name) const {
    const param* p = find(name);
    if (!p)
        throw model_error("given: no parameter '" + name + "'");
    return !p->unset();
}

void param_table::add_adapted_real(const std::string& name, double lo, double hi, const std::string& unit,
                                   const std::string& help, std::function<double()> get,
                                   std::function<void(double)> put) {
    double scratch = get();
    add_real(name, &scratch, lo, hi, unit, help);
    param& p = m_params.back();
    p.d = nullptr;
    p.get = std::move(get);
    p.put = std::move(put);
}

void param_table::add_adapted_choice(const std::string& name, std::vector<std::string> choices, const std::string& help,
                                     std::function<std::string()> get, std::function<void(const std::string&)> put) {
    std::string scratch = get();
    add_choice(name, &scratch, std::move(choices), help);
    param& p = m_params.back();
    p.s = nullptr;
    p.get_text = std::move(get);
    p.put_text = std::move(put);
}

void param_table::add_time(const std::string& name, uint64_t* ps, double lo, double hi, const std::string& unit,
                           const std::string& help) {
    const double per_unit = unit == "ms" ? 1e9 : unit == "us" ? 1e6 : unit == "ns" ? 1e3 : 0;
    if (per_unit == 0)
        throw model_error("add_time '" + name + "': unit '" + unit + "' (allowed ms, us, ns)");
    add_adapted_real(
        name, lo, hi, unit, help, [ps, per_unit] { return static_cast<double>(*ps) / per_unit; },
        [ps, per_unit](double v) { *ps = static_cast<uint64_t>(std::llround(v * per_unit)); });
    m_params.back().step = 1 / per_unit;
    if (unit == "ns")
        m_params.back().min_nonzero = 1e-3;   // 1 ps
}

void param_table::add_kb(const std::string& name, uint64_t* bytes, double lo, double hi, const std::string& help) {
    add_adapted_real(
        name, lo, hi, "KB (1024 B)", help, [bytes] { return static_cast<double>(*bytes) / 1024; },
        [bytes](double v) { *bytes = static_cast<uint64_t>(std::llround(v * 1024)); });
    m_params.back().step = 1.0 / 1024;
}

void param_table::add_percent(const std::string& name, double* fraction, double lo, double hi,
                              const std::string& help) {
    add_adapted_real(
        name, lo, hi, "%", help, [fraction] { return *fraction * 100; }, [fraction](double v) { *fraction = v / 100; });
}

void param_table::add_count(const std::string& name, uint32_t* field, int64_t lo, int64_t hi, const std::string& unit,
                            const std::string& help) {
    if (lo < 0 || hi > int64_t{UINT32_MAX})
        throw model_error("add_count '" + name + "': range beyond a 32-bit unsigned field");
    int64_t scratch = *field;
    add_int(name, &scratch, lo, hi, unit, help);
    param& p = m_params.back();
    p.i = nullptr;
    p.get = [field] { return static_cast<double>(*field); };
    p.put = [field](double v) { *field = static_cast<uint32_t>(v); };
}

void param_table::add(param p) {
    if (find(p.name))
        throw model_error("parameter '" + p.name + "' declared twice (by '" + find(p.name)->group + "' and by '" +
                          m_group + "')");
    p.group = m_group;
    m_params.push_back(std::move(p));
}

void param_table::set_min_nonzero(const std::string& name, double v) {
    param* p = const_cast<param*>(find(name));
    if (!p || p->type != kind::real)
        throw model_error("set_min_nonzero: no real parameter '" + name + "'");
    p->min_nonzero = v;
}

void param_table::set_overridden_by(const std::string& scalar, const std::string& list) {
    param* p = const_cast<param*>(find(scalar));
    const param* l = find(list);
    if (!p || p->type == kind::list || !l || l->type != kind::list)
        throw model_error("set_overridden_by: '" + scalar + "' must be a scalar and '" + list + "' a list parameter");
    p->overridden_by = l->name;
    p->help += " (" + l->name + ", when given, replaces it: they cannot both be set)";
}

void param_table::set_default(const std::string& name, const std::string& text) {
    set(name, text);
    param* p = const_cast<param*>(find(name));
    p->default_text = value_text(*p);
}

const param_table::param* param_table::find(const std::string& name) const {
    const std::string n = normalize(name);
    for (const auto& p : m_params)
        if (p.name == n)
            return &p;
    return nullptr;
}

void param_table::check_int(const param& p, int64_t v) const {
    const double x = static_cast<double>(v);
    if (x < p.lo || x > p.hi)
        throw config_error(p.name + " = " + std::to_string(v) + " is out of range: allowed " + range_text(p));
}

void param_table::check_real(const param& p, double v) const {
    if (!std::isfinite(v) || v < p.lo || v > p.hi || (p.lo_open && v == p.lo))
        throw config_error(p.name + " = " + format_number(v) + " is out of range: allowed " + range_text(p));
    if (v != 0 && v < p.min_nonzero)
        throw config_error(p.name + " = " + format_number(v) + " is below the smallest allowed " +
                           (p.lo <= 0 && !p.lo_open ? "nonzero value: allowed 0 or " : "value: allowed ") +
                           format_number(p.min_nonzero) + " to " + format_number(p.hi) +
                           (p.unit.empty() ? "" : " " + p.unit));
}

void param_table::check_choice(const param& p, const std::string& v) const {
    bool ok = false;
    for (const auto& c : p.choices)
        ok = ok || c == v;
    if (!ok && p.or_csv_file && v.size() > 4 && v.compare(v.size() - 4, 4, ".csv") == 0) {
        if (!std::ifstream(v))
            throw config_error(p.name + " = '" + v + "': the file cannot be read (a CSV file, or one of " +
                               join(p.choices) + ")");
        ok = true;
    }
    if (!ok)
        throw config_error(p.name + " = '" + v + "' is not allowed: choose one of " + join(p.choices) +
                           (p.or_csv_file ? ", or the path of a .csv file" : ""));
}

void param_table::check(const param& p) const {
    if (p.unset())
        return;
    switch (p.type) {
    case kind::integer: check_int(p, p.int_value()); break;
    case kind::real: {
        // an adaptor's field holds the value rounded to its step: a value given at a bound may read back a part of
        // a step beyond it
        double v = p.real_value();
        if (!p.d && std::isfinite(v))
            v = std::fabs(v - p.lo) <= p.step   ? std::max(v, p.lo)
                : std::fabs(v - p.hi) <= p.step ? std::min(v, p.hi)
                                                : v;
        check_real(p, v);
        break;
    }
    case kind::choice: check_choice(p, p.choice_value()); break;
    case kind::flag: break;
    case kind::list: {
        const std::vector<double>& v = *p.v;
        if (!v.empty() && p.count > 0 && static_cast<int>(v.size()) != p.count)
            throw config_error(p.name + " = '" + value_text(p) + "': needs exactly " + std::to_string(p.count) +
                               " comma-separated values (or none), got " + std::to_string(v.size()));
        for (size_t k = 0; k < v.size(); ++k) {
            if (!std::isfinite(v[k]) || v[k] < p.lo || v[k] > p.hi || (p.integers && v[k] != std::floor(v[k])))
                throw config_error(p.name + " = '" + value_text(p) + "': entry " + std::to_string(k) + " = " +
                                   format_number(v[k]) + " is not allowed: each entry " +
                                   (p.integers ? "an integer " : "") + "in " + range_text(p));
        }
        break;
    }
    }
}

namespace {
size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diag = up;
        }
    }
    return row[b.size()];
}
}   // namespace

std::string param_table::suggestion(const std::string& name) const {
    const std::string n = normalize(name);
    const param* best = nullptr;
    size_t best_d = 3;
    for (const auto& p : m_params) {
        const size_t d = edit_distance(n, p.name);
        if (d < best_d) {
            best_d = d;
            best = &p;
        }
    }
    return best ? " (did you mean '" + best->name + "'?)" : "";
}

void param_table::set(const std::string& name, const std::string& text) {
    const param* p = find(name);
    if (!p) {
        const std::string near = suggestion(name);
        if (!near.empty())
            throw config_error("unknown parameter '" + name + "'" + near);
        std::vector<std::string> names;
        for (const auto& q : m_params)
            names.push_back(q.name);
        throw config_error("unknown parameter '" + name + "': known parameters are " + join(names));
    }
    if (p->is_set) {
        if (text == from_profile) {
            *p->is_set = false;
            return;
        }
        const bool was = *p->is_set;
        *p->is_set = true;   // (check() reads the new value)
        try {
            set_value(*p, text);
        } catch (...) {
            *p->is_set = was;
            throw;
        }
        return;
    }
    set_value(*p, text);
}

void param_table::set_value(const param& pr, const std::string& text) {
    const param* p = &pr;
    switch (p->type) {
    case kind::integer: {
        int64_t v = 0;
        auto r = std::from_chars(text.data(), text.data() + text.size(), v);
        if (r.ec != std::errc() || r.ptr != text.data() + text.size()) {
            // accept integral reals such as 1e6 or 4.0
            char* end = nullptr;
            const double d = std::strtod(text.c_str(), &end);
            if (text.empty() || *end != '\0' || d != std::floor(d) || std::fabs(d) > 9.0e15)
                throw config_error(p->name + " = '" + text + "' is not an integer: allowed " + range_text(*p));
            v = static_cast<int64_t>(d);
        }
        check_int(*p, v);
        if (p->i)
            *p->i = v;
        else
            p->put(static_cast<double>(v));
        break;
    }
    case kind::real: {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0')
            throw config_error(p->name + " = '" + text + "' is not a number: allowed " + range_text(*p));
        check_real(*p, v);
        if (p->d)
            *p->d = v;
        else
            p->put(v);
        break;
    }
    case kind::choice: {
        check_choice(*p, text);
        if (p->s)
            *p->s = text;
        else
            p->put_text(text);
        break;
    }
    case kind::flag:
        if (text == "1" || text == "true" || text == "yes" || text == "on" || text == "True")
            *p->b = true;
        else if (text == "0" || text == "false" || text == "no" || text == "off" || text == "False")
            *p->b = false;
        else
            throw config_error(p->name + " = '" + text + "' is not a boolean: use true or false");
        break;
    case kind::list: {
        std::vector<double> v;
        size_t at = 0;
        const size_t b0 = text.find_first_not_of(' '), e0 = text.find_last_not_of(' ');
        if (b0 != std::string::npos && text.substr(b0, e0 - b0 + 1) == "none")
            at = text.size() + 1;   // "none": the empty list
        while (text.find_first_not_of(" ") != std::string::npos && at <= text.size()) {
            size_t comma = text.find(',', at);
            if (comma == std::string::npos)
                comma = text.size();
            std::string item = text.substr(at, comma - at);
            const size_t b = item.find_first_not_of(' '), e = item.find_last_not_of(' ');
            item = b == std::string::npos ? "" : item.substr(b, e - b + 1);
            char* end = nullptr;
            const double d = std::strtod(item.c_str(), &end);
            if (item.empty() || *end != '\0')
                throw config_error(p->name + " = '" + text + "': '" + item + "' is not a number: give " +
                                   (p->count ? std::to_string(p->count) + " " : "") +
                                   "comma-separated numbers, each in " + range_text(*p));
            v.push_back(d);
            at = comma + 1;
        }
        std::vector<double> old = std::move(*p->v);
        *p->v = std::move(v);
        try {
            check(*p);
        } catch (...) {
            *p->v = std::move(old);
            throw;
        }
        break;
    }
    }
}

std::vector<std::string> param_table::load_json(const std::string& path_or_text) {
    const size_t first = path_or_text.find_first_not_of(" \t\r\n");
    const bool inline_text = first != std::string::npos && path_or_text[first] == '{';
    std::string text;
    const std::string file = inline_text ? std::string("switch description") : "switch description " + path_or_text;
    if (inline_text) {
        text = path_or_text;
    } else {
        std::ifstream in(path_or_text, std::ios::binary);
        if (!in)
            throw config_error("switch = '" + path_or_text +
                               "': the file cannot be read (a JSON switch "
                               "description; the Python package also reads TOML and YAML)");
        std::ostringstream all;
        all << in.rdbuf();
        text = all.str();
    }
    std::vector<std::string> names;
    for (const auto& e : read_description(text, file, *this)) {
        try {
            set(e.name, e.text);
        } catch (const config_error& err) {
            throw config_error(file + ": " + e.where + ": " + err.what());
        }
        names.push_back(e.name);
    }
    return names;
}

std::vector<std::string> param_table::load_sonic(const std::string& path) {
    std::vector<std::string> names;
    for (const auto& e : read_sonic_config_file(path, *this)) {
        try {
            set(e.name, e.text);
        } catch (const config_error& err) {
            throw config_error("SONiC config " + path + ": " + e.where + ": " + err.what());
        }
        names.push_back(e.name);
    }
    return names;
}

void param_table::validate() const {
    for (const auto& p : m_params)
        check(p);
    for (const auto& p : m_params) {
        if (p.overridden_by.empty())
            continue;
        const param& l = *find(p.overridden_by);
        const std::string v = value_text(p);
        if (!l.v->empty() && v != p.default_text)
            throw config_error(p.name + " = " + v + " and " + l.name + " = " + value_text(l) +
                               " are both set: " + l.name + " gives each entry its own value, so " + p.name +
                               " would have no effect. Give one of them (" + l.name + " = none: " + p.name +
                               " for every entry; or leave " + p.name + " at its default " + p.default_text + ")");
    }
}

void param_table::parse_args(const std::vector<std::string>& args) {
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a.rfind("--", 0) != 0) {
            const param* prev = i > 0 && args[i - 1].rfind("--", 0) == 0 ? find(args[i - 1].substr(2)) : nullptr;
            if (prev && prev->type == kind::flag)
                throw config_error("unexpected argument '" + a + "' after --" + args[i - 1].substr(2) + ": " +
                                   prev->name + " is a flag: give it alone (true) or as --" + args[i - 1].substr(2) +
                                   "=false");
            throw config_error("unexpected argument '" + a + "': parameters are given as --name value");
        }
        std::string name = a.substr(2), value;
        const size_t eq = name.find('=');
        const bool inline_value = eq != std::string::npos;
        if (inline_value) {
            value = name.substr(eq + 1);
            name = name.substr(0, eq);
        }
        // a description file: its parameters, overridden by those given after it
        const std::string file = normalize(name);
        if (file == "sonic_config" || file == "switch") {
            const bool sonic = file == "sonic_config";
            if (!inline_value) {
                if (i + 1 >= args.size())
                    throw config_error(sonic ? "--sonic-config needs a value: the path of a SONiC CONFIG_DB JSON file"
                                             : "--switch needs a value: the path of a JSON switch description");
                value = args[++i];
            }
            if (sonic)
                load_sonic(value);
            else
                load_json(value);
            continue;
        }
        const param* p = find(name);
        if (p && p->type == kind::flag && !inline_value) {
            *p->b = true;
            if (p->is_set)
                *p->is_set = true;
            continue;
        }
        if (!inline_value) {
            if (i + 1 >= args.size())
                throw config_error("--" + name + " needs a value");
            value = args[++i];
        }
        set(name, value);
    }
}

std::string param_table::value_text(const std::string& name) const {
    const param* p = find(name);
    if (!p)
        throw config_error(name + ": no such parameter" + suggestion(name));
    return value_text(*p);
}

std::string param_table::value_text(const param& p) const {
    if (p.unset())
        return from_profile;
    switch (p.type) {
    case kind::integer: return std::to_string(p.int_value());
    case kind::real: return format_number(p.real_value());
    case kind::choice: return p.choice_value();
    case kind::flag: return *p.b ? "true" : "false";
    case kind::list: {
        std::string out;
        for (double x : *p.v)
            out += (out.empty() ? "" : ",") + format_number(x);
        return out;
    }
    }
    return "";
}

std::string param_table::help() const {
    std::ostringstream s;
    for (const auto& p : m_params) {
        std::string flag = "--" + p.name;
        for (char& c : flag)
            if (c == '_')
                c = '-';
        s << "  " << flag;
        if (p.type == kind::flag)
            s << (p.is_set ? " [true|false|profile]" : "") << "\n      " << p.help << " (flag; default "
              << p.default_text << ")\n";
        else if (p.type == kind::list)
            s << " X,X,...\n      " << p.help << " [" << (p.count ? std::to_string(p.count) + " values, " : "")
              << "each in " << range_text(p) << "; default " << (p.default_text.empty() ? "none" : p.default_text)
              << "]\n";
        else if (p.type == kind::choice)
            s << " {" << join(p.choices) << (p.is_set ? ", profile" : "") << "}\n      " << p.help << " (default "
              << p.default_text << ")\n";
        else
            s << " " << (p.type == kind::integer ? "N" : "X") << "\n      " << p.help << " [" << p.unit << "; default "
              << p.default_text << "; allowed " << range_text(p) << "]\n";
    }
    return s.str();
}

}   // namespace cmswitch
