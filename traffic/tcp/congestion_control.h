// SPDX-License-Identifier: Apache-2.0
// The congestion-control algorithm of a TCP sender, apart from loss recovery (which the sender does: fast
// retransmit and recovery, SACK, timeouts). An algorithm owns the window's growth and its response to
// congestion signals: it is told of every ACK of new data, of ECN-Echo outside loss recovery and of timeouts,
// and it gives the ssthresh after a loss. It also says whether its segments are ECN-capable and how the
// receiver echoes CE marks.
//
// Algorithms are registered by name (one entry each in congestion_control.cpp); tcp_config::transport picks one.
// An algorithm with parameters declares them in a block of its own, in its header (dctcp_params: dctcp_g), held
// by tcp_config beside the others. A new algorithm is a pair of files in traffic/tcp/, its entry, and its block's
// line in tcp_config.
#ifndef CMSWITCH_TRAFFIC_TCP_CONGESTION_CONTROL_H
#define CMSWITCH_TRAFFIC_TCP_CONGESTION_CONTROL_H

#include "config/params.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cmswitch {

struct tcp_config;

// The sender's window, which the algorithm sets.
struct tcp_window {
    uint64_t cwnd;
    uint64_t ssthresh;
};

// An ACK, as the algorithm sees it (of new data, except in on_ecn_echo where newly_acked may be 0).
struct tcp_ack_event {
    uint64_t now_ps;
    uint64_t ack;   // cumulative ACK
    uint64_t newly_acked;   // bytes this ACK acknowledged for the first time
    uint64_t snd_nxt;   // the sender's next sequence number (after the sender reacted to the ACK)
    uint64_t rtt_ps;   // the RTT sample this ACK gave, 0: none
    // the round trip of the segment this ACK answers, from the sender's own send times (on every ACK of new
    // data, whatever the timestamp option; Linux measures it so for delay-based algorithms such as Vegas); 0: none
    uint64_t delay_ps;
    bool ece;   // ECN-Echo set
    bool in_recovery;   // the sender is in loss recovery (after processing the ACK)
    uint64_t pacing_bps = 0;   // the sender's pacing rate (Linux sk_pacing_rate) before this ACK; 0: none yet
};

// How a receiver echoes CE marks: RFC 3168 (ECE from a CE mark until the sender's CWR) or per segment (DCTCP:
// ECE on exactly the ACKs of CE-marked data, an immediate ACK when the CE state changes).
enum class ecn_feedback { classic, per_segment };

class tcp_congestion_control {
public:
    virtual ~tcp_congestion_control() = default;
    virtual const char* name() const = 0;
    // Whether the sender's segments are ECN-capable (ECT(0)).
    virtual bool ecn_capable() const = 0;

    // An ACK of new data outside loss recovery: grow the window. Default: RFC 5681 slow start (L = 1 SMSS) and
    // congestion avoidance (cwnd += SMSS^2 / cwnd per ACK); with byte counting (tcp_config::abc, as Linux), slow
    // start by the bytes acknowledged (up to ssthresh) and avoidance by SMSS x bytes acknowledged / cwnd.
    virtual void on_increase(tcp_window& w, const tcp_ack_event& a);
    // Every ACK of new data, in or out of recovery, after the sender has processed it (bookkeeping).
    virtual void on_acked(tcp_window& w, const tcp_ack_event& a) {
        (void)w;
        (void)a;
    }
    // Whether on_acked does anything: the sender calls it only then (it would run on every ACK).
    virtual bool wants_on_acked() const { return false; }
    // Whether it reads tcp_ack_event::delay_ps (the sender measures it only then).
    virtual bool wants_delay_samples() const { return false; }
    // ECN-Echo on an ACK outside loss recovery, with tcp_config::ecn_reduction = cut: the algorithm reduces the
    // window at once (at most once per window, by its own rule). Returns whether the window was reduced and
    // whether the sender must set CWR on its next segment (RFC 3168). With ecn_reduction = cwr the sender runs the
    // reduction instead (Linux's CWR state) and asks ecn_ssthresh.
    struct ecn_response {
        bool reduced = false;
        bool send_cwr = false;
    };
    virtual ecn_response on_ecn_echo(tcp_window& w, const tcp_ack_event& a) {
        (void)w;
        (void)a;
        return {};
    }
    // A congestion event (fast retransmit, timeout, a loss a tail loss probe repaired): the ssthresh from x, the
    // window the sender's loss rule chose (tcp_config::ssthresh_from). Default: max(x / 2, 2 SMSS) (RFC 5681). An
    // algorithm may keep state of it (CUBIC's W_max).
    virtual uint64_t loss_ssthresh(uint64_t x) { return std::max<uint64_t>(x / 2, 2 * uint64_t{m_mss}); }
    // The ssthresh a reduction for ECN aims at, from the window when it begins (Linux: the algorithm's ssthresh
    // operation, which tcp_enter_cwr calls). Default: the loss response's.
    virtual uint64_t ecn_ssthresh(uint64_t cwnd) { return loss_ssthresh(cwnd); }
    // A retransmission timeout (after the sender has reset its window).
    virtual void on_timeout() {}

    void set_mss(uint32_t mss) { m_mss = mss; }
    uint32_t mss() const { return m_mss; }
    void set_byte_counting(bool abc) { m_abc = abc; }
    bool byte_counting() const { return m_abc; }
    // Whether the host paces the flow (fq with pacing; Linux: sk_pacing_status), as the sender found it.
    void set_paced(bool paced) { m_paced = paced; }
    bool paced() const { return m_paced; }
    // The largest segment the stack hands below TCP (Linux sk_gso_max_size; 0: no GSO).
    void set_gso_max_bytes(uint32_t b) { m_gso_max = b; }
    uint32_t gso_max_bytes() const { return m_gso_max; }

protected:
    // Slow start as the sender's settings say (the default on_increase's), for algorithms that share it.
    void slow_start(tcp_window& w, uint64_t newly_acked) const;

private:
    uint32_t m_mss = 1460;
    bool m_abc = false;
    bool m_paced = false;
    uint32_t m_gso_max = 0;
};

// One registered algorithm.
struct tcp_cc_entry {
    std::string name;
    std::string doc;
    ecn_feedback feedback;
    bool needs_marking;   // reacts to ECN marks only: a scenario refuses it without a marking scheme
    std::unique_ptr<tcp_congestion_control> (*make)(const tcp_config& cfg);
    // Declares the algorithm's own parameter block (its field of cfg), or nullptr if it has none.
    void (*declare)(param_table& t, tcp_config& cfg);
};

// The registered algorithms, in registration order.
const std::vector<tcp_cc_entry>& congestion_controls();
// Their names, for a parameter's choices.
std::vector<std::string> congestion_control_names();
// The algorithm named `name` (tcp_config::transport), or config_error naming the field and the allowed values.
const tcp_cc_entry& find_congestion_control(const std::string& name);
// Every registered algorithm's parameters, into cfg: a TCP scenario accepts the knobs of every algorithm.
void declare_congestion_control_params(param_table& t, tcp_config& cfg);
// A new instance for cfg (its mss set).
std::unique_ptr<tcp_congestion_control> make_congestion_control(const tcp_config& cfg);

}   // namespace cmswitch
#endif
