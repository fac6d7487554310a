// SPDX-License-Identifier: Apache-2.0
// The JSON reader of the configuration layer (switch descriptions, SONiC CONFIG_DB files): RFC 8259, strict.
// Numbers keep their text (a parameter parses them as its type says), objects keep their members in file order
// with the line of each key; a key given twice in one object, a number with a leading zero and nesting deeper than
// max_json_depth are refused (config_error naming the file, the line and the column).
#ifndef CMSWITCH_CONFIG_JSON_H
#define CMSWITCH_CONFIG_JSON_H

#include <string>
#include <vector>

namespace cmswitch {

constexpr int max_json_depth = 32;

// A JSON value: numbers keep their text, objects their members in file order with the line of each key.
struct json_value {
    enum class kind { null, boolean, number, string, array, object };
    kind type = kind::null;
    std::string text;   // number: as written; string: decoded (UTF-8); boolean: "true"/"false"
    std::vector<json_value> items;
    struct member;
    std::vector<member> members;
    int line = 0;
};
struct json_value::member {
    std::string key;
    int line;
    json_value value;
};

// "a number", "a section", ... for messages.
const char* json_kind_name(json_value::kind k);
// Parses text (file: its name in messages). Throws config_error.
json_value parse_json(const std::string& text, const std::string& file);

}   // namespace cmswitch
#endif
