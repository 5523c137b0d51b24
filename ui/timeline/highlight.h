#pragma once

#include "core/model/types.h"
#include "core/util/id.h"

#include <QString>
#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ks::ui {

// Slices to point out on the timeline: search matches or the occurrences of a kernel. Names mark
// every LOD item whose representative matches; occurrences (in start order) drive next/previous
// and the tick strip under the ruler.
struct Highlight {
    QString label;
    std::vector<uint8_t> names; // indexed by StringId
    std::vector<SliceRef> occurrences;

    // When not empty, only these slices are marked, not every slice of a marked name: per track
    // (TrackId value), the [start, end] of each, in start order. Set for the critical path, whose
    // events share their names with many slices that are not on it.
    std::unordered_map<uint32_t, std::vector<std::pair<TimeNs, TimeNs>>> exact;

    bool matchesName(StringId id) const { return id.value < names.size() && names[id.value]; }
    // Whether an item drawn over [start, end] on a track may show a marked slice.
    bool matchesExact(TrackId track, TimeNs start, TimeNs end) const
    {
        if (exact.empty()) return true;
        const auto it = exact.find(track.value);
        if (it == exact.end()) return false;
        const auto& v = it->second;
        // An item stands for a run of slices that start in [start, end].
        const auto lo = std::lower_bound(v.begin(), v.end(), std::make_pair(start, TimeNs(INT64_MIN)));
        return lo != v.end() && lo->first <= end;
    }
};

} // namespace ks::ui
