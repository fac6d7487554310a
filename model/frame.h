// SPDX-License-Identifier: Apache-2.0
// The unit that crosses every link: one Ethernet frame, pooled (see frame_pool.h), never copied.
#ifndef CMSWITCH_MODEL_FRAME_H
#define CMSWITCH_MODEL_FRAME_H

#include "model/types.h"

#include <cstddef>
#include <cstdint>

namespace cmswitch {

class flow_endpoint;   // traffic/host_stack.h

constexpr int num_priorities = 8;   // 802.1Q priorities per egress port
constexpr uint32_t max_frame_bytes = 9216;   // jumbo frames are the largest a port accepts
constexpr uint32_t min_frame_bytes = 64;
constexpr int max_sack_blocks = 4;   // TCP SACK option (RFC 2018): 4 blocks fit in 40 option bytes

enum class frame_kind : uint8_t {
    udp,   // datagram of a UDP source
    tcp,   // TCP segment (data, ACK, or both)
    request,   // application request of the incast client
    cnm,   // 802.1Qau congestion notification message
    pause,   // 802.3x PAUSE / 802.1Qbb PFC
    rdma,   // RoCEv2 packet of a queue pair: data, ACK or NACK (rdma_flags)
    cnp,   // RoCEv2 congestion notification packet (DCQCN), from the receiver's NIC to the sender's
    sctp,   // SCTP packet: DATA chunks, or a SACK (+ ECNE), CWR, or a handshake chunk (sctp_flags)
};

// ECN codepoint as in the IP header (RFC 3168).
enum ecn_bits : uint8_t { ecn_not_ect = 0, ecn_ect1 = 1, ecn_ect0 = 2, ecn_ce = 3 };

// tcp_dsack: the ACK reports a duplicate segment (RFC 2883), ending at the frame's seq
// tcp_psh: the segment ends an application write (Linux sets PSH on the last skb of each sendmsg)
enum tcp_flags : uint8_t { tcp_ack = 1, tcp_ece = 2, tcp_cwr = 4, tcp_fin = 8, tcp_dsack = 16, tcp_psh = 32 };
// kind == rdma: an ACK (ack = next byte expected) or a NACK (go back to ack); neither: data at seq.
// host_counted, host_gso_cont: at the sending host (host_qdisc.h); host_gro_more, host_rx_held: at the receiving host
// (receive_poll.h): more frames of its GRO aggregate follow it up the stack; it waited in the NIC's receive ring
// from enq_ps
enum host_bit : uint8_t { host_counted = 1, host_gso_cont = 2, host_gro_more = 4, host_rx_held = 8 };
enum rdma_flags : uint8_t { rdma_ack = 1, rdma_nack = 2 };

// kind == sctp: the chunks a packet carries. DATA: TSNs [seq, seq + ctl.sctp.chunks), payload bytes in all. SACK:
// cumulative TSN ack = ack - 1 (ack: the next TSN expected), gap blocks in sack[] as offsets from ack.
enum sctp_flags : uint8_t {
    sctp_data = 1,
    sctp_sack = 2,
    sctp_ecne = 4,
    sctp_cwr = 8,
    sctp_init = 16,
    sctp_init_ack = 32,
    sctp_cookie_echo = 64,
    sctp_cookie_ack = 128,
};

// Every field of a frame but its SACK blocks; the pool resets these on acquire (frame_pool.h).
struct frame_fields {
    // wire
    uint32_t bytes = 0;   // size on the wire, headers included (what serialization and buffers count)
    uint16_t src = 0;   // source host (or switch for control frames)
    uint16_t dst = 0;   // destination host
    uint8_t prio = 0;   // 0 lowest .. 7 highest; strict priority serves 7 first
    uint8_t ecn = ecn_not_ect;
    frame_kind kind = frame_kind::udp;
    uint8_t flags = 0;   // tcp_flags for kind == tcp
    uint32_t flow = 0;   // flow id, unique within a scenario
    // transport
    uint32_t payload = 0;   // application bytes carried
    uint16_t ingress = 0xffff;   // inside a switch: the port it arrived on (PAUSE/PFC accounting); else 0xffff
    uint8_t sack_blocks = 0;   // TCP ACK: SACK blocks carried (RFC 2018), each [ack + begin, ack + end)
    // at its source host (host_bit): counted below its socket until it transmits (host_qdisc.h); continues the
    // previous frame of its flow in one GSO segment, a Linux skb the NIC segments, so that the host's qdisc and
    // NIC ring move the segment's frames together (TCP sets it)
    uint8_t host_bits = 0;
    // bookkeeping of the block that holds the frame (in the first 64 bytes with the wire fields: a queue's
    // enqueue and dequeue touch one cache line of a frame)
    struct frame* next = nullptr;   // intrusive link: pool free list, FIFO queues
    uint64_t enq_ps = 0;   // when it entered the queue it sits in
    uint64_t seq = 0;   // TCP: first byte; UDP: datagram number
    uint64_t ack = 0;   // TCP: cumulative ACK (next byte expected)
    uint64_t ts_ps = 0;   // TCP data: when the sender sent it (TSval); TCP ACK with timestamps: the echo (TSecr)
    uint64_t created_ps = 0;   // when the source made it
    // The endpoint the frame is for on its destination host, when its source knows it (a TCP segment or ACK);
    // null: the host's flow directory finds it (host_stack.h). The host then reaches it without the directory,
    // and the event domain fetches it ahead of the arrival (event_domain::frame_arrival_kind).
    flow_endpoint* endpoint = nullptr;
};

// 802.1Qau congestion notification message (kind cnm), as the congestion point fills it in.
struct cnm_fields {
    int32_t qoff;   // Qeq - qlen, bytes (negative when congested)
    int32_t qdelta;   // qlen - qlen at the previous sample, bytes
    uint32_t cpid;   // congestion point: switch << 16 | port << 3 | priority
    uint8_t qntz_fb;   // quantized |Fb|, 1..63
};

// 802.3x PAUSE / 802.1Qbb PFC (kind pause): which priorities stop, for how long.
struct pause_fields {
    uint8_t class_enable;   // 802.3x: 0xff (every priority); PFC: one bit per priority
    uint16_t quanta;   // pause time in quanta of 512 bit times; 0 = XON (resume now)
};

// RoCEv2 CNP (kind cnp) for the flow in frame.flow. DCQCN+ carries the notification point's current CNP period.
struct cnp_fields {
    uint32_t period_ns;   // DCQCN+: the CNP interval tau the NP uses for this flow; 0 in plain DCQCN
};

// SCTP chunk fields beyond frame_fields (kind sctp), set in full by the endpoint that makes the packet.
struct sctp_fields {
    uint32_t chunks;   // DATA: chunks bundled
    uint32_t tsn;   // ECNE: the TSN reported (highest of the marked packet); CWR: the sender's highest TSN
        // sent; INIT / INIT-ACK of a data sender: its initial TSN
    uint32_t ce_packets;   // ECNE: CE-marked packets since the last CWR (FreeBSD's num_pkts_since_cwr)
    uint32_t request;   // COOKIE-ECHO: application request bytes bundled with it (the incast client's)
};

// 64-byte aligned, 128 bytes: two cache lines, the first holding what queues and links read.
struct alignas(64) frame : frame_fields {
    // TCP SACK blocks: only the first sack_blocks are meaningful (the pool does not clear them, so that frames
    // without SACK cost nothing for them)
    struct sack_block {
        uint32_t begin, end;   // offsets from ack (SACK blocks lie above the cumulative ACK)
    } sack[max_sack_blocks];
    // The fields of a control frame, by kind; set in full by whoever makes one (control_frames.h), never by the
    // pool, and read only for frames of that kind.
    union control_fields {
        cnm_fields cnm;
        pause_fields pause;
        cnp_fields cnp;
        sctp_fields sctp;
    } ctl;
};

static_assert(sizeof(frame) == 128, "a frame is two cache lines");
static_assert(offsetof(frame_fields, endpoint) / 64 == 1, "the endpoint is in a frame's second line (event_domain)");

}   // namespace cmswitch
#endif
