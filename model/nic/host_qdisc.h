// SPDX-License-Identifier: Apache-2.0
// A host's egress below its transports, as Linux builds it (net/sched/sch_fq.c, net/ipv4/tcp_output.c):
//  - a queueing discipline per NIC queue (traffic class): fifo (frames go straight to the NIC queue; the NIC's
//    byte limit drops) or fq (a queue per socket, served round robin by a byte quantum, sockets that were idle
//    first; a paced socket's frames wait for their earliest departure times);
//  - TCP small queues: every socket's bytes below its transport (in the qdisc, the NIC queue or a reaction
//    point's limiter) are counted from the transport's send to the start of their transmission (the model's TX
//    completion), and a socket over its limit is told when it falls back under it;
//  - the NIC ring: with fq, the NIC queue of a traffic class holds at most ring_bytes that the qdisc handed over,
//    so that frames wait in per-socket queues, not in one FIFO; or, with BQL, the bytes handed over and not yet
//    completed are held to a limit that adapts as Linux's dynamic queue limits do (dynamic_queue_limit.h), and
//    transmit completions come in batches at the NIC's transmit interrupt (coalesced as a NIC's TX moderation).
// Per socket it keeps what a report splits a flow completion time with: how long its data frames waited in the
// host (from the transport's send to the start of transmission); per host, the most bytes below the transports
// and below one socket.
// Not a module: the NIC owns it (host_nic.h) and gives it its frames, completions and timer.
#ifndef CMSWITCH_MODEL_NIC_HOST_QDISC_H
#define CMSWITCH_MODEL_NIC_HOST_QDISC_H

#include "model/drop_reason.h"
#include "model/frame.h"
#include "model/nic/codel.h"
#include "model/nic/dynamic_queue_limit.h"
#include "model/nic/receive_poll.h"
#include "model/port/egress_port.h"
#include "model/types.h"

#include <climits>
#include <cstdint>
#include <optional>
#include <vector>

namespace cmswitch {

struct host_egress_config {
    // The hosts' MTU: the largest IP packet they send, the size of a full TCP frame (1500, or 9000 with jumbo
    // frames); TCP's MSS, the qdiscs' quanta and PFC's headroom follow it (platform/settings.cpp).
    uint32_t mtu_bytes = 1500;
    enum class qdisc_kind : uint8_t { fifo, fq, fq_codel };
    qdisc_kind qdisc = qdisc_kind::fifo;
    // fq (Linux sch_fq defaults): a socket's quantum per round, a new socket's first credit, the frames one
    // socket and the whole qdisc may hold (more are dropped), and the idle time after which a socket that
    // returns gets a full quantum again. Linux's limits are 100 and 10000 packets, and with GSO a packet carries up
    // to 64 KB (44 full segments); the model hands the qdisc single frames, so its limits are 44 times Linux's.
    uint32_t fq_quantum_bytes = 2 * 1514;
    uint32_t fq_initial_quantum_bytes = 10 * 1514;
    uint32_t fq_flow_limit = 100 * 44;
    uint32_t fq_limit = 10000 * 44;
    uint64_t fq_refill_delay_ps = 40000000000ull;   // 40 ms
    // fq_codel (Linux sch_fq_codel.c defaults; tc-fq_codel(8)): a socket's quantum per round (psched_mtu), the
    // frames the whole qdisc may hold (10240 packets, 44 frames each with GSO; Linux then drops from the longest
    // queue, the model the arriving frame), and CoDel on each socket's queue (codel.h: target 5 ms, interval
    // 100 ms, ECN-capable packets marked, no ce_threshold). It does not pace.
    uint32_t fq_codel_quantum_bytes = 1514;
    uint32_t fq_codel_limit = 10240 * 44;
    codel_params codel;
    // fq: a socket's data frames leave no earlier than its pacing schedule (the earliest departure time Linux's
    // TCP stamps on each segment: a frame's time after the previous one is its payload at the pacing rate, less up
    // to half of it for time the socket lost idle; a socket's first unpaced_segments data frames are not paced)
    bool pacing = false;
    uint32_t unpaced_segments = 10;
    // fq: bytes the qdisc may have handed to each NIC queue that have not started transmission (at least one frame)
    uint64_t ring_bytes = 3000;
    // TCP small queues: a socket may send while it has at most min(max(2 skbs, tsq_ps at its pacing rate),
    // tsq_max_bytes) below its transport (Linux 6.16 on: sk_pacing_shift 10, tcp_limit_output_bytes 4 MB). As
    // Linux's sk_wmem_alloc, the bytes are skbs' truesize: an skb's payload and skb_truesize_bytes for its head (a
    // GSO segment's once; a pure ACK counts 2, as skb_set_tcp_pure_ack sets). 832 is what Linux 6.18 on x86-64
    // charges: a socket holding one skb in a qdisc shows payload + 832 in `ss -m` for 1448, 2896 and 14480 bytes
    // (validation/linux/skb_truesize.py measures it).
    bool small_queues = false;
    uint64_t tsq_ps = 976562500;   // 2^-10 s
    uint64_t tsq_max_bytes = 4u << 20;
    uint32_t skb_truesize_bytes = 832;
    // BQL, with fq: each NIC queue's bytes handed over and not yet completed are held to a dynamic queue limit in
    // place of ring_bytes. A frame completes at the NIC's transmit interrupt: tx_coalesce_ps after the end of the
    // first frame transmitted since the previous interrupt, or once tx_coalesce_frames skbs (a GSO segment counts
    // once, as one completion entry) have been transmitted since it (0: no count); tx_coalesce_ps 0: at the end
    // of each frame. mlx5's defaults are 16 us and 32. With BQL a socket's small queue frees a frame's bytes at
    // its completion (Linux frees the skb then), not at the start of its transmission.
    bool bql = false;
    uint64_t tx_coalesce_ps = 16000000;
    uint32_t tx_coalesce_frames = 32;
    // The host's software latency (the stack between the socket and the driver, interrupt and softirq on the way
    // up): every frame a transport sends reaches the qdisc this long after the send, every frame that arrives
    // reaches its transport this long after its last bit (the NIC applies it; host waits are counted after it).
    uint64_t latency_ps = 0;
    // The receive path (receive_poll.h): the NIC's receive interrupt moderation (0: every frame goes up as it
    // arrives) and GRO (0: none). mlx5's defaults in its CQE-based mode are 3 us and 32 frames; Linux's
    // gro_max_size is 64 KB.
    receive_poll_config receive;

    bool fq() const { return qdisc == qdisc_kind::fq; }
    bool per_socket() const { return qdisc != qdisc_kind::fifo; }   // a queue per socket (fq, fq_codel)
    bool active() const { return per_socket() || small_queues; }   // beyond the plain FIFO path (a latency aside)
};

// What one socket (a flow's endpoint on this host) did below its transport (host_qdisc::socket_stats).
struct host_socket_stats {
    uint64_t data_frames = 0;   // frames with payload that started transmission
    uint128 wait_sum_ps = 0;   // over them: start of transmission - the transport's send
    uint64_t wait_max_ps = 0;
    uint64_t throttled = 0;   // times it found itself over its small-queue limit
};

// What the qdisc needs of its NIC.
class host_qdisc_owner {
public:
    // Puts f into the NIC queue (or its reaction point); false if the NIC dropped it (the qdisc has accounted
    // for it already).
    virtual bool to_ring(frame* f, uint64_t now_ps) = 0;
    virtual uint64_t ring_queue_bytes(int queue) const = 0;
    virtual int ring_queue_of(int prio) const = 0;
    // Calls host_qdisc::on_timer at t_ps (one pending request at a time is enough: a later one replaces it).
    virtual void qdisc_wakeup_at(uint64_t t_ps) = 0;
    // The socket of `flow` may send again (its small queue has room).
    virtual void socket_writable(uint32_t flow, uint64_t now_ps) = 0;
    // A frame the qdisc refused (fq limits) or dropped (CoDel): counted and released by the NIC.
    virtual void qdisc_drop(frame* f, drop_reason why) = 0;
    // BQL: when f, starting transmission now, has been transmitted (its last bit out).
    virtual uint64_t tx_end_ps(const frame& f, uint64_t now_ps) = 0;
    // BQL: calls host_qdisc::on_tx_interrupt at t_ps (>= now; a later call for an earlier time supersedes it).
    virtual void tx_interrupt_at(uint64_t t_ps) = 0;

protected:
    ~host_qdisc_owner() = default;
};

class host_qdisc {
public:
    void configure(const host_egress_config& cfg, host_qdisc_owner* owner);
    const host_egress_config& config() const { return m_cfg; }
    void reset();

    // A transport's frame: counted below its socket, then queued (fq; ring filled at once) or handed to the NIC.
    void enqueue(frame* f, uint64_t now);
    // A transport's frame counted below its socket now, before it reaches the qdisc (the host's software latency
    // holds it: Linux charges an skb to its socket when TCP makes it).
    void account(frame* f);
    // f starts transmission (it is still valid): its socket's bytes and wait, small-queue wake-ups, the ring refill.
    void on_tx_start(const frame& f, uint64_t now);
    // The NIC dropped f after the qdisc counted it (before its release).
    void forget(const frame& f);
    // The wake-up asked for with qdisc_wakeup_at.
    void on_timer(uint64_t now);
    // BQL: the transmit interrupt asked for with tx_interrupt_at: the frames transmitted by now complete (the
    // queue limits first, then the sockets' small queues, as Linux's NAPI poll and TSQ handler run).
    void on_tx_interrupt(uint64_t now);
    // BQL: the limit of NIC queue `queue` now, and the largest any of its queues had.
    uint64_t bql_limit(int queue) const { return m_dql.empty() ? 0 : m_dql[static_cast<size_t>(queue)].limit(); }
    uint64_t bql_limit_max() const;
    uint64_t tx_interrupts() const { return m_tx_interrupts; }
    // fq_codel: frames CoDel marked CE and frames it dropped.
    uint64_t codel_marks() const { return m_codel_marks; }
    uint64_t codel_drops() const { return m_codel_drops; }

    // Small queues: whether `flow`'s socket is over its limit (retransmission: twice the limit, as Linux).
    bool over_limit(uint32_t flow, bool retransmission = false) const;
    // The socket of `flow` is told (socket_writable) when it is back under its limit.
    void want_room(uint32_t flow);
    // The socket's pacing rate in bit/s (0: none known yet). TCP sets it on every ACK (Linux: sk_pacing_rate).
    void set_pacing_rate(uint32_t flow, uint64_t bps);
    uint64_t limit_bytes(uint32_t flow) const;
    // Bytes of `flow`'s socket below its transport now (0 for a socket that never sent).
    uint64_t below_bytes(uint32_t flow) const;

    // Frames and bytes held in the qdisc (not yet in the NIC queue).
    uint64_t queued_frames() const { return m_frames; }
    uint64_t queued_bytes() const { return m_bytes; }
    // The most bytes this host held below its transports at once (qdisc, NIC queue, reaction point), and the most
    // one of its sockets did.
    uint64_t below_max_bytes() const { return m_below_max; }
    uint64_t socket_below_max_bytes() const { return m_socket_below_max; }
    // Small queues: the most a socket's bytes below TCP exceeded its limit just after one of its data frames came
    // (INT64_MIN: none came). Linux's check lets a socket send while at or under its limit, so this is at most a
    // frame, unless the socket sent with one segment unacknowledged (exempt).
    int64_t excess_max_bytes() const { return m_excess_max; }
    // The socket of `flow` on this host, or nothing if it never sent.
    std::optional<host_socket_stats> socket_stats(uint32_t flow) const;

private:
    static constexpr uint32_t none = UINT32_MAX;
    enum class place : uint8_t { detached, new_list, old_list, throttled };
    // 128 bytes, two lines: the first is what the fq round robin reads of every socket it passes (the queue,
    // credit, list link) with what a frame's send reads, the second what a frame's send and its start of
    // transmission update. (Three lines with every statistic a socket once kept; a large network's hosts are cold
    // whenever they run, so each line is a miss.)
    struct alignas(64) socket {
        frame_fifo q;
        int64_t credit = 0;
        uint32_t next = none;   // in its list
        place where = place::detached;
        uint8_t queue = 0;   // the NIC queue (traffic class) of its frames
        bool want_room = false;
        uint32_t flow = 0;
        uint32_t data_sent = 0;   // data frames queued so far (the first unpaced_segments go unpaced)
        uint64_t pacing_bps = 0;
        uint128 wait_sum_ps = 0;   // (host_socket_stats)
        uint64_t wstamp_ps = 0;   // the pacing schedule: the next frame's earliest departure
        uint64_t below = 0;   // truesize below the transport (the small queue's count)
        uint64_t idle_since = 0;
        uint64_t data_frames = 0;   // (host_socket_stats)
        uint64_t wait_max_ps = 0;
        uint32_t skb_max = 0;   // the truesize of its largest skb (the 2-skb floor of the limit)
        uint32_t throttled = 0;
    };
    static_assert(sizeof(socket) == 128, "a socket is two cache lines");
    struct fq_lists {
        uint32_t new_head = none, new_tail = none, old_head = none, old_tail = none;
    };

    uint32_t slot_of(uint32_t flow);   // finds or adds the socket
    uint32_t find(uint32_t flow) const;   // the socket's slot (none: it never sent)
    [[gnu::noinline]] uint32_t find_indexed(uint32_t flow) const;   // find() past the two recent sockets
    void grow_index();
    uint64_t limit_of(const socket& s) const;
    void push_tail(int queue, uint32_t slot, place list);
    frame* fq_dequeue(int queue, uint64_t now);   // (sets m_dequeued_slot)
    frame* take_gso_rest(uint32_t slot);   // the socket's next frame if it continues a GSO segment
    // fq_codel: CoDel's verdict on the socket's head skb, which it may drop (the next head is asked about then);
    // returns the head to send (null: the queue emptied), marked CE if CoDel says so
    frame* codel_head(uint32_t slot, uint64_t now);
    void release_throttled(uint64_t now);
    void fill(uint64_t now);
    void hand_to_ring(frame* f, uint64_t now);
    bool ring_open(int queue) const {
        return m_cfg.bql ? m_dql[static_cast<size_t>(queue)].open()
                         : m_owner->ring_queue_bytes(queue) < m_cfg.ring_bytes;
    }
    // an skb's truesize, split over its frames: the payload, the head with its first frame, 2 for a pure ACK
    uint32_t truesize(const frame& f) const {
        if (f.payload == 0)
            return 2;
        return f.payload + ((f.host_bits & host_gso_cont) ? 0 : m_cfg.skb_truesize_bytes);
    }
    // f's bytes below the socket no more: may wake it
    void free_bytes(uint32_t slot, uint32_t bytes, uint32_t truesize, uint64_t now);
    void await_completion(const frame& f, uint32_t slot, uint64_t now);

    // (in the order a frame reads them: the configuration, the scalars and maxima every frame updates, the
    // sockets and their index, the lists; four lines of the object for a frame of one traffic class)
    host_egress_config m_cfg;
    host_qdisc_owner* m_owner = nullptr;
    uint8_t m_backlog = 0;   // NIC queues whose qdisc holds frames
    bool m_filling = false;
    // open addressing, flow + 1 (0: empty) -> slot: key and slot side by side, one line per lookup
    struct index_entry {
        uint32_t key = 0;
        uint32_t slot = none;
    };
    // The two sockets found last, the latest first, in the object's line with the scalars: a host's frames and
    // ACKs mostly belong to one or two sockets at a time, so a lookup rarely reads the index, whose line has gone
    // cold since this host last ran in a large network (a k = 16 fat-tree: 99 % of lookups found here).
    mutable index_entry m_recent[2];
    uint32_t remember(const index_entry& e) const {   // e becomes the latest; returns its slot
        m_recent[1] = m_recent[0];
        m_recent[0] = e;
        return e.slot;
    }
    uint64_t m_wakeup_at = UINT64_MAX;
    uint64_t m_frames = 0, m_bytes = 0;
    uint64_t m_below = 0, m_below_max = 0, m_socket_below_max = 0;
    int64_t m_excess_max = INT64_MIN;
    uint32_t m_queue_frames[num_priorities] = {};
    std::vector<socket> m_sockets;
    std::vector<codel> m_codel;   // fq_codel: each socket's CoDel state (by slot)
    uint64_t m_codel_marks = 0, m_codel_drops = 0;
    uint32_t m_quantum = 0;   // the qdisc's quantum per round (fq's or fq_codel's)
    bool m_ce_skb = false;   // CoDel marked the skb fq_dequeue took: its other frames go marked too
    std::vector<uint32_t> m_codel_freed;   // sockets CoDel dropped from during a fill (woken after it)
    std::vector<index_entry> m_index;
    fq_lists m_lists[num_priorities];
    std::vector<std::pair<uint64_t, uint32_t>> m_throttled;   // min-heap of (departure time, slot)
    // GSO: the socket whose segment came last, its bytes so far, its departure and the idle credit it has left;
    // the socket fq_dequeue took a frame from
    uint32_t m_gso_slot = none, m_dequeued_slot = none;
    uint32_t m_gso_bytes = 0;
    uint64_t m_gso_departure = 0, m_gso_credit = 0;
    // BQL (cold unless on): a limit per NIC queue; the frames transmitting or transmitted and not yet completed,
    // oldest first from m_tx_head; the pending interrupt; skbs transmitted since the last one
    struct tx_entry {
        uint64_t end_ps;
        uint32_t slot;
        uint32_t bytes;
        uint32_t truesize;
        uint8_t queue;
    };
    std::vector<dynamic_queue_limit> m_dql;
    std::vector<tx_entry> m_tx;
    size_t m_tx_head = 0;
    uint64_t m_irq_at = UINT64_MAX;
    uint64_t m_tx_interrupts = 0;
    uint32_t m_skbs_done = 0;
    bool m_skb_open = false;
};

}   // namespace cmswitch
#endif
