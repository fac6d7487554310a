// SPDX-License-Identifier: Apache-2.0
#include "traffic/flow_workload.h"

#include "config/errors.h"

#include <algorithm>

namespace cmswitch {

namespace {
constexpr uint32_t incast_tag = 0xffffffffu;
constexpr uint32_t bulk_tag = 0xfffffffeu;
}   // namespace

flow_workload::flow_workload(std::vector<host_stack*> hosts, const tcp_config& tcp, const flow_size_distribution& sizes,
                             const flow_workload_config& cfg)
    : m_hosts(std::move(hosts)), m_tcp(std::make_shared<const tcp_config>(tcp)), m_sizes(sizes), m_cfg(cfg),
      m_incast_rng(cfg.seed, stream_id(random_stream::workload, 1u << 20)) {
    const int n = static_cast<int>(m_hosts.size());
    if (n < 2)
        throw config_error("a flow workload needs at least 2 hosts");
    if ((!cfg.load_by_host.empty() && cfg.load_by_host.size() != m_hosts.size()) ||
        (!cfg.rate_by_host.empty() && cfg.rate_by_host.size() != m_hosts.size()))
        throw model_error("flow_workload: load_by_host / rate_by_host need one entry per host");
    tcp_config incast_tcp = tcp;
    incast_tcp.prio = cfg.incast_prio;
    m_incast_tcp = std::make_shared<const tcp_config>(std::move(incast_tcp));
    if (cfg.incast_senders.empty())
        for (int h = 0; h < n; ++h)
            m_cfg.incast_senders.push_back(h);
    if (cfg.incast_targets.empty())
        for (int h = 0; h < n; ++h)
            m_cfg.incast_targets.push_back(h);
    if (cfg.incast_fanin > 0) {
        // every receiver needs fanin senders other than itself
        const auto senders = static_cast<int>(m_cfg.incast_senders.size());
        const auto targets = static_cast<int>(m_cfg.incast_targets.size());
        if (cfg.incast_receivers > targets)
            throw config_error("incast_receivers = " + std::to_string(cfg.incast_receivers) + ": at most " +
                               std::to_string(targets) + " hosts can receive an incast");
        bool overlap = false;   // a receiver may be one of the senders' hosts: it does not send to itself
        for (int t : m_cfg.incast_targets)
            overlap = overlap || std::find(m_cfg.incast_senders.begin(), m_cfg.incast_senders.end(), t) !=
                                     m_cfg.incast_senders.end();
        const int most = senders - (overlap ? 1 : 0);
        if (cfg.incast_fanin > most)
            throw config_error("incast_fanin = " + std::to_string(cfg.incast_fanin) + ": at most " +
                               std::to_string(most) + " (the hosts incast senders come from" +
                               (overlap ? ", less the receiver)" : ")"));
    }
    for (int d : cfg.destinations)
        if (d < 0 || d >= n)
            throw config_error("flow_destinations: host " + std::to_string(d) + " is not in [0, " +
                               std::to_string(n - 1) + "]");
    m_gap_ps.assign(m_hosts.size(), 0);
    for (int h = 0; h < n; ++h) {
        m_host_rng.emplace_back(cfg.seed, stream_id(random_stream::workload, static_cast<uint64_t>(h)));
        const double load = cfg.load_by_host.empty() ? cfg.load : cfg.load_by_host[static_cast<size_t>(h)];
        const uint64_t rate = cfg.rate_by_host.empty() ? cfg.host_rate_bps : cfg.rate_by_host[static_cast<size_t>(h)];
        const bool only_itself = cfg.destinations.size() == 1 && cfg.destinations[0] == h;
        if (load > 0 && !only_itself) {
            m_gap_ps[static_cast<size_t>(h)] = sizes.mean() * 8 / (load * static_cast<double>(rate)) * 1e12;
            m_hosts[static_cast<size_t>(h)]->nic().schedule_timer(
                static_cast<uint64_t>(m_host_rng.back().exponential(m_gap_ps[static_cast<size_t>(h)])), this,
                static_cast<uint32_t>(h));
        }
    }
    if (cfg.bulk_flows > 0)
        m_hosts[0]->nic().schedule_timer(0, this, bulk_tag);
    if (cfg.incast_fanin > 0 && cfg.incast_period_ps > 0)
        m_hosts[0]->nic().schedule_timer(m_incast_rng.below(cfg.incast_period_ps), this, incast_tag);
}

void flow_workload::start_flow(int src, int dst, uint64_t bytes, uint64_t now, int64_t incast) {
    const uint32_t flow = static_cast<uint32_t>(m_flows.size());
    m_flows.push_back({flow, src, dst, bytes, now, 0, incast});
    m_stats.emplace_back();
    tcp_stats& st = m_stats.back();
    const shared_tcp_config& tcp = incast >= 0 ? m_incast_tcp : m_tcp;
    m_senders.emplace_back(new tcp_sender(*m_hosts[static_cast<size_t>(src)], flow, dst, tcp, st,
                                          rng(m_cfg.seed, stream_id(random_stream::source, flow))));
    m_receivers.emplace_back(new tcp_receiver(*m_hosts[static_cast<size_t>(dst)], flow, src, tcp, st));
    m_receivers.back()->set_listener(this);
    m_senders.back()->write(bytes);
}

void flow_workload::start_bulk_flows(uint64_t now) {
    const int n = static_cast<int>(m_hosts.size());
    for (int h = 0; h < n; ++h) {
        if (m_gap_ps[static_cast<size_t>(h)] == 0)   // offers no Poisson flows
            continue;
        std::vector<int> to;
        if (m_cfg.destinations.empty()) {
            for (int d = 0; d < n; ++d)
                if (d != h)
                    to.push_back(d);
        } else {
            for (int d : m_cfg.destinations)
                if (d != h)
                    to.push_back(d);
        }
        for (int k = 0; k < m_cfg.bulk_flows; ++k)
            start_flow(h, to[static_cast<size_t>(h + k) % to.size()], bulk_bytes, now, bulk);
    }
}

void flow_workload::on_timer(uint32_t tag) {
    const uint64_t now = now_ps();
    if (tag == bulk_tag) {
        start_bulk_flows(now);
        return;
    }
    if (now >= m_cfg.stop_ps)
        return;
    const int n = static_cast<int>(m_hosts.size());
    if (tag == incast_tag) {
        // a random subset: partial Fisher-Yates over a copy of the candidates
        auto pick = [&](std::vector<int>& from, size_t k) {
            const size_t j = k + m_incast_rng.below(from.size() - k);
            std::swap(from[k], from[j]);
            return from[k];
        };
        std::vector<int> targets = m_cfg.incast_targets;
        for (int r = 0; r < m_cfg.incast_receivers; ++r) {
            const int receiver = pick(targets, static_cast<size_t>(r));
            std::vector<int> others;
            for (int h : m_cfg.incast_senders)
                if (h != receiver)
                    others.push_back(h);
            for (int k = 0; k < m_cfg.incast_fanin; ++k)
                start_flow(pick(others, static_cast<size_t>(k)), receiver, m_cfg.incast_bytes, now, m_incasts);
            ++m_incasts;
        }
        m_hosts[0]->nic().schedule_timer(now + m_cfg.incast_period_ps, this, incast_tag);
        return;
    }
    const int src = static_cast<int>(tag);
    rng& r = m_host_rng[static_cast<size_t>(src)];
    int dst;
    if (m_cfg.destinations.empty()) {
        dst = static_cast<int>(r.below(static_cast<uint64_t>(n - 1)));
        if (dst >= src)
            ++dst;
    } else {   // uniform over the listed hosts other than src
        const auto& d = m_cfg.destinations;
        const bool listed = std::find(d.begin(), d.end(), src) != d.end();
        const size_t k = r.below(d.size() - (listed ? 1 : 0));
        size_t i = 0;
        for (size_t seen = 0;; ++i)
            if (d[i] != src && seen++ == k)
                break;
        dst = d[i];
    }
    start_flow(src, dst, m_sizes.sample(r), now, poisson);
    m_hosts[static_cast<size_t>(src)]->nic().schedule_timer(
        now + static_cast<uint64_t>(r.exponential(m_gap_ps[static_cast<size_t>(src)])), this, tag);
}

void flow_workload::on_delivered(uint32_t flow, uint64_t in_order_bytes, uint64_t now) {
    flow_record& f = m_flows[flow];
    if (f.end_ps == 0 && in_order_bytes >= f.bytes)
        f.end_ps = now;
    if (f.incast == bulk)
        f.delivered = in_order_bytes;
}

}   // namespace cmswitch
