// SPDX-License-Identifier: Apache-2.0
// Settings and counters of one TCP flow (both ends): segment sizes, windows, timers, loss recovery options, the
// congestion-control algorithm by name (congestion_control.h) and its parameters.
#ifndef CMSWITCH_TRAFFIC_TCP_TCP_CONFIG_H
#define CMSWITCH_TRAFFIC_TCP_TCP_CONFIG_H

#include <cstdint>
#include <string>

namespace cmswitch {

struct tcp_config {
    uint32_t mss = 1460;   // payload bytes per segment
    uint32_t header_bytes = 40;   // IPv4 + TCP without options: a full segment is a 1500-byte frame
    uint32_t initial_cwnd = 2;   // segments
    uint64_t rwnd_bytes = 0;   // receiver's advertised window; 0: unlimited (the switch buffer is the limit)
    uint64_t min_rto_ps = 200000000000ull;   // 200 ms
    uint64_t max_rto_ps = 60000000000000ull;   // 60 s
    uint64_t initial_rto_ps = 0;   // before the first RTT sample; 0: min_rto (a handshake's datacentre RTT sample)
    std::string congestion_control = "newreno";   // a registered algorithm (congestion_control.h)
    bool ecn = false;   // newreno: ECN-capable with the RFC 3168 response (dctcp always is)
    double dctcp_g = 1.0 / 16;
    // Vegas (Linux tcp_vegas): queued segments aimed at, in segments
    double vegas_alpha = 2, vegas_beta = 4, vegas_gamma = 1;
    // DC-Vegas (our reading of paper 004, dc_vegas.h): queue estimate threshold K_v (segments) and gain
    double dcvegas_k = 4, dcvegas_g = 1.0 / 16;
    // Loss response: ssthresh = max(x / 2, 2 SMSS) with x the congestion window (Linux, FreeBSD and ns-2 do
    // this) or the FlightSize (RFC 5681 eq. 4). They differ when the sender is application-limited.
    enum class ssthresh_rule { cwnd, flight } ssthresh_from = ssthresh_rule::cwnd;
    bool limited_transmit = true;   // RFC 3042: one segment on each of the 1st and 2nd duplicate ACK
    // RFC 5681 4.1: after more than an RTO without sending, restart from min(initial window, cwnd) (Linux
    // tcp_slow_start_after_idle, FreeBSD and ns-2's slow_start_restart_ do this too)
    bool slow_start_after_idle = true;
    bool sack = false;   // RFC 2018 SACK blocks with RFC 6675 loss recovery
    bool timestamps = false;   // RFC 7323: RTT samples from every ACK of new data, retransmissions included
    bool delayed_ack = false;
    uint64_t delayed_ack_ps = 40000000000ull;   // 40 ms
    uint64_t jitter_ps = 0;   // random delay in [0, jitter] before each segment reaches the NIC
    // Which segments the jitter delays: all of them, or only those sent from the window (new data, timeout
    // retransmissions), not those sent in direct response to a duplicate or partial ACK -- the semantics of
    // ns-2's TCP overhead_, for like-for-like comparisons with ns-2
    enum class jitter_scope_t { all, window_sends } jitter_scope = jitter_scope_t::all;
    uint8_t prio = 0;

    static constexpr uint32_t timestamp_option_bytes = 12;   // 10 bytes + 2 NOPs, on every segment
    // Bytes the SACK option adds to an ACK carrying n blocks: kind, length, 8 per block, 2 NOPs of padding.
    static constexpr uint32_t sack_option_bytes(int n) { return n ? 4 + 8 * static_cast<uint32_t>(n) : 0; }
    // SACK blocks one ACK can carry in the 40 option bytes: 4, or 3 beside the timestamp option.
    int max_sack_blocks_per_ack() const { return timestamps ? 3 : 4; }
};

struct tcp_stats {
    uint64_t segments_sent = 0, bytes_sent = 0;   // data segments/bytes handed to the NIC, retransmissions included
    uint64_t timeouts = 0, fast_retransmits = 0;   // fast_retransmits: loss recoveries entered by duplicate ACKs
    uint64_t limited_transmits = 0;   // segments sent by limited transmit (RFC 3042)
    uint64_t idle_restarts = 0;   // windows cut back after an idle period (RFC 5681 4.1)
    uint64_t retransmitted_segments = 0, retransmitted_bytes = 0;
    uint64_t ecn_reductions = 0;
    uint64_t acks_sent = 0;
    uint64_t bytes_delivered = 0;   // in-order payload bytes at the receiver
};

}   // namespace cmswitch
#endif
