// SPDX-License-Identifier: Apache-2.0
#include "config/sonic_config.h"

#include "config/errors.h"
#include "config/json.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>

namespace cmswitch {

namespace {

struct entry {
    std::string key;
    std::vector<std::pair<std::string, std::string>> f;
    const std::string* get(const std::string& name) const {
        for (const auto& kv : f)
            if (kv.first == name)
                return &kv.second;
        return nullptr;
    }
};
using table = std::vector<entry>;

// An exact decimal of bytes / 1024 (a KB of the model; 1024 = 2^10, so ten digits suffice).
std::string kb(uint64_t bytes) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.10f", static_cast<double>(bytes) / 1024);
    std::string s(buf);
    while (!s.empty() && s.back() == '0')
        s.pop_back();
    if (!s.empty() && s.back() == '.')
        s.pop_back();
    return s;
}

std::string num(double v) {
    std::ostringstream o;
    o.precision(12);
    o << v;
    return o.str();
}

template <typename T, typename F>
std::string join(const std::vector<T>& v, F&& text) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i)
        s += (i ? "," : "") + text(v[i]);
    return s;
}

// "[BUFFER_POOL|ingress_lossless_pool]", "BUFFER_POOL|x" or "x": the referenced key
std::string referenced(std::string v) {
    if (v.size() >= 2 && v.front() == '[' && v.back() == ']')
        v = v.substr(1, v.size() - 2);
    const size_t bar = v.find_last_of("|:");
    return bar == std::string::npos ? v : v.substr(bar + 1);
}

struct pool_def {
    bool ingress = false;
    int index = 0;   // among the pools of its type, in file order
    uint64_t size = 0, xoff = 0;
};

struct profile_def {
    std::string pool;
    uint64_t size = 0;
    bool dynamic = false, is_static = false, lossless = false;
    int dynamic_th = 0;
    uint64_t static_bytes = 0, xoff = 0, xon = 0, xon_offset = 0;
    uint64_t reserve() const { return lossless && size > xoff ? size - xoff : size; }
};

class reader {
public:
    reader(const std::string& file, const param_table& params) : m_file(file), m_params(params) {}

    std::vector<description_entry> read(const std::string& text) {
        load(parse_json(text, m_file));
        refuse_untranslated();
        ports();
        pools();
        profiles();
        groups();
        queues();
        port_lists();
        qos();
        asic();
        return std::move(m_out);
    }

private:
    [[noreturn]] void fail(const std::string& where, const std::string& why) const {
        throw config_error(m_file + ": " + where + ": " + why);
    }
    void emit(const std::string& name, const std::string& value, const std::string& where) {
        if (!m_params.has(name))
            fail(where, "sets " + name + ", which this scenario does not have");
        m_out.push_back({name, value, where});
    }

    // the tables, from either form: {"TABLE": {"key": {fields}}} or {"TABLE|key": {fields}}
    void load(const json_value& root) {
        if (root.type != json_value::kind::object)
            fail("the file",
                 "must be a JSON object of tables (config_db.json), not " + std::string(json_kind_name(root.type)));
        const auto add = [&](const std::string& t, const std::string& key, const json_value& v) {
            if (v.type != json_value::kind::object)
                fail(t + "|" + key, "must hold fields (an object), not " + std::string(json_kind_name(v.type)));
            entry e{key, {}};
            for (const auto& m : v.members) {
                if (m.value.type != json_value::kind::string && m.value.type != json_value::kind::number)
                    fail(t + "|" + key + "." + m.key,
                         "a field's value is a string, not " + std::string(json_kind_name(m.value.type)));
                e.f.emplace_back(m.key, m.value.text);
            }
            m_tables[t].push_back(std::move(e));
        };
        for (const auto& m : root.members) {
            const size_t bar = m.key.find('|');
            if (bar != std::string::npos) {
                add(m.key.substr(0, bar), m.key.substr(bar + 1), m.value);
                continue;
            }
            if (m.value.type != json_value::kind::object)
                fail(m.key, "a table holds keys (an object), not " + std::string(json_kind_name(m.value.type)));
            for (const auto& k : m.value.members)
                add(m.key, k.key, k.value);
        }
    }
    const table* find(const std::string& t) const {
        const auto it = m_tables.find(t);
        return it == m_tables.end() ? nullptr : &it->second;
    }

    void refuse_untranslated() const {
        for (const char* t : {"WRED_PROFILE", "SCHEDULER", "QUEUE"})
            if (find(t))
                fail(t, "not read: ECN marking and the egress scheduler are set with the model's own parameters "
                        "(marking, scheduler, dwrr_weights); leave the table out of the file");
    }

    uint64_t bytes(const entry& e, const std::string& t, const std::string& field) const {
        const std::string* v = e.get(field);
        const std::string where = t + "|" + e.key + "." + field;
        if (!v)
            fail(where, "missing");
        if (v->empty() || v->find_first_not_of("0123456789") != std::string::npos || v->size() > 15)
            fail(where, "'" + *v + "': a whole number of bytes is expected");
        return std::stoull(*v);
    }
    int integer(const std::string& text, const std::string& where) const {
        try {
            size_t used = 0;
            const int v = std::stoi(text, &used);
            if (used == text.size())
                return v;
        } catch (const std::exception&) {
        }
        fail(where, "'" + text + "': a whole number is expected");
    }
    double real(const std::string& text, const std::string& where) const {
        try {
            size_t used = 0;
            const double v = std::stod(text, &used);
            if (used == text.size())
                return v;
        } catch (const std::exception&) {
        }
        fail(where, "'" + text + "': a number is expected");
    }
    int port(const std::string& name, const std::string& where) const {
        for (size_t i = 0; i < m_port_names.size(); ++i)
            if (m_port_names[i] == name)
                return static_cast<int>(i);
        fail(where, "port '" + name + "' is not in PORT");
    }
    // "Ethernet0,Ethernet4|3-4": the ports and the indices (0-7)
    std::pair<std::vector<int>, std::vector<int>> ports_and_range(const std::string& t, const std::string& key) const {
        const std::string where = t + "|" + key;
        const size_t bar = key.find('|');
        if (bar == std::string::npos)
            fail(where, "a key is <ports>|<indices>, e.g. Ethernet0|3-4");
        std::vector<int> ports, idx;
        std::stringstream ps(key.substr(0, bar));
        for (std::string p; std::getline(ps, p, ',');)
            ports.push_back(port(p, where));
        const std::string range = key.substr(bar + 1);
        const size_t dash = range.find('-');
        const int lo = integer(range.substr(0, dash), where);
        const int hi = dash == std::string::npos ? lo : integer(range.substr(dash + 1), where);
        if (lo < 0 || hi > 7 || lo > hi)
            fail(where, "'" + range + "': indices 0-7");
        for (int i = lo; i <= hi; ++i)
            idx.push_back(i);
        return {ports, idx};
    }

    void ports() {
        const table* t = find("PORT");
        if (!t || t->empty())
            fail("PORT", "missing: the reader numbers the switch's ports from it (Ethernet0 is port 0, ...)");
        std::vector<std::pair<long, const entry*>> order;
        for (const entry& e : *t) {
            size_t k = e.key.size();
            while (k > 0 && std::isdigit(static_cast<unsigned char>(e.key[k - 1])))
                --k;
            if (k == e.key.size() || e.key.size() - k > 9)
                fail("PORT|" + e.key, "a port's name ends in its number, at most 9 digits (Ethernet0)");
            order.emplace_back(std::stol(e.key.substr(k)), &e);
        }
        std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        for (const auto& [n, e] : order) {
            m_port_names.push_back(e->key);
            m_speed.push_back(bytes(*e, "PORT", "speed"));
        }
        if (m_params.has("link_gbps") &&
            std::all_of(m_speed.begin(), m_speed.end(), [&](uint64_t s) { return s == m_speed[0]; }))
            emit("link_gbps", num(static_cast<double>(m_speed[0]) / 1000), "PORT.speed");
        // the port MTU of SONiC's headroom calculation, when every port gives the same
        std::vector<uint64_t> mtu;
        for (const auto& [n, e] : order)
            if (e->get("mtu"))
                mtu.push_back(bytes(*e, "PORT", "mtu"));
        if (mtu.size() == order.size() && m_params.has("sonic_port_mtu") &&
            std::all_of(mtu.begin(), mtu.end(), [&](uint64_t v) { return v == mtu[0]; }))
            emit("sonic_port_mtu", std::to_string(mtu[0]), "PORT.mtu");
        // the lanes (SONiC's 8-lane adjustment), when every port has the same number
        std::vector<size_t> lanes;
        for (const auto& [n, e] : order)
            if (const std::string* l = e->get("lanes"))
                lanes.push_back(static_cast<size_t>(std::count(l->begin(), l->end(), ',')) + 1);
        if (lanes.size() == order.size() && m_params.has("sonic_lanes") &&
            std::all_of(lanes.begin(), lanes.end(), [&](size_t v) { return v == lanes[0]; })) {
            if (lanes[0] > 8)
                fail("PORT|" + order[0].second->key + ".lanes", std::to_string(lanes[0]) + " lanes: at most 8");
            emit("sonic_lanes", std::to_string(lanes[0]), "PORT.lanes");
        }
        // cables: CABLE_LENGTH|<name> {port: "5m"}
        if (const table* c = find("CABLE_LENGTH")) {
            std::vector<double> m(m_port_names.size(), -1);
            for (const entry& e : *c)
                for (const auto& [p, len] : e.f) {
                    const std::string where = "CABLE_LENGTH|" + e.key + "." + p;
                    if (len.empty() || len.back() != 'm')
                        fail(where, "'" + len + "': a length in metres, e.g. 5m");
                    m[static_cast<size_t>(port(p, where))] = real(len.substr(0, len.size() - 1), where);
                }
            for (size_t i = 0; i < m.size(); ++i)
                if (m[i] < 0)
                    fail("CABLE_LENGTH", "no cable for port " + m_port_names[i]);
            const bool same = std::all_of(m.begin(), m.end(), [&](double x) { return x == m[0]; });
            emit("cable_m", same ? num(m[0]) : join(m, [](double x) { return num(x); }), "CABLE_LENGTH");
        }
    }

    void pools() {
        const table* t = find("BUFFER_POOL");
        if (!t)
            fail("BUFFER_POOL", "missing: the service pools");
        int ingress = 0, egress = 0;
        std::vector<uint64_t> ing, egr;
        uint64_t xoff = 0;
        for (const entry& e : *t) {
            const std::string where = "BUFFER_POOL|" + e.key;
            const std::string* type = e.get("type");
            if (!type || (*type != "ingress" && *type != "egress"))
                fail(where + ".type", type ? "'" + *type + "': allowed values are ingress, egress" : "missing");
            if (const std::string* m = e.get("mode"); m && *m != "dynamic" && *m != "static")
                fail(where + ".mode", "'" + *m + "': allowed values are dynamic, static");
            if (!e.get("size"))
                fail(where + ".size", "missing: SONiC's dynamic buffer model sizes such a pool at run time; give the "
                                      "size it runs with");
            pool_def p;
            p.ingress = *type == "ingress";
            p.size = bytes(e, "BUFFER_POOL", "size");
            if (e.get("xoff")) {
                if (!p.ingress)
                    fail(where + ".xoff", "a shared headroom pool belongs to an ingress pool");
                p.xoff = bytes(e, "BUFFER_POOL", "xoff");
                if (xoff > 0 && p.xoff > 0)
                    fail(where + ".xoff", "a second shared headroom pool: the model has one");
                xoff += p.xoff;
            }
            p.index = p.ingress ? ingress++ : egress++;
            if (p.index >= 4)
                fail(where, "a fifth " + *type + " pool: at most 4 of each type");
            (p.ingress ? ing : egr).push_back(p.size);
            m_pools[e.key] = p;
        }
        if (egr.empty())
            fail("BUFFER_POOL", "no egress pool");
        uint64_t buffer = xoff;
        for (uint64_t s : ing)
            buffer += s;
        for (uint64_t s : egr)
            buffer = std::max(buffer, s);
        emit("buffer_policy", "pools", "BUFFER_POOL");
        emit("pool_kb", kb(buffer), "BUFFER_POOL");
        if (!ing.empty())
            emit("ingress_pools_kb", join(ing, kb), "BUFFER_POOL");
        emit("egress_pools_kb", join(egr, kb), "BUFFER_POOL");
        if (xoff > 0)
            emit("headroom_pool_kb", kb(xoff), "BUFFER_POOL.xoff");
    }

    void profiles() {
        const table* t = find("BUFFER_PROFILE");
        if (!t)
            fail("BUFFER_PROFILE", "missing");
        for (const entry& e : *t) {
            const std::string where = "BUFFER_PROFILE|" + e.key;
            profile_def p;
            const std::string* pool = e.get("pool");
            if (!pool)
                fail(where + ".pool", "missing");
            p.pool = referenced(*pool);
            if (!m_pools.count(p.pool))
                fail(where + ".pool", "'" + *pool + "' is not in BUFFER_POOL");
            p.size = e.get("size") ? bytes(e, "BUFFER_PROFILE", "size") : 0;
            if (const std::string* d = e.get("dynamic_th")) {
                p.dynamic = true;
                p.dynamic_th = integer(*d, where + ".dynamic_th");
                if (p.dynamic_th < -7 || p.dynamic_th > 7)
                    fail(where + ".dynamic_th", *d + ": allowed range [-7, 7] (alpha = 2^n; 7: no limit)");
            }
            if (e.get("static_th")) {
                p.is_static = true;
                p.static_bytes = bytes(e, "BUFFER_PROFILE", "static_th");
            }
            if (p.dynamic == p.is_static)
                fail(where, "give one of dynamic_th and static_th");
            if (e.get("xoff")) {
                p.lossless = true;
                p.xoff = bytes(e, "BUFFER_PROFILE", "xoff");
                p.xon = e.get("xon") ? bytes(e, "BUFFER_PROFILE", "xon") : 0;
                p.xon_offset = e.get("xon_offset") ? bytes(e, "BUFFER_PROFILE", "xon_offset") : 0;
            }
            if (const std::string* a = e.get("packet_discard_action"); a && *a != "drop")
                fail(where + ".packet_discard_action", "'" + *a + "': the model drops (packet trimming is not built)");
            if (const std::string* h = e.get("headroom_type"); h && *h != "static" && !p.lossless)
                fail(where + ".headroom_type", "'" + *h + "' without xoff: give the headroom it runs with");
            m_profiles[e.key] = p;
        }
    }
    const profile_def& profile_of(const entry& e, const std::string& t) const {
        const std::string* name = e.get("profile");
        if (!name)
            fail(t + "|" + e.key + ".profile", "missing");
        const auto it = m_profiles.find(referenced(*name));
        if (it == m_profiles.end())
            fail(t + "|" + e.key + ".profile", "'" + *name + "' is not in BUFFER_PROFILE");
        return it->second;
    }

    // one profile per priority group (queue) for every port, apart from a lossless group's headroom
    struct assignment {
        const profile_def* p = nullptr;
        std::string where;
    };
    static bool same_profile(const profile_def& a, const profile_def& b) {
        return a.pool == b.pool && a.reserve() == b.reserve() && a.dynamic == b.dynamic &&
               a.dynamic_th == b.dynamic_th && a.static_bytes == b.static_bytes && a.lossless == b.lossless;
    }
    std::array<assignment, 8> assign(const std::string& t, bool ingress) {
        std::array<assignment, 8> out;
        const table* tab = find(t);
        if (!tab)
            return out;
        for (const entry& e : *tab) {
            const profile_def& p = profile_of(e, t);
            const std::string where = t + "|" + e.key;
            if (m_pools.at(p.pool).ingress != ingress)
                fail(where + ".profile", "its pool " + p.pool + " is an " + (ingress ? "egress" : "ingress") +
                                             " pool: a " + (ingress ? "priority group" : "queue") + " takes an " +
                                             (ingress ? "ingress" : "egress") + " pool's profile");
            const auto [ports, idx] = ports_and_range(t, e.key);
            for (int i : idx) {
                assignment& a = out[static_cast<size_t>(i)];
                if (a.p && !same_profile(*a.p, p))
                    fail(where, "differs from " + a.where +
                                    " in its pool, reserve or limit: the model gives every "
                                    "port the same profile of each " +
                                    (ingress ? "priority group" : "queue") + " (a lossless group's headroom apart)");
                if (!a.p)
                    a = {&p, where};
                if (ingress && p.lossless)
                    for (int port : ports) {
                        auto& h = m_headroom[static_cast<size_t>(port)];
                        const std::array<uint64_t, 3> mine{p.xoff, p.xon, p.xon_offset};
                        if (h.set && h.v != mine)
                            fail(where, "port " + m_port_names[static_cast<size_t>(port)] +
                                            " has lossless groups of different headroom: the model gives a port one "
                                            "headroom for all its lossless groups");
                        h.set = true;
                        h.v = mine;
                    }
            }
        }
        return out;
    }

    void groups() {
        m_headroom.assign(m_port_names.size(), {});
        const std::array<assignment, 8> g = assign("BUFFER_PG", true);
        std::vector<std::string> pool, reserve, th, stat;
        bool any_static = false;
        for (int k = 0; k < 8; ++k) {
            const profile_def* p = g[static_cast<size_t>(k)].p;
            pool.push_back(p ? std::to_string(m_pools.at(p->pool).index) : "0");
            reserve.push_back(p ? kb(p->reserve()) : "0");
            th.push_back(p && p->dynamic ? std::to_string(p->dynamic_th) : (p && p->lossless ? "-3" : "3"));
            stat.push_back(p && p->is_static ? kb(p->static_bytes) : "0");
            any_static = any_static || (p && p->is_static);
        }
        if (!find("BUFFER_PG"))
            return;
        emit("pg_pool", join(pool, [](const std::string& s) { return s; }), "BUFFER_PG");
        emit("pg_reserved_kb", join(reserve, [](const std::string& s) { return s; }), "BUFFER_PG");
        emit("pg_dynamic_th", join(th, [](const std::string& s) { return s; }), "BUFFER_PG");
        if (any_static)
            emit("pg_static_kb", join(stat, [](const std::string& s) { return s; }), "BUFFER_PG");
        // the lossless headroom, per port
        bool any = false;
        for (const auto& h : m_headroom)
            any = any || h.set;
        if (!any)
            return;
        std::array<std::vector<uint64_t>, 3> v;
        for (const auto& h : m_headroom)
            for (size_t i = 0; i < 3; ++i)
                v[i].push_back(h.set ? h.v[i] : 0);
        const char* names[3] = {"xoff_kb", "xon_kb", "xon_offset_kb"};
        emit("headroom", "given", "BUFFER_PROFILE.xoff");
        for (size_t i = 0; i < 3; ++i) {
            const bool same = std::all_of(v[i].begin(), v[i].end(), [&](uint64_t x) { return x == v[i][0]; });
            emit(names[i], same ? kb(v[i][0]) : join(v[i], kb), "BUFFER_PROFILE");
        }
    }

    void queues() {
        const std::array<assignment, 8> q = assign("BUFFER_QUEUE", false);
        if (!find("BUFFER_QUEUE"))
            return;
        std::vector<std::string> pool, reserve, th, stat;
        bool any_static = false;
        for (int k = 0; k < 8; ++k) {
            const profile_def* p = q[static_cast<size_t>(k)].p;
            pool.push_back(p ? std::to_string(m_pools.at(p->pool).index) : "0");
            reserve.push_back(p ? kb(p->size) : "0");
            th.push_back(p && p->dynamic ? std::to_string(p->dynamic_th) : (k == 7 ? "7" : "3"));
            stat.push_back(p && p->is_static ? kb(p->static_bytes) : "0");
            any_static = any_static || (p && p->is_static);
        }
        const auto id = [](const std::string& s) { return s; };
        emit("queue_pool", join(pool, id), "BUFFER_QUEUE");
        emit("queue_reserved_kb", join(reserve, id), "BUFFER_QUEUE");
        emit("queue_dynamic_th", join(th, id), "BUFFER_QUEUE");
        if (any_static)
            emit("queue_static_kb", join(stat, id), "BUFFER_QUEUE");
    }

    // BUFFER_PORT_*_PROFILE_LIST: one profile per pool, the same on every port
    void port_lists() {
        for (const bool ingress : {true, false}) {
            const std::string t = ingress ? "BUFFER_PORT_INGRESS_PROFILE_LIST" : "BUFFER_PORT_EGRESS_PROFILE_LIST";
            const table* tab = find(t);
            if (!tab)
                continue;
            std::array<const profile_def*, 4> per_pool{};
            std::array<std::string, 4> first;
            for (const entry& e : *tab) {
                const std::string where = t + "|" + e.key;
                const std::string* list = e.get("profile_list");
                if (!list)
                    fail(where + ".profile_list", "missing");
                std::stringstream ls(*list);
                for (std::string item; std::getline(ls, item, ',');) {
                    const auto it = m_profiles.find(referenced(item));
                    if (it == m_profiles.end())
                        fail(where + ".profile_list", "'" + item + "' is not in BUFFER_PROFILE");
                    const profile_def& p = it->second;
                    const pool_def& pd = m_pools.at(p.pool);
                    if (pd.ingress != ingress)
                        fail(where + ".profile_list", "'" + item + "' is of a pool of the other side");
                    if (p.is_static)
                        fail(where + ".profile_list", "'" + item +
                                                          "': a static limit per port and pool is not "
                                                          "modelled (a dynamic_th is)");
                    const size_t k = static_cast<size_t>(pd.index);
                    if (per_pool[k] && (per_pool[k]->size != p.size || per_pool[k]->dynamic_th != p.dynamic_th))
                        fail(where, "differs from " + first[k] + " in pool " + p.pool +
                                        ": the model gives every port the same profile per pool");
                    if (!per_pool[k]) {
                        per_pool[k] = &p;
                        first[k] = where;
                    }
                }
            }
            const size_t pools = static_cast<size_t>(std::count_if(
                m_pools.begin(), m_pools.end(), [&](const auto& kv) { return kv.second.ingress == ingress; }));
            std::vector<std::string> res, th;
            for (size_t k = 0; k < pools; ++k) {
                res.push_back(per_pool[k] ? kb(per_pool[k]->size) : "0");
                th.push_back(per_pool[k] ? std::to_string(per_pool[k]->dynamic_th) : "7");
            }
            const auto id = [](const std::string& s) { return s; };
            const std::string side = ingress ? "ingress" : "egress";
            emit("port_" + side + "_reserved_kb", join(res, id), t);
            emit("port_" + side + "_dynamic_th", join(th, id), t);
        }
    }

    // PORT_QOS_MAP: pfc_enable and the traffic class maps it names
    void qos() {
        const table* t = find("PORT_QOS_MAP");
        if (!t)
            return;
        std::string pfc, pg_map, q_map, first;
        bool seen = false;
        for (const entry& e : *t) {
            const std::string where = "PORT_QOS_MAP|" + e.key;
            const std::string* p = e.get("pfc_enable");
            const std::string* g = e.get("tc_to_pg_map");
            const std::string* q = e.get("tc_to_queue_map");
            const std::string mine_p = p ? *p : "", mine_g = g ? referenced(*g) : "", mine_q = q ? referenced(*q) : "";
            if (seen && (mine_p != pfc || mine_g != pg_map || mine_q != q_map))
                fail(where,
                     "differs from " + first + ": the model's ports share one pfc_enable and one map of each kind");
            if (!seen) {
                pfc = mine_p;
                pg_map = mine_g;
                q_map = mine_q;
                first = where;
                seen = true;
            }
        }
        if (!pfc.empty()) {
            std::vector<int> prios;
            std::stringstream ps(pfc);
            for (std::string x; std::getline(ps, x, ',');) {
                const int v = integer(x, first + ".pfc_enable");
                if (v < 0 || v > 6)
                    fail(first + ".pfc_enable", x + ": lossless priorities are 0-6 (7 is the control class)");
                prios.push_back(v);
            }
            emit("pause", "pfc", first + ".pfc_enable");
            emit("pfc_priorities", join(prios, [](int v) { return std::to_string(v); }), first + ".pfc_enable");
        }
        const auto map = [&](const std::string& table_name, const std::string& key, const char* param) {
            if (key.empty())
                return;
            const table* mt = find(table_name);
            const entry* e = nullptr;
            if (mt)
                for (const entry& x : *mt)
                    if (x.key == key)
                        e = &x;
            if (!e)
                fail(first, "names " + table_name + "|" + key + ", which the file does not hold");
            std::array<int, 8> v{0, 1, 2, 3, 4, 5, 6, 7};
            for (const auto& [tc, to] : e->f) {
                const std::string where = table_name + "|" + key + "." + tc;
                const int c = integer(tc, where), d = integer(to, where);
                if (c < 0 || c > 7 || d < 0 || d > 7)
                    fail(where, "traffic classes, groups and queues are 0-7");
                v[static_cast<size_t>(c)] = d;
            }
            if (v[7] != 7)
                fail(table_name + "|" + key + ".7",
                     "class 7 is the model's control class (PAUSE, CNM, CNP): it stays 7");
            std::vector<int> out(v.begin(), v.end());
            emit(param, join(out, [](int x) { return std::to_string(x); }), table_name + "|" + key);
        };
        map("TC_TO_PRIORITY_GROUP_MAP", pg_map, "pg_map");
        map("TC_TO_QUEUE_MAP", q_map, "queue_map");
    }

    // STATE_DB's ASIC_TABLE (when the file holds it) and LOSSLESS_TRAFFIC_PATTERN
    void asic() {
        if (const table* t = find("ASIC_TABLE"))
            for (const entry& e : *t) {
                const std::string where = "ASIC_TABLE|" + e.key;
                if (e.get("cell_size"))
                    emit("cell_bytes", std::to_string(bytes(e, "ASIC_TABLE", "cell_size")), where + ".cell_size");
                const std::pair<const char*, const char*> kbs[] = {{"pipeline_latency", "sonic_pipeline_latency_kb"},
                                                                   {"mac_phy_delay", "sonic_mac_phy_delay_kb"},
                                                                   {"peer_response_time", "sonic_peer_response_kb"}};
                for (const auto& [field, param] : kbs)
                    if (const std::string* v = e.get(field))
                        emit(param, num(real(*v, where + "." + field)), where + "." + field);
            }
        if (const table* t = find("LOSSLESS_TRAFFIC_PATTERN"))
            for (const entry& e : *t) {
                const std::string where = "LOSSLESS_TRAFFIC_PATTERN|" + e.key;
                if (e.get("mtu"))
                    emit("sonic_lossless_mtu", std::to_string(bytes(e, "LOSSLESS_TRAFFIC_PATTERN", "mtu")),
                         where + ".mtu");
                if (const std::string* v = e.get("small_packet_percentage"))
                    emit("sonic_small_packet_percent", num(real(*v, where + ".small_packet_percentage")),
                         where + ".small_packet_percentage");
            }
    }

    const std::string m_file;
    const param_table& m_params;
    std::map<std::string, table> m_tables;
    std::vector<description_entry> m_out;
    std::vector<std::string> m_port_names;
    std::vector<uint64_t> m_speed;   // Mb/s
    std::map<std::string, pool_def> m_pools;
    std::map<std::string, profile_def> m_profiles;
    struct port_headroom {
        bool set = false;
        std::array<uint64_t, 3> v{};   // xoff, xon, xon_offset
    };
    std::vector<port_headroom> m_headroom;
};

}   // namespace

std::vector<description_entry> read_sonic_config(const std::string& json_text, const std::string& file,
                                                 const param_table& params) {
    return reader(file, params).read(json_text);
}

std::vector<description_entry> read_sonic_config_file(const std::string& path, const param_table& params) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw config_error("sonic_config = '" + path + "': the file cannot be read (a SONiC CONFIG_DB JSON file)");
    std::ostringstream all;
    all << in.rdbuf();
    return read_sonic_config(all.str(), "SONiC config " + path, params);
}

}   // namespace cmswitch
