// SPDX-License-Identifier: Apache-2.0
// The data-receiving end of an SCTP association (RFC 4960 6.2, appendix A): cumulative TSN, out-of-order TSN
// ranges reported as gap blocks (lowest first, up to 4), delayed SACK (every 2nd packet or sack_delay; at once
// for out-of-order, duplicate or gap-filling data), and the ECN echo: a CE-marked packet sets an ECNE with its
// highest TSN and the count of marked packets since the last CWR, carried on every SACK until a CWR covers it.
#ifndef CMSWITCH_TRAFFIC_SCTP_SCTP_RECEIVER_H
#define CMSWITCH_TRAFFIC_SCTP_SCTP_RECEIVER_H

#include "traffic/sctp/sctp_endpoint.h"
#include "traffic/transport_listener.h"

#include <cstdint>
#include <vector>

namespace cmswitch {

class sctp_receiver final : public sctp_endpoint {
public:
    using listener = delivery_listener;   // in_order_bytes: payload delivered in order in this association

    sctp_receiver(host_stack& host, uint32_t flow, int peer, const sctp_config& cfg, sctp_stats& stats);
    void set_listener(listener* l) { m_listener = l; }
    void on_frame(frame* f, uint64_t now_ps) override;

    uint64_t delivered_bytes() const { return m_delivered; }
    bool ecne_pending() const { return m_ecne; }
    uint32_t ce_packets() const { return m_ce_count; }

private:
    enum : uint32_t { timer_sack = 1 };
    struct range {
        uint32_t begin, end;   // TSNs [begin, end)
        uint64_t bytes;
    };
    void on_new_association(uint32_t initial_tsn, uint64_t now) override;
    void on_timer_kind(uint32_t kind, uint32_t tag, uint64_t now) override;
    void send_sack(uint64_t now);

    listener* m_listener = nullptr;
    uint32_t m_next = 1;   // next TSN expected
    std::vector<range> m_ooo;   // received above m_next, sorted, disjoint, not adjacent
    uint64_t m_delivered = 0;
    uint32_t m_unacked = 0;   // packets since the last SACK
    bool m_sack_pending = false;
    uint32_t m_sack_gen = 0;
    bool m_ecne = false;
    uint32_t m_ecne_tsn = 0;
    uint32_t m_ce_count = 0;
};

}   // namespace cmswitch
#endif
