// SPDX-License-Identifier: Apache-2.0
// The control frames the switches and NICs exchange, each made in one place with its fields named: a frame of
// the kind, its size and priority (the control priority 7, which is never paused) and its fields.
#ifndef CMSWITCH_MODEL_CONTROL_FRAMES_H
#define CMSWITCH_MODEL_CONTROL_FRAMES_H

#include "model/frame_pool.h"

#include <cstdint>

namespace cmswitch {

constexpr uint8_t control_priority = num_priorities - 1;
constexpr uint16_t switch_address = 0xffff;   // src of frames a switch makes; dst of link-local ones

// A PAUSE (quanta > 0) or XON (quanta 0) for the link peer; consumed by it.
inline frame* make_pause_frame(frame_pool& pool, uint8_t class_enable, uint16_t quanta, uint64_t now_ps) {
    frame* f = pool.acquire();
    f->kind = frame_kind::pause;
    f->bytes = min_frame_bytes;
    f->prio = control_priority;
    f->src = switch_address;
    f->dst = switch_address;
    f->ctl.pause = pause_fields{class_enable, quanta};
    f->created_ps = now_ps;
    return f;
}

// A CNM about frame `about` (to its source host, same flow id).
inline frame* make_cnm_frame(frame_pool& pool, const frame& about, const cnm_fields& fields, uint64_t now_ps) {
    frame* f = pool.acquire();
    f->kind = frame_kind::cnm;
    f->bytes = min_frame_bytes;
    f->prio = control_priority;
    f->src = switch_address;
    f->dst = about.src;
    f->flow = about.flow;
    f->ctl.cnm = fields;
    f->created_ps = now_ps;
    return f;
}

// A RoCEv2 CNP about data frame `about` (made by the NIC that received it; to the sender, same flow id). RoCEv2
// CNPs are minimum-size frames; they travel in the control priority (the paper's testbed gives them a priority of
// their own above the RDMA traffic so that PFC never holds them).
inline frame* make_cnp_frame(frame_pool& pool, const frame& about, uint32_t period_ns, uint64_t now_ps) {
    frame* f = pool.acquire();
    f->kind = frame_kind::cnp;
    f->bytes = min_frame_bytes;
    f->prio = control_priority;
    f->src = about.dst;
    f->dst = about.src;
    f->flow = about.flow;
    f->ctl.cnp = cnp_fields{period_ns};
    f->created_ps = now_ps;
    return f;
}

}   // namespace cmswitch
#endif
