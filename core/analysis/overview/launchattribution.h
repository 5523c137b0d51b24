#pragma once

#include "core/analysis/overview/gputimeline.h"
#include "core/analysis/overview/parentindex.h"
#include "core/model/trace.h"

#include <array>
#include <cstdint>
#include <vector>

namespace ks {

class LinkIndex;

// A window of the trace the overview is restricted to (kinetoscope analyze --steps A-B).
struct TimeWindow {
    TimeNs start = 0;
    TimeNs end = 0;
    bool active = false;
    bool contains(TimeNs t) const { return !active || (t >= start && t < end); }
};

// One piece of GPU work (kernel, memcpy, memset) with what launched it, as TraceLens's tree sees it.
struct GpuWorkItem {
    SliceRef work;
    SliceRef runtime;  // the runtime/driver call that launched it; invalid when it could not be linked
    SliceRef launcher; // TraceLens's kernel launcher: the first cpu_op above the runtime call (an
                       // "execute" op passes through to its parent), else the runtime call itself
    SliceRef parentOp; // the innermost cpu_op above the runtime call (kernel_summary's Parent cpu_op)
    SliceRef owner;    // the code that launched it, for people: the launcher when that is a cpu_op, else
                       // the details panel's launching op (LinkIndex::launchingOp: the innermost cpu_op,
                       // else user annotation, around the runtime call), else the runtime call
    TimeNs start = 0;
    TimeNs end = 0;
    StringId name;
    EventKind kind = EventKind::Kernel;
    GpuWorkClass cls = GpuWorkClass::Computation;
    int64_t stream = -1;
    int device = -1;
};

// Every piece of GPU work of a trace with its launch chain, gathered once for all overview analyses.
//
// Linking follows TraceLens: GPU work is linked to its runtime call only through a complete ac2g
// flow (both the 's' and the 'f' end present), except graph launches, which link by correlation.
// Traces without any complete flow to GPU work fall back to Kinetoscope's correlation join.
//
// Incremental: update() takes only the rows appended to each GPU track since the previous call, so a
// live session's overview grows batch by batch. Work whose launch is not linked when it is first
// seen stays unlinked.
class LaunchAttribution {
public:
    explicit LaunchAttribution(TimeWindow window = {}) : m_window(window) {}

    // Adds the GPU work appended since the last call; returns how many items were added.
    size_t update(const Trace& trace, const LinkIndex& links, const ParentIndex& parents);

    const std::vector<GpuWorkItem>& items() const { return m_items; }
    const TimeWindow& window() const { return m_window; }

    // The cpu_op ancestors of a slice on its own thread, innermost first, through python functions
    // and user annotations (TraceLens's tree holds only cpu_op and runtime/driver events). Stops at an
    // enclosing runtime/driver call, as TraceLens's launcher search does.
    static SliceRef innermostCpuOp(const Trace& trace, const ParentIndex& parents, SliceRef r);

private:
    TimeWindow m_window;
    std::vector<GpuWorkItem> m_items;
    std::vector<uint32_t> m_seen; // per track: rows already taken
    // Per track and row: the GPU slice ends a complete flow (a hash set of them cost more than the
    // rest of the attribution).
    std::vector<std::vector<uint8_t>> m_flowTargets;
    bool m_anyFlowTarget = false;
    size_t m_flowsSeen = 0;
    // Per interned name, per kind (kernel, memcpy, memset): 1 + its class, 0 until classified.
    std::vector<std::array<uint8_t, 3>> m_classOf;
};

} // namespace ks
