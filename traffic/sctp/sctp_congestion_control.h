// SPDX-License-Identifier: Apache-2.0
// How an SCTP sender answers an ECN Echo (Stewart et al. 2011 section 4). The sender finds whether the echo is of a new
// window (in_window false: the reported TSN was sent after the last reduction) and how many packets were marked
// since; the algorithm sets cwnd and ssthresh:
//  - plain: not ECN-capable (the switch drops instead of marking);
//  - ecn (RFC 4960 appendix A, the paper's algorithm 1): in a new window ssthresh = cwnd / 2 (below one MTU: one
//    MTU and the RTO doubles), cwnd = ssthresh; nothing within a window;
//  - dccc (algorithm 2): in a new window cwnd = cwnd when the reported TSN was sent - MTU x marked (FreeBSD halves
//    instead when that cwnd is not below the current one), ssthresh = cwnd - MTU x marked; within a window cwnd
//    and ssthresh each lose MTU x marked;
//  - dynamic-dccc: dccc when the association's first RTT sample was under lan_rtt (a "local LAN" peer), ecn
//    otherwise.
// The paper's formulas can go below one MTU; we keep cwnd and ssthresh at one MTU or more (our floor).
// Each response is a class registered by name (sctp_congestion_controls(), one line each), as TCP's congestion
// controls are.
#ifndef CMSWITCH_TRAFFIC_SCTP_SCTP_CONGESTION_CONTROL_H
#define CMSWITCH_TRAFFIC_SCTP_SCTP_CONGESTION_CONTROL_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cmswitch {

struct sctp_window {
    uint64_t cwnd;
    uint64_t ssthresh;
};

struct sctp_ecn_echo {
    bool in_window;   // the reported TSN was sent before the last reduction
    uint32_t marked;   // packets marked since the last echo the sender processed
    uint64_t cwnd_at_send;   // cwnd when the reported TSN was sent (0: not found)
    bool local_lan;   // dynamic-dccc: the first RTT sample was under lan_rtt
};

class sctp_congestion_control {
public:
    virtual ~sctp_congestion_control() = default;
    virtual const char* name() const = 0;
    // Its packets are ECN-capable (plain: no, the switch drops instead of marking).
    virtual bool ecn_capable() const { return true; }
    // This echo is answered per marked packet (DCCC): a cut inside a window counts as such.
    virtual bool per_mark(const sctp_ecn_echo&) const { return false; }
    // Applies the response to w. Returns true if the RTO must double (algorithm 1's ssthresh floor).
    virtual bool on_ecn_echo(sctp_window& w, const sctp_ecn_echo& e, uint32_t mtu) const = 0;
};

// One registered response.
struct sctp_cc_entry {
    std::string name;
    std::string doc;
    std::unique_ptr<sctp_congestion_control> (*make)();
};
// The registered responses, in registration order, and their names (a parameter's choices).
const std::vector<sctp_cc_entry>& sctp_congestion_controls();
const std::vector<std::string>& sctp_cc_names();
// A new instance of the response named `name`, or config_error naming the field and the choices.
std::unique_ptr<sctp_congestion_control> make_sctp_congestion_control(const std::string& name);

}   // namespace cmswitch
#endif
