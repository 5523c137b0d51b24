#include "core/model/slicetrack.h"

#include "core/util/largeallocator.h"
#include "core/util/nearsort.h"
#include "core/util/saturate.h"

#include <algorithm>
#include <stdexcept>

namespace ks {

SliceTrack::SliceTrack() = default;

SliceTrack::~SliceTrack()
{
    for (size_t i = 0; i < m_levels.size(); ++i)
        delete m_levels[i];
}

SliceTrack::Level& SliceTrack::levelForWrite(size_t depth)
{
    while (m_levels.size() <= depth) {
        m_levels.push_back(new Level);
    }
    if (m_levelCount.load(std::memory_order_relaxed) <= depth)
        m_levelCount.store(depth + 1, std::memory_order_release);
    return *m_levels[depth];
}

// A duration that is never negative and never takes the end past the last representable time, so
// start + duration never overflows, wherever it is computed.
TimeNs SliceTrack::fitDuration(TimeNs start, TimeNs dur)
{
    if (dur < 0) return 0;
    return start > 0 ? std::min(dur, std::numeric_limits<TimeNs>::max() - start) : dur;
}

TimeNs SliceTrack::stackEnd(uint32_t row) const
{
    const TimeNs d = duration(row);
    return d == kOpen ? std::numeric_limits<TimeNs>::max() : start(row) + d;
}

uint32_t SliceTrack::append(TimeNs start, TimeNs dur, StringId name, StringId cat, ArgsRef args)
{
    if (m_starts.size() >= UINT32_MAX - 1) throw std::length_error("track has too many slices");
    if (dur != kOpen) dur = fitDuration(start, dur);
    const uint32_t row = uint32_t(m_starts.size());
    m_durs.push_back(dur);
    m_names.push_back(name);
    m_cats.push_back(cat);
    m_args.push_back(args);
    m_pendingStart = start;
    index(row); // publishes the start
    return row;
}

// Depth and per-level entries of a row whose duration and other columns are in place. A row whose
// start is still unpublished (passed through m_pendingStart) is published here, after its depth and
// before its level entry: size() counts starts, so readers see complete rows, and a reader walking a
// level (the live LOD update) never meets a row that size() does not count yet.
void SliceTrack::index(uint32_t row)
{
    const bool pending = row >= m_starts.size();
    const TimeNs start = pending ? m_pendingStart : m_starts[row];
    const TimeNs dur = m_durs[row];
    const TimeNs end = dur == kOpen ? std::numeric_limits<TimeNs>::max() : start + dur;
    // torch's tree rule: an enclosing slice must have started no later, and end no earlier.
    while (!m_stack.empty()) {
        const uint32_t top = m_stack.back();
        const TimeNs topEnd = stackEnd(top);
        if (start >= topEnd || end > topEnd)
            m_stack.pop_back();
        else
            break;
    }
    const size_t depth = std::min<size_t>(m_stack.size(), UINT16_MAX);
    m_depths.push_back(uint16_t(depth));
    if (pending) m_starts.push_back(start);
    Level& level = levelForWrite(depth);
    const TimeNs prevMax = level.maxEnd.empty() ? std::numeric_limits<TimeNs>::min() : level.maxEnd.back();
    level.maxEnd.push_back(std::max(prevMax, end));
    level.rows.push_back(row);
    m_stack.push_back(row);
    const TimeNs last = dur == kOpen ? start : end;
    if (last > m_lastTime.load(std::memory_order_relaxed)) m_lastTime.store(last, std::memory_order_relaxed);
}

uint32_t SliceTrack::stage(TimeNs start, TimeNs dur, StringId name, StringId cat, ArgsRef args)
{
    if (m_starts.size() >= UINT32_MAX - 1) throw std::length_error("track has too many slices");
    const uint32_t row = uint32_t(m_starts.size());
    m_durs.push_back(fitDuration(start, dur));
    m_names.push_back(name);
    m_cats.push_back(cat);
    m_args.push_back(args);
    m_starts.push_back(start);
    return row;
}

// In place, following the permutation's cycles: a copy would fault in fresh memory for the whole
// column, and most rows of a nearly sorted track do not move at all.
template <typename T>
void SliceTrack::permute(Column<T>& column, const LargeVector<uint32_t>& order)
{
    std::vector<bool> done(order.size());
    for (size_t i = 0; i < order.size(); ++i) {
        if (done[i] || order[i] == i) continue;
        const T first = column[i];
        size_t j = i;
        while (order[j] != i) {
            column[j] = column[order[j]];
            done[j] = true;
            j = order[j];
        }
        column[j] = first;
        done[j] = true;
    }
}

LargeVector<uint32_t> SliceTrack::finishStaged()
{
    const size_t first = m_depths.size(); // rows before this were indexed already
    const size_t n = m_starts.size();
    auto before = [this](size_t a, size_t b) {
        // Row a must come before row b: earlier start, or same start and longer.
        return m_starts[a] < m_starts[b] || (m_starts[a] == m_starts[b] && m_durs[a] > m_durs[b]);
    };
    bool sorted = true;
    for (size_t i = std::max<size_t>(first, 1); i < n && sorted; ++i)
        sorted = !before(i, i - 1);
    LargeVector<uint32_t> newRow;
    if (!sorted) {
        // Final order: by start, longer first, then staging order.
        LargeVector<uint32_t> order(n);
        for (size_t i = 0; i < n; ++i)
            order[i] = uint32_t(i);
        sortNearlySorted(order.data() + first, n - first, [this](uint32_t a, uint32_t b) {
            if (m_starts[a] != m_starts[b]) return m_starts[a] < m_starts[b];
            if (m_durs[a] != m_durs[b]) return m_durs[a] > m_durs[b];
            return a < b;
        });
        permute(m_starts, order);
        permute(m_durs, order);
        permute(m_names, order);
        permute(m_cats, order);
        permute(m_args, order);
        newRow.resize(n);
        for (size_t i = 0; i < n; ++i)
            newRow[order[i]] = uint32_t(i);
    }
    for (size_t i = first; i < n; ++i)
        index(uint32_t(i));
    return newRow;
}

uint32_t SliceTrack::begin(TimeNs start, StringId name, StringId cat, ArgsRef args)
{
    return append(start, kOpen, name, cat, args);
}

void SliceTrack::close(uint32_t row, TimeNs end)
{
    const TimeNs s = start(row);
    const TimeNs dur = fitDuration(s, subSaturated(end, s));
    std::atomic_ref<TimeNs>(m_durs[row]).store(dur, std::memory_order_relaxed);
    // An open row is the last row at its depth, so only its own running maximum needs fixing.
    Level& level = *m_levels[depth(row)];
    const size_t n = level.rows.size();
    if (n > 0 && level.rows[n - 1] == row) {
        const TimeNs prev = n > 1 ? level.maxEnd[n - 2] : std::numeric_limits<TimeNs>::min();
        std::atomic_ref<TimeNs>(level.maxEnd[n - 1])
            .store(std::max(prev, s + dur), std::memory_order_relaxed);
    }
    advanceTime(s + dur);
}

void SliceTrack::advanceTime(TimeNs t)
{
    if (t > m_lastTime.load(std::memory_order_relaxed)) m_lastTime.store(t, std::memory_order_relaxed);
}

size_t SliceTrack::firstAtDepthEndingAfter(size_t depth, TimeNs t, bool inclusive) const
{
    if (depth >= levelCount()) return 0;
    const Level& lv = level(depth);
    const size_t n = lv.rows.size();
    return lv.maxEnd.lowerBound(
        t,
        [inclusive](TimeNs maxEnd, TimeNs key) {
            return inclusive ? std::atomic_ref<const TimeNs>(maxEnd).load(std::memory_order_relaxed) < key
                             : std::atomic_ref<const TimeNs>(maxEnd).load(std::memory_order_relaxed) <= key;
        },
        0, n);
}

size_t SliceTrack::endAtDepthStartingBefore(size_t depth, TimeNs t, bool inclusive) const
{
    if (depth >= levelCount()) return 0;
    const Level& lv = level(depth);
    const size_t n = lv.rows.size();
    return lv.rows.lowerBound(
        t,
        [this, inclusive](uint32_t row, TimeNs key) {
            return inclusive ? start(row) <= key : start(row) < key;
        },
        0, n);
}

int64_t SliceTrack::rowAt(TimeNs t, int depthLimit) const
{
    int64_t best = -1;
    const size_t levels = levelCount();
    for (size_t d = 0; d < levels; ++d) {
        if (depthLimit >= 0 && int(d) > depthLimit) break;
        const Level& lv = level(d);
        size_t i = firstAtDepthEndingAfter(d, t, true);
        bool found = false;
        const size_t n = lv.rows.size();
        for (; i < n; ++i) {
            const uint32_t row = lv.rows[i];
            if (start(row) > t) break;
            const TimeNs e = end(row);
            if ((t >= start(row) && t < e) || (t == start(row) && e == t)) {
                best = row;
                found = true;
                // Keep scanning: with overlapping rows the latest-starting one is the innermost.
            }
        }
        if (!found) break;
    }
    return best;
}

int64_t SliceTrack::innermostEnclosing(TimeNs t0, TimeNs t1) const
{
    int64_t best = -1;
    const size_t levels = levelCount();
    for (size_t d = 0; d < levels; ++d) {
        const Level& lv = level(d);
        size_t i = firstAtDepthEndingAfter(d, t1, true);
        bool found = false;
        const size_t n = lv.rows.size();
        for (; i < n; ++i) {
            const uint32_t row = lv.rows[i];
            if (start(row) > t0) break;
            if (end(row) >= t1) {
                best = row;
                found = true;
            }
        }
        if (!found) break;
    }
    return best;
}

int64_t SliceTrack::parent(size_t row) const
{
    const uint16_t d = depth(row);
    if (d == 0) return -1;
    // The enclosing row was the top of the nesting stack at depth d-1 when this row was appended,
    // which is the last row at that depth appended before it.
    const Level& lv = level(d - 1);
    const size_t hi = lv.rows.lowerBound(
        row, [](uint32_t r, size_t key) { return r < key; }, 0, lv.rows.size());
    return hi == 0 ? -1 : int64_t(lv.rows[hi - 1]);
}

size_t SliceTrack::bytesUsed() const
{
    size_t n = m_starts.bytesUsed() + m_durs.bytesUsed() + m_names.bytesUsed() + m_cats.bytesUsed() +
               m_depths.bytesUsed() + m_args.bytesUsed();
    for (size_t d = 0; d < m_levels.size(); ++d)
        n += m_levels[d]->rows.bytesUsed() + m_levels[d]->maxEnd.bytesUsed();
    return n;
}

void SliceTrack::releaseUnusedTails()
{
    m_starts.releaseUnusedTail();
    m_durs.releaseUnusedTail();
    m_names.releaseUnusedTail();
    m_cats.releaseUnusedTail();
    m_depths.releaseUnusedTail();
    m_args.releaseUnusedTail();
    for (size_t d = 0; d < m_levels.size(); ++d) {
        m_levels[d]->rows.releaseUnusedTail();
        m_levels[d]->maxEnd.releaseUnusedTail();
    }
}

} // namespace ks
