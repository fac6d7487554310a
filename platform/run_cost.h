// SPDX-License-Identifier: Apache-2.0
// What a run will hold in memory, estimated from its config before anything is built, item by item with the
// parameter that drives each: the network (hosts, switch ports, forwarding entries), the transport connections,
// the sampled series, per-frame samples and per-flow records. A config whose estimate exceeds the memory budget is
// refused (config_error naming the largest item's parameter) in microseconds, instead of growing for minutes and
// dying with bad_alloc or taking the machine.
//
// The per-block sizes are measured (docs/architecture.md, "Safe runs"): peak resident memory of idle networks and
// incasts of several sizes, fitted. The estimate is meant to be within a factor of about two, which is what a
// budget needs; it is not an accounting.
#ifndef CMSWITCH_PLATFORM_RUN_COST_H
#define CMSWITCH_PLATFORM_RUN_COST_H

#include <cstdint>
#include <string>
#include <vector>

namespace cmswitch {

class run_cost {
public:
    struct item {
        std::string field;   // the parameter that drives it
        double bytes;
        std::string what;   // "6e+11 bins of the elephant bandwidth series (bin_s = 1e-09 s over duration_s = 600 s)"
        std::string advice;   // "raise bin_s"
    };

    // Measured sizes (bytes): peak resident memory above the smallest run, idle fat-trees k = 16 and 24 (7.8 and
    // 31.8 MB) and a 2,000-flow incast (9.9 MB), fitted.
    static constexpr double host_bytes = 2 * 1024;   // a host: NIC, stack, its event-queue share
    static constexpr double switch_port_bytes = 1024;   // a switch port: 8 queues, counters, its link's timing
    static constexpr double route_bytes = 2;   // one forwarding entry (switch x destination host)
    // a TCP/SCTP connection, sender and receiver (a 2,000-flow incast: 1.9 KB each above its network; 32 KB while
    // every host kept a table indexed by the global flow id)
    static constexpr double connection_bytes = 2 * 1024;
    static constexpr double copies = 3;   // a recorded number is held by its recorder, the result and the front end

    void add(const std::string& field, double bytes, const std::string& what, const std::string& advice);
    // The network: hosts, switch ports, switches x hosts forwarding entries, driven by `field`.
    void add_network(const std::string& field, double hosts, double switch_ports, double switches);
    // `count` transport connections.
    void add_connections(const std::string& field, double count, const std::string& what);
    // A series of `columns` numbers sampled every period_s over duration_s; `field` is the period's parameter,
    // `value` its value as the user gave it ("1e-09 s"); `exported`: the result holds it too (and so the front
    // end), else only its recorder.
    void add_series(const std::string& field, const std::string& value, double period_s, double duration_s,
                    double columns, const std::string& what, bool exported = true);
    // The frames the switches' buffers hold at the run's peak (each in the frame pool, 128 B, and a queue entry):
    // half of what every buffer of the network can hold, or a quarter of the bytes the traffic offers over the
    // run, the smaller (fitted on the peak resident memory of fat-trees k = 8 and 16 carrying web search at 60 %
    // for 1 to 10 ms: the estimate within 0.8-1.1 x of it).
    static constexpr double buffered_frame_bytes = 128 + 16;
    void add_buffered_frames(const std::string& field, double buffer_bytes, double offered_bytes);
    // `count` records of `bytes_each` kept until the end of the run (`field` drives the count).
    void add_records(const std::string& field, double count, double bytes_each, const std::string& what,
                     const std::string& advice);

    double bytes() const;
    const std::vector<item>& items() const { return m_items; }
    // config_error naming the largest item's field when the total exceeds budget_bytes.
    void check(double budget_bytes) const;

private:
    std::vector<item> m_items;
};

// The memory a run may plan for when nobody says: CMSWITCH_MEMORY_BUDGET_MB if set (a number > 0), else half of
// this machine's physical memory.
double default_memory_budget_bytes();

}   // namespace cmswitch
#endif
