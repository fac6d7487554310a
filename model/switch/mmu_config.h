// SPDX-License-Identifier: Apache-2.0
// The configuration of a service-pool MMU (buffer policy "pools", service_pool_mmu.h), as the SAI/SONiC buffer
// model describes one: service pools of an ingress and an egress type, a profile per ingress priority group
// (reserved space, a shared limit, lossless headroom) and per egress queue (reserved space, a shared limit), and the
// buffer's slices (one per group of pipelines, each with its own pools). Sizes in bytes, converted to the switch's
// units (buffer_units.h) when the MMU is built; a shared limit's dynamic_th n means alpha = 2^n (SAI's
// SHARED_DYNAMIC_TH: "2^n of the available buffer of the pool").
#ifndef CMSWITCH_MODEL_SWITCH_MMU_CONFIG_H
#define CMSWITCH_MODEL_SWITCH_MMU_CONFIG_H

#include "model/switch/sonic_headroom.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace cmswitch {

// A profile's shared limit: a static limit (static_bytes > 0), or a dynamic threshold alpha x the pool's free
// shared space with alpha = 2^dynamic_th (-7..6: 1/128 .. 64; no_limit_th: no limit, as NVIDIA's 7).
struct shared_limit {
    static constexpr int min_th = -7;
    static constexpr int max_th = 6;
    static constexpr int no_limit_th = 7;
    static constexpr int unset_th = 127;   // not given: the default of its kind (service_pool_mmu.h)
    int dynamic_th = unset_th;
    uint64_t static_bytes = 0;
};

struct mmu_config {
    static constexpr int max_pools = 4;   // service pools of each type (Broadcom, SAI)
    // Service pools, the chip's totals (every slice holds an equal part of each): ingress pools (empty: no
    // ingress admission, the egress side alone decides) and egress pools (at least one). A pool's size includes
    // the reserved space of the groups or queues mapped to it; its shared size is the rest.
    std::vector<uint64_t> ingress_pool_bytes;
    std::vector<uint64_t> egress_pool_bytes{1024 * 1024};
    // The pool of each ingress priority group and of each egress queue.
    std::array<uint8_t, 8> pg_pool{};
    std::array<uint8_t, 8> queue_pool{};
    // Ingress profile of each priority group (every port): its reserved (guaranteed) space and its shared limit.
    std::array<uint64_t, 8> pg_reserved_bytes{};
    std::array<shared_limit, 8> pg_limit{};
    // Egress profile of each queue (every port). A queue that a lossless priority maps to has no egress limit
    // (loss is prevented at ingress by PFC, as SAI configures it).
    std::array<uint64_t, 8> queue_reserved_bytes{};
    std::array<shared_limit, 8> queue_limit{};
    // Port-level profiles per pool (SONiC BUFFER_PORT_INGRESS/EGRESS_PROFILE_LIST): every port's reserve in each
    // pool, after its groups' (queues') own, and its dynamic limit there (alpha = 2^n; unset: none).
    std::array<uint64_t, max_pools> port_ingress_reserved_bytes{}, port_egress_reserved_bytes{};
    std::array<int, max_pools> port_ingress_dynamic_th{shared_limit::unset_th, shared_limit::unset_th,
                                                       shared_limit::unset_th, shared_limit::unset_th};
    std::array<int, max_pools> port_egress_dynamic_th{shared_limit::unset_th, shared_limit::unset_th,
                                                      shared_limit::unset_th, shared_limit::unset_th};
    // Lossless groups' headroom, per ingress port (one entry: every port; empty: none, so a lossless group drops
    // when its shared limit is reached): xoff, what the group may take after it paused its peer (private, or its
    // cap in the shared headroom pool); xon and xon_offset, when it resumes (below max(xon, its limit - xon_offset)
    // with an offset, else below xon).
    std::vector<uint64_t> xoff_bytes, xon_bytes, xon_offset_bytes;
    // The shared headroom pool (SONiC: ingress_lossless_pool's xoff), the chip's total; 0: every lossless group
    // its own xoff.
    uint64_t headroom_pool_bytes = 0;
    // How xoff and xon are found for each port when not given: "formula", the model's rule from the port's link
    // (pause_config.h: xoff = 2 x the bytes on the cable + 2 MTU + the 802.3 response; XON 2 MTU below the
    // limit); "sonic", SONiC's dynamic calculation (sonic_headroom.h) with these inputs and the port's cable;
    // "given": xoff_bytes, xon_bytes and xon_offset_bytes as they are.
    std::string headroom_rule = "formula";
    sonic_headroom_inputs sonic;
    // Each port's cable in metres (one entry: every port; empty: from its link's delay at 1.98e8 m/s). Given, it
    // also sets the propagation delay of the port's link (platform/network.cpp), so both rules see one cable.
    std::vector<double> cable_m;
    // Slices: the buffer split into `slices` parts; the ports split into `pipes` pipelines in order (port p in
    // pipe p x pipes / ports); a frame from an ingress pipe to an egress pipe is stored in the slice slice_map
    // gives the pair (pipes x pipes entries, row by ingress pipe), or the map named by slice_map_name:
    //   "single"     every pair to slice 0 (one slice);
    //   "tomahawk"   4 slices, each serving one half of the ingress pipes x one half of the egress pipes;
    //   "tomahawk4"  2 slices, by the ingress pipe's half.
    int slices = 1;
    int pipes = 1;
    std::string slice_map_name = "single";
    std::vector<uint8_t> slice_map;
};

}   // namespace cmswitch
#endif
