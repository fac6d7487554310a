// SPDX-License-Identifier: Apache-2.0
#include "model/nic/host_qdisc.h"

#include <algorithm>
#include <climits>
#include <functional>
#include <utility>

namespace cmswitch {

namespace {
size_t hash_flow(uint32_t flow) {
    return static_cast<size_t>((static_cast<uint64_t>(flow) * 0x9e3779b97f4a7c15ull) >> 32);
}
}   // namespace

void host_qdisc::configure(const host_egress_config& cfg, host_qdisc_owner* owner) {
    m_cfg = cfg;
    m_owner = owner;
    m_quantum =
        cfg.qdisc == host_egress_config::qdisc_kind::fq_codel ? cfg.fq_codel_quantum_bytes : cfg.fq_quantum_bytes;
    reset();
}

void host_qdisc::reset() {
    m_sockets.clear();
    m_codel.clear();
    m_codel_marks = m_codel_drops = 0;
    m_codel_freed.clear();
    m_ce_skb = false;
    m_index.clear();
    m_recent[0] = m_recent[1] = index_entry{};
    for (auto& l : m_lists)
        l = fq_lists{};
    m_backlog = 0;
    for (auto& n : m_queue_frames)
        n = 0;
    m_throttled.clear();
    m_wakeup_at = UINT64_MAX;
    m_frames = m_bytes = 0;
    m_gso_slot = m_dequeued_slot = none;
    m_gso_bytes = 0;
    m_below = m_below_max = m_socket_below_max = 0;
    m_excess_max = INT64_MIN;
    m_filling = false;
    m_dql.assign(m_cfg.bql ? num_priorities : 0, dynamic_queue_limit{});
    m_tx.clear();
    m_tx_head = 0;
    m_irq_at = UINT64_MAX;
    m_tx_interrupts = 0;
    m_skbs_done = 0;
    m_skb_open = false;
}

// ------------------------------------------------------------------------------------------- socket index

uint32_t host_qdisc::find(uint32_t flow) const {
    const uint32_t key = flow + 1;
    if (m_recent[0].key == key)
        return m_recent[0].slot;
    if (m_recent[1].key == key) {
        std::swap(m_recent[0], m_recent[1]);
        return m_recent[0].slot;
    }
    return find_indexed(flow);
}

uint32_t host_qdisc::find_indexed(uint32_t flow) const {
    if (m_index.empty())
        return none;
    const size_t mask = m_index.size() - 1;
    for (size_t i = hash_flow(flow) & mask;; i = (i + 1) & mask) {
        if (m_index[i].key == 0)
            return none;
        if (m_index[i].key == flow + 1)
            return remember(m_index[i]);
    }
}

void host_qdisc::grow_index() {
    std::vector<index_entry> index(std::max<size_t>(64, m_index.size() * 2));
    const size_t mask = index.size() - 1;
    for (const index_entry& e : m_index) {
        if (!e.key)
            continue;
        size_t i = hash_flow(e.key - 1) & mask;
        while (index[i].key)
            i = (i + 1) & mask;
        index[i] = e;
    }
    m_index.swap(index);
}

uint32_t host_qdisc::slot_of(uint32_t flow) {
    const uint32_t found = find(flow);
    if (found != none)
        return found;
    if ((m_sockets.size() + 1) * 2 > m_index.size())
        grow_index();
    const size_t mask = m_index.size() - 1;
    size_t i = hash_flow(flow) & mask;
    while (m_index[i].key)
        i = (i + 1) & mask;
    const auto slot = static_cast<uint32_t>(m_sockets.size());
    m_index[i] = index_entry{flow + 1, slot};
    remember(m_index[i]);
    m_sockets.emplace_back();
    m_sockets.back().flow = flow;
    m_sockets.back().credit = m_cfg.fq_initial_quantum_bytes;
    if (m_cfg.qdisc == host_egress_config::qdisc_kind::fq_codel)
        m_codel.emplace_back();
    return slot;
}

std::optional<host_socket_stats> host_qdisc::socket_stats(uint32_t flow) const {
    const uint32_t s = find(flow);
    if (s == none)
        return std::nullopt;
    const socket& k = m_sockets[s];
    return host_socket_stats{k.data_frames, k.wait_sum_ps, k.wait_max_ps, k.throttled};
}

// ------------------------------------------------------------------------------------------- small queues

uint64_t host_qdisc::limit_of(const socket& s) const {
    uint64_t lim = m_cfg.tsq_max_bytes;
    if (s.pacing_bps > 0)   // about 1 ms at the pacing rate, as Linux's sk_pacing_rate >> sk_pacing_shift
        lim = mul_div(s.pacing_bps, m_cfg.tsq_ps, 8000000000000ull);
    lim = std::max<uint64_t>(lim, 2 * uint64_t{s.skb_max});
    // capped by tcp_limit_output_bytes (Linux 6.16 on: every socket; before, only sockets no qdisc paced)
    return std::min(lim, std::max<uint64_t>(m_cfg.tsq_max_bytes, 2 * uint64_t{s.skb_max}));
}

uint64_t host_qdisc::limit_bytes(uint32_t flow) const {
    const uint32_t s = find(flow);
    return s == none ? m_cfg.tsq_max_bytes : limit_of(m_sockets[s]);
}

uint64_t host_qdisc::below_bytes(uint32_t flow) const {
    const uint32_t s = find(flow);
    return s == none ? 0 : m_sockets[s].below;
}

bool host_qdisc::over_limit(uint32_t flow, bool retransmission) const {
    const uint32_t s = find(flow);
    if (s == none)
        return false;
    const socket& k = m_sockets[s];
    // a socket whose fq queue is full waits as one over its small queue (Linux: the qdisc's drop stops the send
    // loop and the segment stays unsent, not lost)
    if (m_cfg.fq() && k.q.frames >= m_cfg.fq_flow_limit)
        return true;
    return m_cfg.small_queues && k.below > (retransmission ? 2 : 1) * limit_of(k);
}

void host_qdisc::want_room(uint32_t flow) {
    socket& k = m_sockets[slot_of(flow)];
    if (!k.want_room)
        k.throttled++;
    k.want_room = true;
}

void host_qdisc::set_pacing_rate(uint32_t flow, uint64_t bps) {
    m_sockets[slot_of(flow)].pacing_bps = bps;
}

// ---------------------------------------------------------------------------------------------- the path

void host_qdisc::account(frame* f) {
    if (f->host_bits & host_counted)
        return;
    socket& k = m_sockets[slot_of(f->flow)];
    f->host_bits |= host_counted;
    k.below += truesize(*f);
    m_socket_below_max = std::max(m_socket_below_max, k.below);
    if (f->payload > 0 && m_cfg.small_queues) {
        const uint64_t limit = limit_of(k);
        const int64_t excess = static_cast<int64_t>(k.below) - static_cast<int64_t>(limit);
        m_excess_max = std::max(m_excess_max, excess);
    }
    m_below += f->bytes;
    m_below_max = std::max(m_below_max, m_below);
}

void host_qdisc::enqueue(frame* f, uint64_t now) {
    account(f);   // (counted already if it came through the host's latency)
    const uint32_t slot = slot_of(f->flow);
    socket& k = m_sockets[slot];
    // the rest of the GSO segment begun last
    const bool gso_rest = (f->host_bits & host_gso_cont) && slot == m_gso_slot;
    if (!gso_rest) {
        m_gso_slot = slot;
        m_gso_bytes = 0;
    }
    m_gso_bytes += truesize(*f);
    k.skb_max = std::max(k.skb_max, m_gso_bytes);
    if (!m_cfg.per_socket()) {
        hand_to_ring(f, now);
        return;
    }
    const bool codel_on = !m_codel.empty();
    if (codel_on ? m_frames >= m_cfg.fq_codel_limit : k.q.frames >= m_cfg.fq_flow_limit || m_frames >= m_cfg.fq_limit) {
        forget(*f);
        m_owner->qdisc_drop(f, drop_reason::qdisc_limit);
        return;
    }
    k.queue = static_cast<uint8_t>(m_owner->ring_queue_of(f->prio));
    uint64_t departure = now;
    if (m_cfg.pacing && f->payload > 0) {   // Linux's TCP earliest-departure-time stamp, per GSO segment
        uint64_t credit = 0;   // time the socket lost idle
        if (gso_rest) {
            departure = m_gso_departure;
            credit = m_gso_credit;
        } else {
            const uint64_t prior = k.wstamp_ps;
            k.wstamp_ps = std::max(k.wstamp_ps, now);
            departure = m_gso_departure = k.wstamp_ps;
            credit = k.wstamp_ps - prior;
        }
        if (k.pacing_bps > 0 && k.data_sent >= m_cfg.unpaced_segments) {
            uint64_t gap = mul_div(f->payload, 8000000000000ull, k.pacing_bps);
            const uint64_t lost = std::min(gap / 2, credit);   // up to half the segment's time
            gap -= lost;
            credit -= lost;
            k.wstamp_ps += gap;
        }
        m_gso_credit = credit;
        ++k.data_sent;
    }
    f->enq_ps = departure;   // (the NIC queue overwrites it when the frame gets there)
    if (f->kind == frame_kind::tcp && f->payload > 0 && departure > f->ts_ps)
        f->ts_ps = departure;   // Linux's TCP timestamp is the departure time it stamps (TSval, RTT samples)
    if (gso_rest && k.q.frames == 0) {   // its segment's first frames are in the ring already: it follows them
        k.credit -= f->bytes;
        hand_to_ring(f, now);
        return;
    }
    k.q.push(f);
    ++m_frames;
    m_bytes += f->bytes;
    ++m_queue_frames[k.queue];
    m_backlog |= static_cast<uint8_t>(1u << k.queue);
    if (k.where == place::detached) {
        if (codel_on)   // fq_codel: a flow that becomes active gets a quantum
            k.credit = m_quantum;
        else if (now > k.idle_since + m_cfg.fq_refill_delay_ps)
            k.credit = std::max<int64_t>(k.credit, m_cfg.fq_quantum_bytes);
        push_tail(k.queue, slot, place::new_list);
    }
    fill(now);
}

void host_qdisc::hand_to_ring(frame* f, uint64_t now) {
    if (!m_cfg.bql) {
        m_owner->to_ring(f, now);
        return;
    }
    // counted as queued before the NIC may start it (its start refills the ring against the limit), taken back
    // if the NIC drops it
    dynamic_queue_limit& dql = m_dql[static_cast<size_t>(m_owner->ring_queue_of(f->prio))];
    const uint32_t bytes = f->bytes;
    dql.queued(bytes, (f->host_bits & host_gso_cont) != 0);
    if (!m_owner->to_ring(f, now))
        dql.unqueue(bytes);
}

void host_qdisc::forget(const frame& f) {
    if (!(f.host_bits & host_counted))
        return;
    const uint32_t s = find(f.flow);
    m_sockets[s].below -= truesize(f);
    m_below -= f.bytes;
}

void host_qdisc::on_tx_start(const frame& f, uint64_t now) {
    if (f.host_bits & host_counted) {
        const uint32_t slot = find(f.flow);
        socket& k = m_sockets[slot];
        if (f.payload > 0 && f.created_ps + m_cfg.latency_ps <= now) {
            const uint64_t wait = now - f.created_ps - m_cfg.latency_ps;
            k.data_frames++;
            k.wait_sum_ps += wait;
            k.wait_max_ps = std::max(k.wait_max_ps, wait);
        }
        if (m_cfg.bql)
            await_completion(f, slot, now);
        else
            free_bytes(slot, f.bytes, truesize(f), now);
    }
    if (m_cfg.per_socket())
        fill(now);
}

void host_qdisc::free_bytes(uint32_t slot, uint32_t bytes, uint32_t truesize, uint64_t now) {
    socket& k = m_sockets[slot];
    k.below -= truesize;
    m_below -= bytes;
    if (k.want_room && !over_limit(k.flow)) {
        k.want_room = false;
        m_owner->socket_writable(k.flow, now);   // (may queue more here: m_sockets may grow)
    }
}

// ------------------------------------------------------------------------------------- BQL completions

void host_qdisc::await_completion(const frame& f, uint32_t slot, uint64_t now) {
    // the skb before this one ended with the previous frame: one more completion entry for the frame count
    const bool skb_start = !(f.host_bits & host_gso_cont);
    if (skb_start && m_skb_open)
        ++m_skbs_done;
    m_skb_open = true;
    const uint64_t end = m_owner->tx_end_ps(f, now);
    m_tx.push_back(tx_entry{end, slot, f.bytes, truesize(f), static_cast<uint8_t>(m_owner->ring_queue_of(f.prio))});
    uint64_t at = m_irq_at == UINT64_MAX ? end + m_cfg.tx_coalesce_ps : m_irq_at;
    if (m_cfg.tx_coalesce_frames && m_skbs_done >= m_cfg.tx_coalesce_frames)
        at = std::min(at, now);
    if (at != m_irq_at) {
        m_irq_at = at;
        m_owner->tx_interrupt_at(at);
    }
}

void host_qdisc::on_tx_interrupt(uint64_t now) {
    if (now != m_irq_at)   // superseded by an earlier one, or from before a reset
        return;
    m_irq_at = UINT64_MAX;
    m_skbs_done = 0;
    ++m_tx_interrupts;
    const size_t first = m_tx_head;
    size_t stop = first;
    uint64_t done[num_priorities] = {};
    unsigned queues = 0;
    for (; stop < m_tx.size() && m_tx[stop].end_ps <= now; ++stop) {
        done[m_tx[stop].queue] += m_tx[stop].bytes;
        queues |= 1u << m_tx[stop].queue;
    }
    m_tx_head = stop;
    // the NAPI poll reports the batch to the queue limits, then the freed skbs wake their sockets (Linux's TSQ
    // handler runs after the poll); a woken socket may send, and its frames may start and join m_tx
    for (; queues; queues &= queues - 1) {
        const int q = __builtin_ctz(queues);
        m_dql[static_cast<size_t>(q)].completed(done[q], now);
    }
    for (size_t i = first; i < stop; ++i)
        free_bytes(m_tx[i].slot, m_tx[i].bytes, m_tx[i].truesize, now);
    if (m_tx_head == m_tx.size()) {
        m_tx.clear();
        m_tx_head = 0;
    } else if (m_tx_head > 256 && m_tx_head * 2 > m_tx.size()) {
        m_tx.erase(m_tx.begin(), m_tx.begin() + static_cast<std::ptrdiff_t>(m_tx_head));
        m_tx_head = 0;
    }
    if (m_tx_head < m_tx.size() && m_irq_at == UINT64_MAX) {   // a frame still transmitting starts the next
        m_irq_at = std::max(now, m_tx[m_tx_head].end_ps + m_cfg.tx_coalesce_ps);
        m_owner->tx_interrupt_at(m_irq_at);
    }
    fill(now);
}

uint64_t host_qdisc::bql_limit_max() const {
    uint64_t m = 0;
    for (const dynamic_queue_limit& d : m_dql)
        m = std::max(m, d.max_limit_seen());
    return m;
}

void host_qdisc::on_timer(uint64_t now) {
    if (now >= m_wakeup_at)
        m_wakeup_at = UINT64_MAX;
    fill(now);
}

// ------------------------------------------------------------------------------------------------ fq

void host_qdisc::push_tail(int queue, uint32_t slot, place list) {
    fq_lists& l = m_lists[queue];
    socket& k = m_sockets[slot];
    k.where = list;
    k.next = none;
    uint32_t& head = list == place::new_list ? l.new_head : l.old_head;
    uint32_t& tail = list == place::new_list ? l.new_tail : l.old_tail;
    if (tail == none)
        head = slot;
    else
        m_sockets[tail].next = slot;
    tail = slot;
}

void host_qdisc::release_throttled(uint64_t now) {
    const auto later = std::greater<std::pair<uint64_t, uint32_t>>();
    while (!m_throttled.empty() && m_throttled.front().first <= now) {
        const uint32_t slot = m_throttled.front().second;
        std::pop_heap(m_throttled.begin(), m_throttled.end(), later);
        m_throttled.pop_back();
        push_tail(m_sockets[slot].queue, slot, place::old_list);
    }
}

// Linux fq_dequeue for one NIC queue: new sockets before old ones; a socket out of credit gets a quantum and goes
// to the end of the old list; a socket whose head frame is not due waits in the throttled heap; an empty socket
// leaves (through the old list once if it was new and old sockets wait, so that new ones cannot starve them).
frame* host_qdisc::take_gso_rest(uint32_t slot) {
    socket& k = m_sockets[slot];
    frame* f = k.q.head;
    if (!f || !(f->host_bits & host_gso_cont))
        return nullptr;
    k.q.pop();
    --m_frames;
    --m_queue_frames[k.queue];
    m_bytes -= f->bytes;
    k.credit -= f->bytes;
    if (m_ce_skb && f->ecn != ecn_not_ect)
        f->ecn = ecn_ce;
    return f;
}

// Linux codel_dequeue on a socket's queue of skbs: a dropped skb goes whole (its frames that wait here; a frame of it
// TCP has not sent yet goes on alone), its bytes freed below the socket as a completion would.
frame* host_qdisc::codel_head(uint32_t slot, uint64_t now) {
    socket& k = m_sockets[slot];
    m_ce_skb = false;
    for (frame* f = k.q.head; f; f = k.q.head) {
        const bool ect = f->ecn != ecn_not_ect;
        const codel::verdict v = m_codel[slot].on_head(m_cfg.codel, now, now - f->enq_ps, m_bytes, ect);
        if (v == codel::verdict::pass)
            return f;
        if (v == codel::verdict::mark) {
            f->ecn = ecn_ce;
            m_ce_skb = true;
            ++m_codel_marks;
            return f;
        }
        do {   // the whole skb
            frame* d = k.q.pop();
            --m_frames;
            --m_queue_frames[k.queue];
            m_bytes -= d->bytes;
            ++m_codel_drops;
            k.below -= truesize(*d);   // (its socket may send again: woken once this fill is done, see fill)
            m_below -= d->bytes;
            m_codel_freed.push_back(slot);
            d->host_bits = static_cast<uint8_t>(d->host_bits & ~host_counted);
            m_owner->qdisc_drop(d, drop_reason::qdisc_codel);
        } while (k.q.head && (k.q.head->host_bits & host_gso_cont));
    }
    m_codel[slot].on_empty();
    return nullptr;
}

frame* host_qdisc::fq_dequeue(int queue, uint64_t now) {
    fq_lists& l = m_lists[queue];
    for (;;) {
        const bool from_new = l.new_head != none;
        uint32_t& head = from_new ? l.new_head : l.old_head;
        uint32_t& tail = from_new ? l.new_tail : l.old_tail;
        if (head == none)
            return nullptr;
        const uint32_t slot = head;
        socket& k = m_sockets[slot];
        auto pop_head = [&] {
            head = k.next;
            if (head == none)
                tail = none;
            k.next = none;
        };
        if (k.credit <= 0) {
            k.credit += m_quantum;
            pop_head();
            push_tail(queue, slot, place::old_list);
            continue;
        }
        frame* f = m_codel.empty() ? k.q.head : codel_head(slot, now);
        if (!f) {
            pop_head();
            if (from_new && l.old_head != none) {
                push_tail(queue, slot, place::old_list);
            } else {
                k.where = place::detached;
                k.idle_since = now;
            }
            continue;
        }
        if (f->enq_ps > now) {   // paced: not due yet
            pop_head();
            k.where = place::throttled;
            m_throttled.emplace_back(f->enq_ps, slot);
            std::push_heap(m_throttled.begin(), m_throttled.end(), std::greater<std::pair<uint64_t, uint32_t>>());
            continue;
        }
        k.q.pop();
        m_dequeued_slot = slot;
        // The socket's next frame, cold since it was queued (its line is read when the socket's turn comes back,
        // a frame time or more from now: time enough for the fetch, and a large network's traffic in between
        // is a fraction of the L2)
        if (k.q.head)
            __builtin_prefetch(k.q.head);
        --m_frames;
        --m_queue_frames[queue];
        m_bytes -= f->bytes;
        k.credit -= f->bytes;
        return f;
    }
}

void host_qdisc::fill(uint64_t now) {
    if (m_filling)   // a frame handed over started at once and its completion came back here
        return;
    m_filling = true;
    release_throttled(now);
    for (bool moved = true; moved && m_backlog;) {   // (again if a completion queued more meanwhile)
        moved = false;
        for (unsigned pending = m_backlog; pending;) {   // the queues with frames, highest first
            const int q = 31 - __builtin_clz(pending);
            pending &= ~(1u << q);
            while (ring_open(q)) {
                frame* f = fq_dequeue(q, now);
                if (!f)
                    break;
                const uint32_t slot = m_dequeued_slot;
                hand_to_ring(f, now);
                moved = true;
                // the rest of its GSO segment goes with it, whatever the ring holds (Linux hands the NIC whole
                // skbs); frames of it TCP has not sent yet follow on their own (enqueue)
                while (frame* g = take_gso_rest(slot))
                    hand_to_ring(g, now);
            }
            if (m_queue_frames[q] == 0)
                m_backlog &= static_cast<uint8_t>(~(1u << q));
        }
    }
    if (!m_throttled.empty() && m_throttled.front().first < m_wakeup_at) {
        m_wakeup_at = m_throttled.front().first;
        m_owner->qdisc_wakeup_at(m_wakeup_at);
    }
    m_filling = false;
    if (!m_codel_freed.empty()) {   // sockets whose skbs CoDel dropped: back under their limit, they may send
        std::vector<uint32_t> slots;
        slots.swap(m_codel_freed);
        for (const uint32_t slot : slots) {
            socket& k = m_sockets[slot];
            if (k.want_room && !over_limit(k.flow)) {
                k.want_room = false;
                m_owner->socket_writable(k.flow, now);   // (may queue and fill again)
            }
        }
    }
}

}   // namespace cmswitch
