// SPDX-License-Identifier: Apache-2.0
#include "platform/recorders/class_drops.h"

#include "model/frame.h"

namespace cmswitch {

void class_drop_counter::on_drop(int port, const frame& f, drop_reason why, uint64_t now_ps) {
    (void)port;
    (void)why;
    (void)now_ps;
    const int c = m_classify(f.flow);
    ++m_drops[static_cast<size_t>(c >= 0 && c < num_classes ? c : num_classes - 1)];
}

}   // namespace cmswitch
