// SPDX-License-Identifier: Apache-2.0
#include "config/result.h"

#include "config/params.h"

#include <cmath>
#include <stdexcept>

namespace cmswitch {

std::vector<double>& table::column(const std::string& name) {
    for (auto& c : columns)
        if (c.first == name)
            return c.second;
    columns.emplace_back(name, std::vector<double>{});
    return columns.back().second;
}

void result::set(const std::string& key, scalar v) {
    for (auto& kv : summary)
        if (kv.first == key) {
            kv.second = std::move(v);
            return;
        }
    summary.emplace_back(key, std::move(v));
}

const scalar* result::get(const std::string& key) const {
    for (const auto& kv : summary)
        if (kv.first == key)
            return &kv.second;
    return nullptr;
}

double result::number(const std::string& key) const {
    const scalar* v = get(key);
    if (!v)
        throw std::out_of_range("result has no '" + key + "'");
    if (auto d = std::get_if<double>(v))
        return *d;
    if (auto i = std::get_if<int64_t>(v))
        return static_cast<double>(*i);
    if (auto b = std::get_if<bool>(v))
        return *b ? 1.0 : 0.0;
    throw std::invalid_argument("result '" + key + "' is not a number");
}

table& result::add_table(const std::string& name) {
    tables.emplace_back(name, table{});
    return tables.back().second;
}

const table* result::find_table(const std::string& name) const {
    for (const auto& t : tables)
        if (t.first == name)
            return &t.second;
    return nullptr;
}

namespace {
void put_string(std::string& out, const std::string& s) {
    out += '"';
    for (char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            } else {
                out += c;
            }
        }
    }
    out += '"';
}
void put_number(std::string& out, double v) {
    if (!std::isfinite(v))
        out += "null";
    else
        out += format_number(v);
}
}   // namespace

std::string result::to_json(bool with_tables) const {
    std::string out = "{";
    bool first = true;
    auto key = [&](const std::string& k) {
        out += first ? "\n  " : ",\n  ";
        first = false;
        put_string(out, k);
        out += ": ";
    };
    for (const auto& kv : summary) {
        key(kv.first);
        const scalar& v = kv.second;
        if (auto b = std::get_if<bool>(&v))
            out += *b ? "true" : "false";
        else if (auto i = std::get_if<int64_t>(&v))
            out += std::to_string(*i);
        else if (auto d = std::get_if<double>(&v))
            put_number(out, *d);
        else
            put_string(out, std::get<std::string>(v));
    }
    if (with_tables && !tables.empty()) {
        key("tables");
        out += "{";
        for (size_t i = 0; i < tables.size(); ++i) {
            const auto& t = tables[i];
            out += i ? ",\n    " : "\n    ";
            put_string(out, t.first);
            out += ": {";
            for (size_t c = 0; c < t.second.columns.size(); ++c) {
                out += c ? ", " : "";
                put_string(out, t.second.columns[c].first);
                out += ": [";
                const auto& col = t.second.columns[c].second;
                for (size_t r = 0; r < col.size(); ++r) {
                    if (r)
                        out += ", ";
                    put_number(out, col[r]);
                }
                out += "]";
            }
            out += "}";
        }
        out += "\n  }";
    }
    out += "\n}\n";
    return out;
}

}   // namespace cmswitch
