// SPDX-License-Identifier: Apache-2.0
// Settings and counters of SCTP associations (RFC 4960, single-homed, as Stewart et al. 2011 runs it on FreeBSD): packet
// and chunk sizes, the timers (RTO.min/max/initial), delayed SACK, and the ECN response by name
// (sctp_congestion_control.h).
#ifndef CMSWITCH_TRAFFIC_SCTP_SCTP_CONFIG_H
#define CMSWITCH_TRAFFIC_SCTP_SCTP_CONFIG_H

#include <cstdint>
#include <string>

namespace cmswitch {

struct sctp_config {
    uint32_t mtu = 1500;   // IP packet bytes (frame.bytes counts IP packets, as TCP's 1500)
    static constexpr uint32_t packet_header_bytes = 32;   // IPv4 20 + SCTP common header 12
    static constexpr uint32_t data_chunk_header_bytes = 16;
    static constexpr uint32_t sack_chunk_bytes = 16;   // + 4 per gap block
    static constexpr uint32_t ecne_chunk_bytes = 12;   // FreeBSD's, with the packet count
    static constexpr uint32_t cwr_chunk_bytes = 8;
    static constexpr uint32_t init_chunk_bytes = 52;   // INIT / INIT-ACK without cookie, with the ECN parameter
    static constexpr uint32_t cookie_bytes = 200;   // the state cookie in INIT-ACK and COOKIE-ECHO
    static constexpr uint32_t cookie_ack_chunk_bytes = 4;
    static constexpr int max_gap_blocks = 4;   // per SACK (frame::sack)
    // Payload of one DATA chunk that fills a packet: 1452 at MTU 1500 (Stewart et al. 2011 section 3).
    uint32_t max_chunk_payload() const { return mtu - packet_header_bytes - data_chunk_header_bytes; }

    // RFC 4960 6.3.1 RTO bounds; the RFC's defaults are 1 s, 60 s, 3 s. Stewart et al. 2011 calls 300 ms "the default
    // RTO.min for SCTP" (footnote 23), the value its testbed scenario uses.
    uint64_t rto_min_ps = 1000000000000ull;
    uint64_t rto_max_ps = 60000000000000ull;
    uint64_t rto_initial_ps = 3000000000000ull;
    // Slow start adds min(bytes acked, L x MTU) per SACK: RFC 4960 L = 1; FreeBSD's net.inet.sctp.abc_l_var is 1 in
    // some releases and 2 in others
    uint32_t abc_l = 1;
    uint32_t initial_cwnd_mtus = 0;   // 0: RFC 4960 7.2.1, min(4 MTU, max(2 MTU, 4380 B))
    bool delayed_sack = true;   // RFC 4960 6.2: a SACK for every 2nd packet, or after sack_delay
    uint64_t sack_delay_ps = 200000000000ull;   // 200 ms (FreeBSD's net.inet.sctp.delayed_sack_time)
    // ECN response: plain (not ECN-capable), ecn (RFC 4960 appendix A, the paper's algorithm 1), dccc (its
    // algorithm 2), dynamic-dccc (dccc when the first RTT is under lan_rtt, ecn otherwise)
    std::string congestion_control = "plain";
    uint64_t lan_rtt_ps = 1100000000ull;   // 1.1 ms (Stewart et al. 2011 section 4)
    uint8_t prio = 0;
};

struct sctp_stats {
    uint64_t packets_sent = 0, data_chunks_sent = 0, bytes_sent = 0;   // DATA packets, retransmissions included
    uint64_t retransmitted_chunks = 0;
    uint64_t t3_timeouts = 0;   // T3-rtx expiries (Stewart et al.'s "T3-Timeouts")
    uint64_t t1_timeouts = 0;   // INIT / COOKIE-ECHO retransmissions
    uint64_t fast_retransmits = 0;   // fast recoveries entered
    uint64_t ecn_echoes = 0;   // ECNE chunks that reported new marks
    uint64_t ecn_window_cuts = 0;   // responses to an ECNE of a new window (in_window == 0)
    uint64_t ecn_in_window_cuts = 0;   // DCCC's reductions within a window
    uint64_t sacks_sent = 0;
    uint64_t bytes_delivered = 0;   // in-order payload at receivers
    uint64_t rtt_samples = 0;
    double rtt_sum_ps = 0;
    uint64_t associations = 0;   // associations set up (handshakes completed at the data sender)
};

}   // namespace cmswitch
#endif
