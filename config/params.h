// SPDX-License-Identifier: Apache-2.0
// Typed, range-checked scenario parameters: one table per scenario config gives the command-line flags, their
// --help text (unit and default), and the validation that names the field and the allowed range. The Python
// package fills the same tables, so both front ends accept and refuse exactly the same values.
#ifndef CMSWITCH_CONFIG_PARAMS_H
#define CMSWITCH_CONFIG_PARAMS_H

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace cmswitch {

class param_table {
public:
    enum class kind { integer, real, choice, flag, list };
    struct param {
        std::string name;   // snake_case; the CLI flag is --name with '-' for '_'
        kind type;
        std::string unit;
        std::string help;
        double lo = 0, hi = 0;   // inclusive range (integer, real)
        bool lo_open = false;   // real: lo itself excluded
        // real: a nonzero value must be at least this (by default the model's resolution in the unit: 1 bit/s
        // for Gbps/Mbps, 1 ps for s/ms/us; below it a rate or time rounds to 0)
        double min_nonzero = 0;
        std::vector<std::string> choices;
        bool or_csv_file = false;   // choice: a path ending in .csv (an existing file) is allowed too
        int64_t* i = nullptr;
        double* d = nullptr;
        std::string* s = nullptr;
        bool* b = nullptr;
        std::vector<double>* v = nullptr;   // list: comma-separated numbers, each in [lo, hi]
        // An adaptor (add_time, add_kb, add_percent, add_count, add_enum): the parameter in the user's unit, its
        // field in the model's own unit or type, read and written through these (the pointers above are null).
        // put is given only values check() accepts.
        std::function<double()> get;   // integer, real
        std::function<void(double)> put;
        double step = 0;   // real: the adaptor's field resolution in the parameter's unit (1 B = 1/1024 KB)
        std::function<std::string()> get_text;   // choice
        std::function<void(const std::string&)> put_text;
        int count = 0;   // list: the number of entries it must have (0: any); empty is allowed
        bool integers = false;   // list: every entry an integer
        std::string default_text;
        std::string group;   // who declared it: the scenario ("") or a scheme (its name)
        // a profiled setting (make_profiled): its "is set" bit, and the profile's values for the help text
        bool* is_set = nullptr;
        std::string profile_text;
        // a scalar whose per-entry form (a list parameter) replaces it when that list is given: both set at once
        // is refused (validate), a sweep of the scalar under a given list is refused (the Python sweep)
        std::string overridden_by;
        bool unset() const { return is_set && !*is_set; }
        int64_t int_value() const { return i ? *i : static_cast<int64_t>(get()); }
        double real_value() const { return d ? *d : get(); }
        std::string choice_value() const { return s ? *s : get_text(); }
        bool flag_value() const { return *b; }
    };
    // The text that leaves a profiled setting to its profile.
    static constexpr const char* from_profile = "profile";

    void add_int(const std::string& name, int64_t* field, int64_t lo, int64_t hi, const std::string& unit,
                 const std::string& help);
    void add_real(const std::string& name, double* field, double lo, double hi, const std::string& unit,
                  const std::string& help, bool lo_open = false);
    // or_csv_file: the value may also be the path of an existing file ending in .csv (the user's own data)
    void add_choice(const std::string& name, std::string* field, std::vector<std::string> choices,
                    const std::string& help, bool or_csv_file = false);
    void add_flag(const std::string& name, bool* field, const std::string& help);
    // A list of numbers given as "a,b,c": each in [lo, hi] (integers if `integers`), exactly `count` of them
    // (count 0: any number). The empty list, written "" or "none", is allowed and means "not given" (the
    // scenario's default rule).
    void add_list(const std::string& name, std::vector<double>* field, double lo, double hi, int count, bool integers,
                  const std::string& unit, const std::string& help);
    // Adaptors: the parameter in the user's unit and name, declared straight into a field of the model's struct in
    // the model's unit (the conversion rounds as model/units.h does).
    //   add_time: a time in unit ms, us or ns, stored as picoseconds;  add_kb: KB (1024 B), stored as bytes;
    //   add_percent: a percentage, stored as a fraction;  add_count: an integer into an unsigned 32-bit field;
    //   add_enum: a choice by name, stored as the enum value paired with it.
    void add_time(const std::string& name, uint64_t* ps, double lo, double hi, const std::string& unit,
                  const std::string& help);
    void add_kb(const std::string& name, uint64_t* bytes, double lo, double hi, const std::string& help);
    void add_percent(const std::string& name, double* fraction, double lo, double hi, const std::string& help);
    void add_count(const std::string& name, uint32_t* field, int64_t lo, int64_t hi, const std::string& unit,
                   const std::string& help);
    template <typename E>
    void add_enum(const std::string& name, E* field, const std::vector<std::pair<std::string, E>>& choices,
                  const std::string& help) {
        std::vector<std::string> names;
        for (const auto& c : choices)
            names.push_back(c.first);
        add_adapted_choice(
            name, std::move(names), help,
            [field, choices] {
                for (const auto& c : choices)
                    if (c.second == *field)
                        return c.first;
                return choices.front().first;
            },
            [field, choices](const std::string& text) {
                for (const auto& c : choices)
                    if (c.first == text)
                        *field = c.second;
            });
    }
    // Marks the parameter added last as profiled: its default comes from a profile (the host profile:
    // platform/settings.h) unless it is given. *is_set says whether it was; the table's value "profile" (Python:
    // None) leaves or makes it unset. profile_text says what each profile gives (for --help and the Python docs).
    void make_profiled(bool* is_set, const std::string& profile_text);
    // The same for the parameter `name` (declared earlier, e.g. in an algorithm's own block).
    void make_profiled(const std::string& name, bool* is_set, const std::string& profile_text);
    bool given(const std::string& name) const;   // a profiled parameter was set (a plain one: always true)
    // Parameters added from now on belong to `group` (a scheme's name; "" for the scenario's own).
    void begin_group(const std::string& group) { m_group = group; }
    // A larger smallest nonzero value for a real parameter (a sampling period, a timer), in its unit.
    void set_min_nonzero(const std::string& name, double v);
    // `list` (a list parameter) gives each entry its own value of `scalar`: when the list is given, the scalar
    // has no effect, so validate() refuses the scalar away from its default at the same time, naming both.
    void set_overridden_by(const std::string& scalar, const std::string& list);
    // A scenario's own default for a parameter a scheme declared: sets the value and the documented default.
    void set_default(const std::string& name, const std::string& text);

    // Parses and sets one value; throws config_error naming the field and what is allowed.
    void set(const std::string& name, const std::string& text);
    // Checks every field's current value (for configs filled directly in C++) and that no scalar is set beside
    // the list that overrides it.
    void validate() const;
    // --name value ... (and --name=value); a flag takes no value. Throws config_error.
    // --switch FILE.json (or inline JSON text starting with '{') sets the parameters the file names, in its
    // order; nested objects are sections (their names only organize the file), arrays are lists, keys starting
    // with '_' are comments. --sonic-config FILE reads a SONiC CONFIG_DB file the same way (load_sonic). A
    // parameter given after either overrides the file's value.
    void parse_args(const std::vector<std::string>& args);
    // Sets every parameter a JSON switch description names (config/switch_description.h) and returns their names
    // in file order. config_error naming the file, the place and the key for a parse error, an unknown key, a key
    // given twice, a value of the wrong type or out of range.
    std::vector<std::string> load_json(const std::string& path_or_text);
    // --sonic-config FILE: the parameters a SONiC CONFIG_DB JSON file sets (config/sonic_config.h), in file order;
    // config_error naming the table and key for what the model cannot do.
    std::vector<std::string> load_sonic(const std::string& path);
    bool has(const std::string& name) const { return find(name) != nullptr; }
    // " (did you mean 'pool_kb'?)" for a name within two edits of a parameter's, else "".
    std::string suggestion(const std::string& name) const;
    const std::vector<param>& params() const { return m_params; }
    std::string value_text(const param& p) const;
    // The current value of the parameter `name` as text; config_error if there is none.
    std::string value_text(const std::string& name) const;
    std::string help() const;

private:
    const param* find(const std::string& name) const;
    void check(const param& p) const;
    void set_value(const param& p, const std::string& text);
    void add(param p);   // model_error if the name is taken
    void add_adapted_real(const std::string& name, double lo, double hi, const std::string& unit,
                          const std::string& help, std::function<double()> get, std::function<void(double)> put);
    void add_adapted_choice(const std::string& name, std::vector<std::string> choices, const std::string& help,
                            std::function<std::string()> get, std::function<void(const std::string&)> put);
    void check_int(const param& p, int64_t v) const;
    void check_real(const param& p, double v) const;
    void check_choice(const param& p, const std::string& v) const;
    std::vector<param> m_params;
    std::string m_group;
};

std::string format_number(double v);

}   // namespace cmswitch
#endif
