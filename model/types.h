// SPDX-License-Identifier: Apache-2.0
#ifndef CMSWITCH_MODEL_TYPES_H
#define CMSWITCH_MODEL_TYPES_H

namespace cmswitch {
__extension__ typedef unsigned __int128 uint128;   // exact sums of byte x picosecond products
}

#endif
