// SPDX-License-Identifier: Apache-2.0
#include "platform/sonic_config_writer.h"

#include "config/errors.h"
#include "model/switch/sonic_headroom.h"

#include <array>
#include <cmath>
#include <sstream>
#include <utility>
#include <vector>

namespace cmswitch {

namespace {

using fields = std::vector<std::pair<std::string, std::string>>;
struct key_entry {
    std::string key;
    fields f;
};
struct table_out {
    std::string name;
    std::vector<key_entry> keys;
    key_entry& add(const std::string& key) {
        keys.push_back({key, {}});
        return keys.back();
    }
};

std::string quoted(const std::string& s) {
    std::string o = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\')
            o += '\\';
        o += c;
    }
    return o + "\"";
}

std::string text_of(const std::vector<table_out>& tables) {
    std::ostringstream o;
    o << "{\n";
    for (size_t t = 0; t < tables.size(); ++t) {
        o << "    " << quoted(tables[t].name) << ": {\n";
        const auto& keys = tables[t].keys;
        for (size_t k = 0; k < keys.size(); ++k) {
            o << "        " << quoted(keys[k].key) << ": {";
            for (size_t f = 0; f < keys[k].f.size(); ++f)
                o << (f ? ", " : "") << quoted(keys[k].f[f].first) << ": " << quoted(keys[k].f[f].second);
            o << "}" << (k + 1 < keys.size() ? "," : "") << "\n";
        }
        o << "    }" << (t + 1 < tables.size() ? "," : "") << "\n";
    }
    o << "}\n";
    return o.str();
}

std::string number(double v) {
    std::ostringstream o;
    o.precision(12);
    o << v;
    return o.str();
}

// a profile's fields, compared to find the distinct ones
struct profile {
    std::string pool;
    fields f;
    bool operator==(const profile& o) const { return pool == o.pool && f == o.f; }
};

// the name of `p` among `names`/`list` (added with the next number of `stem` when new)
std::string named(std::vector<profile>& list, std::vector<std::string>& names, const profile& p,
                  const std::string& stem, const std::string& suffix) {
    for (size_t i = 0; i < list.size(); ++i)
        if (list[i] == p)
            return names[i];
    size_t n = 0;
    for (const std::string& s : names)
        n += s.rfind(stem, 0) == 0;
    list.push_back(p);
    names.push_back(stem + std::to_string(n) + suffix);
    return names.back();
}

// dynamic_th of a limit; a queue without one takes the alpha it runs with, which must be 2^n
std::pair<std::string, std::string> limit_field(const shared_limit& l, double alpha, const std::string& field) {
    if (l.static_bytes > 0)
        return {"static_th", std::to_string(l.static_bytes)};
    if (l.dynamic_th != shared_limit::unset_th)
        return {"dynamic_th", std::to_string(l.dynamic_th)};
    if (std::isinf(alpha))
        return {"dynamic_th", std::to_string(shared_limit::no_limit_th)};
    int e = 0;
    const double m = std::frexp(alpha, &e);   // alpha = m 2^e, m in [0.5, 1)
    if (m != 0.5 || e - 1 < shared_limit::min_th || e - 1 > shared_limit::max_th)
        throw config_error(field + " = " + number(alpha) + ": SONiC's dynamic_th writes alpha as 2^n, n in [" +
                           std::to_string(shared_limit::min_th) + ", " + std::to_string(shared_limit::max_th) +
                           "]; give the queue's dynamic_th (queue_dynamic_th) to write it");
    return {"dynamic_th", std::to_string(e - 1)};
}

}   // namespace

namespace {

// The writer of one switch's CONFIG_DB: its ports and the tables in the order CONFIG_DB lists them, each part a
// step of its own.
struct sonic_writer {
    const buffer_config& b;
    const mmu_config& m;
    size_t ports;
    std::vector<const link_spec*> at;
    std::vector<std::string> port_name;
    uint8_t lossless = 0;   // the groups PFC's priorities map to
    std::string pfc_enable;
    bool ingress = false;
    std::vector<table_out> out;
    std::vector<profile> profiles;
    std::vector<std::string> names;
    std::vector<std::array<std::string, 8>> pg, queue;   // every port's profile of each group and queue
    std::array<std::string, 2> port_list;   // port-level profile lists (ingress, egress)

    sonic_writer(const topology& topo, int sw, const switch_spec& spec)
        : b(spec.buffer), m(spec.buffer.mmu), ports(static_cast<size_t>(spec.ports)), at(ports, nullptr),
          port_name(ports), ingress(!spec.buffer.mmu.ingress_pool_bytes.empty()), pg(ports), queue(ports) {
        for (const link_spec& l : topo.links) {
            if (l.a.kind == node_ref::sw && l.a.id == sw)
                at[static_cast<size_t>(l.a_port)] = &l;
            if (l.b.kind == node_ref::sw && l.b.id == sw)
                at[static_cast<size_t>(l.b_port)] = &l;
        }
        for (size_t p = 0; p < ports; ++p)
            port_name[p] = "Ethernet" + std::to_string((m.sonic.eight_lanes ? 8 : 4) * p);
    }
    static std::string pool_ref(bool ing, int p) {
        return std::string(ing ? "ingress_pool_" : "egress_pool_") + std::to_string(p);
    }

    void lossless_groups(const param_table& params) {
        if (params.has("pause") && params.value_text("pause") == "pfc") {
            const std::string prios = params.value_text("pfc_priorities");
            if (prios.empty() || prios == "none")
                throw config_error("pfc_priorities: give the lossless priorities (pause = pfc) to write them as "
                                   "PORT_QOS_MAP's pfc_enable");
            pfc_enable = prios;
            std::stringstream ps(prios);
            for (std::string x; std::getline(ps, x, ',');)
                lossless |= static_cast<uint8_t>(1u << b.pg_map[static_cast<size_t>(std::stoi(x))]);
        }
    }

    void port_tables() {
        table_out& port_t = out.emplace_back(table_out{"PORT", {}});
        const size_t lanes = m.sonic.eight_lanes ? 8 : 4;
        for (size_t p = 0; p < ports; ++p) {
            std::string lane_list;
            for (size_t l = 0; l < lanes; ++l)
                lane_list += (l ? "," : "") + std::to_string(lanes * p + l);
            port_t.add(port_name[p]).f = {{"lanes", lane_list},
                                          {"speed", std::to_string(at[p]->rate_bps / 1000000)},
                                          {"mtu", std::to_string(m.sonic.port_mtu)}};
        }
        table_out& cable_t = out.emplace_back(table_out{"CABLE_LENGTH", {}});
        key_entry& cables = cable_t.add("AZURE");
        for (size_t p = 0; p < ports; ++p) {
            const double metres = m.cable_m.empty()
                                      ? static_cast<double>(at[p]->delay_ps) * 1e-12 * sonic_cable_speed_mps
                                  : m.cable_m.size() == 1 ? m.cable_m[0]
                                                          : m.cable_m[p];
            cables.f.emplace_back(port_name[p], number(metres) + "m");
        }
        table_out& asic = out.emplace_back(table_out{"ASIC_TABLE", {}});
        key_entry& model = asic.add("MODEL");
        if (b.cell_bytes > 0)
            model.f.emplace_back("cell_size", std::to_string(b.cell_bytes));
        model.f.emplace_back("pipeline_latency", number(m.sonic.pipeline_latency_kb));
        model.f.emplace_back("mac_phy_delay", number(m.sonic.mac_phy_delay_kb));
        model.f.emplace_back("peer_response_time", number(m.sonic.peer_response_kb));
        out.push_back({"LOSSLESS_TRAFFIC_PATTERN",
                       {{"AZURE",
                         {{"mtu", std::to_string(m.sonic.lossless_mtu)},
                          {"small_packet_percentage", number(m.sonic.small_packet_percent)}}}}});
    }

    // pools; the shared headroom pool is the xoff of the ingress pool the lossless groups use
    void pool_table() {
        int headroom_pool = -1;
        if (m.headroom_pool_bytes > 0 && ingress)
            for (int g = 0; g < 8 && headroom_pool < 0; ++g)
                if ((lossless >> g) & 1)
                    headroom_pool = m.pg_pool[static_cast<size_t>(g)];
        if (m.headroom_pool_bytes > 0 && headroom_pool < 0)
            throw config_error(
                "headroom_pool_kb: a shared headroom pool is written as the xoff of the lossless groups' "
                "ingress pool; this switch has no lossless group (pause pfc, pfc_priorities) with ingress "
                "pools");
        table_out& pools = out.emplace_back(table_out{"BUFFER_POOL", {}});
        for (size_t p = 0; p < m.ingress_pool_bytes.size(); ++p) {
            key_entry& e = pools.add("ingress_pool_" + std::to_string(p));
            e.f = {{"type", "ingress"}, {"mode", "dynamic"}, {"size", std::to_string(m.ingress_pool_bytes[p])}};
            if (static_cast<int>(p) == headroom_pool)
                e.f.emplace_back("xoff", std::to_string(m.headroom_pool_bytes));
        }
        for (size_t p = 0; p < m.egress_pool_bytes.size(); ++p)
            pools.add("egress_pool_" + std::to_string(p)).f = {
                {"type", "egress"}, {"mode", "dynamic"}, {"size", std::to_string(m.egress_pool_bytes[p])}};
    }

    void group_and_queue_profiles() {
        if (ingress)
            for (size_t p = 0; p < ports; ++p)
                for (size_t g = 0; g < 8; ++g) {
                    profile pr{pool_ref(true, m.pg_pool[g]), {}};
                    const bool ll = (lossless >> g) & 1;
                    const shared_limit& l = m.pg_limit[g];
                    const auto lim =
                        l.static_bytes > 0
                            ? std::make_pair(std::string("static_th"), std::to_string(l.static_bytes))
                            : std::make_pair(std::string("dynamic_th"),
                                             std::to_string(l.dynamic_th != shared_limit::unset_th ? l.dynamic_th
                                                            : ll                                   ? -3
                                                                                                   : 3));
                    if (ll) {
                        const auto per_port = [&](const std::vector<uint64_t>& v) -> uint64_t {
                            return v.empty() ? 0 : v.size() == 1 ? v[0] : v[p];
                        };
                        const uint64_t xoff = per_port(m.xoff_bytes), xon = per_port(m.xon_bytes),
                                       xon_offset = per_port(m.xon_offset_bytes);
                        const uint64_t size = m.pg_reserved_bytes[g] > 0 ? m.pg_reserved_bytes[g] + xoff : 0;
                        pr.f = {{"pool", pr.pool},
                                {"size", std::to_string(size)},
                                {"xoff", std::to_string(xoff)},
                                {"xon", std::to_string(xon)},
                                {"xon_offset", std::to_string(xon_offset)},
                                lim};
                        pg[p][g] = named(profiles, names, pr, "pg_lossless_", "_profile");
                    } else {
                        pr.f = {{"pool", pr.pool}, {"size", std::to_string(m.pg_reserved_bytes[g])}, lim};
                        pg[p][g] = named(profiles, names, pr, "ingress_profile_", "");
                    }
                }
        for (size_t p = 0; p < ports; ++p)
            for (size_t q = 0; q < 8; ++q) {
                profile pr{pool_ref(false, m.queue_pool[q]), {}};
                const double alpha = b.alpha_by_queue.empty() ? b.alpha : b.alpha_by_queue[q];
                pr.f = {{"pool", pr.pool},
                        {"size", std::to_string(m.queue_reserved_bytes[q])},
                        limit_field(m.queue_limit[q], alpha, "alpha (queue " + std::to_string(q) + ")")};
                queue[p][q] = named(profiles, names, pr, "egress_profile_", "");
            }
    }

    // port-level profiles per pool, when given
    void port_profiles() {
        for (const bool ing : {true, false}) {
            const auto& res = ing ? m.port_ingress_reserved_bytes : m.port_egress_reserved_bytes;
            const auto& th = ing ? m.port_ingress_dynamic_th : m.port_egress_dynamic_th;
            const size_t n = ing ? m.ingress_pool_bytes.size() : m.egress_pool_bytes.size();
            bool given = false;
            for (size_t p = 0; p < n; ++p)
                given = given || res[p] > 0 || th[p] != shared_limit::unset_th;
            if (!given)
                continue;
            std::string list;
            for (size_t p = 0; p < n; ++p) {
                const int t = th[p] == shared_limit::unset_th ? shared_limit::no_limit_th : th[p];
                profile pr{pool_ref(ing, static_cast<int>(p)),
                           {{"pool", pool_ref(ing, static_cast<int>(p))},
                            {"size", std::to_string(res[p])},
                            {"dynamic_th", std::to_string(t)}}};
                list += (list.empty() ? "" : ",") +
                        named(profiles, names, pr, ing ? "port_ingress_profile_" : "port_egress_profile_", "");
            }
            port_list[ing ? 0 : 1] = list;
        }
        table_out& prof_t = out.emplace_back(table_out{"BUFFER_PROFILE", {}});
        for (size_t i = 0; i < profiles.size(); ++i)
            prof_t.add(names[i]).f = profiles[i].f;
    }

    // BUFFER_PG and BUFFER_QUEUE: runs of equal profiles on a port as ranges
    void buffer_tables() {
        const auto ranges = [&](const char* name, const std::vector<std::array<std::string, 8>>& of) {
            table_out& t = out.emplace_back(table_out{name, {}});
            for (size_t p = 0; p < ports; ++p)
                for (size_t lo = 0; lo < 8;) {
                    size_t hi = lo;
                    while (hi + 1 < 8 && of[p][hi + 1] == of[p][lo])
                        ++hi;
                    const std::string idx =
                        lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi);
                    t.add(port_name[p] + "|" + idx).f = {{"profile", of[p][lo]}};
                    lo = hi + 1;
                }
        };
        if (ingress)
            ranges("BUFFER_PG", pg);
        ranges("BUFFER_QUEUE", queue);
        for (const bool ing : {true, false}) {
            const std::string& list = port_list[ing ? 0 : 1];
            if (list.empty())
                continue;
            table_out& t = out.emplace_back(
                table_out{ing ? "BUFFER_PORT_INGRESS_PROFILE_LIST" : "BUFFER_PORT_EGRESS_PROFILE_LIST", {}});
            for (size_t p = 0; p < ports; ++p)
                t.add(port_name[p]).f = {{"profile_list", list}};
        }
    }

    // the traffic-class maps and PFC
    void qos_maps() {
        const auto map_fields = [](const std::array<uint8_t, 8>& v) {
            fields f;
            for (size_t c = 0; c < 8; ++c)
                f.emplace_back(std::to_string(c), std::to_string(v[c]));
            return f;
        };
        out.push_back({"TC_TO_PRIORITY_GROUP_MAP", {{"AZURE", map_fields(b.pg_map)}}});
        out.push_back({"TC_TO_QUEUE_MAP", {{"AZURE", map_fields(b.queue_map)}}});
        table_out& qos = out.emplace_back(table_out{"PORT_QOS_MAP", {}});
        for (size_t p = 0; p < ports; ++p) {
            key_entry& e = qos.add(port_name[p]);
            if (!pfc_enable.empty())
                e.f.emplace_back("pfc_enable", pfc_enable);
            e.f.emplace_back("tc_to_pg_map", "AZURE");
            e.f.emplace_back("tc_to_queue_map", "AZURE");
        }
    }
};

}   // namespace

std::string write_sonic_config(const topology& topo, int sw, const param_table& params) {
    if (sw < 0 || sw >= static_cast<int>(topo.switches.size()))
        throw config_error("switch = " + std::to_string(sw) + ": allowed [0, " +
                           std::to_string(static_cast<int>(topo.switches.size()) - 1) + "]");
    const switch_spec& s = topo.switches[static_cast<size_t>(sw)];
    const buffer_config& b = s.buffer;
    if (b.policy != "pools")
        throw config_error("buffer_policy = '" + b.policy +
                           "': a SONiC buffer configuration is written from buffer_policy pools (service pools with "
                           "ingress and egress profiles)");
    sonic_writer w(topo, sw, s);
    w.lossless_groups(params);
    w.port_tables();
    w.pool_table();
    w.group_and_queue_profiles();
    w.port_profiles();
    w.buffer_tables();
    w.qos_maps();
    return text_of(w.out);
}

}   // namespace cmswitch
