#pragma once

#include "core/analysis/memory/memorytimeline.h"

#include <array>
#include <cstdint>
#include <vector>

namespace ks {

// Live bytes of one device at one moment.
struct MemoryCurveSample {
    TimeNs ts = 0;
    std::array<int64_t, kMemoryCategoryCount> byCategory{};
    int64_t total = 0;              // sum of byCategory
    int64_t runningSum = 0;         // allocator baseline + running sum of the events' Bytes
    int64_t reportedAllocated = -1; // the last event's Total Allocated, -1 when never reported
    int64_t reportedReserved = -1;
    uint32_t point = kNoIndex; // last MemoryDeviceTimeline::points index folded in, if any
};

// Random access into a device's stacked category curve, for charts that must stay fast with a
// million events: full states are kept every kCheckpoint events, so any moment is one binary search
// and at most kCheckpoint steps away, and a window is drawn from a fixed budget of samples chosen
// once per range (keeping the highest and lowest total of each bucket, so peaks survive).
class MemoryCurve {
public:
    static constexpr size_t kCheckpoint = 1024;

    MemoryCurve() = default;
    explicit MemoryCurve(const MemoryDeviceTimeline* device);

    const MemoryDeviceTimeline* device() const { return m_device; }
    bool empty() const { return !m_device || m_device->points.empty(); }

    // State after every event at or before t.
    MemoryCurveSample stateAt(TimeNs t) const;
    enum class Keep { Peaks, PeaksAndValleys };
    // At most `budget` samples over [t0, t1] in time order: the state at t0, per time bucket the
    // sample of highest total (and, with PeaksAndValleys, the lowest too, two per bucket), and the
    // state at t1. Every sample is an exact state of the curve.
    std::vector<MemoryCurveSample> sample(TimeNs t0, TimeNs t1, size_t budget, Keep keep = Keep::Peaks) const;
    // What a stacked chart covers in one pixel column: for each edge between bands (edge k is the
    // sum of categories 0..k-1, edge 0 being zero), its lowest and highest value within the column.
    // Band k spans [lo[k], hi[k + 1]] there.
    struct Column {
        std::array<int64_t, kMemoryCategoryCount + 1> lo{};
        std::array<int64_t, kMemoryCategoryCount + 1> hi{};
        std::array<int64_t, kMemoryCategoryCount> peak{}; // highest bytes of each category
    };
    // `columns` equal slices of [t0, t1), each with the envelope of the curve inside it (the state
    // carried in from the left included): exact, whatever the number of events per column.
    std::vector<Column> envelope(TimeNs t0, TimeNs t1, int columns) const;
    // The allocation event nearest to t (within maxDistance), as a points index; kNoIndex if none.
    uint32_t nearestAllocation(TimeNs t, TimeNs maxDistance) const;

private:
    // State after points[0 .. end).
    MemoryCurveSample stateAfter(size_t end) const;
    void apply(MemoryCurveSample& s, size_t point) const;

    const MemoryDeviceTimeline* m_device = nullptr;
    MemoryCurveSample m_initial;
    std::vector<MemoryCurveSample> m_checkpoints; // [k] = state after points[0 .. k * kCheckpoint)
};

} // namespace ks
