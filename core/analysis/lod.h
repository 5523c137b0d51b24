#pragma once

#include "model/slicetrack.h"
#include "model/types.h"

#include <cstdint>
#include <vector>

namespace ks {

// One drawable item of a slice track at a given resolution: a single slice, or a run of slices that
// all fall in one pixel column, represented by the longest of them (its name and colour stand for
// the run; the run's count goes into tooltips as "N slices").
struct LodItem {
    TimeNs start = 0;   // start of the first slice of the run
    TimeNs end = 0;     // latest end over the run
    uint32_t row = 0;   // representative: the longest slice of the run
    uint32_t count = 0; // slices in the run; 1 for a slice drawn on its own
    uint16_t depth = 0;
};

// Level-of-detail index of one SliceTrack: per depth, the longest slice of every block of 32 and of
// 1024 consecutive rows. With it a query for "what is visible in [t0, t1] at N pixels" touches about
// one item per pixel column per depth instead of every slice in the window, which keeps a
// zoomed-out timeline of ten million slices interactive.
//
// The index covers rows that existed at the last update(). Rows appended later (live recording)
// and blocks holding a still-open slice are scanned directly, so results stay exact while the index
// lags behind the track.
class SliceLod {
public:
    static constexpr uint32_t kBlock = 32;
    static constexpr uint32_t kSuperBlock = 1024;

    explicit SliceLod(const SliceTrack& track);

    const SliceTrack& track() const { return *m_track; }

    // Indexes rows appended since the last call. Cost is proportional to the new rows.
    void update();

    // Appends to out, depth by depth and in time order within a depth, the items of depths
    // [depthBegin, depthEnd) that intersect [t0, t1] (inclusive) when that window spans `pixels`
    // columns. Every slice at least one column wide comes out as its own item (count 1); slices
    // narrower than a column merge with the other narrow slices that start in the same column.
    void query(TimeNs t0, TimeNs t1, double pixels, std::vector<LodItem>& out, size_t depthBegin = 0,
               size_t depthEnd = SIZE_MAX) const;

    size_t bytesUsed() const;

private:
    struct LevelIndex {
        // Level-row index (into SliceTrack::Level::rows) of the longest slice in each full block.
        std::vector<uint32_t> blockMax;
        std::vector<uint32_t> superMax;
    };

    TimeNs levelDuration(const SliceTrack::Level& lv, size_t i) const;
    // Level-row index in [a, b) of the longest slice; ties keep the earliest.
    size_t argMax(size_t depth, size_t a, size_t b) const;
    // First level-row index in [a, b) whose slice lasts at least minDur, or b.
    size_t firstAtLeast(size_t depth, size_t a, size_t b, TimeNs minDur) const;
    void queryDepth(size_t depth, TimeNs t0, TimeNs t1, double nsPerPixel, std::vector<LodItem>& out) const;

    const SliceTrack* m_track;
    std::vector<LevelIndex> m_levels;
};

} // namespace ks
