// SPDX-License-Identifier: Apache-2.0
// Stewart et al.'s partition/aggregation traffic over SCTP (Stewart et al. 2011 section 3.1): an incast client that, round after
// round, opens a new association to each of its peers, asks each for `sends` messages of `send_bytes` bytes (the
// request rides on the COOKIE-ECHO), and starts the next round when every peer's reply has fully arrived; each
// peer's incast server answers on the association. A request's completion time runs from the round's start
// (association set-up included, as the client's clock does) to the reply's last byte.
#ifndef CMSWITCH_TRAFFIC_SCTP_INCAST_H
#define CMSWITCH_TRAFFIC_SCTP_INCAST_H

#include "traffic/sctp/sctp_receiver.h"
#include "traffic/sctp/sctp_sender.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace cmswitch {

// Server side of one peer: answers each association's request with `sends` x `send_bytes`.
class sctp_incast_server final : public sctp_endpoint::listener {
public:
    sctp_incast_server(sctp_sender& s, uint64_t sends, uint64_t send_bytes)
        : m_s(s), m_sends(sends), m_bytes(send_bytes) {
        s.set_setup_listener(this);
    }
    void on_established(uint32_t, uint32_t request, uint64_t) override {
        if (request)
            m_s.write(m_bytes, m_sends);
    }

private:
    sctp_sender& m_s;
    uint64_t m_sends, m_bytes;
};

class sctp_incast_client final : public sctp_receiver::listener, public timer_client {
public:
    struct request_record {
        uint64_t start_ps;
        uint64_t time_ps;
        int peer;   // index in the peer list
    };
    // receivers[i]: the client's end of the association with peer i. Starts at start_ps.
    sctp_incast_client(host_nic& nic, std::vector<sctp_receiver*> receivers, uint64_t sends, uint64_t send_bytes,
                       uint64_t start_ps);
    void on_delivered(uint32_t flow, uint64_t in_order_bytes, uint64_t now_ps) override;
    void on_timer(uint32_t) override { start_round(now_ps()); }

    uint64_t rounds_completed() const { return m_round ? m_round - 1 : 0; }
    const std::vector<request_record>& requests() const { return m_done; }
    // requests started and not finished by the end of the run (their age at `now` counts against the threshold)
    std::vector<request_record> unfinished(uint64_t now_ps) const;

private:
    void start_round(uint64_t now);
    std::vector<sctp_receiver*> m_rx;
    uint64_t m_reply_bytes;
    uint64_t m_round = 0;
    uint64_t m_round_start = 0;
    size_t m_remaining = 0;
    std::vector<uint32_t> m_first_flow_index;   // flow id -> peer index lookup (flow - m_base)
    uint32_t m_base_flow = 0;
    std::vector<bool> m_pending;
    std::vector<request_record> m_done;
};

}   // namespace cmswitch
#endif
