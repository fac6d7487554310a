// SPDX-License-Identifier: Apache-2.0
// Samples gauges (egress queue bytes) every period into a time-series table. Gauges are read from the model's
// state at the sampling instant, after every model event due at that instant, never rebuilt from event counts.
#ifndef CMSWITCH_PLATFORM_QUEUE_SAMPLER_H
#define CMSWITCH_PLATFORM_QUEUE_SAMPLER_H

#include "config/result.h"
#include "model/port/egress_port.h"

#include <functional>
#include <string>
#include <vector>

namespace cmswitch {

class queue_sampler : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(queue_sampler);
    // period_ps > 0. Samples at period, 2*period, ...
    queue_sampler(sc_core::sc_module_name name, uint64_t period_ps);
    // Each watch returns the index of its samples among those of its kind.
    size_t watch(const std::string& column, const egress_port* port);
    // A cumulative counter (bytes delivered to a flow, say); its column holds the counter at each sample.
    size_t watch_counter(const std::string& column, const uint64_t* counter);
    // Any value read at each sample (a reaction point's current rate, say).
    size_t watch_gauge(const std::string& column, std::function<double()> gauge);
    // The samples so far: their times, and each watched port's queue bytes, counter or gauge.
    const std::vector<double>& times_ms() const { return m_t_ms; }
    const std::vector<double>& port_values(size_t i) const { return m_values[i]; }
    const std::vector<double>& counter_values(size_t i) const { return m_counter_values[i]; }
    const std::vector<double>& gauge_values(size_t i) const { return m_gauge_values[i]; }
    // Copies the samples into t (columns t_ms, then one per watched port or counter, in bytes).
    void export_to(table& t) const;

private:
    void settle();   // at the instant: the sample one delta cycle later
    void sample();
    uint64_t m_period_ps;
    std::vector<std::pair<std::string, const egress_port*>> m_ports;
    std::vector<std::pair<std::string, const uint64_t*>> m_counters;
    std::vector<std::vector<double>> m_counter_values;
    std::vector<std::pair<std::string, std::function<double()>>> m_gauges;
    std::vector<std::vector<double>> m_gauge_values;
    std::vector<double> m_t_ms;
    std::vector<std::vector<double>> m_values;
    sc_core::sc_event m_tick, m_settled;
};

}   // namespace cmswitch
#endif
