// SPDX-License-Identifier: Apache-2.0
// Waveform signals of the model (queue depths, pause states, PAUSE/PFC frames, rates, windows) for a value
// change dump. A block asks for a signal when it is built (model_trace::declare, with its hierarchical name);
// it gets null unless a trace is open for this run and its pattern selects the name, so a run without a trace
// pays one predictable branch where a value changes. Values are recorded with model time (now_ps()), not the
// kernel's sc_time_stamp(): the event domains run ahead of kernel time (temporal decoupling), which is why the
// dump is not written through sc_trace (it samples at kernel time steps).
#ifndef CMSWITCH_MODEL_TRACE_SIGNAL_H
#define CMSWITCH_MODEL_TRACE_SIGNAL_H

#include <cstdint>
#include <cstring>
#include <string>

namespace cmswitch {

class trace_sink;

// One traced value; set() records a change (an unchanged value records nothing).
class trace_signal {
public:
    trace_signal(trace_sink* sink, uint32_t id, bool real) : m_sink(sink), m_id(id), m_real(real) {}
    inline void set(uint64_t t_ps, uint64_t v);
    inline void set_real(uint64_t t_ps, double v);
    uint32_t id() const { return m_id; }
    bool real() const { return m_real; }

private:
    trace_sink* m_sink;
    uint32_t m_id;
    bool m_real;
    bool m_has = false;
    uint64_t m_last = 0;
};

class trace_sink {
public:
    // bits: the width of an integer signal (1 for a state), 0 for a real. Null if the name is not selected.
    virtual trace_signal* declare(const std::string& scope, const std::string& name, unsigned bits) = 0;
    virtual void change(uint32_t id, uint64_t t_ps, uint64_t bits) = 0;

protected:
    ~trace_sink() = default;
};

inline void trace_signal::set(uint64_t t_ps, uint64_t v) {
    if (m_has && v == m_last)
        return;
    m_has = true;
    m_last = v;
    m_sink->change(m_id, t_ps, v);
}

inline void trace_signal::set_real(uint64_t t_ps, double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    set(t_ps, bits);
}

namespace model_trace {
// The trace open for the process's run (one simulation at a time; platform/vcd_writer.h opens and closes it),
// or null.
inline trace_sink* sink = nullptr;
inline trace_signal* declare(const std::string& scope, const std::string& name, unsigned bits) {
    return sink ? sink->declare(scope, name, bits) : nullptr;
}
inline bool active() {
    return sink != nullptr;
}
}   // namespace model_trace

}   // namespace cmswitch
#endif
