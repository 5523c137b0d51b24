#pragma once

// One device of a memory snapshot as memory_viz's "Active Memory Timeline" sees it
// (torch/utils/viz/MemoryViz.js, process_alloc_data): every allocation with the trace entries that
// began and ended it, the live bytes after each entry, the peak, the reserved bytes over time, and
// what was alive at the peak. Definitions and the deliberate differences: docs/snapshots.md.

#include "core/model/snapshot/memorysnapshot.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ks {

constexpr uint32_t kBeforeTrace = UINT32_MAX - 1; // alive before the first entry
constexpr uint32_t kAfterTrace = UINT32_MAX;      // still alive after the last entry

struct SnapshotAllocation {
    int64_t addr = 0;
    int64_t size = 0;
    uint32_t stack = kNoStack;
    uint32_t begin = kBeforeTrace; // trace entry of its alloc
    uint32_t end = kAfterTrace;    // trace entry of its free_completed
    // Where it came from when its alloc is not in the trace: a free of an unknown address (the
    // history was truncated by max_entries) or an active block of the segments.
    enum class Origin : uint8_t { Traced, FreedOnly, SegmentBlock } origin = Origin::Traced;
    bool aliveAfter(uint32_t entry) const
    {
        const bool begun = begin == kBeforeTrace || begin <= entry;
        return begun && (end == kAfterTrace || end > entry);
    }
};

struct SnapshotGroup {
    uint32_t frame = UINT32_MAX; // UINT32_MAX: no frames recorded
    int64_t bytes = 0;
    uint64_t count = 0;
};

class SnapshotTimeline {
public:
    static SnapshotTimeline build(const MemorySnapshot& snap, size_t device);

    size_t device = 0;
    std::vector<SnapshotAllocation> allocations;
    std::vector<int64_t> liveAfter;     // per trace entry: allocated bytes after it
    std::vector<int64_t> reservedAfter; // per trace entry: bytes of the device's segments after it
    int64_t initialBytes = 0;           // alive before the first entry
    int64_t finalReserved = 0;          // segments of the device at the snapshot
    int64_t initialReserved = 0;        // reserved before the first entry
    int64_t peakBytes = 0;
    uint32_t peakEntry = kBeforeTrace; // the first entry after which the peak is reached
    uint64_t unmatchedFrees = 0;       // frees of allocations before the trace (truncated history)
    std::vector<uint32_t> ooms;        // trace entries of the OOMs

    int64_t liveAt(uint32_t entry) const { return entry == kBeforeTrace ? initialBytes : liveAfter[entry]; }
    int64_t reservedAt(uint32_t entry) const;
    // Allocations alive after `entry` (kBeforeTrace: before the first), largest first.
    std::vector<uint32_t> aliveAt(uint32_t entry) const;
    // Alive allocations grouped by their top frame (the first one memory_viz shows), largest first.
    std::vector<SnapshotGroup> groupByTopFrame(const MemorySnapshot& snap,
                                               const std::vector<uint32_t>& alive) const;
    // Bytes per frame over the alive allocations whose stack holds it (each frame once per
    // allocation), largest first.
    std::vector<SnapshotGroup> bytesPerFrame(const MemorySnapshot& snap,
                                             const std::vector<uint32_t>& alive) const;
};

// memory_viz's frameFilter: the unwinder's, CPython's and dispatcher frames it hides.
bool frameShown(const MemorySnapshot& snap, uint32_t frame);
// The first shown frame of a stack, or UINT32_MAX.
uint32_t topFrame(const MemorySnapshot& snap, uint32_t stack);
std::string frameText(const MemorySnapshot& snap, uint32_t frame); // "file:line:name"

} // namespace ks
