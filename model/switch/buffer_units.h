// SPDX-License-Identifier: Apache-2.0
// The accounting unit of a switch's buffer: what one frame costs in every book the switch keeps (admission and
// release in the buffer manager, the PAUSE/PFC ingress book, and the queue lengths every hook compares with its
// thresholds). One charge() for all of them, so that every threshold reads the same units.
//
//  - Byte-exact (cell_bytes 0, the default): a frame costs its bytes, plus overhead_bytes if given.
//  - Cells (cell_bytes > 0): an MMU stores a frame as a linked list of fixed cells, so a frame of L bytes costs
//    ceil((L + overhead_bytes) / cell_bytes) cells, whatever is left empty in its last one (a 64-byte ACK takes a
//    whole 254-byte cell on a Tomahawk 3). overhead_bytes is the MMU's per-frame header where a chip stores one.
//
// Sizes and thresholds are given in bytes and converted once, when a block is configured:
//  - a memory (a pool, a reserve, a static limit, a headroom) holds the whole cells that fit in it (memory());
//  - a threshold compared with an occupancy (ECN K, RED/DCQCN Kmin and Kmax, XOFF, XON, QCN's set point) becomes
//    the cells that span it (threshold(): rounded up, as switch SDKs convert a byte threshold to cells);
//  - in-flight data sized in frames of a given size (PFC headroom) is that many frames' charge (frames()).
// In byte-exact mode every conversion is the identity.
#ifndef CMSWITCH_MODEL_SWITCH_BUFFER_UNITS_H
#define CMSWITCH_MODEL_SWITCH_BUFFER_UNITS_H

#include <cstdint>

namespace cmswitch {

// The cell sizes a buffer accepts: 0 (byte-exact), or min_cell_bytes up to the largest frame (max_frame_bytes);
// per-frame overheads up to max_cell_overhead_bytes.
constexpr uint32_t min_cell_bytes = 16;
constexpr uint32_t max_cell_overhead_bytes = 256;

struct buffer_units {
    // (16 bits each: a buffer manager keeps the unit in its first cache line)
    uint16_t cell_bytes = 0;   // 0: byte-exact accounting
    uint16_t overhead_bytes = 0;   // added to every frame before the cells are counted

    bool byte_exact() const { return cell_bytes == 0; }
    // What one frame of `bytes` costs.
    uint32_t charge(uint32_t bytes) const {
        const uint32_t b = bytes + overhead_bytes;
        return cell_bytes ? (b + cell_bytes - 1u) / cell_bytes : b;
    }
    // The units a memory of `bytes` holds (whole cells).
    uint64_t memory(uint64_t bytes) const { return cell_bytes ? bytes / cell_bytes : bytes; }
    // The units a threshold of `bytes` spans (rounded up to a whole cell).
    uint64_t threshold(uint64_t bytes) const { return cell_bytes ? (bytes + cell_bytes - 1u) / cell_bytes : bytes; }
    // The units of `bytes` of frames of frame_bytes each (the last one partly filled): ceil(bytes / frame_bytes)
    // frames' charge; bytes themselves when byte-exact without overhead.
    uint64_t frames(uint64_t bytes, uint32_t frame_bytes) const {
        if (cell_bytes == 0 && overhead_bytes == 0)
            return bytes;
        return (bytes + frame_bytes - 1) / frame_bytes * charge(frame_bytes);
    }
    // The bytes of buffer memory `units` take (cells x cell_bytes).
    uint64_t to_bytes(uint64_t units) const { return cell_bytes ? units * cell_bytes : units; }
    // The size of one unit in bytes (1 when byte-exact).
    uint32_t unit_bytes() const { return cell_bytes ? cell_bytes : 1u; }
};

}   // namespace cmswitch
#endif
