// SPDX-License-Identifier: Apache-2.0
// An N-port output-queued Ethernet switch: static forwarding table (destination host -> egress port), buffer
// admission by a buffer_manager policy, 8 strict-priority queues per egress port. Its events (frame arrivals,
// transmitter-free wakeups) run from an event_domain, shared or its own.
#ifndef CMSWITCH_MODEL_SWITCH_ETHERNET_SWITCH_H
#define CMSWITCH_MODEL_SWITCH_ETHERNET_SWITCH_H

#include "model/switch/buffer_manager.h"
#include "model/drop_reason.h"
#include "model/cm/ecn/ecn_marker.h"
#include "model/switch/egress_port.h"
#include "model/event_domain.h"
#include "model/frame_pool.h"
#include "model/frame_protocol.h"
#include "model/cm/pause/pause_config.h"
#include "model/cm/qcn/qcn_cp.h"

#include <array>
#include <memory>
#include <vector>

namespace cmswitch {

// Told of every frame the switch drops (recorders: drop traces). Called synchronously; must not call back.
class drop_observer {
public:
    virtual void on_drop(int port, const frame& f, drop_reason why, uint64_t now_ps) = 0;
protected:
    ~drop_observer() = default;
};

class ethernet_switch : public sc_core::sc_module, private event_handler, private dequeue_listener {
public:

    struct port_counters {
        uint64_t rx_frames = 0, rx_bytes = 0;
        uint64_t marks = 0;   // frames set to CE at this egress port
        uint64_t cnms = 0;    // QCN congestion notifications sent by this egress port's congestion points
        uint64_t pause_sent = 0, xon_sent = 0;   // PAUSE/PFC frames sent out of this port (XOFF, XON)
        std::array<uint64_t, num_drop_reasons> drop_frames{};
        std::array<uint64_t, num_drop_reasons> drop_bytes{};
    };

    // Throws config_error on a bad buffer configuration or num_ports < 1.
    ethernet_switch(sc_core::sc_module_name name, int num_ports, int num_hosts, const buffer_config& buffer,
                    frame_pool& pool, event_domain& events);

    frame_target_socket<ethernet_switch>& rx(int port) { return *m_rx[static_cast<size_t>(port)]; }
    frame_initiator_socket& tx(int port) { return *m_tx[static_cast<size_t>(port)]; }

    void set_route(int dst_host, int port);
    // QCN congestion points on every egress port for the data priorities 0..6 (CNMs go in priority 7).
    // id: this switch's number, carried in CNMs as the congestion point id (id << 16 | port << 3 | prio).
    void enable_qcn(const qcn_cp_config& cfg, int id, rng r);
    const qcn_congestion_point* congestion_point(int port, int prio) const {
        return m_cps.empty() ? nullptr : &m_cps[static_cast<size_t>(port * num_priorities + prio)];
    }
    // 802.3x PAUSE / 802.1Qbb PFC generation. port_rate_bps/port_delay_ps: each port's link; throws config_error
    // (with the numbers) if an ingress limit leaves less headroom above XOFF than the port needs.
    void enable_pause(const pause_config& cfg, const std::vector<uint64_t>& port_rate_bps,
                      const std::vector<uint64_t>& port_delay_ps);
    // Every port's transmitter learns its link rate (to turn pause quanta into time).
    void set_port_rate(int port, uint64_t rate_bps) {
        m_ports[static_cast<size_t>(port)].configure_pause(rate_bps, ev_pause_expiry);
    }
    uint64_t ingress_bytes(int port, int cls) const {
        return m_ingress.empty() ? 0 : m_ingress[static_cast<size_t>(port * num_priorities + cls)].bytes;
    }
    uint64_t consumed_frames() const { return m_consumed_frames; }
    uint64_t consumed_bytes() const { return m_consumed_bytes; }
    uint64_t originated_frames() const { return m_originated_frames; }
    uint64_t originated_bytes() const { return m_originated_bytes; }
    // ECN marking at every egress port (null: none); r: the switch's own random stream.
    void set_marker(std::unique_ptr<ecn_marker> marker, rng r) {
        m_marker = std::move(marker);
        m_rng = r;
    }
    int route(int dst_host) const { return m_routes[static_cast<size_t>(dst_host)]; }
    void set_drop_observer(drop_observer* o) { m_drop_observer = o; }
    int num_ports() const { return static_cast<int>(m_ports.size()); }

    void reset();
    const egress_port& egress(int port) const { return m_ports[static_cast<size_t>(port)]; }
    const port_counters& counters(int port) const { return m_counters[static_cast<size_t>(port)]; }
    const buffer_manager& buffer() const { return *m_buffer; }
    // Adds the frames and bytes waiting in egress queues.
    void queued(uint64_t& frames, uint64_t& bytes) const;
    // Adds the frames and bytes on the incoming links (sent to this block, last bit not yet in).
    void in_flight(uint64_t& frames, uint64_t& bytes) const;

private:
    enum : uint32_t { ev_arrival = 0, ev_tx_done = 1, ev_pause_expiry = 2, ev_pause_refresh = 3 };
    struct ingress_class {
        uint64_t bytes = 0;
        bool xoff = false;            // an XOFF is in force at the peer
        uint64_t refresh_at = 0;      // when the pause must be repeated
    };
    void on_dequeue(const frame& f, uint64_t now) override;
    void send_pause(int port, int cls, uint32_t quanta, uint64_t now);
    int pause_class(uint8_t prio) const { return m_pfc ? prio : 0; }
    void receive(int port, frame& f, sc_core::sc_time& delay);
    void on_event(uint32_t kind, uint32_t index, void* ptr) override;
    void forward(int in_port, frame* f, uint64_t now);
    void switch_frame(int in_port, frame* f, uint64_t now);
    void drop(int port, frame* f, drop_reason why);
    frame* make_cnm(const frame& about, int port, const qcn_feedback& fb, uint64_t now);

    std::vector<std::unique_ptr<frame_target_socket<ethernet_switch>>> m_rx;
    std::vector<std::unique_ptr<frame_initiator_socket>> m_tx;
    std::vector<egress_port> m_ports;
    std::vector<port_counters> m_counters;
    std::vector<int> m_routes;
    std::unique_ptr<buffer_manager> m_buffer;
    std::unique_ptr<ecn_marker> m_marker;
    std::vector<qcn_congestion_point> m_cps;
    int m_id = 0;
    uint64_t m_originated_frames = 0, m_originated_bytes = 0;
    uint64_t m_consumed_frames = 0, m_consumed_bytes = 0;   // PAUSE frames taken by this switch
    pause_config m_pause;
    bool m_pfc = false;   // m_pause.mode == "pfc", kept as a flag for the per-frame path
    std::vector<ingress_class> m_ingress;   // port x class
    std::vector<uint64_t> m_ingress_limit;  // per port
    std::vector<uint64_t> m_port_rate;
    rng m_rng;
    drop_observer* m_drop_observer = nullptr;
    frame_pool& m_pool;
    event_domain& m_events;
};

} // namespace cmswitch
#endif
