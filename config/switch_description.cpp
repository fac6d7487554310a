// SPDX-License-Identifier: Apache-2.0
#include "config/switch_description.h"

#include "config/errors.h"
#include "config/json.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <utility>

namespace cmswitch {

namespace {

class description_reader {
public:
    description_reader(const std::string& file, const param_table& params, bool lines)
        : m_file(file), m_params(params), m_lines(lines) {}

    void section(const json_value& v, const std::string& where, int depth) {
        if (depth > max_section_depth)
            throw config_error(m_file + ": '" + where + "': sections nested more than " +
                               std::to_string(max_section_depth) + " deep");
        for (const auto& m : v.members) {
            if (!m.key.empty() && m.key[0] == '_')   // a note (JSON has no comments)
                continue;
            const std::string path = where.empty() ? m.key : where + "." + m.key;
            const param_table::param* p = lookup(m.key);
            if (m.value.type == json_value::kind::object) {   // a section (it may share a parameter's name)
                section(m.value, path, depth + 1);
                continue;
            }
            if (!p)
                throw config_error(m_file + ": unknown key '" + m.key + "' (" + path +
                                   (m_lines ? ", line " + std::to_string(m.line) : std::string()) + ")" +
                                   m_params.suggestion(m.key) +
                                   ": every key names a parameter of the scenario (see --help); sections only "
                                   "group them");
            for (const auto& e : entries)
                if (e.name == m.key)
                    throw config_error(m_file + ": '" + m.key + "' is given twice (" + e.where + " and " + path +
                                       "): give it once");
            entries.push_back({m.key, leaf_text(*p, m.value, path, m.line), path});
        }
    }

    std::vector<description_entry> entries;

private:
    const param_table::param* lookup(const std::string& key) const {
        for (const auto& p : m_params.params())
            if (p.name == key)
                return &p;
        return nullptr;
    }

    std::string leaf_text(const param_table::param& p, const json_value& v, const std::string& path, int line) const {
        const std::string at = m_file + ": " + path, ln = m_lines ? " (line " + std::to_string(line) + ")" : "";
        using k = param_table::kind;
        json_value::kind want = json_value::kind::number;
        const char* what = "a number";
        switch (p.type) {
        case k::integer:
        case k::real: break;
        case k::choice:
            want = json_value::kind::string;
            what = "a string";
            break;
        case k::flag:
            want = json_value::kind::boolean;
            what = "true or false";
            break;
        case k::list:
            want = json_value::kind::array;
            what = "a list of numbers";
            break;
        }
        if (v.type == json_value::kind::null)
            throw config_error(at + " = null" + ln + ": null is not a value; leave the key out for the default");
        // a list's documented "none" (the empty list: its default rule), as on the command line and in Python
        if (p.type == k::list && v.type == json_value::kind::string && (v.text == "none" || v.text == "None"))
            return "none";
        if (v.type != want)
            throw config_error(at + ln + ": must be " + what + ", not " + json_kind_name(v.type));
        if (p.type != k::list)
            return v.text;
        std::string joined;
        for (size_t i = 0; i < v.items.size(); ++i) {
            if (v.items[i].type != json_value::kind::number)
                throw config_error(at + "[" + std::to_string(i) + "]" + ln + ": each entry must be a number, not " +
                                   json_kind_name(v.items[i].type));
            joined += (i ? "," : "") + v.items[i].text;
        }
        return joined;
    }

    const std::string& m_file;
    const param_table& m_params;
    bool m_lines;   // the text is the user's file (JSON), so its line numbers mean something
};

}   // namespace

std::vector<description_entry> read_description(const std::string& json_text, const std::string& file,
                                                const param_table& params, bool lines) {
    const json_value root = parse_json(json_text, file);
    if (root.type != json_value::kind::object)
        throw config_error(file + ": must hold sections and fields (a JSON object), not " + json_kind_name(root.type));
    description_reader reader(file, params, lines);
    reader.section(root, "", 1);
    return std::move(reader.entries);
}

}   // namespace cmswitch
