// SPDX-License-Identifier: Apache-2.0
// The data-sending end of an SCTP association (RFC 4960 sections 6 and 7, single-homed):
//  - messages are split into DATA chunks of at most max_chunk_payload bytes, one TSN each, and new chunks are
//    bundled into packets up to the MTU (consecutive TSNs per packet); a retransmission is one chunk per packet
//    (FreeBSD bundles them too; with full-size chunks, as in Stewart et al.'s workloads, it makes no difference);
//  - a new packet may go while the outstanding bytes are below cwnd (6.1 rule B);
//  - SACK processing: cumulative TSN ack and gap blocks (kept in a sack_scoreboard over TSNs), HTNA miss
//    indications (7.2.4), fast retransmit on the 3rd, once per chunk, with fast recovery until the TSN that was
//    highest when it began is acknowledged (no further cut inside it);
//  - cwnd (7.2.1, 7.2.2): initial min(4 MTU, max(2 MTU, 4380)); slow start cwnd += min(bytes acked, L MTU) on a SACK
//    that advances the cumulative ack while cwnd was fully used; congestion avoidance with partial_bytes_acked
//    (+= bytes acked; when >= cwnd and cwnd was fully used: pba -= cwnd, cwnd += MTU; 0 when nothing is
//    outstanding); loss: ssthresh = max(cwnd / 2, 4 MTU), cwnd = ssthresh (fast retransmit) or 1 MTU (T3);
//  - T3-rtx (6.3.2, 6.3.3): started with the first outstanding chunk, restarted when the cumulative ack
//    advances, stopped when nothing is outstanding; on expiry every outstanding chunk is marked for
//    retransmission, the RTO doubles (up to RTO.max) and one packet goes;
//  - RTT (6.3.1): one chunk timed at a time, never a retransmitted one (Karn);
//  - ECN (appendix A with FreeBSD's chunk formats): ECT(0) DATA unless the algorithm is plain; an ECNE reports
//    the highest TSN of a CE-marked packet and the marked packets since the last CWR; the sender answers every
//    ECNE with a CWR carrying its highest TSN sent; the response is sctp_congestion_control.h's.
#ifndef CMSWITCH_TRAFFIC_SCTP_SCTP_SENDER_H
#define CMSWITCH_TRAFFIC_SCTP_SCTP_SENDER_H

#include "traffic/sctp/sctp_congestion_control.h"
#include "traffic/sctp/sctp_endpoint.h"
#include "traffic/tcp/sack_scoreboard.h"
#include "traffic/transport_listener.h"

#include <cstdint>
#include <deque>

namespace cmswitch {

class sctp_sender final : public sctp_endpoint {
public:
    // Told when every chunk written so far has been acknowledged.
    using listener = send_listener;

    // Throws config_error for an unknown congestion-control name.
    sctp_sender(host_stack& host, uint32_t flow, int dst, const sctp_config& cfg, sctp_stats& stats);

    void set_listener(listener* l) { m_listener = l; }
    // The application sends `count` messages of `size` bytes (count x size in all), sent once the association is
    // up.
    void write(uint64_t size, uint64_t count = 1);
    void on_frame(frame* f, uint64_t now_ps) override;

    uint64_t cwnd() const { return m_w.cwnd; }
    uint64_t ssthresh() const { return m_w.ssthresh; }
    uint64_t partial_bytes_acked() const { return m_pba; }
    uint64_t flight_bytes() const { return m_flight; }
    uint32_t next_tsn() const { return m_next_tsn; }
    bool in_fast_recovery() const { return m_in_fr; }
    bool idle() const { return m_chunks.empty() && m_app_bytes == 0; }
    bool local_lan() const { return have_rtt() && first_rtt_ps() < m_cfg.lan_rtt_ps; }
    // Sets the window (tests that start from a given state).
    void set_window(uint64_t cwnd, uint64_t ssthresh) { m_w = {cwnd, ssthresh}; }
    // The miss indications of an outstanding TSN (tests).
    uint32_t misses(uint32_t tsn) const { return chunk_at(tsn).misses; }

private:
    enum : uint32_t { timer_t3 = 1 };
    struct chunk {
        uint32_t len;
        uint32_t cwnd_at_send;   // the cwnd when last sent (DCCC's ecn_prev_cwnd)
        uint64_t sent_ps;
        uint8_t sends;   // 0: never sent
        uint8_t misses;   // miss indications (7.2.4)
        bool gap_acked;
        bool rtx;   // marked for retransmission, not in flight
        bool fast_retransmitted;   // (7.2.4: at most once per chunk)
        bool in_flight;
    };
    const chunk& chunk_at(uint32_t tsn) const { return m_chunks[tsn - m_base]; }
    chunk& chunk_at(uint32_t tsn) { return m_chunks[tsn - m_base]; }
    void on_new_association(uint32_t initial_tsn, uint64_t now) override;
    uint32_t initial_tsn() const override { return m_next_tsn; }
    void on_timer_kind(uint32_t kind, uint32_t tag, uint64_t now) override;
    void on_sack(frame* f, uint64_t now);
    // What one SACK acknowledged: new bytes, and the highest TSN newly acknowledged (have_htna: any).
    struct sack_progress {
        uint64_t bytes_acked = 0;
        uint32_t htna = 0;
        bool have_htna = false;
    };
    void ack_cumulative(uint32_t ack, uint64_t now, sack_progress& got);
    void ack_gap_blocks(const sack_scoreboard::range* blocks, int nblocks, uint64_t now, sack_progress& got);
    bool count_misses(uint32_t htna);
    void enter_fast_recovery();
    void grow_window(uint64_t bytes_acked, uint64_t flight_before);
    void on_ecne(uint32_t tsn, uint32_t count, uint64_t now);
    void try_send(uint64_t now, bool force_one = false);
    // Sends one packet of chunks from `tsn` on (consecutive TSNs that are all new or all marked), returns the
    // TSN after the last one sent.
    uint32_t send_packet(uint32_t tsn, bool rtx, uint64_t now);
    void arm_t3(uint64_t now);
    void on_t3(uint64_t now);

    std::unique_ptr<const sctp_congestion_control> m_cc;
    listener* m_listener = nullptr;
    // The application's messages not yet cut into chunks: runs of equal-size messages.
    struct message_run {
        uint64_t size, count, offset;   // offset: bytes of the front message already chunked
    };
    uint32_t next_chunk_len() const;
    void take_chunk(uint32_t len);
    std::deque<message_run> m_app;
    uint64_t m_app_bytes = 0;
    std::deque<chunk> m_chunks;   // TSNs m_base .. m_next_tsn - 1: sent, not cumulatively acknowledged
    uint32_t m_base = 1;   // lowest TSN not cumulatively acknowledged
    uint32_t m_next_tsn = 1;   // the next TSN never sent
    uint32_t m_highest_sent = 0;   // highest TSN sent so far (this association)
    sctp_window m_w{0, 0};
    uint64_t m_pba = 0;
    uint64_t m_flight = 0;
    bool m_in_fr = false;
    uint32_t m_fr_exit = 0;   // fast recovery ends when this TSN is acknowledged
    uint32_t m_rtx_count = 0;   // chunks marked for retransmission
    sack_scoreboard m_gaps;   // gap-acked TSN ranges above the cumulative ack
    // RTT timing (Karn)
    bool m_timing = false;
    uint32_t m_timed_tsn = 0;
    uint64_t m_timed_ps = 0;
    // T3-rtx, lazy like TCP's RTO: an entry at or before the deadline moves itself
    bool m_t3_armed = false, m_t3_entry_pending = false;
    uint64_t m_t3_deadline = 0, m_t3_entry_ps = 0;
    uint32_t m_t3_gen = 0;
    // ECN
    uint32_t m_cwr_window_tsn = 0;   // highest TSN sent at the last reduction
    uint32_t m_ce_seen = 0;   // the ECNE packet count last processed
    bool m_cwr_pending = false;
};

}   // namespace cmswitch
#endif
