#pragma once

#include "core/model/trace.h"

#include <atomic>
#include <vector>

namespace ks {

// What lies in a selected time range, per slice name (Perfetto's area selection).
struct RangeRow {
    StringId name;
    EventKind kind = EventKind::Other;
    uint64_t count = 0;
    TimeNs total = 0; // wall time inside the range
    TimeNs self = 0;  // wall time inside the range not covered by child slices
};

struct RangeStats {
    std::vector<RangeRow> rows; // by total, longest first
    uint64_t slices = 0;
    bool cancelled = false;
};

// Aggregates the slices of the given tracks that overlap [t0, t1]; durations are clipped to the
// range so a selection inside one long op reports the part it covers.
RangeStats computeRangeStats(const Trace& trace, const std::vector<TrackId>& tracks, TimeNs t0, TimeNs t1,
                             const std::atomic<bool>* cancel = nullptr);

// Duration of a slice minus the time covered by its direct children.
TimeNs selfTime(const SliceTrack& track, uint32_t row);

} // namespace ks
