// SPDX-License-Identifier: Apache-2.0
// A switch's 802.3x PAUSE / 802.1Qbb PFC generation, attached to its frame path (pause_config.h for the rules and
// the headroom): every frame of a lossless class is charged (in the switch's units: bytes or cells,
// buffer_units.h), from its admission until its transmission starts, to the (ingress port, class) it arrived on;
// at XOFF a PAUSE goes out of that ingress port and is repeated at half its time while still above XON; at XON or
// below, an XON (pause time 0). A frame that would take its ingress class above the limit (XOFF + headroom) is
// dropped (ingress_limit); with the headroom check passing that never happens.
// On a buffer that keeps an ingress book of its own and decides PAUSE/PFC itself (cap_ingress_flow_control: the
// "pools" policy's priority-group profiles), the generator keeps no book: it names the lossless groups to the
// buffer, sends the PAUSE/PFC frames the buffer's XOFF and XON call for, and refreshes them.
#ifndef CMSWITCH_MODEL_CM_PAUSE_PAUSE_GENERATOR_H
#define CMSWITCH_MODEL_CM_PAUSE_PAUSE_GENERATOR_H

#include "model/cm/pause/pause_config.h"
#include "model/port/occupancy_stats.h"
#include "model/switch/switch_hook.h"
#include "model/trace_signal.h"

#include <cstdint>
#include <vector>

namespace cmswitch {

class pause_generator final : public switch_hook, private flow_control_listener {
public:
    // port_rate_bps/port_delay_ps: each switch port's link. Throws config_error naming the setting for a bad
    // mode, XON, quanta; the headroom check (naming the switch and port, with the numbers) runs when attached.
    pause_generator(const pause_config& cfg, std::vector<uint64_t> port_rate_bps, std::vector<uint64_t> port_delay_ps);

    uint8_t events() const override {
        return m_buffer_fc ? 0 : on_ingress_event | on_enqueue_event | on_dequeue_event;   // (the buffer's book)
    }
    // The buffer's book decides PAUSE/PFC (set when attached to a buffer with cap_ingress_flow_control).
    bool buffer_decides() const { return m_buffer_fc != nullptr; }
    int stage() const override { return stage_ingress_accounting; }
    void attach(switch_services& sw) override;
    drop_reason on_ingress(int in_port, frame& f, uint64_t now_ps) override;
    void on_enqueue(const queue_view& q, frame& f, uint64_t now_ps) override;
    void on_dequeue(const queue_view& q, frame& f, uint64_t now_ps) override;
    void on_timer(uint32_t tag, uint64_t now_ps) override;

    // The units charged to an ingress class now.
    uint64_t ingress_units(int port, int cls) const {
        return m_ingress[static_cast<size_t>(port * num_priorities + cls)].units;
    }
    uint64_t ingress_limit(int port) const { return m_limit[static_cast<size_t>(port)]; }
    // Shared headroom pool (headroom_pool_bytes > 0): units in it now, the peak, and a class's part of it.
    uint64_t headroom_used() const { return m_headroom_used; }
    uint64_t headroom_peak() const { return m_buffer_fc ? m_buffer_fc->headroom_peak() : m_headroom_peak; }
    const occupancy_stats& headroom_occupancy() const { return m_headroom_occ; }   // the pool's fill over time
    // The XOFF threshold of an ingress class (priority group) now, in units: its reserve plus the static XOFF or
    // alpha x the free shared units.
    uint64_t xoff_threshold(int cls = 0) const;
    // Throws model_error if the byte accounting does not add up: every class's headroom and reserve parts within
    // its units, their sums equal to the pool's and the switch buffer's counters (run at the end of every run).
    void check_accounting() const;
    // Units in the ingress reserves (pause_config::reserved_bytes) now and at the most.
    uint64_t reserved_used() const { return m_reserved_used; }
    uint64_t reserved_peak() const { return m_reserved_peak; }
    // Time-weighted occupancy of each priority group, summed over the ingress ports (PFC: group; PAUSE: 0).
    // Kept once track_groups() was called (one more update per lossless frame).
    void track_groups() { m_track_groups = true; }
    const occupancy_stats& group_occupancy(int cls) const { return m_group_occ[static_cast<size_t>(cls)]; }
    // The priorities a PFC frame for a group names (the lossless priorities mapped to it).

private:
    // flow_control_listener: the buffer's book asks for a pause, or allows a resume
    void on_xoff(int port, int group, uint64_t now_ps) override;
    void on_xon(int port, int group, uint64_t now_ps) override;
    void attach_to_buffer_book(switch_services& sw);
    struct ingress_class {
        uint64_t units = 0;
        uint64_t headroom = 0;   // of units, those in the shared headroom pool
        bool xoff = false;   // an XOFF is in force at the peer
        uint64_t refresh_at = 0;   // when the pause must be repeated
    };
    int pause_class(uint8_t prio) const { return m_pfc ? m_pg[prio] : 0; }
    // an ingress class's units in its reserve (the bottom of what it holds, headroom not counted)
    uint64_t reserved_part(const ingress_class& ic) const {
        const uint64_t b = ic.units - ic.headroom;
        return b < m_reserved_u ? b : m_reserved_u;
    }
    void account_group(int cls, int64_t delta, uint64_t now);
    void send_pause(int port, int cls, uint32_t quanta, uint64_t now);
    void declare_traces(switch_services& sw);
    [[gnu::noinline]] void trace_class(int port, int cls, const ingress_class& ic, uint64_t now);
    struct ingress_traces {
        trace_signal* xoff = nullptr;
        trace_signal* bytes = nullptr;
    };

    pause_config m_cfg;
    // the config's sizes in the switch's units (attach)
    uint64_t m_xoff_u = 0, m_xon_u = 0, m_reserved_u = 0, m_headroom_pool_u = 0, m_mtu_u = 0;
    bool m_pfc;
    std::vector<uint64_t> m_rate, m_delay;
    std::vector<ingress_class> m_ingress;   // port x class
    std::vector<uint64_t> m_limit;   // per port
    bool m_dynamic = false, m_pool = false;
    uint8_t m_pg[num_priorities] = {0, 1, 2, 3, 4, 5, 6, 7};
    uint8_t m_group_prios[num_priorities] = {};
    double m_alpha[num_priorities] = {};
    uint64_t m_reserved_used = 0, m_reserved_peak = 0;
    uint64_t m_group_units[num_priorities] = {};
    bool m_track_groups = false;
    std::vector<occupancy_stats> m_group_occ = std::vector<occupancy_stats>(num_priorities);
    uint64_t m_headroom_used = 0, m_headroom_peak = 0;
    occupancy_stats m_headroom_occ;
    bool m_traced = false;   // waveform signals (model/trace_signal.h), if a trace selects any
    ingress_flow_control* m_buffer_fc = nullptr;   // the buffer's book, when it decides
    std::vector<uint8_t> m_paused_groups;   // PAUSE (802.3x) on the buffer's book: per port, its groups in XOFF
    std::vector<ingress_traces> m_tr;   // port x class
    std::vector<trace_signal*> m_tr_sent;   // per port
    std::vector<uint64_t> m_sent;   // PAUSE/PFC frames sent per port (for its signal)
    trace_signal* m_tr_headroom = nullptr;
};

}   // namespace cmswitch
#endif
