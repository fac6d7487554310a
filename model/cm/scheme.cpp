// SPDX-License-Identifier: Apache-2.0
#include "model/cm/scheme.h"

#include "config/errors.h"

namespace cmswitch {

const char* slot_param(scheme_slot s) {
    switch (s) {
    case scheme_slot::marking: return "marking";
    case scheme_slot::cm: return "cm";
    case scheme_slot::pause: return "pause";
    }
    return "?";
}

std::vector<scheme_entry>& builtin_schemes();   // registry.cpp

namespace {
std::vector<scheme_entry>& registry() {
    static std::vector<scheme_entry>& all = builtin_schemes();
    return all;
}
}   // namespace

void register_scheme(const scheme_entry& e) {
    const std::vector<std::string> mine = e.make()->variants();
    for (const scheme_entry& x : registry()) {
        if (x.slot != e.slot)
            continue;
        for (const std::string& v : x.make()->variants())
            for (const std::string& w : mine)
                if (v == w)
                    throw model_error(std::string("scheme '") + w + "' is already registered for " +
                                      slot_param(e.slot));
    }
    registry().push_back(e);
}

const std::vector<scheme_entry>& registered_schemes() {
    return registry();
}

void scheme_set::declare(param_table& t, scheme_slot slot, const std::string& choice_help, bool with_choice) {
    slot_state& s = m_slots[static_cast<size_t>(slot)];
    s.schemes.clear();
    s.names = {"none"};
    for (const scheme_entry& e : registered_schemes())
        if (e.slot == slot) {
            s.schemes.push_back(e.make());
            for (const std::string& v : s.schemes.back()->variants())
                s.names.push_back(v);
        }
    if (with_choice) {
        // the lead, then what each registered scheme is
        std::string help = choice_help + ": none";
        for (const scheme_entry& e : registered_schemes())
            if (e.slot == slot) {
                std::string v;
                for (const std::string& n : e.make()->variants())
                    v += (v.empty() ? "" : ", ") + n;
                help += "; " + v + " (" + e.doc + ")";
            }
        t.add_choice(slot_param(slot), &m_choice[static_cast<size_t>(slot)], s.names, help);
    }
    for (auto& sc : s.schemes) {
        t.begin_group(sc->variants().front());
        sc->declare(t);
    }
    t.begin_group("");
}

void scheme_set::select(scheme_slot slot, const std::string& variant) {
    const slot_state& s = m_slots[static_cast<size_t>(slot)];
    std::string names;
    for (const std::string& n : s.names) {
        if (n == variant) {
            m_choice[static_cast<size_t>(slot)] = variant;
            return;
        }
        names += (names.empty() ? "" : ", ") + n;
    }
    throw config_error(std::string(slot_param(slot)) + " = '" + variant + "': allowed values are " + names);
}

std::vector<std::string> scheme_set::offered(scheme_slot slot) const {
    const std::vector<std::string>& n = m_slots[static_cast<size_t>(slot)].names;
    return n.empty() ? n : std::vector<std::string>(n.begin() + 1, n.end());
}

scheme* scheme_set::chosen(scheme_slot slot) const {
    const std::string& v = selected(slot);
    for (const auto& sc : m_slots[static_cast<size_t>(slot)].schemes)
        for (const std::string& n : sc->variants())
            if (n == v)
                return sc.get();
    return nullptr;
}

void scheme_set::check(const std::string& transport) const {
    for (int i = 0; i < num_scheme_slots; ++i) {
        const scheme_slot slot = static_cast<scheme_slot>(i);
        if (scheme* sc = chosen(slot)) {
            const std::string need = sc->transport();
            if (!need.empty() && need != transport)
                throw config_error(std::string(slot_param(slot)) + " = " + selected(slot) +
                                   " needs transport = " + need + " (transport is " + transport + ")");
            sc->check(selected(slot));
        }
    }
}

void scheme_set::install(scheme_context& ctx) {
    // layer-2 congestion management first, then PAUSE/PFC, then marking: the order the hooks were added in
    // before schemes existed (the switch orders hooks by stage; equal stages keep this order)
    for (scheme_slot slot : {scheme_slot::cm, scheme_slot::pause, scheme_slot::marking})
        if (scheme* sc = chosen(slot))
            sc->install(selected(slot), ctx);
}

void scheme_set::describe_setup(result& r) const {
    for (int i = 0; i < num_scheme_slots; ++i) {
        scheme* on = chosen(static_cast<scheme_slot>(i));
        for (const auto& sc : m_slots[i].schemes)   // the others' keys first, at their values when off
            if (sc.get() != on)
                sc->report_absent(r);
        if (on)
            on->describe_setup(r);
    }
}

void scheme_set::report(scheme_slot slot, const fabric& net, result& r) const {
    if (scheme* sc = chosen(slot))
        sc->report(net, r);
}

}   // namespace cmswitch
