// SPDX-License-Identifier: Apache-2.0
// The built-in congestion-management schemes: one line each. A new scheme adds its line here (or registers
// itself at run time with register_scheme).
#include "model/cm/dbl/dbl_scheme.h"
#include "model/cm/dcqcn/dcqcn_scheme.h"
#include "model/cm/ecn/ecn_scheme.h"
#include "model/cm/pause/pause_scheme.h"
#include "model/cm/qcn/qcn_scheme.h"
#include "model/cm/scheme.h"

#include <memory>

namespace cmswitch {

namespace {
template <typename S>
std::unique_ptr<scheme> make() {
    return std::make_unique<S>();
}
}   // namespace

std::vector<scheme_entry>& builtin_schemes() {
    static std::vector<scheme_entry> all = {
        {scheme_slot::marking, "ECN marking on the instantaneous egress queue: step (> K), red (Kmin/Kmax/Pmax)",
         &make<ecn_scheme>},
        {scheme_slot::cm, "IEEE 802.1Qau QCN: congestion points on the switches, reaction points on the NICs",
         &make<qcn_scheme>},
        {scheme_slot::pause, "802.3x PAUSE or 802.1Qbb PFC at the switch inputs", &make<pause_scheme>},
        {scheme_slot::marking, "the DCQCN congestion point: RED-like on the instantaneous queue, at dequeue or enqueue",
         &make<dcqcn_cp_scheme>},
        {scheme_slot::cm, "DCQCN / DCQCN+ at the RoCE NICs (notification and reaction points; transport rdma)",
         &make<dcqcn_scheme>},
        {scheme_slot::marking,
         "Dynamic Buffer Limiting (Cisco 4500, Stewart et al. 2011): per-flow credits on congested "
         "transmit queues, ECN mark or drop for aggressive flows",
         &make<dbl_scheme>},
    };
    return all;
}

}   // namespace cmswitch
