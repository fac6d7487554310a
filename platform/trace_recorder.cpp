// SPDX-License-Identifier: Apache-2.0
#include "platform/trace_recorder.h"

#include <string>

namespace cmswitch {

void trace_recorder::export_to(result& r) const {
    std::string codes;
    for (int e = 0; e <= static_cast<int>(tcp_event::ack); ++e)
        codes += (e ? ", " : "") + std::to_string(e) + " " + tcp_event_name(static_cast<tcp_event>(e));
    r.set("trace_event_codes", codes);
    codes.clear();
    for (int d = 1; d < num_drop_reasons; ++d)
        codes += (d > 1 ? ", " : "") + std::to_string(d) + " " + drop_reason_name(static_cast<drop_reason>(d));
    r.set("trace_drop_reason_codes", codes);

    table& dt = r.add_table("drops");
    auto& t = dt.column("t_ms");
    auto& port = dt.column("port");
    auto& flow = dt.column("flow");
    auto& seq = dt.column("seq");
    auto& payload = dt.column("payload");
    auto& why = dt.column("reason");
    for (const auto& d : m_drops) {
        t.push_back(static_cast<double>(d.t_ps) * 1e-9);
        port.push_back(d.port);
        flow.push_back(d.flow);
        seq.push_back(static_cast<double>(d.seq));
        payload.push_back(d.payload);
        why.push_back(static_cast<double>(d.why));
    }
    table& et = r.add_table("tcp_events");
    auto& te = et.column("t_ms");
    auto& ef = et.column("flow");
    auto& ev = et.column("event");
    auto& una = et.column("snd_una");
    auto& nxt = et.column("snd_nxt");
    auto& high = et.column("high_tx");
    auto& cwnd = et.column("cwnd");
    auto& ssth = et.column("ssthresh");
    auto& dup = et.column("dupacks");
    auto& rto = et.column("rto_ms");
    for (const auto& e : m_events) {
        te.push_back(static_cast<double>(e.t_ps) * 1e-9);
        ef.push_back(e.flow);
        ev.push_back(static_cast<double>(e.e));
        una.push_back(static_cast<double>(e.snd_una));
        nxt.push_back(static_cast<double>(e.snd_nxt));
        high.push_back(static_cast<double>(e.high_tx));
        cwnd.push_back(static_cast<double>(e.cwnd));
        ssth.push_back(e.ssthresh == UINT64_MAX ? -1.0 : static_cast<double>(e.ssthresh));
        dup.push_back(e.dupacks);
        rto.push_back(static_cast<double>(e.rto_ps) * 1e-9);
    }
}

}   // namespace cmswitch
