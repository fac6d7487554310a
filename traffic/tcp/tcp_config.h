// SPDX-License-Identifier: Apache-2.0
// Settings and counters of one TCP flow (both ends): segment sizes, windows, timers, loss recovery options, the
// congestion-control algorithm by name (congestion_control.h) and every algorithm's parameter block.
#ifndef CMSWITCH_TRAFFIC_TCP_TCP_CONFIG_H
#define CMSWITCH_TRAFFIC_TCP_TCP_CONFIG_H

#include "traffic/tcp/cubic.h"
#include "traffic/tcp/dc_vegas.h"
#include "traffic/tcp/dctcp.h"
#include "traffic/tcp/vegas.h"

#include <cstdint>
#include <memory>
#include <string>

namespace cmswitch {

// The fields are named as the parameters that set them (platform/settings.cpp declares them straight in), with the
// model's unit in place of the user's (min_rto_ms sets min_rto_ps).
struct tcp_config {
    uint32_t mss = 1460;   // payload bytes per segment (1448 with timestamps: make_tcp_config takes the option off)
    uint32_t header_bytes = 40;   // IPv4 + TCP without options: a full segment is a 1500-byte frame
    uint32_t init_cwnd = 2;   // segments
    uint32_t rwnd_segments = 0;   // receiver's advertised window; 0: unlimited (the switch buffer is the limit)
    uint64_t min_rto_ps = 200000000000ull;   // 200 ms
    uint64_t max_rto_ps = 60000000000000ull;   // 60 s
    // The retransmission timeout from the RTT estimate: RFC 6298 (max(min_rto, SRTT + 4 RTTVAR), as ns-2 and
    // FreeBSD) or Linux (SRTT + max(4 RTTVAR, min_rto): tcp_set_rto with rttvar_us = max(mdev_max_us, rto_min);
    // the RTT variation is RFC 6298's here, not Linux's per-RTT mdev_max)
    enum class rto_rule_t { rfc6298, linux_tcp } rto_rule = rto_rule_t::rfc6298;
    uint64_t initial_rto_ps = 0;   // before the first RTT sample; 0: min_rto (a handshake's datacentre RTT sample)
    std::string transport = "newreno";   // the congestion control: a registered algorithm (congestion_control.h)
    bool ecn = false;   // newreno, cubic: ECN-capable with the RFC 3168 response (dctcp always is)
    // The response to an ECN echo: cut (the algorithm sets cwnd = ssthresh at once, at most once per window: ns-2,
    // RFC 3168, RFC 8257) or cwr (Linux's CWR state: ssthresh from the algorithm, the window brought down to it by
    // proportional rate reduction, no growth and no further reduction until an ACK passes the highest byte sent
    // when it began, then cwnd = ssthresh)
    enum class ecn_reduction_t { cut, cwr } ecn_reduction = ecn_reduction_t::cut;
    // every algorithm's own parameter block, declared by the algorithm (its header)
    dctcp_params dctcp;
    vegas_params vegas;
    dc_vegas_params dc_vegas;
    cubic_params cubic;
    // Loss response: ssthresh = max(x / 2, 2 SMSS) with x the congestion window (Linux, FreeBSD and ns-2 do
    // this) or the FlightSize (RFC 5681 eq. 4). They differ when the sender is application-limited.
    enum class ssthresh_rule { cwnd, flight } ssthresh_from = ssthresh_rule::cwnd;
    bool limited_transmit = true;   // RFC 3042: one segment on each of the 1st and 2nd duplicate ACK
    // RFC 3465 byte counting as Linux: slow start grows cwnd by the bytes each ACK acknowledges (not one SMSS),
    // congestion avoidance by one SMSS per cwnd of bytes acknowledged (not per ACK): the same growth with delayed
    // ACKs as without
    bool abc = false;
    // RFC 5681 4.1: after more than an RTO without sending, restart from min(initial window, cwnd) (Linux
    // tcp_slow_start_after_idle, FreeBSD and ns-2's slow_start_restart_ do this too)
    bool slow_start_after_idle = true;
    bool sack = false;   // RFC 2018 SACK blocks with RFC 6675 loss recovery
    bool dsack = false;   // RFC 2883: a receiver reports a duplicate segment at once (the sender's TLP reads it)
    bool timestamps = false;   // RFC 7323: RTT samples from every ACK of new data, retransmissions included
    // RFC 8985 RACK-TLP (with sack): losses marked by time (RACK) instead of duplicate-ACK counts, a tail loss
    // probe PTO after the last send, recovery with proportional rate reduction (RFC 6937), as Linux does; the
    // probe timeout is 2 SRTT + tlp_min (Linux's 2 ms), or + the minimum RTO when one segment is out
    bool rack_tlp = false;
    uint64_t tlp_min_ps = 2000000000ull;   // 2 ms
    // Linux / RFC 7661: the window grows only while the flow is cwnd-limited (in slow start: while cwnd is under
    // twice the most it had out in the last window); a sender held back by its application or its host's small
    // queues does not inflate it
    bool cwnd_validation = false;
    // Linux pacing rate: ratio x max(cwnd, flight) / SRTT, ss_ratio while cwnd < ssthresh / 2, else ca_ratio
    double pacing_ss_ratio = 2.0, pacing_ca_ratio = 1.2;
    bool delayed_ack = false;   // ACK every 2nd full segment (Linux: more than one MSS unacknowledged)
    uint64_t delack_ps = 40000000000ull;   // 40 ms
    // with delayed_ack: the first segments of a connection, and those after out-of-order data, are ACKed at once
    // (Linux quick-ACK mode, TCP_MAX_QUICKACKS)
    uint32_t quickacks = 0;
    // GSO/TSO (Linux tcp_tso_autosize): new data leaves TCP in segments (skbs) of up to gso_max_bytes of payload,
    // sized to about 1 ms at the pacing rate plus gso_max_bytes >> (min_rtt / 512 us), at least 2 SMSS, and at
    // most the window's room; the NIC sends a segment's frames back to back. 0: every frame its own segment.
    uint64_t gso_max_bytes = 0;
    uint64_t jitter_ps = 0;   // random delay in [0, jitter] before each segment reaches the NIC
    // Which segments the jitter delays: all of them, or only those sent from the window (new data, timeout
    // retransmissions), not those sent in direct response to a duplicate or partial ACK -- the semantics of
    // ns-2's TCP overhead_, for like-for-like comparisons with ns-2
    enum class jitter_scope_t { all, window_sends } jitter_scope = jitter_scope_t::all;
    uint8_t prio = 0;

    static constexpr uint32_t timestamp_option_bytes = 12;   // 10 bytes + 2 NOPs, on every segment
    // Bytes the SACK option adds to an ACK carrying n blocks: kind, length, 8 per block, 2 NOPs of padding.
    static constexpr uint32_t sack_option_bytes(int n) { return n ? 4 + 8 * static_cast<uint32_t>(n) : 0; }
    uint64_t rwnd_bytes() const { return uint64_t{rwnd_segments} * mss; }   // 0: unlimited
    // SACK blocks one ACK can carry in the 40 option bytes: 4, or 3 beside the timestamp option.
    int max_sack_blocks_per_ack() const { return timestamps ? 3 : 4; }
};

// One configuration shared by the connections made with it: a sender and a receiver keep this pointer, not a
// 256-byte copy (232 bytes less each; the fields every segment reads stay in the caches from flow to flow).
using shared_tcp_config = std::shared_ptr<const tcp_config>;

struct tcp_stats {
    uint64_t segments_sent = 0, bytes_sent = 0;   // data segments/bytes handed to the NIC, retransmissions included
    uint64_t timeouts = 0, fast_retransmits = 0;   // fast_retransmits: loss recoveries entered by duplicate ACKs
    uint64_t limited_transmits = 0;   // segments sent by limited transmit (RFC 3042)
    uint64_t idle_restarts = 0;   // windows cut back after an idle period (RFC 5681 4.1)
    uint64_t retransmitted_segments = 0, retransmitted_bytes = 0;
    uint64_t probe_retransmitted_bytes = 0;   // of those, sent by a tail loss probe (the rest: found lost)
    uint64_t duplicate_bytes_received = 0;   // at the receiver: payload that arrived twice (spurious retransmissions)
    uint64_t rack_losses = 0;   // segments RACK marked lost (rack_tlp)
    uint64_t loss_probes = 0;   // tail loss probes sent (rack_tlp)
    uint64_t tlp_recoveries = 0;   // probes that repaired a loss (the window was reduced for it)
    uint64_t dsacks = 0;   // duplicate segments a receiver reported (dsack)
    uint64_t ecn_reductions = 0;
    uint64_t acks_sent = 0;
    uint64_t bytes_delivered = 0;   // in-order payload bytes at the receiver
    // at the receiver, every data frame that arrived (duplicates too): how many, their wire bytes, and their
    // one-way delays from TCP's send (the frame's created_ps) to the last bit's arrival, summed and the largest:
    // what the path took beyond its ideal (serialization and propagation) is the queueing in hosts and switches
    uint64_t rx_data_frames = 0, rx_data_wire_bytes = 0;
    uint64_t rx_delay_sum_ps = 0, rx_delay_max_ps = 0;
    uint64_t rx_ring_wait_sum_ps = 0;   // of that delay, the time in the receiver NIC's ring (receive_poll.h)
};

}   // namespace cmswitch
#endif
