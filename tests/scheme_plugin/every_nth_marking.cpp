// SPDX-License-Identifier: Apache-2.0
#include "every_nth_marking.h"

#include "model/switch/ethernet_switch.h"
#include "model/switch/switch_hook.h"

#include <memory>

namespace cmswitch::demo {

namespace {
class every_nth_hook final : public switch_hook {
public:
    every_nth_hook(uint64_t n, int ports, std::shared_ptr<uint64_t> seen)
        : m_n(n), m_count(static_cast<size_t>(ports), 0), m_seen(std::move(seen)) {}
    uint8_t events() const override { return on_enqueue_event; }
    int stage() const override { return stage_marking; }
    void on_enqueue(const queue_view& q, frame& f, uint64_t) override {
        if (f.ecn == ecn_not_ect || f.ecn == ecn_ce)
            return;
        ++*m_seen;
        if (++m_count[static_cast<size_t>(q.port)] % m_n == 0) {
            f.ecn = ecn_ce;
            services().count_mark(q.port);
        }
    }

private:
    uint64_t m_n;
    std::vector<uint64_t> m_count;   // per egress port
    std::shared_ptr<uint64_t> m_seen;
};
}   // namespace

void every_nth_marking_scheme::declare(param_table& t) {
    t.add_int("nth_mark_n", &m_n, 1, 1 << 30, "frames", "every-nth marking: mark every Nth ECN-capable frame per port");
}

void every_nth_marking_scheme::install(const std::string&, scheme_context& ctx) {
    m_seen.clear();
    for (int s = 0; s < ctx.net.num_switches(); ++s) {
        m_seen.push_back(std::make_shared<uint64_t>(0));
        ethernet_switch& sw = ctx.net.switch_at(s);
        sw.add_hook(std::make_unique<every_nth_hook>(static_cast<uint64_t>(m_n), sw.num_ports(), m_seen.back()));
    }
}

void every_nth_marking_scheme::report(const fabric&, result& r) const {
    uint64_t seen = 0;
    for (const auto& s : m_seen)
        seen += *s;
    r.set("every_nth_ect_frames", static_cast<int64_t>(seen));
}

void register_every_nth_marking() {
    register_scheme({scheme_slot::marking, "demonstration: mark every Nth ECN-capable frame of each port",
                     [] { return std::unique_ptr<scheme>(std::make_unique<every_nth_marking_scheme>()); }});
}

}   // namespace cmswitch::demo
