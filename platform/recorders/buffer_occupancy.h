// SPDX-License-Identifier: Apache-2.0
// Recorder: the time-weighted occupancy of every switch's buffer, attached when the network is built and reported
// after the run. Tables:
//   switches   per switch: shared pool p50/p99/max (KB of the buffer memory its cells take) and max in cells (bytes
//              when byte-exact), the cell size, PFC headroom pool p99/max (KB)
//   queues     per egress queue that held a byte: mean, p50, p99, max (KB)
//   queue_cdfs every such queue's CDF (with all_queue_cdfs)
//   groups     with PAUSE/PFC: every ingress priority group that held a byte, over the ports (KB)
// and the distributions (report_occupancy: percentiles and a CDF) of the busiest switch's pool, the busiest
// egress queue and the most used headroom pool, with the switch, port and queue they belong to.
#ifndef CMSWITCH_PLATFORM_RECORDERS_BUFFER_OCCUPANCY_H
#define CMSWITCH_PLATFORM_RECORDERS_BUFFER_OCCUPANCY_H

#include "config/result.h"

#include <cstdint>

namespace cmswitch {

class network;

class buffer_occupancy_recorder {
public:
    // Turns on the tracking it reports (pool, queue and priority-group occupancy) in every switch of net.
    buffer_occupancy_recorder(network& net, bool all_queue_cdfs);
    void report(result& r, uint64_t end_ps) const;

private:
    void report_pools(result& r, uint64_t end_ps) const;
    void report_queues(result& r, uint64_t end_ps) const;
    void report_groups(result& r, uint64_t end_ps) const;
    network& m_net;
    bool m_all_queue_cdfs;
};

}   // namespace cmswitch
#endif
