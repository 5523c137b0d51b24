#pragma once

// memory_viz's "Active Memory Timeline" as stacked bands, with a level of detail that keeps a redraw
// proportional to the pixels, not to the allocations. As MemoryViz.js (process_alloc_data) stacks
// them: the allocations alive before the trace at the bottom, then each new allocation on top of
// the ones alive, and a free lets the bands above it fall; only the `maxBands` largest are drawn one
// by one, the others are summed into one "summarized" band on top. A column of pixels shows the
// stack after the entry with the most live bytes among the entries it covers (so no peak is lost
// when zoomed out), and bands thinner than a pixel there merge into one run. Docs: docs/snapshots.md.

#include "core/analysis/snapshot/snapshottimeline.h"

#include <cstdint>
#include <vector>

namespace ks {

constexpr uint32_t kMergedRun = UINT32_MAX;         // consecutive bands each thinner than a pixel
constexpr uint32_t kSummarizedRun = UINT32_MAX - 1; // the allocations not drawn one by one

struct BandRun {
    int64_t bottom = 0; // bytes from the axis
    int64_t top = 0;
    uint32_t allocation = kMergedRun; // index into SnapshotTimeline::allocations, or a run kind
};

struct BandColumn {
    uint32_t entry = UINT32_MAX; // the trace entry the column shows; UINT32_MAX: outside the trace
    uint32_t firstRun = 0;
    uint32_t runCount = 0;
};

struct BandLayout {
    std::vector<BandColumn> columns;
    std::vector<BandRun> runs;
};

class SnapshotBands {
public:
    // memory_viz's default detail (its max_entries).
    static constexpr size_t kDefaultMaxBands = 15000;

    static SnapshotBands build(const SnapshotTimeline& timeline, size_t maxBands = kDefaultMaxBands);

    // The allocations drawn one by one, bottom first in the order they stack.
    const std::vector<uint32_t>& shown() const { return m_shown; }
    size_t summarizedCount() const { return m_order.size() - m_shown.size(); }
    // Bytes of the summarized allocations alive after the entry.
    int64_t summarizedAfter(uint32_t entry) const { return m_summarized[entry]; }
    size_t entryCount() const { return m_summarized.size(); }
    // The entry of [first, last] with the most live bytes (the first of equals).
    uint32_t peakEntryIn(uint32_t first, uint32_t last) const;

    // The columns of a view of x in [x0, x1) (x = entry index: the state after entry e spans
    // [e, e + 1)) `width` pixels wide; bands thinner than minBytes merge.
    BandLayout layout(double x0, double x1, int width, int64_t minBytes) const;
    // The allocation whose band holds `bytes` after `entry`, summarized ones included;
    // UINT32_MAX above the stack.
    uint32_t allocationAt(uint32_t entry, int64_t bytes) const;

private:
    const SnapshotTimeline* m_timeline = nullptr;
    std::vector<uint32_t> m_order;      // every allocation, bottom first
    std::vector<uint32_t> m_shown;      // the drawn ones, bottom first
    std::vector<int64_t> m_shownSize;   // their sizes, beside them: a column walks these
    std::vector<uint32_t> m_startOrder; // positions in m_shown of traced ones, by begin (= by position)
    std::vector<uint32_t> m_endOrder;   // positions in m_shown with an end, by end
    uint32_t m_initialShown = 0;        // m_shown[0 .. m_initialShown) were alive before the trace
    std::vector<int64_t> m_summarized;  // per entry
    static constexpr uint32_t kBlock = 256;
    std::vector<uint32_t> m_blockPeak; // per block of kBlock entries: its entry with the most bytes
};

} // namespace ks
