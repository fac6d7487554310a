// SPDX-License-Identifier: Apache-2.0
// From the units users give (the papers': KB of 1024 bytes, ms, us, Gbps, Mbps) to the model's (bytes,
// picoseconds, bit/s), rounded to the nearest integer, in one place.
#ifndef CMSWITCH_MODEL_UNITS_H
#define CMSWITCH_MODEL_UNITS_H

#include <cmath>
#include <cstdint>

namespace cmswitch {

inline uint64_t kb_to_bytes(double kb) {
    return static_cast<uint64_t>(std::llround(kb * 1024));
}
inline uint64_t mb_to_bytes(double mb) {
    return static_cast<uint64_t>(std::llround(mb * 1048576));
}   // 2^20
inline uint64_t s_to_ps(double s) {
    return static_cast<uint64_t>(std::llround(s * 1e12));
}
inline uint64_t ms_to_ps(double ms) {
    return static_cast<uint64_t>(std::llround(ms * 1e9));
}
inline uint64_t us_to_ps(double us) {
    return static_cast<uint64_t>(std::llround(us * 1e6));
}
inline uint64_t ns_to_ps(double ns) {
    return static_cast<uint64_t>(std::llround(ns * 1e3));
}
inline uint64_t gbps_to_bps(double gbps) {
    return static_cast<uint64_t>(std::llround(gbps * 1e9));
}
inline uint64_t mbps_to_bps(double mbps) {
    return static_cast<uint64_t>(std::llround(mbps * 1e6));
}

}   // namespace cmswitch
#endif
