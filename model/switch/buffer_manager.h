// SPDX-License-Identifier: Apache-2.0
// Switch buffer admission with byte-exact accounting. Policies are small classes chosen by name through
// make_buffer_manager() (one explicit registry):
//  - "static":  each egress port owns port_limit_bytes; a frame is admitted iff port bytes + frame <= limit
//               (the frame that exactly fills the limit is admitted, the next one is dropped: drop-tail).
//  - "dynamic": one shared pool of pool_bytes with dynamic thresholds (Choudhury & Hahne): a frame is admitted
//               to queue (port, prio) iff queue bytes < alpha x free pool bytes and the frame fits in the pool.
//  - "shared": a shared-buffer MMU's egress side (Broadcom-style): of pool_bytes in all, every queue (port x
//               priority) owns reserved_bytes (guaranteed, used first); the rest is one shared service pool with
//               dynamic thresholds per priority: a frame that needs shared space is admitted to queue (port, prio)
//               iff the queue's shared use < alpha[prio] x free shared bytes and the frame fits in the free shared
//               space. Steady state of n queues saturating the pool: each holds R + S alpha / (1 + n alpha).
//  - "packets": each egress port's transmit queue holds at most a number of frames, whatever their size (switches
//               that count buffers, not bytes: the Cisco 4500 of seed 001 has 1920 per 1 Gb/s port and 240 per
//               100 Mb/s port); port_limit_packets gives one limit per port, or one for every port.
#ifndef CMSWITCH_MODEL_SWITCH_BUFFER_MANAGER_H
#define CMSWITCH_MODEL_SWITCH_BUFFER_MANAGER_H

#include "model/drop_reason.h"
#include "model/frame.h"
#include "model/frame_protocol.h"
#include "model/port/occupancy_stats.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cmswitch {

struct buffer_config {
    std::string policy = "static";
    uint64_t port_limit_bytes = 150 * 1024;   // "static"
    uint64_t pool_bytes = 1024 * 1024;   // "dynamic"
    double alpha = 1.0;   // "dynamic"
    std::vector<uint64_t> port_limit_packets;   // "packets": one per port, or a single entry for all ports
    uint64_t reserved_bytes = 0;   // "shared": guaranteed bytes per queue (port x priority)
    std::vector<double> alpha_by_queue;   // "shared": alpha per queue (8 entries); empty: alpha for all

    // The switch's class handling (the switch description), for every policy: the egress queue and
    // the ingress priority group (PFC/PAUSE accounting) of each 802.1p priority, and the egress scheduler: the
    // queues in dwrr_queues share by deficit weighted round robin (dwrr_quantum bytes per round each), the others
    // are strict priority above them. Identity maps and strict priority by default; priority 7 (control frames)
    // stays in queue 7 and group 7, and no other priority may use them. Admission, alpha_by_queue and reserved
    // space are per queue. check_class_maps() refuses a bad map (config_error naming the entry).
    std::array<uint8_t, 8> queue_map{{0, 1, 2, 3, 4, 5, 6, 7}};
    std::array<uint8_t, 8> pg_map{{0, 1, 2, 3, 4, 5, 6, 7}};
    uint8_t dwrr_queues = 0;
    std::array<uint32_t, 8> dwrr_quantum{};
};
void check_class_maps(const buffer_config& cfg);

// What an admission (check, then account) reads sits in the first cache line of the object: the base's counters and
// the port accounts' address; a policy's own parameters follow on the next lines (alignas: a large network's
// switches are each cold by the time their next frame comes, and every line read is a miss).
class alignas(64) buffer_manager {
public:
    explicit buffer_manager(int num_ports);
    virtual ~buffer_manager() = default;

    // Admits (and accounts) or returns why not.
    drop_reason admit(int port, int prio, uint32_t bytes) {
        const drop_reason r = check(port, prio, bytes);
        if (r == drop_reason::none)
            account(port, prio, static_cast<int64_t>(bytes));
        return r;
    }
    void release(int port, int prio, uint32_t bytes) { account(port, prio, -static_cast<int64_t>(bytes)); }

    uint64_t used_bytes() const { return m_used; }
    // Where the bytes sit: in the queues' reserved space (up to reserved_bytes each) and in the shared pool (the
    // rest). Policies without reserved space hold everything in "shared".
    uint64_t reserved_used_bytes() const { return m_used - shared_used_bytes(); }
    uint64_t shared_used_bytes() const { return m_reserved ? m_shared : m_used; }
    uint64_t shared_used_peak_bytes() const { return m_shared_peak; }
    // The shared pool's fill over time (shared_used_bytes), kept once track_pool_occupancy() was called (one more
    // update per admission and release, so only where a scenario reports it).
    void track_pool_occupancy() { m_track_pool = true; }
    const occupancy_stats& pool_occupancy() const { return *m_pool_occ; }
    uint64_t queue_reserved_bytes() const { return m_reserved; }
    uint64_t port_bytes(int port) const { return m_ports[static_cast<size_t>(port)].bytes; }
    uint64_t port_frames(int port) const { return m_ports[static_cast<size_t>(port)].frames; }
    uint64_t queue_bytes(int port, int prio) const { return m_ports[static_cast<size_t>(port)].queue[prio]; }
    // Starts fetching a port's account (what admit and release will touch) into the caches.
    void prefetch(int port) const { __builtin_prefetch(&m_ports[static_cast<size_t>(port)]); }
    // Largest number of bytes one port can hold (scales the occupancy histogram).
    virtual uint64_t port_capacity_bytes() const = 0;
    // Bytes one port can surely hold when it is the only one queueing (what a lossless PAUSE/PFC split may give
    // its inputs): the static limit; with dynamic thresholds alpha / (1 + alpha) of the pool (q = alpha (B - q)).
    virtual uint64_t lone_port_bytes() const { return port_capacity_bytes(); }
    virtual const char* name() const = 0;
    // The shared pool that dynamic thresholds divide (what ingress dynamic XOFF reads): the pool of "dynamic" and
    // "shared", 0 for the others.
    virtual uint64_t shared_pool_size() const { return 0; }
    // PFC/PAUSE on a shared buffer: the lossless priorities (mask) skip the egress dynamic threshold and may use
    // the headroom pool beyond the shared pool; the ingress accounting (pause_generator) keeps them within it.
    // Policies other than "shared" ignore it.
    // ingress_reserved_bytes: the PFC ingress guarantees of every (port, lossless group), carved out of the shared
    // pool (pause_reserved_kb); the pause generator reports how many bytes sit in them (ingress_reserved_used).
    virtual void set_lossless(uint8_t prio_mask, uint64_t headroom_pool_bytes, uint64_t ingress_reserved_bytes = 0) {
        (void)prio_mask;
        (void)headroom_pool_bytes;
        (void)ingress_reserved_bytes;
    }
    // Bytes of the shared pool's use that sit in ingress (PFC) reserved space instead (pause_generator).
    void add_ingress_reserved_used(int64_t delta) { m_ing_reserved_used += static_cast<uint64_t>(delta); }
    uint64_t ingress_reserved_used() const { return m_ing_reserved_used; }
    // The shared pool's use without the bytes the PFC ingress reserves hold.
    uint64_t shared_pool_used_bytes() const { return shared_used_bytes() - m_ing_reserved_used; }
    void reset();

protected:
    virtual drop_reason check(int port, int prio, uint32_t bytes) const = 0;
    void set_queue_reserved(uint64_t r) { m_reserved = r; }
    // A queue's bytes above its reserved space.
    uint64_t shared_part(uint64_t q) const { return q > m_reserved ? q - m_reserved : 0; }

private:
    void account(int port, int prio, int64_t delta) {
        port_account& pa = m_ports[static_cast<size_t>(port)];
        uint64_t& q = pa.queue[prio];
        const uint64_t shared_before = m_reserved ? shared_part(q) : 0;
        m_used += static_cast<uint64_t>(delta);
        pa.bytes += static_cast<uint64_t>(delta);
        q += static_cast<uint64_t>(delta);
        pa.frames += delta > 0 ? 1 : ~uint64_t{0};   // one frame in or out
        if (m_reserved)   // (without reserved space every byte is shared: shared_used_bytes() reads m_used)
            m_shared += shared_part(q) - shared_before;   // (unsigned wrap-around adds a decrease)
        if (delta > 0 && shared_used_bytes() > m_shared_peak)   // admit() inlines this with delta > 0 known
            m_shared_peak = shared_used_bytes();
        if (m_track_pool)
            m_pool_occ->set(now_ps(), shared_used_bytes());
    }

    // One port's bytes and frames and its queues' bytes, together: a frame's admission and release read and
    // write one cache line of them (queues 0-5; three arrays were three lines, each cold in a large network)
    struct alignas(64) port_account {
        uint64_t bytes = 0, frames = 0;
        uint64_t queue[num_priorities] = {};
    };
    // the first line (with the virtual table's address): what every admission and release reads and writes
    std::unique_ptr<port_account[]> m_ports;
    uint64_t m_used = 0;
    uint64_t m_reserved = 0;   // per queue
    uint64_t m_shared = 0, m_shared_peak = 0;
    uint64_t m_ing_reserved_used = 0;
    bool m_track_pool = false;
    // then what reset() and the reports read
    uint32_t m_num_ports;
    std::unique_ptr<occupancy_stats> m_pool_occ;
};

class static_buffer final : public buffer_manager {
public:
    static_buffer(int num_ports, uint64_t port_limit_bytes);
    uint64_t port_capacity_bytes() const override { return m_limit; }
    const char* name() const override { return "static"; }

protected:
    drop_reason check(int port, int prio, uint32_t bytes) const override;

private:
    uint64_t m_limit;
};

class dynamic_threshold_buffer final : public buffer_manager {
public:
    dynamic_threshold_buffer(int num_ports, uint64_t pool_bytes, double alpha);
    uint64_t port_capacity_bytes() const override { return m_pool; }
    uint64_t lone_port_bytes() const override {
        return static_cast<uint64_t>(m_alpha / (1 + m_alpha) * static_cast<double>(m_pool));
    }
    const char* name() const override { return "dynamic"; }
    uint64_t shared_pool_size() const override { return m_pool; }
    // Current threshold of every queue: alpha x free pool bytes.
    double threshold_bytes() const { return m_alpha * static_cast<double>(m_pool - used_bytes()); }

protected:
    drop_reason check(int port, int prio, uint32_t bytes) const override;

private:
    uint64_t m_pool;
    double m_alpha;
};

class packet_buffer final : public buffer_manager {
public:
    // limits: frames per port (size num_ports); mtu_bytes scales the byte capacity the statistics use
    packet_buffer(int num_ports, std::vector<uint64_t> limits, uint64_t mtu_bytes);
    uint64_t port_capacity_bytes() const override { return m_capacity; }
    const char* name() const override { return "packets"; }
    uint64_t port_limit_packets(int port) const { return m_limits[static_cast<size_t>(port)]; }

protected:
    drop_reason check(int port, int prio, uint32_t bytes) const override;

private:
    std::vector<uint64_t> m_limits;
    uint64_t m_capacity;
};

class shared_buffer final : public buffer_manager {
public:
    // pool_bytes in all; reserved_bytes per queue carved out of it; alpha per priority.
    shared_buffer(int num_ports, uint64_t pool_bytes, uint64_t reserved_bytes, std::vector<double> alpha_by_queue);
    uint64_t port_capacity_bytes() const override { return m_pool; }
    // one port alone: its queue's reserved space plus alpha / (1 + alpha) of the shared pool (priority 0's alpha)
    uint64_t lone_port_bytes() const override {
        const double a = m_alpha[0];
        return queue_reserved_bytes() + static_cast<uint64_t>(a / (1 + a) * static_cast<double>(m_shared_size));
    }
    const char* name() const override { return "shared"; }
    uint64_t shared_pool_bytes() const { return m_shared_size; }
    uint64_t shared_pool_size() const override { return m_shared_size; }
    void set_lossless(uint8_t prio_mask, uint64_t headroom_pool_bytes, uint64_t ingress_reserved_bytes) override;
    // The current dynamic threshold of a queue on the shared pool: alpha x free shared bytes.
    double threshold_bytes(int queue) const {
        const uint64_t used = shared_pool_used_bytes();
        return m_alpha[static_cast<size_t>(queue)] *
               static_cast<double>(m_shared_size > used ? m_shared_size - used : 0);
    }

protected:
    drop_reason check(int port, int prio, uint32_t bytes) const override;

private:
    // the second line, after the base's: what an admission that reaches the shared pool reads
    uint64_t m_shared_size;
    uint64_t m_headroom_pool = 0;
    uint64_t m_ing_reserved = 0;
    uint8_t m_lossless = 0;   // queues
    uint64_t m_pool;
    // priority 0's alpha again, in this line's last bytes: where every frame is of priority 0 (one traffic class),
    // an admission that meets the dynamic threshold reads no third line
    double m_alpha0;
    // the third line, read when a lossy queue's admission of another priority meets the dynamic threshold
    alignas(64) std::array<double, num_priorities> m_alpha;
};

// Validates cfg (throws config_error naming the field) and builds the policy it names.
std::unique_ptr<buffer_manager> make_buffer_manager(const buffer_config& cfg, int num_ports);
const std::vector<std::string>& buffer_policy_names();

}   // namespace cmswitch
#endif
