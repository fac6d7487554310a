// SPDX-License-Identifier: Apache-2.0
// Bad input raises config_error naming the field and the allowed range; Python sees it as ValueError.
#ifndef CMSWITCH_CONFIG_ERRORS_H
#define CMSWITCH_CONFIG_ERRORS_H

#include <stdexcept>
#include <string>

namespace cmswitch {

class config_error : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

// Raised when a run breaks an invariant of the model (e.g. conservation of bytes): a bug, not bad input.
class model_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}   // namespace cmswitch
#endif
