// SPDX-License-Identifier: Apache-2.0
// A value change dump (IEEE 1364 VCD, read by GTKWave and Surfer) of a run's waveform signals: queue depths,
// pause states, PAUSE/PFC frames sent, windows (model/trace_signal.h names them). Chosen by glob patterns over
// the hierarchical names ("*.port3.*", "*xoff*,*.bytes"), with a cap on the file's size.
//
// Not written through sc_trace: the model's event domains run ahead of the kernel's time (temporal decoupling),
// and sc_trace samples signals at kernel time steps, so it would stamp changes with the wrong times. The writer
// keeps each change with its model time instead, sorts them (domains interleave) and writes the file when the
// run ends; at the cap, changes from the first refused one's time on are left out, and the summary and a line
// on stderr say from when.
#ifndef CMSWITCH_PLATFORM_VCD_WRITER_H
#define CMSWITCH_PLATFORM_VCD_WRITER_H

#include "config/result.h"
#include "model/trace_signal.h"

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace cmswitch {

class scenario;

struct vcd_settings {
    std::string path;   // empty: no dump
    std::string signals = "*";   // comma-separated glob patterns over the full signal names
    double max_mb = 64;   // size cap of the file, MB (2^20 bytes)
    // config_error naming the setting (vcd, vcd_signals, vcd_max_mb) for an empty pattern, a cap outside
    // [0.001, 65536] MB or a file that cannot be created.
    void validate() const;
};

class vcd_writer final : public trace_sink {
public:
    // Opens the trace for the process's run (model_trace::sink) until destroyed; under the simulation lock.
    explicit vcd_writer(const vcd_settings& s);
    ~vcd_writer();
    vcd_writer(const vcd_writer&) = delete;
    vcd_writer& operator=(const vcd_writer&) = delete;

    trace_signal* declare(const std::string& scope, const std::string& name, unsigned bits) override;
    void change(uint32_t id, uint64_t t_ps, uint64_t bits) override;

    // Writes the file (ending at end_ps) and reports vcd_file, vcd_signals, vcd_changes, vcd_bytes and
    // vcd_truncated_at_ms (-1: complete) in r's summary.
    void finish(result& r, uint64_t end_ps);

private:
    struct signal_def {
        std::string full;   // scope.name
        unsigned bits;   // 0: real
        std::string code;   // VCD identifier
    };
    struct change_rec {
        uint64_t t_ps;
        uint64_t value;
        uint32_t id;
    };
    bool selected(const std::string& full) const;

    vcd_settings m_cfg;
    std::vector<std::string> m_patterns;
    std::deque<trace_signal> m_signals;
    std::vector<signal_def> m_defs;
    uint64_t m_offered = 0;   // signals the model declared, selected or not
    std::string m_example;   // the first one not selected (for the error when none is)
    std::vector<change_rec> m_changes;
    uint64_t m_estimate = 0, m_cap = 0;
    uint64_t m_cut_ps = UINT64_MAX;   // the first change left out by the cap
    trace_sink* m_prev = nullptr;
};

// sc.run() with a VCD of the run when s.path is set.
result run_with_vcd(scenario& sc, const vcd_settings& s);

}   // namespace cmswitch
#endif
