#pragma once

#include "core/model/args.h"
#include "core/model/types.h"
#include "core/util/column.h"
#include "core/util/largeallocator.h"

#include <atomic>
#include <limits>
#include <memory>
#include <vector>

namespace ks {

// The slices of one track in compact columns, sorted by start time (ties: longer first), with the
// nesting depth of each slice and, per depth, the rows at that depth so that range queries touch
// only what is visible.
//
// Appends must come in start order (ties: enclosing slice first). One writer may append while
// readers use any row below size(). A slice may be appended open (begin() now, end() later) for
// live recording; until it ends its duration reads as kOpen.
class SliceTrack {
public:
    static constexpr TimeNs kOpen = std::numeric_limits<TimeNs>::min();

    struct Level {
        Column<uint32_t> rows; // rows at this depth, in start order
        Column<TimeNs> maxEnd; // running maximum of end over rows[0..i]
    };

    SliceTrack();
    ~SliceTrack();
    SliceTrack(const SliceTrack&) = delete;
    SliceTrack& operator=(const SliceTrack&) = delete;

    size_t size() const { return m_starts.size(); }
    bool empty() const { return size() == 0; }

    TimeNs start(size_t row) const { return m_starts[row]; }
    // Duration in ns; kOpen while a live slice has not ended.
    TimeNs duration(size_t row) const
    {
        return std::atomic_ref<const TimeNs>(m_durs[row]).load(std::memory_order_relaxed);
    }
    bool isOpen(size_t row) const { return duration(row) == kOpen; }
    // End time; an open slice ends "now", which is reported as the latest time seen on this track.
    TimeNs end(size_t row) const
    {
        const TimeNs d = duration(row);
        return d == kOpen ? std::max(m_lastTime.load(std::memory_order_relaxed), start(row)) : start(row) + d;
    }
    StringId name(size_t row) const { return m_names[row]; }
    StringId category(size_t row) const { return m_cats[row]; }
    uint16_t depth(size_t row) const { return m_depths[row]; }
    ArgsRef args(size_t row) const { return m_args[row]; }

    // The columns themselves, for analyses that scan whole tracks span by span (Column::forEachSpan)
    // instead of row by row. All four have the same length and segment layout. Durations may hold
    // kOpen while a live slice is open.
    const Column<TimeNs>& startColumn() const { return m_starts; }
    const Column<TimeNs>& durationColumn() const { return m_durs; }
    const Column<StringId>& nameColumn() const { return m_names; }
    const Column<StringId>& categoryColumn() const { return m_cats; }

    // Number of depth levels in use.
    size_t levelCount() const { return m_levelCount.load(std::memory_order_acquire); }
    const Level& level(size_t depth) const { return *m_levels[depth]; }

    // Earliest start and latest end over all rows (open rows count up to the last time seen).
    TimeNs minTime() const { return size() ? start(0) : 0; }
    TimeNs maxTime() const { return m_lastTime.load(std::memory_order_relaxed); }

    // Index into level(depth).rows of the first row at that depth whose end is > t (or >= t when
    // inclusive), i.e. the first that can be visible in a window starting at t.
    size_t firstAtDepthEndingAfter(size_t depth, TimeNs t, bool inclusive = false) const;
    // Index into level(depth).rows one past the last row whose start is < t (<= t when inclusive).
    size_t endAtDepthStartingBefore(size_t depth, TimeNs t, bool inclusive = false) const;

    // Innermost row containing t (start <= t < end, or t == start for zero-length rows), or -1.
    int64_t rowAt(TimeNs t, int depthLimit = -1) const;
    // Innermost row whose span contains [t0, t1] (t0 == t1 allowed), preferring the deepest; -1 if none.
    int64_t innermostEnclosing(TimeNs t0, TimeNs t1) const;
    // Parent row (the enclosing row one level up), or -1 for top-level rows.
    int64_t parent(size_t row) const;

    // --- writer side -------------------------------------------------------------------------
    // Appends a finished slice. Returns its row.
    uint32_t append(TimeNs start, TimeNs dur, StringId name, StringId cat, ArgsRef args);
    // Appends an open slice (live recording); end it with close().
    uint32_t begin(TimeNs start, StringId name, StringId cat, ArgsRef args);
    void close(uint32_t row, TimeNs end);
    // Raises the track's notion of "now" (for open slices) without adding a slice.
    void advanceTime(TimeNs t);
    // Replaces the args of a row (the writer may attach args after the fact, e.g. at close).
    void setArgs(uint32_t row, ArgsRef args) { m_args[row] = args; }

    // --- bulk loading ------------------------------------------------------------------------------
    // File readers stage rows in file order, straight into the final columns (no second copy of a big
    // trace in memory), then index them once. Staged rows are counted by size() but must not be read
    // until finishStaged() has sorted them (ties: longer first, then staging order) and computed
    // nesting. finishStaged() returns the final row of each staged row when any moved, or an empty
    // vector when they were already in order. append() may follow, not precede, staging.
    uint32_t stage(TimeNs start, TimeNs dur, StringId name, StringId cat, ArgsRef args);
    LargeVector<uint32_t> finishStaged();

    size_t bytesUsed() const;
    // After a bulk load: hands the resident, unused end of every column back (see Column).
    void releaseUnusedTails();

private:
    Level& levelForWrite(size_t depth);
    void index(uint32_t row);
    template <typename T>
    static void permute(Column<T>& column, const LargeVector<uint32_t>& order);
    TimeNs stackEnd(uint32_t row) const;
    static TimeNs fitDuration(TimeNs start, TimeNs dur);

    Column<TimeNs> m_starts;
    Column<TimeNs> m_durs;
    Column<StringId> m_names;
    Column<StringId> m_cats;
    Column<uint16_t> m_depths;
    Column<ArgsRef> m_args;
    // Levels are owned here; m_levels is a stable array of pointers readers index by depth.
    Column<Level*> m_levels;
    std::atomic<size_t> m_levelCount{0};
    std::atomic<TimeNs> m_lastTime{std::numeric_limits<TimeNs>::min()};
    // Writer only: rows that may still enclose the next appended slice.
    std::vector<uint32_t> m_stack;
    TimeNs m_pendingStart = 0; // append(): the start of the row being indexed, not yet published
};

} // namespace ks
