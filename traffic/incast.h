// SPDX-License-Identifier: Apache-2.0
// Barrier-synchronized incast (Devkota & Reddy 2010, after Phanishayee et al.): a client asks n servers for one Server
// Response Unit (SRU) each over one persistent TCP connection per server; the next request goes out only when
// all n SRUs have fully arrived. A request is one small frame from the client to each server.
#ifndef CMSWITCH_TRAFFIC_INCAST_H
#define CMSWITCH_TRAFFIC_INCAST_H

#include "model/rng.h"
#include "traffic/tcp/tcp_receiver.h"
#include "traffic/tcp/tcp_sender.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cmswitch {

// How the client's requests reach the servers.
//  - simultaneous: every server gets its request at the same instant, one unloaded request latency after the
//    round ends (the idealization of the paper's ns-2 runs: no request frames, no serialization among them);
//  - serialized: the client sends one request frame per server through its NIC (n x 64-byte frames one after
//    another, behind any ACKs waiting there), so server i starts i x 0.512 us (at 1 Gbps) after server 0;
//  - spread: as simultaneous, but each server starts at a random time (uniform, drawn anew every round) up to a
//    spread after the others: hosts whose CPUs take turns (the kernel incast of validation/linux, where 64 servers
//    on 2 cores start over about 10 ms).
enum class request_timing { simultaneous, serialized, spread };
request_timing parse_request_timing(const std::string& name);   // throws config_error

// Server side: on a request, writes one SRU into its connection.
class incast_server final : public flow_endpoint, public timer_client {
public:
    incast_server(tcp_sender& sender, host_nic& nic, uint64_t sru_bytes)
        : m_sender(sender), m_nic(nic), m_sru(sru_bytes) {
        sender.set_other_frames(this);
    }
    // A request frame (serialized timing).
    void on_frame(frame* f, uint64_t) override {
        const bool request = f->kind == frame_kind::request;
        m_nic.pool().release(f);
        if (request)
            serve();
    }
    // A request that arrives at t_ps without a frame (simultaneous timing); t_ps >= now.
    void request_at(uint64_t t_ps) { m_nic.schedule_timer(t_ps, this, 0); }
    void on_timer(uint32_t) override { serve(); }
    uint64_t requests() const { return m_requests; }
    uint64_t last_request_ps() const { return m_last_request_ps; }

private:
    void serve() {
        ++m_requests;
        m_last_request_ps = now_ps();
        m_sender.write(m_sru);
    }
    tcp_sender& m_sender;
    host_nic& m_nic;
    uint64_t m_sru;
    uint64_t m_requests = 0;
    uint64_t m_last_request_ps = 0;
};

class incast_client final : public tcp_receiver::listener, public timer_client {
public:
    // receivers[i] receives flow first_flow + i from server host server_hosts[i], served by servers[i]. Starts
    // the first round at start_ps (with simultaneous timing its requests arrive then). request_latency_ps: for
    // simultaneous timing, the time from the end of a round to the requests' arrival; spread_ps and r: the spread
    // timing's largest offset and its draws.
    incast_client(host_stack& host, std::vector<tcp_receiver*> receivers, std::vector<incast_server*> servers,
                  std::vector<int> server_hosts, uint32_t first_flow, uint64_t sru_bytes, uint32_t request_bytes,
                  request_timing timing, uint64_t request_latency_ps, uint64_t start_ps, uint64_t spread_ps = 0,
                  rng r = rng());
    void on_delivered(uint32_t flow, uint64_t in_order_bytes, uint64_t now_ps) override;
    void on_timer(uint32_t) override { start_round(now_ps(), now_ps()); }

    uint64_t rounds_completed() const { return m_round ? m_round - 1 : 0; }
    const std::vector<uint64_t>& round_times_ps() const { return m_round_times; }

private:
    // Starts the next round at now; the servers get their requests at `arrival` (simultaneous timing).
    void start_round(uint64_t now, uint64_t arrival);

    host_stack& m_host;
    std::vector<tcp_receiver*> m_receivers;
    std::vector<incast_server*> m_servers;
    std::vector<int> m_server_hosts;
    request_timing m_timing;
    uint64_t m_request_latency;
    uint64_t m_spread;
    rng m_rng;
    uint32_t m_first_flow;
    uint64_t m_sru;
    uint32_t m_request_bytes;
    uint64_t m_round = 0;   // current round, from 1
    uint64_t m_round_start = 0;
    size_t m_remaining = 0;
    std::vector<uint64_t> m_done_round;   // per server: last round whose SRU has fully arrived
    std::vector<uint64_t> m_round_times;
};

}   // namespace cmswitch
#endif
