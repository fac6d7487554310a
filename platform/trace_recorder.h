// SPDX-License-Identifier: Apache-2.0
// Event traces of a run, for comparing the model's loss recovery with a reference simulator's (ns-2) event by
// event: every switch drop (time, port, flow, sequence, reason) and every TCP sender event (timeout, fast
// retransmit, end of recovery, limited transmit) with the sender's state at that moment. Exported as two tables.
#ifndef CMSWITCH_PLATFORM_TRACE_RECORDER_H
#define CMSWITCH_PLATFORM_TRACE_RECORDER_H

#include "config/result.h"
#include "model/switch/switch_hook.h"
#include "traffic/tcp/tcp_receiver.h"
#include "traffic/tcp/tcp_sender.h"

#include <cstdint>
#include <vector>

namespace cmswitch {

class trace_recorder final : public switch_hook, public tcp_observer {
public:
    uint8_t events() const override { return on_drop_event; }
    int stage() const override { return stage_recorder; }
    void on_drop(int port, const frame& f, drop_reason why, uint64_t now_ps) override {
        m_drops.push_back({now_ps, port, f.flow, f.kind == frame_kind::tcp ? f.seq : 0, f.payload, why});
    }
    void on_tcp_event(const tcp_sender& s, tcp_event e, uint64_t now_ps) override {
        m_events.push_back({now_ps, s.flow(), e, s.snd_una(), s.snd_nxt(), s.high_tx(), s.cwnd(), s.ssthresh(),
                            s.dupacks(), s.rto_ps()});
    }
    // Tables "drops" and "tcp_events"; times in ms, windows and sequence numbers in bytes. Event and reason
    // columns hold codes; their names are in the summary keys trace_event_codes / trace_drop_reason_codes.
    void export_to(result& r) const;

private:
    struct drop_rec {
        uint64_t t_ps;
        int port;
        uint32_t flow;
        uint64_t seq;
        uint32_t payload;
        drop_reason why;
    };
    struct event_rec {
        uint64_t t_ps;
        uint32_t flow;
        tcp_event e;
        uint64_t snd_una, snd_nxt, high_tx, cwnd, ssthresh;
        uint32_t dupacks;
        uint64_t rto_ps;
    };
    std::vector<drop_rec> m_drops;
    std::vector<event_rec> m_events;
};

}   // namespace cmswitch
#endif
