#pragma once

#include "core/analysis/timeline/lod.h"
#include "core/model/slicetrack.h"
#include "core/model/trace.h"

#include <memory>
#include <vector>

namespace ks {

// A thread's slices with the deep part of its Python call stacks left out, for drawing. Traces
// recorded with with_stack put 10 to 40 python_function frames above every operator, so the
// operators (what a reader looks for) sit deep down a tall track; here the frames below the first
// few Python levels are dropped and what they enclosed moves up. The rows are a copy (their own
// track and LOD) that maps back to the original rows, which stay the identity of every slice.
class CondensedTrack {
public:
    // Python frames kept at the top of each stack.
    static constexpr int kDefaultPythonDepth = 3;

    // Null when no python_function slice of the track is deeper than maxPythonDepth Python frames
    // (nothing to leave out), or the track holds open (live) slices.
    static std::unique_ptr<CondensedTrack> build(const Trace& trace, TrackId track,
                                                 int maxPythonDepth = kDefaultPythonDepth);

    const SliceTrack& track() const { return m_track; }
    const SliceLod& lod() const { return *m_lod; }
    // Original row of a condensed row.
    uint32_t originalRow(uint32_t row) const { return m_original[row]; }
    // Condensed row showing an original row: itself when kept, else its nearest kept ancestor;
    // -1 when it has none.
    int64_t shownRow(uint32_t originalRow) const;
    // Slices left out.
    size_t hiddenCount() const { return m_hidden; }
    size_t bytesUsed() const;

private:
    CondensedTrack() = default;

    SliceTrack m_track;
    std::unique_ptr<SliceLod> m_lod;
    std::vector<uint32_t> m_original;
    std::vector<int32_t> m_shown; // by original row
    size_t m_hidden = 0;
};

} // namespace ks
