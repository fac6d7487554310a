// SPDX-License-Identifier: Apache-2.0
// Seeded random numbers with results fixed by this code alone (not by a standard library's distributions), so a
// config and seed give bit-identical runs on any machine. Every random stream derives from the scenario seed
// and a stream id: rng(seed, stream).
#ifndef CMSWITCH_MODEL_RNG_H
#define CMSWITCH_MODEL_RNG_H

#include "model/types.h"
#include <cmath>

#include <cstdint>

namespace cmswitch {

inline uint64_t splitmix64(uint64_t& x) {
    uint64_t z = (x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// The run's random streams by name. A block draws from rng(seed, stream_id(s, index)), index being its flow,
// host or switch number below the next family's base; two blocks never share a stream, so adding a random
// choice somewhere never shifts another's draws.
enum class random_stream : uint64_t {
    source = 0,   // + flow: the flow's traffic source or TCP sender (send jitter, phase)
    transaction_tcp = 100000,   // + flow: TCP senders of transaction workloads (their source: `source`)
    ecn_marking = 1000000,   // + switch: RED marking decisions
    bulk_app = 2000000,   // + background flow: elephant sizes
    qcn_cp = 3000000,   // + switch: QCN congestion point sampling jitter
    qcn_rp = 4000000,   // + host: QCN reaction point timer and byte-counter jitter
    cbr_phase = 5000000,   // the incast's UDP CBR flow's start phase
    delay_skew = 6000000,   // the incast's per-server link delay skew
    dcqcn_marking = 7000000,   // + switch: DCQCN congestion point marking decisions
    rdma_start = 8000000,   // the RDMA incast's queue-pair start times
    dbl = 9000000,   // + switch: DBL exceed-action draws
    sctp_app = 10000000,   // + host: Stewart et al.'s testbed applications (elephant sizes)
    workload = 11000000,   // + host: flow arrivals, sizes, destinations (+ 2^20: the incasts)
    incast_requests = 12000000,   // the incast client's request offsets (request_timing spread)
};
constexpr uint64_t stream_id(random_stream s, uint64_t index = 0) {
    return static_cast<uint64_t>(s) + index;
}

// xoshiro256** (Blackman & Vigna).
class rng {
public:
    rng() : rng(0, 0) {}
    rng(uint64_t seed, uint64_t stream) {
        uint64_t x = seed ^ (0x6a09e667f3bcc909ull * (stream + 1));
        for (auto& w : m_s)
            w = splitmix64(x);
    }
    uint64_t next() {
        const uint64_t result = rotl(m_s[1] * 5, 7) * 9;
        const uint64_t t = m_s[1] << 17;
        m_s[2] ^= m_s[0];
        m_s[3] ^= m_s[1];
        m_s[1] ^= m_s[2];
        m_s[0] ^= m_s[3];
        m_s[2] ^= t;
        m_s[3] = rotl(m_s[3], 45);
        return result;
    }
    // Uniform in [0, 1).
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
    // Uniform integer in [0, n), n > 0.
    uint64_t below(uint64_t n) { return static_cast<uint64_t>((static_cast<uint128>(next()) * n) >> 64); }
    // Exponential with the given mean.
    double exponential(double mean) { return -mean * std::log1p(-uniform()); }
    bool bernoulli(double p) { return uniform() < p; }

private:
    static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    uint64_t m_s[4];
};

}   // namespace cmswitch
#endif
