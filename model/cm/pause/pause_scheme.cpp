// SPDX-License-Identifier: Apache-2.0
#include "model/cm/pause/pause_scheme.h"

#include "config/errors.h"
#include "model/cm/pause/pause_generator.h"
#include "model/switch/ethernet_switch.h"
#include "model/units.h"

#include <algorithm>
#include <memory>

namespace cmswitch {

namespace {
// A pause_generator with cfg on switch s, each port told its link.
void install_on(fabric& net, int s, const pause_config& cfg) {
    const int ports = net.switch_at(s).num_ports();
    std::vector<uint64_t> rate(static_cast<size_t>(ports)), delay(rate.size());
    for (int p = 0; p < ports; ++p) {
        rate[static_cast<size_t>(p)] = net.port_rate_bps(s, p);
        delay[static_cast<size_t>(p)] = net.port_delay_ps(s, p);
    }
    net.switch_at(s).add_hook(std::make_unique<pause_generator>(cfg, rate, delay));
}

// "3" or "3, 4": the priorities of a bit mask
std::string priority_list(uint8_t mask) {
    std::string out;
    for (int p = 0; p < num_priorities; ++p)
        if ((mask >> p) & 1)
            out += (out.empty() ? "" : ", ") + std::to_string(p);
    return out;
}
}   // namespace

void install_pause(fabric& net, const pause_config& cfg) {
    if (!cfg.enabled())
        return;
    for (int s = 0; s < net.num_switches(); ++s)
        install_on(net, s, cfg);
}

void pause_scheme::declare(param_table& t) {
    t.add_real("pause_xoff_kb", &m_xoff_kb, 0, 1 << 20, "KB (1024 B)",
               "per-input XOFF (0: the egress buffer split among the inputs that share it, minus the headroom; a "
               "shared pool with dynamic thresholds counts alpha / (1 + alpha) of it, what one port can hold)");
    t.add_real("pause_xon_kb", &m_xon_kb, 0, 1 << 20, "KB (1024 B)", "per-input XON (0: XOFF - 2 x 1500 B)");
    // at least 26: a pause must outlast the wait of its refresh behind a 1500 B frame on the wire (1500 B and
    // two 64 B PAUSE frames: 13,024 bit times), or the sender resumes between refreshes and overruns the headroom
    t.add_int("pause_quanta", &m_quanta, 26, 65535, "quanta (512 bit times)",
              "pause time of each XOFF (from 26: shorter pauses end before their refresh can follow a full frame)");
    t.add_real("pause_xoff_alpha", &m_xoff_alpha, 0, 64, "",
               "dynamic XOFF on a shared buffer: an input class pauses at alpha x the shared pool's free bytes (0: "
               "static XOFF); needs pause_headroom_pool_kb");
    t.add_list("pause_xoff_alpha_by_pg", &m_xoff_alpha_by_pg, 0, 64, 8, false, "",
               "dynamic XOFF per ingress priority group (pg_map): 8 alphas, entry 7 (control) unused; none: "
               "pause_xoff_alpha for every group");
    t.set_overridden_by("pause_xoff_alpha", "pause_xoff_alpha_by_pg");
    t.add_list("pfc_priorities", &m_pfc_priorities, 0, 6, 0, true, "",
               "pfc: the lossless priorities (paused, never dropped; the others are lossy and drop at the egress "
               "thresholds), e.g. 3 or 3,4; none: every data priority 0-6");
    t.add_real("pause_reserved_kb", &m_reserved_kb, 0, 1 << 20, "KB (1024 B)",
               "ingress reserved space of every (input port, lossless priority group), carved out of the shared "
               "pool: a group pauses its peer only above it plus its XOFF (0: none)");
    t.add_real("pause_headroom_pool_kb", &m_headroom_pool_kb, 0, 1 << 22, "KB (1024 B)",
               "a shared headroom pool per switch for what arrives at paused input classes (0: each port's own "
               "headroom above a static XOFF); lossless classes may use it beyond the shared pool");
    t.add_flag("pause_unreserved_control", &m_unreserved_control,
               "run a shared headroom pool although the run's control frames (RoCE ACKs, CNPs) have no reserved "
               "space (reserved_kb 0): lossless queues may fill the shared pool and those frames are then dropped");
}

// Every egress queue lossless or lossy, never both; with a shared headroom pool, the lossless queues given to
// the buffer (they skip its egress threshold), and room kept for the control frames the run cannot lose.
void pause_scheme::install_queues(const std::string& v, const pause_config& pc, const scheme_context& ctx,
                                  ethernet_switch& sw) const {
    // every egress queue lossless or lossy, never both (a paused priority and a dropped one cannot share
    // one queue's books: with a headroom pool lossless queues skip the egress threshold as well)
    const uint8_t lossless_prios = v == "pfc" ? pc.pfc_classes : 0x7f;
    uint8_t queues = 0, lossy_queues = 0, groups = 0;
    for (int p = 0; p < num_priorities - 1; ++p) {
        const auto q = static_cast<uint8_t>(1u << sw.egress(0).queue_of(p));
        ((lossless_prios >> p) & 1 ? queues : lossy_queues) |= q;
        if ((lossless_prios >> p) & 1)
            groups |= static_cast<uint8_t>(1u << (v == "pfc" ? sw.pg_of(p) : 0));
    }
    if (queues & lossy_queues)
        throw config_error("queue_map puts a lossless and a lossy priority in one egress queue (pfc_priorities " +
                           priority_list(lossless_prios) +
                           "): the queue cannot be both; map them to queues of their own");
    if (pc.headroom_pool_bytes > 0) {   // lossless queues skip the egress threshold and may use the pool
        // lossless queues skip the egress threshold: together they may fill the shared pool, and a frame the
        // run cannot lose on a lossy priority (an ACK or CNP a queue pair waits for) then finds no room
        const uint8_t control_lossy = static_cast<uint8_t>(ctx.control_priorities & ~lossless_prios);
        if (control_lossy && sw.buffer().queue_reserved() == 0 && !m_unreserved_control)
            throw config_error(
                "pause_headroom_pool_kb = " + format_number(m_headroom_pool_kb) +
                " with reserved_kb = 0: lossless queues may fill the shared pool and leave no room for the "
                "run's control frames (ACKs, CNPs on lossy priority " +
                priority_list(control_lossy) +
                "), which are then dropped and queue pairs stall; give reserved_kb (a few KB per queue, "
                "e.g. 4), or set pause_unreserved_control to run it anyway");
        const uint64_t reserves = pc.reserved_bytes * static_cast<uint64_t>(sw.num_ports()) *
                                  static_cast<uint64_t>(__builtin_popcount(groups));
        sw.buffer().set_lossless(queues, pc.headroom_pool_bytes, reserves);
    }
}

// A buffer that decides PAUSE/PFC from its own priority-group profiles ("pools"): none of the split's settings
// may be given (config_error naming the one that is).
void pause_scheme::refuse_split_settings(const std::string& buffer) const {
    const std::pair<const char*, double> own[] = {{"pause_xoff_kb", m_xoff_kb},
                                                  {"pause_xon_kb", m_xon_kb},
                                                  {"pause_xoff_alpha", m_xoff_alpha},
                                                  {"pause_reserved_kb", m_reserved_kb},
                                                  {"pause_headroom_pool_kb", m_headroom_pool_kb}};
    for (const auto& [field, value] : own)
        if (value != 0)
            throw config_error(std::string(field) + " = " + format_number(value) + " with buffer_policy " + buffer +
                               ": that buffer's priority-group profiles decide XOFF, XON and headroom "
                               "(pg_dynamic_th, xoff_kb, xon_kb, headroom_pool_kb); leave " +
                               field + " at 0");
    if (!m_xoff_alpha_by_pg.empty())
        throw config_error("pause_xoff_alpha_by_pg with buffer_policy pools: its groups' pg_dynamic_th decide");
}

void pause_scheme::install(const std::string& v, scheme_context& ctx) {
    // a buffer that decides PAUSE/PFC from its own priority-group profiles ("pools"): none of the split's settings
    const bool buffer_decides =
        ctx.net.num_switches() > 0 && (ctx.net.switch_at(0).buffer().capabilities() & cap_ingress_flow_control);
    if (buffer_decides)
        refuse_split_settings(ctx.net.switch_at(0).buffer().name());
    if (m_xoff_kb == 0 && ctx.inputs_per_port == 0 && !buffer_decides)
        throw config_error("pause_xoff_kb = 0 splits the egress buffer among the inputs that share it, which this "
                           "scenario does not know: set pause_xoff_kb");
    const bool dynamic = m_xoff_alpha > 0 || !m_xoff_alpha_by_pg.empty();
    if (m_reserved_kb > 0 && m_headroom_pool_kb <= 0)
        throw config_error(
            "pause_reserved_kb needs a shared buffer with a shared headroom pool "
            "(buffer_policy shared, pause_headroom_pool_kb > 0): the reserves are carved out of its pool");
    for (int s = 0; s < ctx.net.num_switches(); ++s) {
        pause_config pc;
        pc.mode = v;
        if (!m_pfc_priorities.empty()) {
            if (v != "pfc")
                throw config_error("pfc_priorities needs pause = pfc (802.3x PAUSE stops every priority)");
            pc.pfc_classes = 0;
            for (double p : m_pfc_priorities)
                pc.pfc_classes |= static_cast<uint8_t>(1u << static_cast<int>(p));
        }
        if (v == "pfc" && ctx.traffic_priorities != 0 && (pc.pfc_classes & ctx.traffic_priorities) == 0)
            throw config_error("pfc_priorities = " + priority_list(pc.pfc_classes) + ": no traffic of this run uses " +
                               (__builtin_popcount(pc.pfc_classes) > 1 ? "these priorities" : "this priority") +
                               " (it sends on priority " + priority_list(ctx.traffic_priorities) +
                               "), so PFC would pause nothing and every frame would stay lossy: put the traffic on "
                               "a lossless priority (workload: flow_prio, incast_prio) or list its priority in "
                               "pfc_priorities");
        pc.pause_quanta = static_cast<uint32_t>(m_quanta);
        // the headroom's and XON's frame: the largest the hosts send (jumbo frames), at least a standard one
        const uint32_t mtu = std::max<uint32_t>(1500, ctx.mtu_bytes);
        pc.mtu_bytes = mtu;
        if (buffer_decides) {   // the buffer's book: the generator only sends and refreshes
            if (s == 0)
                m_xoff_bytes = m_xon_bytes = 0;
            install_on(ctx.net, s, pc);
            continue;
        }
        pc.xoff_alpha = m_xoff_alpha;
        pc.xoff_alpha_by_pg = m_xoff_alpha_by_pg;
        pc.reserved_bytes = kb_to_bytes(m_reserved_kb);
        pc.headroom_pool_bytes = kb_to_bytes(m_headroom_pool_kb);
        ethernet_switch& sw = ctx.net.switch_at(s);
        if (pc.headroom_pool_bytes > 0 && !(sw.buffer().capabilities() & cap_lossless_queues))
            throw config_error("pause_headroom_pool_kb needs buffer_policy shared (the pool lives beside its shared "
                               "pool), not '" +
                               std::string(sw.buffer().name()) + "'");
        install_queues(v, pc, ctx, sw);
        pc.pause_quanta = static_cast<uint32_t>(m_quanta);
        // the split rule, for the port whose link needs the most headroom
        uint64_t rate = 0, delay = 0, headroom = 0;
        for (int p = 0; p < ctx.net.switch_at(s).num_ports(); ++p) {
            const uint64_t h = pause_headroom_bytes(ctx.net.port_rate_bps(s, p), ctx.net.port_delay_ps(s, p), mtu);
            if (h > headroom) {
                headroom = h;
                rate = ctx.net.port_rate_bps(s, p);
                delay = ctx.net.port_delay_ps(s, p);
            }
        }
        const buffer_manager& bm = ctx.net.switch_at(s).buffer();
        const uint64_t buffer = bm.units().to_bytes(bm.lone_port());   // (the split is made in bytes)
        const pause_split split = split_port_buffer(buffer, ctx.inputs_per_port, rate, delay, mtu);
        pc.xoff_bytes = m_xoff_kb > 0 ? kb_to_bytes(m_xoff_kb) : split.xoff_bytes;
        pc.xon_bytes = m_xon_kb > 0 ? kb_to_bytes(m_xon_kb) : default_xon_bytes(pc.xoff_bytes, mtu);
        if (dynamic) {   // the static watermarks are not used; keep them valid
            pc.xoff_bytes = std::max(pc.xoff_bytes, min_xoff_bytes(mtu));
            pc.xon_bytes = default_xon_bytes(pc.xoff_bytes, mtu);
        } else if (pc.xoff_bytes < min_xoff_bytes(mtu)) {
            if (m_xoff_kb > 0)
                throw config_error("pause_xoff_kb = " + format_number(m_xoff_kb) + ": below 3 frames (" +
                                   std::to_string(min_xoff_bytes(mtu)) + " B), not lossless");
            throw config_error("pause: buffer_kb = " + format_number(static_cast<double>(buffer) / 1024) +
                               " shared by " + std::to_string(ctx.inputs_per_port) + " inputs leaves " +
                               std::to_string(split.share_bytes) + " B each, less than the headroom " +
                               std::to_string(split.headroom_bytes) +
                               " B plus 3 frames: not lossless; raise buffer_kb or set pause_xoff_kb");
        }
        // an explicit static XOFF gets the default's check: every input at XOFF plus its headroom must fit (a
        // shared headroom pool takes the headroom instead)
        if (m_xoff_kb > 0 && !dynamic && pc.headroom_pool_bytes == 0 && ctx.inputs_per_port > 0 &&
            pc.xoff_bytes > split.xoff_bytes)
            throw config_error("pause_xoff_kb = " + format_number(m_xoff_kb) + ": " +
                               std::to_string(ctx.inputs_per_port) + " inputs at XOFF plus their headroom (" +
                               std::to_string(split.headroom_bytes) + " B each) need more than the " +
                               format_number(static_cast<double>(buffer) / 1024) +
                               " KB buffer: not lossless; at most " + std::to_string(split.xoff_bytes) +
                               " B (pause_xoff_kb = " + format_number(static_cast<double>(split.xoff_bytes) / 1024) +
                               ") here, or raise buffer_kb");
        if (s == 0) {
            m_xoff_bytes = pc.xoff_bytes;
            m_xon_bytes = pc.xon_bytes;
        }
        install_on(ctx.net, s, pc);
    }
}

void pause_scheme::describe_setup(result& r) const {
    r.set("pause_xoff_bytes", static_cast<int64_t>(m_xoff_bytes));
    r.set("pause_xon_bytes", static_cast<int64_t>(m_xon_bytes));
}

void pause_scheme::report(const fabric& net, result& r) const {
    for (int s = 0; s < net.num_switches(); ++s)   // every run: the byte accounting adds up (model_error if not)
        if (const auto* g = net.switch_at(s).find_hook<pause_generator>())
            g->check_accounting();
    const bool buffer_decides =
        net.num_switches() > 0 && (net.switch_at(0).buffer().capabilities() & cap_ingress_flow_control);
    if (m_headroom_pool_kb <= 0 && !buffer_decides) {   // (the buffer's book: its lossless headroom's peak)
        report_absent_pools(r);
        return;
    }
    uint64_t peak = 0;   // (bytes of the memory the books' units take)
    for (int s = 0; s < net.num_switches(); ++s)
        if (const auto* g = net.switch_at(s).find_hook<pause_generator>())
            peak = std::max(peak, net.switch_at(s).buffer().units().to_bytes(g->headroom_peak()));
    r.set("headroom_pool_peak_kb", static_cast<double>(peak) / 1024);
    r.set("ingress_reserved_peak_kb", 0.0);
    if (m_reserved_kb > 0) {
        uint64_t res = 0;
        for (int s = 0; s < net.num_switches(); ++s)
            if (const auto* g = net.switch_at(s).find_hook<pause_generator>())
                res = std::max(res, net.switch_at(s).buffer().units().to_bytes(g->reserved_peak()));
        r.set("ingress_reserved_peak_kb", static_cast<double>(res) / 1024);
    }
}

void pause_scheme::report_absent(result& r) const {
    r.set("pause_xoff_bytes", int64_t{0});
    r.set("pause_xon_bytes", int64_t{0});
    report_absent_pools(r);
}

void pause_scheme::report_absent_pools(result& r) {
    r.set("headroom_pool_peak_kb", 0.0);
    r.set("ingress_reserved_peak_kb", 0.0);
}

}   // namespace cmswitch
