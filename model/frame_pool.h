// SPDX-License-Identifier: Apache-2.0
// Frames come from a pool owned by one simulation: no new/delete per frame. Ownership of a frame passes with
// every call that carries it; whoever drops or consumes a frame returns it with release().
#ifndef CMSWITCH_MODEL_FRAME_POOL_H
#define CMSWITCH_MODEL_FRAME_POOL_H

#include "model/frame.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace cmswitch {

class frame_pool {
public:
    frame_pool() = default;
    frame_pool(const frame_pool&) = delete;
    frame_pool& operator=(const frame_pool&) = delete;

    // A frame with every field at its default (its SACK blocks unspecified; sack_blocks is 0).
    frame* acquire() {
        if (!m_free)
            grow();
        frame* f = m_free;
        m_free = f->next;
        static_cast<frame_fields&>(*f) = frame_fields{};   // the SACK blocks are left as they were
        ++m_live;
        return f;
    }
    void release(frame* f) {
        f->next = m_free;
        m_free = f;
        --m_live;
    }
    uint64_t live() const { return m_live; }   // frames acquired and not yet released
    uint64_t capacity() const { return m_chunks.size() * chunk_frames; }

private:
    static constexpr size_t chunk_frames = 4096;
    void grow();

    std::vector<std::unique_ptr<frame[]>> m_chunks;
    frame* m_free = nullptr;
    uint64_t m_live = 0;
};

}   // namespace cmswitch
#endif
