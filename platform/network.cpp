// SPDX-License-Identifier: Apache-2.0
#include "platform/network.h"

#include "model/cm/pause/pause_config.h"
#include "model/switch/sonic_headroom.h"

#include <cmath>

#include "model/cm/pause/pause_scheme.h"

#include "config/errors.h"
#include "platform/run_control.h"

#include <algorithm>
#include <deque>
#include <sstream>

namespace cmswitch {

std::string conservation::describe() const {
    std::ostringstream s;
    s << "offered " << offered_frames << " frames / " << offered_bytes << " B; delivered " << delivered_frames << " / "
      << delivered_bytes << "; dropped " << dropped_frames << " / " << dropped_bytes << "; queued " << queued_frames
      << " / " << queued_bytes << "; in flight " << in_flight_frames << " / " << in_flight_bytes
      << "; frames live in pool " << live_frames;
    return s.str();
}

void network::validate() const {
    const topology& t = m_topo;
    if (t.hosts < 1)
        throw config_error("hosts = " + std::to_string(t.hosts) + ": a network needs at least 1 host");
    if (t.multipath != "first" && t.multipath != "by_destination" && t.multipath != "hashed")
        throw config_error("multipath = '" + t.multipath + "': allowed values are first, by_destination, hashed");
    if (t.event_domains != "shared" && t.event_domains != "grouped" && t.event_domains != "per_block")
        throw config_error("event_domains = '" + t.event_domains + "': allowed values are shared, grouped, per_block");
    if (t.nic_queue_bytes < max_frame_bytes)
        throw config_error("nic_queue_bytes = " + std::to_string(t.nic_queue_bytes) +
                           ": must be >= " + std::to_string(max_frame_bytes));
    std::vector<int> host_used(static_cast<size_t>(t.hosts), 0);
    std::vector<std::vector<int>> port_used(t.switches.size());
    for (size_t s = 0; s < t.switches.size(); ++s) {
        if (t.switches[s].ports < 1)
            throw config_error("switch " + std::to_string(s) + " ports = " + std::to_string(t.switches[s].ports) +
                               ": must be >= 1");
        port_used[s].assign(static_cast<size_t>(t.switches[s].ports), 0);
    }
    for (size_t i = 0; i < t.links.size(); ++i) {
        const link_spec& l = t.links[i];
        const std::string where = "link " + std::to_string(i);
        if (l.rate_bps == 0)
            throw config_error(where + " rate = 0 bit/s: must be > 0");
        for (int end = 0; end < 2; ++end) {
            const node_ref& n = end ? l.b : l.a;
            const int port = end ? l.b_port : l.a_port;
            if (n.kind == node_ref::host) {
                if (n.id < 0 || n.id >= t.hosts)
                    throw config_error(where + ": host " + std::to_string(n.id) + " outside [0, " +
                                       std::to_string(t.hosts - 1) + "]");
                if (port != 0)
                    throw config_error(where + ": host " + std::to_string(n.id) + " port " + std::to_string(port) +
                                       ": hosts have one port, 0");
                if (host_used[static_cast<size_t>(n.id)]++)
                    throw config_error(where + ": host " + std::to_string(n.id) + " is linked twice");
            } else {
                if (n.id < 0 || n.id >= static_cast<int>(t.switches.size()))
                    throw config_error(where + ": switch " + std::to_string(n.id) + " outside [0, " +
                                       std::to_string(static_cast<int>(t.switches.size()) - 1) + "]");
                auto& used = port_used[static_cast<size_t>(n.id)];
                if (port < 0 || port >= static_cast<int>(used.size()))
                    throw config_error(where + ": switch " + std::to_string(n.id) + " port " + std::to_string(port) +
                                       " outside [0, " + std::to_string(used.size() - 1) + "]");
                if (used[static_cast<size_t>(port)]++)
                    throw config_error(where + ": switch " + std::to_string(n.id) + " port " + std::to_string(port) +
                                       " is linked twice");
            }
        }
        if (l.a.kind == node_ref::host && l.b.kind == node_ref::host)
            throw config_error(where + " joins two hosts: hosts connect to switches");
    }
    for (int h = 0; h < t.hosts; ++h)
        if (!host_used[static_cast<size_t>(h)])
            throw config_error("host " + std::to_string(h) + " has no link: it cannot send or receive");
    for (size_t s = 0; s < t.switches.size(); ++s)
        for (size_t p = 0; p < port_used[s].size(); ++p)
            if (!port_used[s][p])
                throw config_error("switch " + std::to_string(s) + " port " + std::to_string(p) +
                                   " is dangling: every switch port needs a link");
}

network::network(sc_core::sc_module_name name, const topology& topo) : sc_module(name), m_topo(topo) {
    try {
        build();
    } catch (...) {   // an interrupted or refused build goes as fast as a finished one
        teardown();
        throw;
    }
}

void describe_switch_ports(topology& topo) {
    // cables given in metres set their links' propagation (the first switch end's port decides a shared link)
    for (link_spec& l : topo.links)
        for (int end = 0; end < 2; ++end) {
            const node_ref& n = end ? l.b : l.a;
            if (n.kind != node_ref::sw)
                continue;
            const std::vector<double>& cable = topo.switches[static_cast<size_t>(n.id)].buffer.mmu.cable_m;
            const int port = end ? l.b_port : l.a_port;
            if (cable.empty())
                continue;
            if (cable.size() != 1 &&
                cable.size() != static_cast<size_t>(topo.switches[static_cast<size_t>(n.id)].ports))
                throw config_error("cable_m: " + std::to_string(cable.size()) +
                                   " entries; give one (every port) or one "
                                   "per switch port (" +
                                   std::to_string(topo.switches[static_cast<size_t>(n.id)].ports) + ")");
            const double m = cable.size() == 1 ? cable[0] : cable[static_cast<size_t>(port)];
            l.delay_ps = static_cast<uint64_t>(std::llround(m / sonic_cable_speed_mps * 1e12));
            break;
        }
    // the lossless headroom of a service-pool buffer's priority groups, per port, by its rule (mmu_config.h)
    for (size_t s = 0; s < topo.switches.size(); ++s) {
        buffer_config& b = topo.switches[s].buffer;
        if (b.policy != "pools")
            continue;
        mmu_config& m = b.mmu;
        if (m.headroom_rule == "given")
            continue;
        if (m.headroom_rule != "formula" && m.headroom_rule != "sonic")
            throw config_error("headroom = '" + m.headroom_rule + "': allowed values are formula, sonic, given");
        const size_t ports = static_cast<size_t>(topo.switches[s].ports);
        m.xoff_bytes.assign(ports, 0);
        m.xon_bytes.assign(ports, 0);
        m.xon_offset_bytes.assign(ports, 0);
        std::vector<const link_spec*> at(ports, nullptr);
        for (const link_spec& l : topo.links) {
            if (l.a.kind == node_ref::sw && l.a.id == static_cast<int>(s))
                at[static_cast<size_t>(l.a_port)] = &l;
            if (l.b.kind == node_ref::sw && l.b.id == static_cast<int>(s))
                at[static_cast<size_t>(l.b_port)] = &l;
        }
        sonic_headroom_inputs in = m.sonic;
        in.cell_bytes = b.cell_bytes;
        in.shared_headroom_pool = m.headroom_pool_bytes > 0;
        // the largest frame the hosts send (jumbo frames), at least a standard one
        const uint32_t mtu = std::max<uint32_t>(1500, topo.host_egress.mtu_bytes);
        for (size_t p = 0; p < ports; ++p) {
            const uint64_t rate = at[p]->rate_bps, delay = at[p]->delay_ps;
            if (m.headroom_rule == "formula") {   // the headroom formula; XON 2 MTU below the limit
                m.xoff_bytes[p] = pause_headroom_bytes(rate, delay, mtu);
                m.xon_offset_bytes[p] = 2 * mtu;
            } else {
                const sonic_headroom h =
                    sonic_headroom_bytes(rate, static_cast<double>(delay) * 1e-12 * sonic_cable_speed_mps, in);
                m.xoff_bytes[p] = h.xoff;
                m.xon_bytes[p] = h.xon;
            }
        }
    }
}

void network::build() {
    validate();
    describe_switch_ports(m_topo);
    const std::string& policy = m_topo.event_domains;
    const bool decoupled = policy == "shared" && m_topo.temporal_decoupling;
    // calendar buckets about a quarter of a 1500-byte frame time of the fastest link wide (2.1 us at 1 Gb/s, 262
    // ns at 10 Gb/s, 65 ns at 40 Gb/s; 4096 of them): about one event each, so that keeping a bucket sorted rarely
    // reorders (only speed depends on it; measured: a quarter frame and 4096 buckets against half a frame
    // and 1024, -3.5 % wall time on the 40 Gb/s RDMA incast, -10 % on the 25 Gb/s workload, the same at 1 Gb/s)
    uint64_t fastest = 1;
    for (const auto& l : m_topo.links)
        fastest = std::max<uint64_t>(fastest, l.rate_bps);
    const double frame_ps = 1500.0 * 8 * 1e12 / static_cast<double>(fastest);
    const int shift = std::max(14, std::min(22, static_cast<int>(std::floor(std::log2(frame_ps))) - 2));
    auto new_domain = [this, decoupled, shift](const std::string& name) -> event_domain& {
        m_domains.emplace_back(new event_domain(name.c_str(), decoupled));
        m_created.push_back({block::domain, m_domains.size() - 1});
        m_domains.back()->set_bucket_shift(shift);
        return *m_domains.back();
    };
    event_domain* shared = policy == "per_block" ? nullptr : &new_domain("events");
    for (int h = 0; h < m_topo.hosts; ++h) {
        run_control::poll_build();   // Ctrl-C and progress while a large network builds
        event_domain& d = shared ? *shared : new_domain("events_host" + std::to_string(h));
        m_nics.emplace_back(new host_nic(("host" + std::to_string(h)).c_str(), h, m_topo.nic_queue_bytes, m_pool, d));
        if (m_topo.host_egress.active() || m_topo.host_egress.latency_ps || m_topo.host_egress.receive.active())
            m_nics.back()->configure_egress(m_topo.host_egress);
        m_stacks.emplace_back(new host_stack(*m_nics.back(), m_flows));
        m_created.push_back({block::host, m_nics.size() - 1});
    }
    for (size_t s = 0; s < m_topo.switches.size(); ++s) {
        run_control::poll_build();
        event_domain& d = policy == "shared" ? *shared : new_domain("events_switch" + std::to_string(s));
        m_switches.emplace_back(new ethernet_switch(("switch" + std::to_string(s)).c_str(), m_topo.switches[s].ports,
                                                    m_topo.hosts, m_topo.switches[s].buffer, m_pool, d,
                                                    static_cast<int>(s)));
        m_created.push_back({block::sw, m_switches.size() - 1});
    }
    // every link: each end's transmitter connected straight to the other end's receiver (no link module, no
    // sockets: a few words in the transmitting port; ethernet_link is for blocks bound through TLM sockets)
    for (const link_spec& l : m_topo.links) {
        run_control::poll_build();
        const link_timing timing(l.rate_bps, l.delay_ps);
        const frame_sink into_a =
            l.a.kind == node_ref::host ? nic(l.a.id).arrival_sink() : sw(l.a.id).arrival_sink(l.a_port);
        const frame_sink into_b =
            l.b.kind == node_ref::host ? nic(l.b.id).arrival_sink() : sw(l.b.id).arrival_sink(l.b_port);
        if (l.a.kind == node_ref::host)
            nic(l.a.id).connect(timing, into_b);
        else
            sw(l.a.id).connect(l.a_port, timing, into_b);
        if (l.b.kind == node_ref::host)
            nic(l.b.id).connect(timing, into_a);
        else
            sw(l.b.id).connect(l.b_port, timing, into_a);
    }
    compute_routes();
    // hosts' service rates: the link direction toward the host
    for (const auto& sc : m_topo.host_service) {
        if (sc.host < 0 || sc.host >= m_topo.hosts)
            throw config_error("service rate change for host " + std::to_string(sc.host) + ": no such host");
        if (sc.rate_bps == 0)
            throw config_error("service rate of host " + std::to_string(sc.host) + " = 0: must be > 0");
    }
    for (const link_spec& l : m_topo.links)
        for (int end = 0; end < 2; ++end) {
            const node_ref& n = end ? l.b : l.a;
            if (n.kind != node_ref::host)
                continue;
            std::vector<std::pair<uint64_t, uint64_t>> sched;
            for (const auto& sc : m_topo.host_service)
                if (sc.host == n.id)
                    sched.emplace_back(sc.t_ps, sc.rate_bps);
            std::sort(sched.begin(), sched.end());
            if (sched.empty())
                continue;
            // the direction into the host: the other end transmits it
            const node_ref& far = end ? l.a : l.b;
            link_timing& t =
                far.kind == node_ref::host ? nic(far.id).link() : sw(far.id).port_link(end ? l.a_port : l.b_port);
            t.set_rate_schedule(std::move(sched));
        }
    // every transmitter learns its link's rate (PAUSE quanta are 512 bit times at that rate)
    for (const link_spec& l : m_topo.links)
        for (int end = 0; end < 2; ++end) {
            const node_ref& n = end ? l.b : l.a;
            if (n.kind == node_ref::host)
                nic(n.id).set_link_rate(l.rate_bps);
            else
                sw(n.id).set_port_rate(end ? l.b_port : l.a_port, l.rate_bps);
        }
    run_control::set_event_counter([this] { return events(); });
}

void network::enable_pause(const pause_config& cfg) {
    install_pause(*this, cfg);
}

const link_spec* network::port_link(int s, int port) const {
    for (const link_spec& l : m_topo.links)
        if ((l.a.kind == node_ref::sw && l.a.id == s && l.a_port == port) ||
            (l.b.kind == node_ref::sw && l.b.id == s && l.b_port == port))
            return &l;
    return nullptr;
}

uint64_t network::port_rate_bps(int s, int port) const {
    const link_spec* l = port_link(s, port);
    return l ? l->rate_bps : 0;
}

uint64_t network::port_delay_ps(int s, int port) const {
    const link_spec* l = port_link(s, port);
    return l ? l->delay_ps : 0;
}

uint64_t network::host_rate_bps(int host) const {
    for (const link_spec& l : m_topo.links)
        if ((l.a.kind == node_ref::host && l.a.id == host) || (l.b.kind == node_ref::host && l.b.id == host))
            return l.rate_bps;
    return 0;
}

network::~network() {
    teardown();
}

void network::teardown() {
    run_control::set_event_counter(nullptr);
    // The order matters for speed only. SystemC 2.3.4 removes a deleted module from its module registry and from
    // its parent's list of children by a search from the front, the removed entry replaced by the last one, and
    // its ports and exports from their registries by a search from the end. The first block created, then the
    // others last-first, is found at once in all of them (after the first, the last one moved to the front).
    // The blocks are children of the network module rather than top-level objects because a deleted module's
    // leftover children (its processes) move to the top-level list until they go, which would spoil that order
    // there. In creation order (what the vectors' destructors do) the teardown of a large network was quadratic:
    // a third of a k = 24 fat-tree's build and teardown, and tens of seconds for k = 64 (after Ctrl-C in its
    // build too); now k = 64 goes in well under a second.
    auto drop = [this](const created& c) {
        switch (c.kind) {
        case block::domain: m_domains[c.index].reset(); break;
        case block::host:
            m_stacks[c.index].reset();
            m_nics[c.index].reset();
            break;
        case block::sw: m_switches[c.index].reset(); break;
        }
    };
    if (!m_created.empty())
        drop(m_created.front());
    for (size_t i = m_created.size(); i-- > 1;)
        drop(m_created[i]);
    m_created.clear();
    m_switches.clear();
    m_stacks.clear();
    m_nics.clear();
    m_domains.clear();
}

void network::compute_routes() {
    // Adjacency: for every switch port, the node at its other end.
    std::vector<std::vector<node_ref>> peer(m_topo.switches.size());
    for (size_t s = 0; s < peer.size(); ++s)
        peer[s].resize(static_cast<size_t>(m_topo.switches[s].ports));
    std::vector<node_ref> host_peer(static_cast<size_t>(m_topo.hosts));
    std::vector<std::vector<int>> host_ports(static_cast<size_t>(m_topo.hosts));   // its switch's ports to it
    for (const link_spec& l : m_topo.links) {
        if (l.a.kind == node_ref::sw)
            peer[static_cast<size_t>(l.a.id)][static_cast<size_t>(l.a_port)] = l.b;
        else
            host_peer[static_cast<size_t>(l.a.id)] = l.b;
        if (l.b.kind == node_ref::sw)
            peer[static_cast<size_t>(l.b.id)][static_cast<size_t>(l.b_port)] = l.a;
        else
            host_peer[static_cast<size_t>(l.b.id)] = l.a;
        if (l.a.kind == node_ref::sw && l.b.kind == node_ref::host)
            host_ports[static_cast<size_t>(l.b.id)].push_back(l.a_port);
        if (l.b.kind == node_ref::sw && l.a.kind == node_ref::host)
            host_ports[static_cast<size_t>(l.a.id)].push_back(l.b_port);
    }
    for (auto& ports : host_ports)   // in port order, as the search over the ports found them
        std::sort(ports.begin(), ports.end());
    const size_t ns = m_topo.switches.size();
    for (int h = 0; h < m_topo.hosts; ++h) {
        run_control::poll_build();
        // hops from each switch to host h, by breadth-first search from the host's own switch
        std::vector<int> dist(ns, -1);
        std::deque<int> todo;
        const int first = host_peer[static_cast<size_t>(h)].id;
        dist[static_cast<size_t>(first)] = 0;
        todo.push_back(first);
        while (!todo.empty()) {
            const int s = todo.front();
            todo.pop_front();
            for (const node_ref& n : peer[static_cast<size_t>(s)])
                if (n.kind == node_ref::sw && dist[static_cast<size_t>(n.id)] < 0) {
                    dist[static_cast<size_t>(n.id)] = dist[static_cast<size_t>(s)] + 1;
                    todo.push_back(n.id);
                }
        }
        for (size_t s = 0; s < ns; ++s) {
            if (dist[s] < 0)
                throw config_error("no route from switch " + std::to_string(s) + " to host " + std::to_string(h) +
                                   ": the topology is not connected");
            std::vector<int> candidates;
            if (dist[s] == 0) {   // the host's own switch: the ports its link ends on (not a search over them all)
                candidates = host_ports[static_cast<size_t>(h)];
            } else {
                for (size_t p = 0; p < peer[s].size(); ++p) {
                    const node_ref& n = peer[s][p];
                    if (n.kind == node_ref::sw && dist[static_cast<size_t>(n.id)] == dist[s] - 1)
                        candidates.push_back(static_cast<int>(p));
                }
            }
            size_t pick = 0;
            if (m_topo.multipath == "by_destination") {
                pick = static_cast<size_t>(h) % candidates.size();
            } else if (m_topo.multipath == "hashed") {   // a fixed mix of (destination, switch): deterministic
                uint64_t x = (static_cast<uint64_t>(h) + 1) * 0x9E3779B97F4A7C15ull ^ (s + 1) * 0xC2B2AE3D27D4EB4Full;
                x ^= x >> 31;
                x *= 0xBF58476D1CE4E5B9ull;
                x ^= x >> 29;
                pick = static_cast<size_t>(x % candidates.size());
            }
            sw(static_cast<int>(s)).set_route(h, candidates[pick]);
        }
    }
}

conservation network::account() const {
    conservation c;
    for (const auto& n : m_nics) {
        c.offered_frames += n->offered_frames();
        c.offered_bytes += n->offered_bytes();
        c.delivered_frames += n->delivered_frames();
        c.delivered_bytes += n->delivered_bytes();
        c.dropped_frames += n->dropped_frames();
        c.dropped_bytes += n->dropped_bytes();
        n->queued(c.queued_frames, c.queued_bytes);
    }
    for (const auto& s : m_switches) {
        c.offered_frames += s->originated_frames();   // CNMs and PAUSE frames start at switches
        c.offered_bytes += s->originated_bytes();
        c.delivered_frames += s->consumed_frames();   // PAUSE frames end at the switch that receives them
        c.delivered_bytes += s->consumed_bytes();
        for (int p = 0; p < s->num_ports(); ++p)
            for (int r = 1; r < num_drop_reasons; ++r) {
                c.dropped_frames += s->counters(p).drop_frames[static_cast<size_t>(r)];
                c.dropped_bytes += s->counters(p).drop_bytes[static_cast<size_t>(r)];
            }
        s->queued(c.queued_frames, c.queued_bytes);
    }
    for (const auto& d : m_domains)   // frames on links: pending arrivals, one pass over each domain
        d->frames_in_flight(c.in_flight_frames, c.in_flight_bytes);
    c.live_frames = m_pool.live();
    return c;
}

void network::check_conservation() const {
    const conservation c = account();
    if (!c.holds())
        throw model_error("conservation of frames/bytes violated: " + c.describe());
    for (const auto& s : m_switches)   // and every switch's buffer books against the frames it holds
        s->check_buffer();
}

uint64_t network::events() const {
    uint64_t n = 0;
    for (const auto& d : m_domains)
        n += d->dispatched();
    return n;
}

}   // namespace cmswitch
