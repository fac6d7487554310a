// SPDX-License-Identifier: Apache-2.0
#include "model/frame_pool.h"

namespace cmswitch {

void frame_pool::grow() {
    m_chunks.emplace_back(new frame[chunk_frames]);
    frame* chunk = m_chunks.back().get();
    for (size_t i = chunk_frames; i-- > 0;) {
        chunk[i].next = m_free;
        m_free = &chunk[i];
    }
}

}   // namespace cmswitch
