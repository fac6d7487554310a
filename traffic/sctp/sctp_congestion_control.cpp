// SPDX-License-Identifier: Apache-2.0
#include "traffic/sctp/sctp_congestion_control.h"

#include "config/errors.h"

#include <algorithm>

namespace cmswitch {

namespace {
// Algorithm 1 (RFC 4960 appendix A): in a new window ssthresh = cwnd / 2 (below one MTU: one MTU and the RTO
// doubles), cwnd = ssthresh; nothing within a window.
bool halve_once_per_window(sctp_window& w, const sctp_ecn_echo& e, uint32_t mtu) {
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

// Algorithm 2 (DCCC): MTU x marked off cwnd and ssthresh (signed arithmetic, then our one-MTU floor).
bool cut_per_mark(sctp_window& w, const sctp_ecn_echo& e, uint32_t mtu) {
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

class sctp_plain final : public sctp_congestion_control {
public:
    const char* name() const override { return "plain"; }
    bool ecn_capable() const override { return false; }
    bool on_ecn_echo(sctp_window&, const sctp_ecn_echo&, uint32_t) const override { return false; }
};

class sctp_ecn final : public sctp_congestion_control {
public:
    const char* name() const override { return "ecn"; }
    bool on_ecn_echo(sctp_window& w, const sctp_ecn_echo& e, uint32_t mtu) const override {
        return halve_once_per_window(w, e, mtu);
    }
};

class sctp_dccc final : public sctp_congestion_control {
public:
    const char* name() const override { return "dccc"; }
    bool per_mark(const sctp_ecn_echo&) const override { return true; }
    bool on_ecn_echo(sctp_window& w, const sctp_ecn_echo& e, uint32_t mtu) const override {
        return cut_per_mark(w, e, mtu);
    }
};

class sctp_dynamic_dccc final : public sctp_congestion_control {
public:
    const char* name() const override { return "dynamic-dccc"; }
    bool per_mark(const sctp_ecn_echo& e) const override { return e.local_lan; }
    bool on_ecn_echo(sctp_window& w, const sctp_ecn_echo& e, uint32_t mtu) const override {
        return e.local_lan ? cut_per_mark(w, e, mtu) : halve_once_per_window(w, e, mtu);
    }
};

template <typename A>
std::unique_ptr<sctp_congestion_control> make() {
    return std::make_unique<A>();
}
}   // namespace

const std::vector<sctp_cc_entry>& sctp_congestion_controls() {
    static const std::vector<sctp_cc_entry> all = {
        {"plain", "not ECN-capable: the switch drops instead of marking", &make<sctp_plain>},
        {"ecn", "RFC 4960 appendix A: halve once per window of ECN Echo (Stewart et al. 2011, algorithm 1)",
         &make<sctp_ecn>},
        {"dccc", "MTU x marked packets off the window (Stewart et al. 2011, algorithm 2)", &make<sctp_dccc>},
        {"dynamic-dccc", "dccc toward peers whose first RTT is under lan_rtt, ecn otherwise", &make<sctp_dynamic_dccc>},
    };
    return all;
}

const std::vector<std::string>& sctp_cc_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n;
        for (const auto& e : sctp_congestion_controls())
            n.push_back(e.name);
        return n;
    }();
    return names;
}

std::unique_ptr<sctp_congestion_control> make_sctp_congestion_control(const std::string& name) {
    std::string known;
    for (const auto& e : sctp_congestion_controls()) {
        if (e.name == name)
            return e.make();
        known += (known.empty() ? "" : ", ") + e.name;
    }
    throw config_error("sctp_cc = '" + name + "': allowed values are " + known);
}

}   // namespace cmswitch
