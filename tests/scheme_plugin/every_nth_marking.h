// SPDX-License-Identifier: Apache-2.0
// A demonstration of a congestion-management scheme added from outside the model: "every-nth" marks every Nth
// ECN-capable frame admitted to each switch egress port, whatever the queue. It lives only in these files and
// its test; it is registered at run time (register_every_nth_marking), so that the model, the scenarios and the
// command line know nothing of it. A scheme of the product would add one line to model/cm/registry.cpp instead.
#ifndef CMSWITCH_TESTS_SCHEME_PLUGIN_EVERY_NTH_MARKING_H
#define CMSWITCH_TESTS_SCHEME_PLUGIN_EVERY_NTH_MARKING_H

#include "model/cm/scheme.h"

#include <cstdint>
#include <vector>

namespace cmswitch::demo {

class every_nth_marking_scheme final : public scheme {
public:
    std::vector<std::string> variants() const override { return {"every-nth"}; }
    void declare(param_table& t) override;
    void install(const std::string& v, scheme_context& ctx) override;
    void report(const fabric& net, result& r) const override;

private:
    int64_t m_n = 10;
    // The ECN-capable frames each installed hook saw (one hook per switch), shared with the hooks.
    std::vector<std::shared_ptr<uint64_t>> m_seen;
};

// Adds the scheme to the registry (slot "marking"); model_error on a second call (the name is taken).
void register_every_nth_marking();

}   // namespace cmswitch::demo
#endif
