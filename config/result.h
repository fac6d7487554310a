// SPDX-License-Identifier: Apache-2.0
// What a run returns: an ordered summary of named scalars and named numeric tables (column-major, so that the
// Python side turns each into a DataFrame without reshaping). JSON output is deterministic: keys in insertion
// order, numbers in the shortest form that reads back to the same double.
#ifndef CMSWITCH_CONFIG_RESULT_H
#define CMSWITCH_CONFIG_RESULT_H

#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace cmswitch {

using scalar = std::variant<bool, int64_t, double, std::string>;

struct table {
    // a deque, so that references returned by column() stay valid while more columns are added
    std::deque<std::pair<std::string, std::vector<double>>> columns;
    // The column of that name, appended empty if absent.
    std::vector<double>& column(const std::string& name);
    size_t rows() const { return columns.empty() ? 0 : columns.front().second.size(); }
};

struct result {
    std::vector<std::pair<std::string, scalar>> summary;
    std::vector<std::pair<std::string, table>> tables;

    void set(const std::string& key, scalar v);
    const scalar* get(const std::string& key) const;
    double number(const std::string& key) const;   // throws if absent or not numeric
    table& add_table(const std::string& name);
    const table* find_table(const std::string& name) const;

    // One JSON object: the summary keys, then "tables": {name: {column: [values]}} when with_tables.
    std::string to_json(bool with_tables = true) const;
};

}   // namespace cmswitch
#endif
