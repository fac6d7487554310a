// SPDX-License-Identifier: Apache-2.0
// A switch description: the fields of a scenario written once in a file, grouped in sections of the writer's
// choosing (section names only organize the file; keys starting with '_' are notes). One reader for every front
// end: cmswitch-sim reads JSON files, and the Python package parses TOML and YAML into the same tree and hands it
// over as JSON text, so that both accept and refuse exactly the same descriptions.
//
// Strict wherever a silent choice would mislead: a key given twice (in one section or in two), a value of the
// wrong JSON type (a string where a number is due, a list entry that is not a number), null, a number with a
// leading zero (YAML 1.1 reads 010 as 8), sections nested more than 8 deep and JSON nested more than 32 deep are
// refused with the file, the place and the key named (config_error). A section may share a parameter's name
// ("scheduler": {"scheduler": "dwrr", ...}).
#ifndef CMSWITCH_CONFIG_SWITCH_DESCRIPTION_H
#define CMSWITCH_CONFIG_SWITCH_DESCRIPTION_H

#include "config/json.h"
#include "config/params.h"

#include <string>
#include <vector>

namespace cmswitch {

struct description_entry {
    std::string name;   // the parameter
    std::string text;   // its value as param_table::set parses it ("0,0,1,3" for a list)
    std::string where;   // its place in the file: "mmu.pfc.pause"
};

// The parameters a description sets, in file order, each checked against `params` (a known name, a value of the
// parameter's JSON type). `file` names the source in messages ("switch description leaf.json"); `lines`: the
// text is that file's own (JSON), so messages give line numbers (not for JSON made from a TOML or YAML file).
std::vector<description_entry> read_description(const std::string& json_text, const std::string& file,
                                                const param_table& params, bool lines = true);

constexpr int max_section_depth = 8;

}   // namespace cmswitch
#endif
