// SPDX-License-Identifier: Apache-2.0
// Full-duplex point-to-point Ethernet link: two independent directions, each adding serialization
// (bytes * 8 / rate, rounded up to the picosecond) and propagation delay to every frame. The only place in the
// model where wire timing is computed (see frame_protocol.h for the call contract).
#ifndef CMSWITCH_MODEL_ETHERNET_LINK_H
#define CMSWITCH_MODEL_ETHERNET_LINK_H

#include "model/frame_protocol.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace cmswitch {

// Serialization time of `bytes` at `rate_bps`, in picoseconds, rounded up.
inline uint64_t serialization_ps(uint64_t bytes, uint64_t rate_bps) {
    const uint128 num = static_cast<uint128>(bytes) * 8u * 1000000000000ull;
    return static_cast<uint64_t>((num + rate_bps - 1) / rate_bps);
}

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
    void set_rate_schedule(int dir, std::vector<std::pair<uint64_t, uint64_t>> schedule);
    uint64_t rate_bps() const { return m_rate_bps; }
    uint64_t delay_ps() const { return m_delay_ps; }
    uint64_t frames(int dir) const { return m_frames[dir]; }
    uint64_t bytes(int dir) const { return m_bytes[dir]; }
    void reset();

private:
    void transport(int dir, frame& f, sc_core::sc_time& delay);

    uint64_t m_rate_bps;
    uint64_t m_delay_ps;
    uint64_t m_ps_per_byte;   // exact picoseconds per byte when the rate divides 8e12, else 0
    // per direction, the times of the last frame size seen (sc_time construction is a library call; a
    // direction mostly carries one size: data one way, ACKs the other)
    struct timing_cache {
        uint32_t bytes = 0;
        uint64_t rate = 0;
        sc_core::sc_time ser, arrive;
    } m_cache[2];
    std::vector<std::pair<uint64_t, uint64_t>> m_schedule[2];
    size_t m_next_change[2] = {0, 0};
    uint64_t m_dir_rate[2];
    uint64_t m_frames[2] = {0, 0};
    uint64_t m_bytes[2] = {0, 0};
};

}   // namespace cmswitch
#endif
