#pragma once

#include "core/model/trace.h"

#include <cstdint>
#include <vector>

namespace ks {

// The enclosing row of every row of the CPU tracks, as SliceTrack::parent() gives it, in one array
// per track. The overview walks from each kernel's launch up through its ancestors several times;
// a binary search per level per step made that the biggest cost of the analysis. Built in one
// linear pass (rows are in start order, and a row's parent is the last row one level up before
// it); update() extends it with rows appended since (live sessions).
class ParentIndex {
public:
    static constexpr uint32_t kNone = UINT32_MAX;

    void update(const Trace& trace);
    // The parent row of `row` on `track`, or -1 for a top-level row (same contract as
    // SliceTrack::parent()).
    int64_t parent(TrackId track, size_t row) const
    {
        const uint32_t p = m_tracks[track.value].parents[row];
        return p == kNone ? -1 : int64_t(p);
    }

private:
    struct TrackParents {
        std::vector<uint32_t> parents;
        std::vector<uint32_t> lastAtDepth;
    };
    std::vector<TrackParents> m_tracks;
};

} // namespace ks
