// SPDX-License-Identifier: Apache-2.0
// Barrier-synchronized incast (seed 000, after Phanishayee et al.): a client asks n servers for one Server
// Response Unit (SRU) each over one persistent TCP connection per server; the next request goes out only when
// all n SRUs have fully arrived. A request is one small frame from the client to each server.
#ifndef CMSWITCH_TRAFFIC_INCAST_H
#define CMSWITCH_TRAFFIC_INCAST_H

#include "traffic/tcp.h"

#include <cstdint>
#include <vector>

namespace cmswitch {

// Server side: on a request, writes one SRU into its connection.
class incast_server final : public flow_endpoint {
public:
    incast_server(tcp_sender& sender, frame_pool& pool, uint64_t sru_bytes)
        : m_sender(sender), m_pool(pool), m_sru(sru_bytes) {
        sender.set_other_frames(this);
    }
    void on_frame(frame* f, uint64_t) override {
        const bool request = f->kind == frame_kind::request;
        m_pool.release(f);
        if (request) {
            ++m_requests;
            m_sender.write(m_sru);
        }
    }
    uint64_t requests() const { return m_requests; }

private:
    tcp_sender& m_sender;
    frame_pool& m_pool;
    uint64_t m_sru;
    uint64_t m_requests = 0;
};

class incast_client final : public tcp_receiver::listener, public timer_client {
public:
    // receivers[i] receives flow first_flow + i from server host servers[i]. Starts the first round at start_ps.
    incast_client(host_stack& host, std::vector<tcp_receiver*> receivers, std::vector<int> servers,
                  uint32_t first_flow, uint64_t sru_bytes, uint32_t request_bytes, uint64_t start_ps);
    void on_delivered(uint32_t flow, uint64_t in_order_bytes, uint64_t now_ps) override;
    void on_timer(uint32_t) override { send_requests(now_ps()); }

    uint64_t rounds_completed() const { return m_round - 1; }
    const std::vector<uint64_t>& round_times_ps() const { return m_round_times; }

private:
    void send_requests(uint64_t now);

    host_stack& m_host;
    std::vector<tcp_receiver*> m_receivers;
    std::vector<int> m_servers;
    uint32_t m_first_flow;
    uint64_t m_sru;
    uint32_t m_request_bytes;
    uint64_t m_round = 0;        // current round, from 1
    uint64_t m_round_start = 0;
    size_t m_remaining = 0;
    std::vector<uint64_t> m_done_round;   // per server: last round whose SRU has fully arrived
    std::vector<uint64_t> m_round_times;
};

} // namespace cmswitch
#endif
