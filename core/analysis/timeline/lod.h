#pragma once

#include "core/model/slicetrack.h"
#include "core/model/types.h"

#include <cstdint>
#include <vector>

namespace ks {

// One drawable item of a slice track at a given resolution: a single slice, or a run of slices that
// all fall in one pixel column, represented by the longest of them (its name and colour stand for
// the run; the run's count goes into tooltips as "N slices").
struct LodItem {
    TimeNs start = 0;   // start of the first slice of the run
    TimeNs end = 0;     // latest end over the run
    uint32_t index = 0; // representative (the longest slice of the run): its position in its depth's
                        // level rows; SliceLod::rowOf() gives its row
    uint32_t count = 0; // slices in the run; 1 for a slice drawn on its own
    StringId name;      // the representative's name and category, so that painting an item needs
    StringId category;  // no lookups into the trace
    uint16_t depth = 0;
};

// Level-of-detail index of one SliceTrack. Per depth it keeps the rows' times in level order with the
// longest slice of every block of rows, so a query for "what is visible in [t0, t1] at N pixels"
// touches about one item per pixel column per depth instead of every slice in the window. Where a
// depth holds many slices per column it also keeps precomputed items for time buckets of fixed
// widths (a mipmap, spaced by a factor of sqrt 2): a zoomed-out query then copies those items and
// only computes the partial buckets at the window's edges, which keeps a timeline of ten million
// slices interactive.
//
// The index covers rows that existed at the last update(). Rows appended later (live recording)
// and blocks holding a still-open slice are scanned directly, so results stay exact while the index
// lags behind the track.
class SliceLod {
public:
    static constexpr uint32_t kBlock = 16;
    static constexpr uint32_t kSuper = 256;
    static constexpr uint32_t kHyper = 4096;

    explicit SliceLod(const SliceTrack& track);

    const SliceTrack& track() const { return *m_track; }
    // Row (in the track) of an item's representative.
    uint32_t rowOf(const LodItem& item) const { return m_track->level(item.depth).rows[item.index]; }

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
    // Per depth, in level order and contiguous (a query walks these instead of chasing rows through
    // the track's columns, which costs a cache miss per access on large traces): every row's start
    // as an offset from its block's first start and its duration, 32 bits each (kFar when it does
    // not fit or the slice is still open: then the track is asked), and the longest slice of every
    // block, super block and hyper block.
    // Items of one bucket width, computed on a grid anchored at time 0 over level rows
    // [0, rowsCovered); rowsCovered always falls on a bucket boundary.
    struct MipItem {
        TimeNs start;
        TimeNs end;
        uint32_t first; // level index of the run's first row
        uint32_t rep;   // level index of its longest row
        uint32_t count;
    };
    struct Mip {
        TimeNs width = 0;
        size_t rowsCovered = 0;
        std::vector<MipItem> items;
    };
    struct LevelIndex {
        std::vector<Mip> mips; // by width, narrowest first
        std::vector<TimeNs> blockStart;
        std::vector<uint32_t> startOffset;
        std::vector<uint32_t> duration;
        std::vector<StringId> name;
        std::vector<uint8_t> categorySlot; // into m_categories; kManyCategories: ask the track
        std::vector<TimeNs> blockMax;
        std::vector<uint32_t> blockArg;
        std::vector<TimeNs> superMax;
        std::vector<uint32_t> superArg;
        std::vector<TimeNs> hyperMax;
        std::vector<uint32_t> hyperArg;
    };
    struct Longest {
        size_t index;
        TimeNs duration;
    };
    static constexpr uint32_t kFar = UINT32_MAX;
    static constexpr uint8_t kManyCategories = 255;

    const LevelIndex& levelIndex(size_t depth) const
    {
        static const LevelIndex kEmpty;
        return depth < m_levels.size() ? m_levels[depth] : kEmpty;
    }
    TimeNs startAt(const LevelIndex& ix, const SliceTrack::Level& lv, size_t i) const
    {
        if (i < ix.startOffset.size() && ix.startOffset[i] != kFar)
            return ix.blockStart[i / kBlock] + ix.startOffset[i];
        return m_track->start(lv.rows[i]);
    }
    TimeNs durationAt(const LevelIndex& ix, const SliceTrack::Level& lv, size_t i) const
    {
        if (i < ix.duration.size() && ix.duration[i] != kFar) return ix.duration[i];
        return slowDuration(lv, i);
    }
    TimeNs slowDuration(const SliceTrack::Level& lv, size_t i) const;
    // Longest slice among level rows [a, b); ties keep the earliest. a < b.
    Longest longest(size_t depth, size_t a, size_t b) const;
    // First level-row index in [a, b) whose slice lasts at least minDur, or b.
    size_t firstAtLeast(size_t depth, size_t a, size_t b, TimeNs minDur) const;
    // First level-row index in [lo, hi) whose slice starts at or after t, or hi.
    size_t firstStartingAt(size_t depth, size_t lo, size_t hi, TimeNs t) const;
    void queryDepth(size_t depth, TimeNs t0, TimeNs t1, double nsPerPixel, std::vector<LodItem>& out) const;
    // The LOD algorithm over level rows [i, iEnd): columns of nsPerPixel anchored at origin; rows
    // ending before clip are skipped. emit(rep, start, end, count) per item.
    template <typename Emit>
    void scan(size_t depth, size_t i, size_t iEnd, TimeNs origin, double nsPerPixel, TimeNs clip,
              Emit&& emit) const;
    void updateMips(size_t depth);
    LodItem item(const LevelIndex& ix, const SliceTrack::Level& lv, size_t depth, size_t rep, TimeNs start,
                 TimeNs end, size_t count) const;

    const SliceTrack* m_track;
    std::vector<LevelIndex> m_levels;
    std::vector<StringId> m_categories; // distinct categories of the track, in order of appearance
};

} // namespace ks
