// SPDX-License-Identifier: Apache-2.0
// Stewart et al.'s elephant flows over SCTP (Stewart et al. 2011 section 3.2): a source that picks a random size (uniform in
// [min_bytes, max_bytes]; the paper's 100,000,000 .. 536,870,912), then sends that many bytes to each of its peers
// in turn, one new association per transfer, the next transfer starting when the last byte is acknowledged; it
// repeats forever. The sink side records each transfer's first and last byte arrival: the paper's bandwidth is
// bytes / (last - first) at the sink.
#ifndef CMSWITCH_TRAFFIC_SCTP_ELEPHANT_H
#define CMSWITCH_TRAFFIC_SCTP_ELEPHANT_H

#include "model/rng.h"
#include "traffic/sctp/sctp_receiver.h"
#include "traffic/sctp/sctp_sender.h"

#include <cstdint>
#include <vector>

namespace cmswitch {

class sctp_elephant_source final : public sctp_sender::listener,
                                   public sctp_endpoint::listener,
                                   public sctp_receiver::listener,
                                   public timer_client {
public:
    struct transfer {
        int peer;   // index in the peer list
        uint64_t bytes;
        uint64_t start_ps;   // association start
        uint64_t first_byte_ps;   // at the sink
        uint64_t last_byte_ps;   // at the sink (0: not complete)
        uint64_t delivered;   // bytes at the sink so far
    };
    // senders[i] / sinks[i]: the two ends of the association with peer i.
    sctp_elephant_source(host_nic& nic, std::vector<sctp_sender*> senders, std::vector<sctp_receiver*> sinks,
                         uint64_t min_bytes, uint64_t max_bytes, rng r, uint64_t start_ps);

    void on_timer(uint32_t) override { next(now_ps()); }
    void on_established(uint32_t flow, uint32_t, uint64_t now_ps) override;
    void on_send_complete(uint32_t flow, uint64_t now_ps) override;
    void on_delivered(uint32_t flow, uint64_t in_order_bytes, uint64_t now_ps) override;

    const std::vector<transfer>& transfers() const { return m_transfers; }
    // Bytes that reached each peer's sink, per time bin of bin_ps (for the bandwidth-over-time figure).
    const std::vector<uint64_t>& bytes_per_bin(int peer_class) const { return m_bins[peer_class]; }
    void set_bins(uint64_t bin_ps, std::vector<int> peer_class) {
        m_bin_ps = bin_ps;
        m_class = std::move(peer_class);
    }

private:
    void next(uint64_t now);
    std::vector<sctp_sender*> m_tx;
    std::vector<sctp_receiver*> m_rx;
    uint64_t m_min, m_max;
    rng m_rng;
    uint32_t m_base_flow;
    size_t m_peer = 0;   // next peer in the list
    uint64_t m_round_bytes = 0;   // the size of the current pass over the peers
    std::vector<transfer> m_transfers;
    uint64_t m_bin_ps = 0;
    std::vector<int> m_class;   // per peer: which bin series counts its bytes (0, 1)
    std::vector<uint64_t> m_bins[2];
};

}   // namespace cmswitch
#endif
