// SPDX-License-Identifier: Apache-2.0
// A shared-buffer MMU as merchant switch chips build one and the SAI/SONiC buffer model configures it (buffer
// policy "pools"; its configuration: mmu_config.h): service pools, ingress admission per (port, priority group),
// egress admission per (port, queue), lossless headroom, and the buffer split into slices.
//
// Books, all in the switch's units (cells or bytes, buffer_units.h), each kept per slice:
//   ingress pool p: size, the reserved space of the groups mapped to it (every port's), shared size = the rest;
//   egress pool p: the same for the queues mapped to it;
//   headroom pool: the shared headroom pool (0: every lossless group has its own headroom);
//   (port, group): its units T, of them H in headroom; the bottom R_g of T - H is its reserve, the rest shared;
//   (port, queue): its units Q; the bottom R_q is its reserve, the rest shared;
//   (port, pool), each side: P, the port's units in the pool beyond its groups' (queues') reserves; the bottom
//   R_p of P is the port's reserve in the pool (SONiC's port profile lists), the rest the pool's shared use.
// A frame of u units from ingress port i (group g = pg_map[prio]) to egress port o (queue q) is stored in slice
// s = slice_map[pipe(i)][pipe(o)] and admitted when both sides admit it:
//   1. ingress (skipped without ingress pools): the part of u beyond the group's reserve needs shared space:
//      admitted to shared if it fits the pool's free shared space and the group's shared units are below its
//      limit (a dynamic threshold alpha_g x the pool's free shared space, or a static limit that the frame must
//      fit under). Otherwise a lossy group drops it (ingress_pool_full if the pool has no room, else
//      ingress_threshold); a lossless group takes the whole frame into headroom, if its headroom over every
//      slice stays within its xoff and the shared headroom pool (if any) has room, else drops it (ingress_limit).
//   2. egress: the part of u beyond the queue's reserve needs shared space in the queue's egress pool: refused
//      when it does not fit (pool_full), when the queue's shared units are at its dynamic threshold
//      (dynamic_threshold) or when it would pass the queue's static limit (queue_limit). A queue that a lossless
//      priority maps to has no egress limit (SAI: loss is prevented at ingress): it is charged, never refused.
// A lossless group asks its peer to pause (XOFF, told to the flow-control listener) when a frame goes into its
// headroom or its shared units reach its limit after an admission, in any slice; it may resume (XON) when, in
// every slice that paused it, its units fall to max(xon, its reserve + limit - xon_offset) with an offset, else to
// xon (SAI's XON reading). Headroom still held at XON becomes shared again.
// A frame leaving (its transmission starts) gives back its queue's shared part first, then its reserve, and its
// group's headroom first, then shared, then reserve.
// Every book is checked against the others and the frames at the end of a run (check_accounting).
#ifndef CMSWITCH_MODEL_SWITCH_SERVICE_POOL_MMU_H
#define CMSWITCH_MODEL_SWITCH_SERVICE_POOL_MMU_H

#include "model/switch/buffer_manager.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace cmswitch {

class service_pool_mmu final : public buffer_manager, public ingress_flow_control {
public:
    // Throws config_error naming the field: a pool larger than the buffer (cfg.pool_bytes), a group or queue
    // mapped to no pool, reserves that leave a pool no shared space, a slice map that leaves a pipe pair
    // unserved or names no such slice, a bad dynamic_th.
    service_pool_mmu(const buffer_config& cfg, int num_ports);

    uint64_t port_capacity() const override { return m_capacity; }
    uint64_t lone_port() const override;
    const char* name() const override { return "pools"; }
    uint32_t capabilities() const override { return cap_ingress_flow_control; }
    ingress_flow_control* flow_control() override { return this; }
    void check_accounting(const std::string& where, uint64_t held_units, uint64_t held_bytes) const override;
    void reset() override;

    // ingress_flow_control
    void set_lossless_groups(uint8_t group_mask, flow_control_listener* listener) override;
    bool xoff(int port, int group) const override { return m_pg_xoff[pg_index(port, group)] != 0; }
    uint64_t headroom_peak() const override { return m_headroom_peak; }

    // The slice a frame from in_port to out_port is stored in.
    int slice_of(int in_port, int out_port) const {
        return m_slice_of[static_cast<size_t>(in_port) * num_ports() + static_cast<size_t>(out_port)];
    }
    int slices() const { return m_slices; }
    bool has_ingress() const { return !m_ing_pool_size.empty(); }
    // Books of one slice (units): a pool's shared size and use, a group's and a queue's units.
    uint64_t ingress_pool_shared_size(int slice, int p) const { return m_ing[pool_index(slice, p)].size; }
    uint64_t ingress_pool_used(int slice, int p) const { return m_ing[pool_index(slice, p)].used; }
    uint64_t egress_pool_shared_size(int slice, int p) const { return m_egr[pool_index(slice, p)].size; }
    uint64_t egress_pool_used(int slice, int p) const { return m_egr[pool_index(slice, p)].used; }
    uint64_t headroom_pool_used(int slice) const { return m_hp_used[static_cast<size_t>(slice)]; }
    uint64_t group_units(int slice, int port, int group) const { return m_pg[pg_slot(slice, port, group)].total; }
    uint64_t group_headroom(int slice, int port, int group) const { return m_pg[pg_slot(slice, port, group)].headroom; }
    uint64_t queue_slice_units(int slice, int port, int queue) const { return m_q[q_slot(slice, port, queue)]; }
    // What a slice has seen: its pools' peaks and the frames refused at each side.
    struct slice_stats {
        uint64_t ingress_peak = 0, egress_peak = 0, headroom_peak = 0;   // units, every pool of the side
        uint64_t ingress_drops = 0, egress_drops = 0;   // frames
    };
    const slice_stats& slice_report(int slice) const { return m_stats[static_cast<size_t>(slice)]; }
    void report_books(result& r, int switch_id) const override;

protected:
    drop_reason check(int, int, uint32_t) const override { return drop_reason::none; }   // (admit_own decides)
    drop_reason admit_own(int in_port, int port, int queue, frame& f) override;
    void release_own(int port, int queue, const frame& f) override;

private:
    // the constructor's steps: slices, pools, profiles (and the shared size each pool keeps)
    void setup_slices(const mmu_config& m, int num_ports);
    void setup_pools(const buffer_config& cfg);
    void setup_profiles(const buffer_config& cfg, int num_ports);
    struct pool {
        uint64_t size = 0;   // shared size (the pool less its reserves), units
        uint64_t used = 0;   // shared units in use
    };
    drop_reason egress_refusal(int queue, int pe, uint64_t shared_q, uint64_t shared_port, const pool& ep,
                               uint64_t egr_need, uint64_t egr_pool_need) const;
    struct group_account {
        uint64_t total = 0;   // units, headroom included
        uint64_t headroom = 0;
    };
    size_t pool_index(int slice, int p) const { return static_cast<size_t>(slice) * mmu_config::max_pools + p; }
    size_t pg_index(int port, int group) const { return static_cast<size_t>(port) * num_priorities + group; }
    size_t pg_slot(int slice, int port, int group) const {
        return (static_cast<size_t>(slice) * num_ports() + port) * num_priorities + group;
    }
    size_t q_slot(int slice, int port, int queue) const { return pg_slot(slice, port, queue); }
    size_t port_pool_slot(int slice, int port, int p) const {
        return (static_cast<size_t>(slice) * num_ports() + port) * mmu_config::max_pools + p;
    }
    void ingress_shared(int slice, int in_port, int group, uint64_t before, uint64_t after);
    static uint64_t above(uint64_t x, uint64_t reserve) { return x > reserve ? x - reserve : 0; }
    // The group's (or queue's) shared limit now, in units: alpha x the pool's free shared space, or the static
    // limit; UINT64_MAX for none.
    uint64_t limit(double alpha, uint64_t static_units, const pool& p) const;
    void update_xoff(int in_port, int group, int slice, uint64_t now_ps, bool into_headroom);
    void check_xon(int in_port, int group, int slice, uint64_t now_ps);

    std::vector<uint8_t> m_slice_of;   // in-port x out-port
    int m_slices = 1;
    uint64_t m_capacity = 0;   // every slice's egress pools
    // the configuration, in units
    std::vector<uint64_t> m_ing_pool_size, m_egr_pool_size;   // per slice (the chip's total / slices)
    std::array<uint8_t, num_priorities> m_pg_map{}, m_pg_pool{}, m_queue_pool{};
    std::array<uint64_t, num_priorities> m_pg_reserved{}, m_pg_static{}, m_q_reserved{}, m_q_static{};
    std::array<double, num_priorities> m_pg_alpha{}, m_q_alpha{};   // 0: the static limit; infinity: none
    std::array<int, num_priorities> m_pg_th_given{};   // the configured dynamic_th, or a sentinel: the default
    std::vector<uint64_t> m_xoff, m_xon, m_xon_offset;   // per port
    uint64_t m_hp_size = 0;   // per slice; 0: private headroom
    uint8_t m_lossless = 0;   // groups
    flow_control_listener* m_listener = nullptr;
    // the books
    std::vector<pool> m_ing, m_egr;   // slice x pool
    std::vector<uint64_t> m_hp_used;   // per slice: the shared headroom pool's units
    std::vector<uint64_t> m_slice_headroom;   // per slice: every group's headroom
    uint64_t m_headroom_total = 0;
    std::vector<group_account> m_pg;   // slice x port x group
    std::vector<uint64_t> m_q;   // slice x port x queue
    // slice x port x pool: the port's units in the pool beyond its groups' (queues') reserves
    std::vector<uint64_t> m_ing_port, m_egr_port;
    std::array<uint64_t, mmu_config::max_pools> m_port_ing_reserved{}, m_port_egr_reserved{};
    std::array<double, mmu_config::max_pools> m_port_ing_alpha{}, m_port_egr_alpha{};   // infinity: no limit
    std::vector<uint64_t> m_pg_headroom;   // port x group: headroom over every slice
    std::vector<uint8_t> m_pg_xoff;   // port x group: the slices in which the group asked for a pause
    std::vector<slice_stats> m_stats;
    uint64_t m_headroom_peak = 0;
};

// The "pools" entry of the buffer policy registry (buffer_policies()).
std::unique_ptr<buffer_manager> make_service_pool_mmu(const buffer_config& cfg, int num_ports);

}   // namespace cmswitch
#endif
