// SPDX-License-Identifier: Apache-2.0
#include "platform/queue_sampler.h"

namespace cmswitch {

queue_sampler::queue_sampler(sc_core::sc_module_name name, uint64_t period_ps)
    : sc_module(name), m_period_ps(period_ps) {
    SC_METHOD(settle);
    sensitive << m_tick;
    dont_initialize();
    SC_METHOD(sample);
    sensitive << m_settled;
    dont_initialize();
    m_tick.notify(ps_time(m_period_ps));
}

void queue_sampler::settle() {
    // An event domain with entries due at this instant may run in this kernel step before or after us (it may
    // also have run them already, ahead of the kernel): one delta later it has run them either way
    m_settled.notify(sc_core::SC_ZERO_TIME);
}

size_t queue_sampler::watch(const std::string& column, const egress_port* port) {
    m_ports.emplace_back(column, port);
    m_values.emplace_back();
    return m_values.size() - 1;
}

size_t queue_sampler::watch_counter(const std::string& column, const uint64_t* counter) {
    m_counters.emplace_back(column, counter);
    m_counter_values.emplace_back();
    return m_counter_values.size() - 1;
}

size_t queue_sampler::watch_gauge(const std::string& column, std::function<double()> gauge) {
    m_gauges.emplace_back(column, std::move(gauge));
    m_gauge_values.emplace_back();
    return m_gauge_values.size() - 1;
}

void queue_sampler::sample() {
    m_t_ms.push_back(static_cast<double>(sc_core::sc_time_stamp().value()) * 1e-9);   // not a model block
    for (size_t i = 0; i < m_ports.size(); ++i)
        m_values[i].push_back(static_cast<double>(m_ports[i].second->bytes()));
    for (size_t i = 0; i < m_counters.size(); ++i)
        m_counter_values[i].push_back(static_cast<double>(*m_counters[i].second));
    for (size_t i = 0; i < m_gauges.size(); ++i)
        m_gauge_values[i].push_back(m_gauges[i].second());
    m_tick.notify(ps_time(m_period_ps));
}

void queue_sampler::export_to(table& t) const {
    t.column("t_ms") = m_t_ms;
    for (size_t i = 0; i < m_ports.size(); ++i)
        t.column(m_ports[i].first) = m_values[i];
    for (size_t i = 0; i < m_counters.size(); ++i)
        t.column(m_counters[i].first) = m_counter_values[i];
    for (size_t i = 0; i < m_gauges.size(); ++i)
        t.column(m_gauges[i].first) = m_gauge_values[i];
}

}   // namespace cmswitch
