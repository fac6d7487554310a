// SPDX-License-Identifier: Apache-2.0
#include "traffic/incast.h"

#include "config/errors.h"

namespace cmswitch {

request_timing parse_request_timing(const std::string& name) {
    if (name == "simultaneous")
        return request_timing::simultaneous;
    if (name == "serialized")
        return request_timing::serialized;
    if (name == "spread")
        return request_timing::spread;
    throw config_error("request_timing = '" + name + "': allowed values are simultaneous, serialized, spread");
}

incast_client::incast_client(host_stack& host, std::vector<tcp_receiver*> receivers,
                             std::vector<incast_server*> servers, std::vector<int> server_hosts, uint32_t first_flow,
                             uint64_t sru_bytes, uint32_t request_bytes, request_timing timing,
                             uint64_t request_latency_ps, uint64_t start_ps, uint64_t spread_ps, rng r)
    : m_host(host), m_receivers(std::move(receivers)), m_servers(std::move(servers)),
      m_server_hosts(std::move(server_hosts)), m_timing(timing), m_request_latency(request_latency_ps),
      m_spread(spread_ps), m_rng(r), m_first_flow(first_flow), m_sru(sru_bytes), m_request_bytes(request_bytes),
      m_done_round(m_receivers.size(), 0) {
    for (tcp_receiver* rx : m_receivers)
        rx->set_listener(this);
    host.nic().schedule_timer(start_ps, this, 0);
}

void incast_client::start_round(uint64_t now, uint64_t arrival) {
    ++m_round;
    m_round_start = now;
    m_remaining = m_servers.size();
    for (size_t i = 0; i < m_servers.size(); ++i) {
        if (m_timing == request_timing::simultaneous) {
            m_servers[i]->request_at(arrival);
            continue;
        }
        if (m_timing == request_timing::spread) {
            m_servers[i]->request_at(arrival + m_rng.below(m_spread + 1));
            continue;
        }
        frame* f = m_host.nic().pool().acquire();
        f->kind = frame_kind::request;
        f->bytes = m_request_bytes;
        f->src = static_cast<uint16_t>(m_host.host_id());
        f->dst = static_cast<uint16_t>(m_server_hosts[i]);
        f->flow = m_first_flow + static_cast<uint32_t>(i);
        f->seq = m_round;
        f->created_ps = now;
        m_host.nic().send(f);
    }
}

void incast_client::on_delivered(uint32_t flow, uint64_t in_order_bytes, uint64_t now) {
    const size_t i = flow - m_first_flow;
    if (m_done_round[i] >= m_round || in_order_bytes < m_round * m_sru)
        return;
    m_done_round[i] = m_round;
    if (--m_remaining == 0) {
        m_round_times.push_back(now - m_round_start);
        start_round(now, now + m_request_latency);
    }
}

}   // namespace cmswitch
