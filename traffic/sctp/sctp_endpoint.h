// SPDX-License-Identifier: Apache-2.0
// What both ends of an SCTP association share: the four-way handshake (RFC 4960 5.1: INIT, INIT-ACK with the
// state cookie, COOKIE-ECHO, COOKIE-ACK) with the T1 timer, the RTO estimator (RFC 4960 6.3.1) and the making
// of packets. An association carries data one way: the data sender (sctp_sender.h) and the data receiver
// (sctp_receiver.h) derive from this; either may be the one that connects (the incast client connects and
// receives; an elephant source connects and sends). The connecting end may bundle application request bytes
// with its COOKIE-ECHO (the incast client's request), which the other end gets once, when it sees the first
// COOKIE-ECHO. A new connect() starts a new association on the same flow id: the data sender starts at fresh
// TSNs (carried in its INIT or INIT-ACK), congestion state and RTO are reset.
#ifndef CMSWITCH_TRAFFIC_SCTP_SCTP_ENDPOINT_H
#define CMSWITCH_TRAFFIC_SCTP_SCTP_ENDPOINT_H

#include "traffic/host_stack.h"
#include "traffic/rtt_estimator.h"
#include "traffic/sctp/sctp_config.h"

#include <cstdint>

namespace cmswitch {

class sctp_endpoint : public flow_endpoint, public timer_client {
public:
    // Told when an association is up at this end; request: bytes the connecting end bundled (0 at the
    // connecting end itself).
    class listener {
    public:
        virtual void on_established(uint32_t flow, uint32_t request, uint64_t now_ps) = 0;

    protected:
        ~listener() = default;
    };

    sctp_endpoint(host_stack& host, uint32_t flow, int peer, const sctp_config& cfg, sctp_stats& stats);
    virtual ~sctp_endpoint() = default;

    void set_setup_listener(listener* l) { m_setup_listener = l; }
    // Starts a new association from this end; request bytes ride on the COOKIE-ECHO.
    void connect(uint32_t request = 0);
    bool established() const { return m_state == state::established; }
    uint32_t flow() const { return m_flow; }
    uint64_t rto_ps() const { return m_rto; }
    double srtt_ps() const { return m_rtt.srtt(); }
    bool have_rtt() const { return m_rtt.have_sample(); }
    uint64_t first_rtt_ps() const { return m_first_rtt; }

    // RFC 4960 6.3.1 with a new measurement r (ps); exposed for tests.
    void rtt_sample(uint64_t r);

    void on_timer(uint32_t tag) override;

protected:
    enum class state : uint8_t { closed, cookie_wait, cookie_echoed, init_received, established };
    enum : uint32_t { timer_t1 = 0, timer_kind_bits = 2 };   // derived classes use kinds 1..3

    // A handshake frame (kind sctp with a handshake flag): handles it and releases it.
    void on_handshake(frame* f, uint64_t now);
    // Resets what a new association resets here; `initial_tsn` is the data sender's first TSN.
    virtual void on_new_association(uint32_t initial_tsn, uint64_t now) = 0;
    // The data sender's next initial TSN (0 at the data receiver).
    virtual uint32_t initial_tsn() const { return 0; }
    virtual void on_timer_kind(uint32_t kind, uint32_t tag, uint64_t now) = 0;
    // Marks the association up (the first data or SACK proves it at the connecting end).
    void set_established(uint32_t request, uint64_t now);

    frame* make_packet(uint8_t flags, uint32_t bytes);
    void reset_rto();

    host_stack& m_host;
    uint32_t m_flow;
    int m_peer;
    sctp_config m_cfg;
    sctp_stats& m_stats;
    listener* m_setup_listener = nullptr;
    uint64_t m_rto;
    rtt_estimator m_rtt;
    uint64_t m_first_rtt = 0;   // the association's first RTT sample (dynamic DCCC)
    state m_state = state::closed;

private:
    void send_handshake(uint8_t flag, uint64_t now);
    void arm_t1(uint64_t now);
    uint32_t m_request = 0;   // connecting end: bytes bundled with COOKIE-ECHO
    uint64_t m_t1_rto = 0;   // T1's current timeout (RTO.initial, doubled on each expiry)
    uint64_t m_t1_sent = 0;   // when the INIT or COOKIE-ECHO now timed went out (first transmission)
    bool m_t1_retransmitted = false;
    uint32_t m_t1_gen = 0;
    uint64_t m_init_ack_sent = 0;   // other end: when its INIT-ACK went out (RTT sample on COOKIE-ECHO)
    bool m_init_ack_retransmitted = false;
};

}   // namespace cmswitch
#endif
