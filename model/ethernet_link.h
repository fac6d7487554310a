// SPDX-License-Identifier: Apache-2.0
// Full-duplex point-to-point Ethernet link: two independent directions, each adding serialization
// (bytes * 8 / rate, rounded up to the picosecond) and propagation delay to every frame. Wire timing is computed
// in one place, link_timing: the ethernet_link module holds one per direction for blocks bound through TLM
// sockets (see frame_protocol.h for the call contract); an egress port wired straight to the block at the other
// end (egress_port::connect, what a network builds) holds its direction's own.
#ifndef CMSWITCH_MODEL_ETHERNET_LINK_H
#define CMSWITCH_MODEL_ETHERNET_LINK_H

#include "model/frame_protocol.h"

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace cmswitch {

// Serialization time of `bytes` at `rate_bps`, in picoseconds, rounded up.
inline uint64_t serialization_ps(uint64_t bytes, uint64_t rate_bps) {
    const uint128 num = static_cast<uint128>(bytes) * 8u * 1000000000000ull;
    return static_cast<uint64_t>((num + rate_bps - 1) / rate_bps);
}

// One direction of a link: its rate (or a rate that changes over time) and its propagation delay. Plain data,
// a few words: a network of thousands of links keeps them inside the transmitting ports.
class link_timing {
public:
    link_timing() = default;
    // rate_bps > 0, delay_ps >= 0; validated by the caller (platform) with field names.
    link_timing(uint64_t rate_bps, uint64_t delay_ps)
        : m_ps_per_byte(exact_ps_per_byte(rate_bps)), m_delay_ps(delay_ps), m_rate_bps(rate_bps) {}
    link_timing(const link_timing& o) { *this = o; }
    link_timing& operator=(const link_timing& o);
    link_timing(link_timing&&) = default;
    link_timing& operator=(link_timing&&) = default;

    // A time-varying rate: from each t_ps on, frames that start then serialize at rate_bps. Models a receiver
    // that drains slower than its link (a host's service rate): the transmitter is held for the longer
    // serialization. Sorted by time; rates > 0. An empty schedule: the nominal rate throughout.
    void set_rate_schedule(std::vector<std::pair<uint64_t, uint64_t>> schedule);
    uint64_t rate_bps() const { return m_schedule ? m_schedule->nominal_bps : m_rate_bps; }
    uint64_t delay_ps() const { return m_delay_ps; }

    // Serialization time of a frame of `bytes` whose first bit leaves at now_ps (times non-decreasing).
    uint64_t serialization_ps(uint32_t bytes, uint64_t now_ps) {
        if (m_schedule)
            follow_schedule(now_ps);
        if (m_ps_per_byte)
            return bytes * m_ps_per_byte;   // (the same as the division below when the rate divides 8e12)
        return cmswitch::serialization_ps(bytes, m_rate_bps);
    }

    // Serialization of `bytes` at the rate a frame that starts now would take (after serialization_ps followed
    // the schedule to now).
    uint64_t current_serialization_ps(uint32_t bytes) const {
        return m_ps_per_byte ? bytes * m_ps_per_byte : cmswitch::serialization_ps(bytes, m_rate_bps);
    }

private:
    // picoseconds per byte when rate_bps divides 8e12 (every byte then takes a whole number of them), else 0
    static uint64_t exact_ps_per_byte(uint64_t rate_bps) {
        return 8000000000000ull % rate_bps == 0 ? 8000000000000ull / rate_bps : 0;
    }
    void follow_schedule(uint64_t now_ps);
    struct schedule {   // only the links that have one pay for it
        std::vector<std::pair<uint64_t, uint64_t>> changes;
        size_t next = 0;
        uint64_t nominal_bps = 1;   // the rate without the schedule
    };
    // Four words: what a frame reads first (the port that holds this keeps it in one line with its counters).
    uint64_t m_ps_per_byte = 0;   // exact_ps_per_byte(m_rate_bps)
    uint64_t m_delay_ps = 0;
    uint64_t m_rate_bps = 1;   // the rate now (the schedule's, else the nominal one)
    std::unique_ptr<schedule> m_schedule;
};
static_assert(sizeof(link_timing) == 32, "a link's timing is four words");

class ethernet_link : public sc_core::sc_module {
public:
    // a_in/b_in: transmitters of the two ends bind their initiator sockets here;
    // a_out delivers what end A sent to end B's receiver, b_out the reverse.
    frame_target_socket<ethernet_link> a_in{"a_in"};
    frame_target_socket<ethernet_link> b_in{"b_in"};
    frame_initiator_socket a_out{"a_out"};
    frame_initiator_socket b_out{"b_out"};

    // rate_bps > 0, delay_ps >= 0; validated by the caller (platform) with field names.
    ethernet_link(sc_core::sc_module_name name, uint64_t rate_bps, uint64_t delay_ps);

    // A time-varying rate for one direction (0: from a to b, 1: from b to a): from each t_ps on, frames that
    // start then serialize at rate_bps. Models a receiver that drains slower than its link (a host's service
    // rate): the transmitter toward it is held for the longer serialization. Sorted by time; rates > 0.
    void set_rate_schedule(int dir, std::vector<std::pair<uint64_t, uint64_t>> schedule) {
        m_dir[dir].set_rate_schedule(std::move(schedule));
    }
    uint64_t rate_bps() const { return m_dir[0].rate_bps(); }
    uint64_t delay_ps() const { return m_dir[0].delay_ps(); }
    uint64_t frames(int dir) const { return m_frames[dir]; }
    uint64_t bytes(int dir) const { return m_bytes[dir]; }
    void reset();

private:
    void transport(int dir, frame& f, sc_core::sc_time& delay);

    link_timing m_dir[2];
    uint64_t m_frames[2] = {0, 0};
    uint64_t m_bytes[2] = {0, 0};
};

}   // namespace cmswitch
#endif
