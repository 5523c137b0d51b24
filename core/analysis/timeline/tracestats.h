#pragma once

#include "core/model/trace.h"

#include <string>
#include <vector>

namespace ks {

struct CategoryCount {
    std::string category; // as written in the trace ("" when absent)
    EventKind kind = EventKind::Other;
    uint64_t slices = 0;
    TimeNs total = 0;
};

// Event counts for the trace information panel.
struct TraceStats {
    std::vector<CategoryCount> categories; // most slices first
    uint64_t slices = 0;
    uint64_t instants = 0;
    uint64_t flows = 0;
    uint64_t memoryEvents = 0;
    uint64_t counterSamples = 0;
    size_t threads = 0;
    size_t streams = 0;
    size_t maxDepth = 0;
};

TraceStats computeTraceStats(const Trace& trace);

} // namespace ks
