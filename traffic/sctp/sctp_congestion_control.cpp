// SPDX-License-Identifier: Apache-2.0
#include "traffic/sctp/sctp_congestion_control.h"

#include "model/errors.h"

#include <algorithm>

namespace cmswitch {

const std::vector<std::string>& sctp_cc_names() {
    static const std::vector<std::string> n{"plain", "ecn", "dccc", "dynamic-dccc"};
    return n;
}

sctp_cc parse_sctp_cc(const std::string& name) {
    const auto& n = sctp_cc_names();
    for (size_t i = 0; i < n.size(); ++i)
        if (n[i] == name)
            return static_cast<sctp_cc>(i);
    throw config_error("sctp_cc = '" + name + "': allowed values are plain, ecn, dccc, dynamic-dccc");
}

const char* sctp_cc_name(sctp_cc c) {
    return sctp_cc_names()[static_cast<size_t>(c)].c_str();
}

bool sctp_on_ecn_echo(sctp_cc cc, sctp_window& w, const sctp_ecn_echo& e, uint32_t mtu) {
    const bool dccc = cc == sctp_cc::dccc || (cc == sctp_cc::dynamic_dccc && e.local_lan);
    if (cc == sctp_cc::plain)
        return false;
    if (!dccc) {   // algorithm 1
        if (e.in_window)
            return false;
        bool double_rto = false;
        w.ssthresh = w.cwnd / 2;
        if (w.ssthresh < mtu) {
            w.ssthresh = mtu;
            double_rto = true;
        }
        w.cwnd = w.ssthresh;
        return double_rto;
    }
    // algorithm 2 (signed arithmetic, then our one-MTU floor)
    const int64_t cut = static_cast<int64_t>(mtu) * e.marked;
    int64_t cwnd = static_cast<int64_t>(w.cwnd), ssthresh = static_cast<int64_t>(w.ssthresh);
    if (!e.in_window) {
        if (e.cwnd_at_send != 0 && e.cwnd_at_send < w.cwnd)
            cwnd = static_cast<int64_t>(e.cwnd_at_send) - cut;
        else
            cwnd /= 2;
        ssthresh = cwnd - cut;
    } else {
        cwnd -= cut;
        ssthresh -= cut;
    }
    w.cwnd = static_cast<uint64_t>(std::max<int64_t>(cwnd, mtu));
    w.ssthresh = static_cast<uint64_t>(std::max<int64_t>(ssthresh, mtu));
    return false;
}

}   // namespace cmswitch
