// SPDX-License-Identifier: Apache-2.0
#ifndef CMSWITCH_MODEL_TYPES_H
#define CMSWITCH_MODEL_TYPES_H

#include <cstdint>

namespace cmswitch {
__extension__ typedef unsigned __int128 uint128;   // exact sums of byte x picosecond products

// a x b / c rounded down (the low 64 bits of it), exact for any a and b: the product is taken to 128 bits only when
// it does not fit 64, so the usual case is a 64-bit division (none at all for a constant c) instead of a call to
// the library's 128-bit one.
inline uint64_t mul_div(uint64_t a, uint64_t b, uint64_t c) {
    uint64_t p;
    if (!__builtin_mul_overflow(a, b, &p))
        return p / c;
    return static_cast<uint64_t>(static_cast<uint128>(a) * b / c);
}
}   // namespace cmswitch

#endif
