// SPDX-License-Identifier: Apache-2.0
// Switch buffer admission. Every book counts in the switch's accounting unit (buffer_units.h: bytes, or cells of
// cell_bytes); a frame costs units().charge(frame bytes) when it is admitted and the same when it is released (its
// transmission starts), whatever the policy. Policies are small classes registered by name in one explicit
// registry (buffer_policies(), make_buffer_manager()), as schemes are:
//  - "static":  each egress port owns port_limit_bytes; a frame is admitted iff port units + frame <= limit
//               (the frame that exactly fills the limit is admitted, the next one is dropped: drop-tail).
//  - "dynamic": one shared pool of pool_bytes with dynamic thresholds (Choudhury & Hahne): a frame is admitted
//               to queue (port, queue) iff queue units < alpha x free pool units and the frame fits in the pool.
//  - "shared": a shared-buffer MMU's egress side (Broadcom-style): of pool_bytes in all, every queue (port x
//               queue) owns reserved_bytes (guaranteed, used first); the rest is one shared service pool with
//               dynamic thresholds per queue: a frame that needs shared space is admitted to queue (port, queue)
//               iff the queue's shared use < alpha[queue] x free shared units and the frame fits in the free shared
//               space. Steady state of n queues saturating the pool: each holds R + S alpha / (1 + n alpha).
//  - "packets": each egress port's transmit queue holds at most a number of frames, whatever their size (switches
//               that count buffers, not bytes: the Cisco 4500 of Zhang et al.'s testbed has 1920 per 1 Gb/s port
//               and 240 per 100 Mb/s port); port_limit_packets gives one limit per port, or one for every port.
//  - "pools": service pools with ingress (priority group) and egress (queue) admission, slices per pipeline: the
//               SAI/SONiC buffer model (service_pool_mmu.h).
#ifndef CMSWITCH_MODEL_SWITCH_BUFFER_MANAGER_H
#define CMSWITCH_MODEL_SWITCH_BUFFER_MANAGER_H

#include "config/result.h"
#include "model/drop_reason.h"
#include "model/frame.h"
#include "model/frame_protocol.h"
#include "model/port/occupancy_stats.h"
#include "model/switch/buffer_units.h"
#include "model/switch/mmu_config.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cmswitch {

struct buffer_config {
    std::string policy = "static";
    uint64_t port_limit_bytes = 150 * 1024;   // "static"
    uint64_t pool_bytes = 1024 * 1024;   // "dynamic", "shared"
    double alpha = 1.0;   // "dynamic"
    std::vector<uint64_t> port_limit_packets;   // "packets": one per port, or a single entry for all ports
    uint64_t reserved_bytes = 0;   // "shared": guaranteed bytes per queue (port x queue)
    std::vector<double> alpha_by_queue;   // "shared": alpha per queue (8 entries); empty: alpha for all
    // The accounting unit of every book (buffer_units.h): cells of cell_bytes (0: bytes), plus a per-frame overhead.
    uint16_t cell_bytes = 0;
    uint16_t cell_overhead_bytes = 0;
    // "pools": service pools, priority-group and queue profiles, slices (mmu_config.h).
    mmu_config mmu;
    // How the switch forwards (ethernet_switch.h): store-and-forward, or cut-through once cut_through_bytes of a
    // frame are in; pipeline_ns of processing either way.
    struct forwarding_config {
        bool cut_through = false;
        uint32_t pipeline_ns = 0;
        uint32_t cut_through_bytes = 64;
    } forwarding;

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

    buffer_units units() const { return buffer_units{cell_bytes, cell_overhead_bytes}; }
};
void check_class_maps(const buffer_config& cfg);

// What a buffer can do beyond admitting and releasing frames, asked for by the blocks that depend on it (a scheme
// asks for a capability; it never compares policy names).
enum buffer_capability : uint32_t {
    // a shared pool that dynamic thresholds divide (shared_pool_size(); what a dynamic PFC XOFF reads)
    cap_shared_pool = 1,
    // lossless queues that skip the egress threshold and may use a headroom pool beside the shared pool
    // (set_lossless; the PAUSE/PFC generator keeps the ingress book)
    cap_lossless_queues = 2,
    // frame limits per port (port_limit_frames() is the policy's, not a byte capacity in 1500-byte frames)
    cap_frame_limits = 4,
    // an ingress book of its own per (port, priority group) that decides PAUSE/PFC (flow_control())
    cap_ingress_flow_control = 8,
};

// Told by a buffer with its own ingress book (cap_ingress_flow_control) when an ingress (port, priority group)
// must pause its peer (XOFF) and when it may resume (XON): the PAUSE/PFC generator sends the frames.
class flow_control_listener {
public:
    virtual void on_xoff(int port, int group, uint64_t now_ps) = 0;
    virtual void on_xon(int port, int group, uint64_t now_ps) = 0;

protected:
    ~flow_control_listener() = default;
};

// The ingress side of a buffer that decides PAUSE/PFC itself (service_pool_mmu).
class ingress_flow_control {
public:
    // The lossless priority groups (bit g: group g): they get headroom above their shared limit instead of a
    // drop, and the listener hears their XOFF and XON.
    virtual void set_lossless_groups(uint8_t group_mask, flow_control_listener* listener) = 0;
    virtual bool xoff(int port, int group) const = 0;
    // The most units the headroom (every group's, or the shared headroom pool) held at once, over every slice.
    virtual uint64_t headroom_peak() const = 0;

protected:
    ~ingress_flow_control() = default;
};

// What an admission (check, then account) reads sits in the first cache line of the object: the base's counters and
// the port accounts' address; a policy's own parameters follow on the next lines (alignas: a large network's
// switches are each cold by the time their next frame comes, and every line read is a miss).
class alignas(64) buffer_manager {
public:
    buffer_manager(int num_ports, buffer_units units);
    virtual ~buffer_manager() = default;

    // Admits (and accounts) f for egress queue `queue` of `port`, arrived on in_port, or returns why not.
    // (Inline for the usual buffer: byte-exact, the base's books; cells, an overhead or a policy's own books take
    // the call out of line: one flag in the first line decides.)
    drop_reason admit(int in_port, int port, int queue, frame& f) {
        if (m_special)
            return admit_special(in_port, port, queue, f);
        const drop_reason r = check(port, queue, f.bytes);
        if (r == drop_reason::none)
            account(port, queue, static_cast<int64_t>(f.bytes));
        return r;
    }
    // f leaves egress queue `queue` of `port` (its transmission starts): what its admission charged comes back.
    void release(int port, int queue, const frame& f) {
        if (m_special) {
            release_special(port, queue, f);
            return;
        }
        account(port, queue, -static_cast<int64_t>(f.bytes));
    }
    const buffer_units& units() const { return m_units; }
    virtual uint32_t capabilities() const { return 0; }

    // Occupancy, in units (units().to_bytes() for the memory they take).
    uint64_t used() const { return m_used; }
    // The bytes of the frames held (what their units store; the same number when byte-exact without overhead).
    uint64_t data_bytes() const { return m_special ? m_data_bytes : m_used; }
    // Where the units sit: in the queues' reserved space (up to the reserve each) and in the shared pool (the
    // rest). Policies without reserved space hold everything in "shared".
    uint64_t reserved_used() const { return m_used - shared_used(); }
    uint64_t shared_used() const { return m_reserved ? m_shared : m_used; }
    uint64_t shared_used_peak() const { return m_shared_peak; }
    // The shared pool's fill over time (shared_used), kept once track_pool_occupancy() was called (one more
    // update per admission and release, so only where a scenario reports it).
    void track_pool_occupancy() { m_track_pool = true; }
    const occupancy_stats& pool_occupancy() const { return *m_pool_occ; }
    uint64_t queue_reserved() const { return m_reserved; }
    uint64_t port_units(int port) const { return m_ports[static_cast<size_t>(port)].units; }
    uint64_t port_frames(int port) const { return m_ports[static_cast<size_t>(port)].frames; }
    uint64_t queue_units(int port, int queue) const { return m_ports[static_cast<size_t>(port)].queue[queue]; }
    // Starts fetching a port's account (what admit and release will touch) into the caches.
    void prefetch(int port) const { __builtin_prefetch(&m_ports[static_cast<size_t>(port)]); }
    // Largest number of units one port can hold (scales the occupancy histograms).
    virtual uint64_t port_capacity() const = 0;
    // Units one port can surely hold when it is the only one queueing (what a lossless PAUSE/PFC split may give
    // its inputs): the static limit; with dynamic thresholds alpha / (1 + alpha) of the pool (q = alpha (B - q)).
    virtual uint64_t lone_port() const { return port_capacity(); }
    // Frames one port's transmit queue holds: the policy's limit where it counts frames (cap_frame_limits), else
    // the capacity in full-size frames.
    virtual uint64_t port_limit_frames(int port) const {
        (void)port;
        return port_capacity() / m_units.charge(1500);
    }
    virtual const char* name() const = 0;
    // The shared pool that dynamic thresholds divide (cap_shared_pool; what ingress dynamic XOFF reads), 0 for
    // the others.
    virtual uint64_t shared_pool_size() const { return 0; }
    // PFC/PAUSE on a shared buffer (cap_lossless_queues): the lossless queues (mask) skip the egress dynamic
    // threshold and may use the headroom pool beyond the shared pool; the ingress accounting (pause_generator)
    // keeps them within it. ingress_reserved_bytes: the PFC ingress guarantees of every (port, lossless group),
    // carved out of the shared pool (pause_reserved_kb); the pause generator reports how many units sit in them
    // (add_ingress_reserved_used). Bytes, converted to units here.
    virtual void set_lossless(uint8_t queue_mask, uint64_t headroom_pool_bytes, uint64_t ingress_reserved_bytes = 0);
    // The ingress book that decides PAUSE/PFC (cap_ingress_flow_control), or null.
    virtual ingress_flow_control* flow_control() { return nullptr; }
    // Units of the shared pool's use that sit in ingress (PFC) reserved space instead (pause_generator).
    void add_ingress_reserved_used(int64_t delta) { m_ing_reserved_used += static_cast<uint64_t>(delta); }
    uint64_t ingress_reserved_used() const { return m_ing_reserved_used; }
    // The shared pool's use without the units the PFC ingress reserves hold.
    uint64_t shared_pool_used() const { return shared_used() - m_ing_reserved_used; }
    // Throws model_error if the books do not add up (at the end of every run): the per-port accounts against the
    // totals, and a policy's own books against them; held_units/held_bytes: what the frames in the switch's egress
    // queues were charged and weigh (their charge recomputed, frame by frame).
    virtual void check_accounting(const std::string& where, uint64_t held_units, uint64_t held_bytes) const;
    virtual void reset();
    // A policy's own books in a run's result (the "pools" policy: its slices and pools), switch_id naming the switch.
    virtual void report_books(result& r, int switch_id) const {
        (void)r;
        (void)switch_id;
    }

protected:
    // (a policy that keeps books of its own: admit_own/release_own replace the base's check and account)
    void use_own_books() {
        m_own_books = true;
        m_special = true;
    }
    virtual drop_reason check(int port, int queue, uint32_t units) const = 0;
    virtual drop_reason admit_own(int in_port, int port, int queue, frame& f);
    virtual void release_own(int port, int queue, const frame& f);
    void set_queue_reserved(uint64_t r) {
        m_reserved = r;
        m_queue_reserve.fill(r);
    }
    // Reserves that differ by queue (the base then counts each queue's shared part with its own; queue_reserved()
    // is the largest).
    void set_queue_reserves(const std::array<uint64_t, num_priorities>& r) {
        m_queue_reserve = r;
        m_reserved = *std::max_element(r.begin(), r.end());
    }
    // A queue's units above its reserved space (every queue's the same: the "shared" policy).
    uint64_t shared_part(uint64_t q) const { return q > m_reserved ? q - m_reserved : 0; }
    // The base's per-port and total accounts (a policy with books of its own keeps these too).
    [[gnu::always_inline]] void account(int port, int queue, int64_t delta) {
        port_account& pa = m_ports[static_cast<size_t>(port)];
        uint64_t& q = pa.queue[queue];
        uint64_t res = 0, shared_before = 0;
        if (m_reserved) {
            res = m_queue_reserve[static_cast<size_t>(queue)];
            shared_before = q > res ? q - res : 0;
        }
        m_used += static_cast<uint64_t>(delta);
        pa.units += static_cast<uint64_t>(delta);
        q += static_cast<uint64_t>(delta);
        pa.frames += delta > 0 ? 1 : ~uint64_t{0};   // one frame in or out
        if (m_reserved)   // (without reserved space every unit is shared: shared_used() reads m_used)
            m_shared += (q > res ? q - res : 0) - shared_before;   // (unsigned wrap-around adds a decrease)
        if (delta > 0 && shared_used() > m_shared_peak)   // admit() inlines this with delta > 0 known
            m_shared_peak = shared_used();
        if (m_track_pool)
            m_pool_occ->set(now_ps(), shared_used());
    }
    uint32_t num_ports() const { return m_num_ports; }

private:
    [[gnu::noinline]] drop_reason admit_special(int in_port, int port, int queue, frame& f);
    [[gnu::noinline]] void release_special(int port, int queue, const frame& f);
    // One port's units and frames and its queues' units, together: a frame's admission and release read and
    // write one cache line of them (queues 0-5; three arrays were three lines, each cold in a large network)
    struct alignas(64) port_account {
        uint64_t units = 0, frames = 0;
        uint64_t queue[num_priorities] = {};
    };
    // the first line (with the virtual table's address): what every admission and release reads and writes
    std::unique_ptr<port_account[]> m_ports;
    uint64_t m_used = 0;
    uint64_t m_reserved = 0;   // per queue
    uint64_t m_shared = 0, m_shared_peak = 0;
    uint64_t m_ing_reserved_used = 0;
    buffer_units m_units;
    bool m_track_pool = false;
    bool m_special = false;   // cells, an overhead, or books of the policy's own (admit_special)
    bool m_own_books = false;
    // then what reset() and the reports read
    uint32_t m_num_ports;
    std::unique_ptr<occupancy_stats> m_pool_occ;
    uint64_t m_data_bytes = 0;   // (kept by the out-of-line path only: data_bytes())
    std::array<uint64_t, num_priorities> m_queue_reserve{};   // (read only where m_reserved is nonzero)
};

class static_buffer final : public buffer_manager {
public:
    // port_limit_bytes: the memory each port owns (converted to units).
    static_buffer(int num_ports, uint64_t port_limit_bytes, buffer_units units = {});
    uint64_t port_capacity() const override { return m_limit; }
    const char* name() const override { return "static"; }

protected:
    drop_reason check(int port, int queue, uint32_t units) const override;

private:
    uint64_t m_limit;
};

class dynamic_threshold_buffer final : public buffer_manager {
public:
    dynamic_threshold_buffer(int num_ports, uint64_t pool_bytes, double alpha, buffer_units units = {});
    uint64_t port_capacity() const override { return m_pool; }
    uint64_t lone_port() const override {
        return static_cast<uint64_t>(m_alpha / (1 + m_alpha) * static_cast<double>(m_pool));
    }
    const char* name() const override { return "dynamic"; }
    uint32_t capabilities() const override { return cap_shared_pool; }
    uint64_t shared_pool_size() const override { return m_pool; }
    // Current threshold of every queue: alpha x free pool units.
    double threshold() const { return m_alpha * static_cast<double>(m_pool - used()); }

protected:
    drop_reason check(int port, int queue, uint32_t units) const override;

private:
    uint64_t m_pool;
    double m_alpha;
};

class packet_buffer final : public buffer_manager {
public:
    // limits: frames per port (size num_ports); mtu_bytes scales the capacity the statistics use
    packet_buffer(int num_ports, std::vector<uint64_t> limits, uint64_t mtu_bytes, buffer_units units = {});
    uint64_t port_capacity() const override { return m_capacity; }
    const char* name() const override { return "packets"; }
    uint32_t capabilities() const override { return cap_frame_limits; }
    uint64_t port_limit_frames(int port) const override { return m_limits[static_cast<size_t>(port)]; }

protected:
    drop_reason check(int port, int queue, uint32_t units) const override;

private:
    std::vector<uint64_t> m_limits;
    uint64_t m_capacity;
};

class shared_buffer final : public buffer_manager {
public:
    // pool_bytes in all; reserved_bytes per queue carved out of it; alpha per queue.
    shared_buffer(int num_ports, uint64_t pool_bytes, uint64_t reserved_bytes, std::vector<double> alpha_by_queue,
                  buffer_units units = {});
    uint64_t port_capacity() const override { return m_pool; }
    // one port alone: its queue's reserved space plus alpha / (1 + alpha) of the shared pool (queue 0's alpha)
    uint64_t lone_port() const override {
        const double a = m_alpha[0];
        return queue_reserved() + static_cast<uint64_t>(a / (1 + a) * static_cast<double>(m_shared_size));
    }
    const char* name() const override { return "shared"; }
    uint32_t capabilities() const override { return cap_shared_pool | cap_lossless_queues; }
    uint64_t shared_pool_size() const override { return m_shared_size; }
    void set_lossless(uint8_t queue_mask, uint64_t headroom_pool_bytes, uint64_t ingress_reserved_bytes) override;
    // The current dynamic threshold of a queue on the shared pool: alpha x free shared units.
    double threshold(int queue) const {
        const uint64_t used = shared_pool_used();
        return m_alpha[static_cast<size_t>(queue)] *
               static_cast<double>(m_shared_size > used ? m_shared_size - used : 0);
    }

protected:
    drop_reason check(int port, int queue, uint32_t units) const override;

private:
    // the second line, after the base's: what an admission that reaches the shared pool reads
    uint64_t m_shared_size;
    uint64_t m_headroom_pool = 0;
    uint64_t m_ing_reserved = 0;
    uint8_t m_lossless = 0;   // queues
    uint64_t m_pool;
    // queue 0's alpha again, in this line's last bytes: where every frame is of queue 0 (one traffic class),
    // an admission that meets the dynamic threshold reads no third line
    double m_alpha0;
    // the third line, read when a lossy queue's admission of another queue meets the dynamic threshold
    alignas(64) std::array<double, num_priorities> m_alpha;
};

// One buffer policy of the registry: its name (buffer_policy), a line for --help, whether every scenario's
// buffer_policy offers it (declare_buffer; "packets" is a scenario's own), and its factory, which validates the
// config (config_error naming the field).
struct buffer_policy_entry {
    const char* name;
    const char* help;
    bool offered;
    std::unique_ptr<buffer_manager> (*make)(const buffer_config& cfg, int num_ports);
};
const std::vector<buffer_policy_entry>& buffer_policies();
// Validates cfg (throws config_error naming the field) and builds the policy it names.
std::unique_ptr<buffer_manager> make_buffer_manager(const buffer_config& cfg, int num_ports);
const std::vector<std::string>& buffer_policy_names();

}   // namespace cmswitch
#endif
