#pragma once

#include "core/analysis/summary/keyaverages.h"
#include "core/analysis/timeline/linkindex.h"
#include "core/model/trace.h"

namespace ks {

// Which events of a trace one side of a comparison counts: CPU events (and allocator records) that
// start in [hostFrom, hostTo), and device work whose launch does (its own start when no launch is
// linked), so that a kernel of the previous step that is still running is not counted twice.
struct EventWindow {
    TimeNs hostFrom = 0;
    TimeNs hostTo = 0;
    bool active = false; // false: the whole trace
};

// torch's key_averages() (KeyAverages::compute) over the events of a window: the same event list,
// with the events outside the window left out before grouping, so every per-side number is the one
// torch would print for a profile of just those steps, up to the ops cut by the window's edges.
KeyAverages keyAveragesInWindow(const Trace& trace, const LinkIndex& links, const EventWindow& window,
                                unsigned threads = 0);

} // namespace ks
