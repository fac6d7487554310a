// SPDX-License-Identifier: Apache-2.0
// Switch drops by the traffic a frame belongs to, not by the priority it carries: a workload's incasts and its
// Poisson flows may share a priority, and the priority's drop counter (drops_prio<n>) then counts both. One hook
// per switch, on the drop path only (no cost to a frame that is not dropped): the frame's flow id is looked up by
// the traffic's own classifier (the workload's flow records, by flow id).
#ifndef CMSWITCH_PLATFORM_RECORDERS_CLASS_DROPS_H
#define CMSWITCH_PLATFORM_RECORDERS_CLASS_DROPS_H

#include "model/switch/switch_hook.h"

#include <array>
#include <cstdint>
#include <functional>

namespace cmswitch {

class class_drop_counter final : public switch_hook {
public:
    // classify(flow): the class of a flow id, 0 .. num_classes - 1 (a frame of no known flow: the last class).
    static constexpr int num_classes = 3;
    explicit class_drop_counter(std::function<int(uint32_t)> classify) : m_classify(std::move(classify)) {}
    uint8_t events() const override { return on_drop_event; }
    int stage() const override { return stage_recorder; }
    void on_drop(int port, const frame& f, drop_reason why, uint64_t now_ps) override;
    uint64_t drops(int cls) const { return m_drops[static_cast<size_t>(cls)]; }

private:
    std::function<int(uint32_t)> m_classify;
    std::array<uint64_t, num_classes> m_drops{};
};

}   // namespace cmswitch
#endif
