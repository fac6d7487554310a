// SPDX-License-Identifier: Apache-2.0
#ifndef CMSWITCH_MODEL_DROP_REASON_H
#define CMSWITCH_MODEL_DROP_REASON_H

#include <cstdint>

namespace cmswitch {

// Why a frame was dropped. Names are what statistics and JSON report.
enum class drop_reason : uint8_t {
    none = 0,
    port_limit,   // static per-port byte limit of the switch buffer
    dynamic_threshold,   // egress: queue units >= alpha x free shared-pool units
    pool_full,   // egress: the shared pool has no room for the frame
    nic_queue_full,   // host NIC egress queue limit
    no_route,   // destination missing from a forwarding table
    ingress_limit,   // PAUSE/PFC: an ingress class full above XOFF (the headroom did not suffice)
    rate_limiter_full,   // host NIC: the flow's rate limiter (a reaction point's queue) is full
    port_packet_limit,   // a transmit queue counted in frames ("packets" buffer policy) is full: tail drop
    aqm,   // an active queue manager refused the frame before the buffer (Stewart et al.'s DBL)
    qdisc_limit,   // host: the queueing discipline's per-socket or total packet limit (fq, fq_codel)
    // a service-pool MMU's ingress side ("pools"): a lossy priority group at its shared limit (its dynamic
    // threshold or static limit), or its ingress pool without room for the frame (ingress_limit: a lossless
    // group whose headroom is used up)
    ingress_threshold,
    ingress_pool_full,
    queue_limit,   // an egress queue at its static limit ("pools"; dynamic_threshold and pool_full are the egress's)
    qdisc_codel,   // host: fq_codel's CoDel dropped a frame that was not ECN-capable
    count_
};
constexpr int num_drop_reasons = static_cast<int>(drop_reason::count_);

inline const char* drop_reason_name(drop_reason r) {
    switch (r) {
    case drop_reason::none: return "none";
    case drop_reason::port_limit: return "port_limit";
    case drop_reason::dynamic_threshold: return "dynamic_threshold";
    case drop_reason::pool_full: return "pool_full";
    case drop_reason::nic_queue_full: return "nic_queue_full";
    case drop_reason::no_route: return "no_route";
    case drop_reason::ingress_limit: return "ingress_limit";
    case drop_reason::rate_limiter_full: return "rate_limiter_full";
    case drop_reason::port_packet_limit: return "port_packet_limit";
    case drop_reason::aqm: return "aqm";
    case drop_reason::qdisc_limit: return "qdisc_limit";
    case drop_reason::ingress_threshold: return "ingress_threshold";
    case drop_reason::ingress_pool_full: return "ingress_pool_full";
    case drop_reason::queue_limit: return "queue_limit";
    case drop_reason::qdisc_codel: return "qdisc_codel";
    case drop_reason::count_: break;
    }
    return "?";
}

}   // namespace cmswitch
#endif
