#pragma once

#include "core/analysis/critical/criticalpath.h"

#include <vector>

namespace ks {

struct CriticalOverlayStats {
    size_t markedEvents = 0;
    size_t flows = 0;
};

// Marks the critical path in the trace itself, as HTA's overlay_critical_path_analysis does with
// only_show_critical_events=False: "critical": 1 added to the args of every event on a path, and a
// pair of "critical_path" flow events ('s' at the edge's first node, 'f' at its last) with args
// weight (us), critical and type for each path edge of the kinds HTA shows by default (dependency,
// kernel launch, sync dependency), or for every path edge when allEdges is set. Write the trace
// with the io layer's writer afterwards.
CriticalOverlayStats overlayCriticalPath(Trace& trace, const std::vector<CriticalPathResult>& results,
                                         bool allEdges = false);

} // namespace ks
