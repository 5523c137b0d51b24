#pragma once

// A profiler trace of the same run beside a memory snapshot: both clocks are µs since the epoch
// (a snapshot entry's time_us; a trace's baseTimeNanoseconds plus its slice times), so the trace's
// CPU ops can be placed over the snapshot's trace entries and an allocation told which ops were
// running when it was made. Docs: docs/snapshots.md.

#include "core/model/snapshot/memorysnapshot.h"
#include "core/model/trace.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ks {

struct SnapshotOp {
    SliceRef slice;
    int64_t startUs = 0; // since the epoch
    int64_t endUs = 0;
    uint16_t depth = 0;
    // The snapshot's entries whose time_us falls inside the op; firstEntry > lastEntry: none.
    uint32_t firstEntry = 1;
    uint32_t lastEntry = 0;
};

class SnapshotOpIndex {
public:
    // The CPU ops of the trace that overlap the device trace's time. Empty when either has no
    // times, the times do not overlap, or the snapshot's times are not in order.
    static SnapshotOpIndex build(const Trace& trace, const DeviceTrace& device);

    bool empty() const { return m_ops.empty(); }
    // Every matched op, by start time.
    const std::vector<SnapshotOp>& ops() const { return m_ops; }
    // The ops inside no other CPU op of their thread, over at least one entry, by start time: what
    // the timeline marks.
    std::vector<SnapshotOp> outermost() const;
    // The ops running at an epoch-µs time on any CPU thread, outermost first.
    std::vector<SnapshotOp> at(int64_t us) const;

private:
    std::vector<SnapshotOp> m_ops;
    int64_t m_longest = 0; // µs: how far back an op containing a time can start
};

} // namespace ks
