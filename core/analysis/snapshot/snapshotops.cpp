#include "core/analysis/snapshot/snapshotops.h"

#include <algorithm>
#include <climits>
#include <unordered_map>

namespace ks {

namespace {

// The first entry whose time is above `us` (or at least it, `orEqual`): a Column is segmented, so
// by index rather than by pointer.
uint32_t firstAfter(const Column<int64_t>& times, int64_t us, bool orEqual)
{
    size_t lo = 0, hi = times.size();
    while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (orEqual ? times[mid] < us : times[mid] <= us)
            lo = mid + 1;
        else
            hi = mid;
    }
    return uint32_t(lo);
}

} // namespace

SnapshotOpIndex SnapshotOpIndex::build(const Trace& trace, const DeviceTrace& device)
{
    SnapshotOpIndex index;
    const size_t n = device.count();
    if (n == 0) return index;
    const auto& times = device.timeUs;
    // time_us is 0 without it (torch before 2.1); entries must be in time order to be placed.
    if (times[0] == 0) return index;
    for (size_t i = 1; i < n; ++i)
        if (times[i] < times[i - 1]) return index;
    const int64_t first = times[0], last = times[n - 1];
    const int64_t base = trace.baseTimeNs();
    for (uint32_t t = 0; t < trace.trackCount(); ++t) {
        const Track& track = trace.track(TrackId(t));
        if (track.kind != TrackKind::CpuThread) continue;
        const SliceTrack& s = track.slices;
        for (size_t row = 0; row < s.size(); ++row) {
            if (trace.kindOf(s.category(row)) != EventKind::CpuOp) continue;
            SnapshotOp op;
            op.startUs = (base + s.start(row)) / 1000;
            op.endUs = (base + s.end(row)) / 1000;
            if (op.endUs < first || op.startUs > last) continue;
            op.slice = SliceRef{TrackId(t), uint32_t(row)};
            op.depth = s.depth(row);
            op.firstEntry = firstAfter(times, op.startUs, true);
            op.lastEntry = firstAfter(times, op.endUs, false) - 1; // >= 0: it ends after the first entry
            index.m_longest = std::max(index.m_longest, op.endUs - op.startUs);
            index.m_ops.push_back(op);
        }
    }
    std::sort(index.m_ops.begin(), index.m_ops.end(), [](const SnapshotOp& a, const SnapshotOp& b) {
        return a.startUs != b.startUs ? a.startUs < b.startUs : a.depth < b.depth;
    });
    return index;
}

std::vector<SnapshotOp> SnapshotOpIndex::outermost() const
{
    // Outermost among the CPU ops of its thread: a step's user annotation (ProfilerStep#N) or a
    // record_function range above them puts them deeper than 0. By start time, an op that starts
    // before the open outer op of its thread ends is inside it.
    std::vector<SnapshotOp> out;
    std::unordered_map<uint32_t, int64_t> openUntil; // per track
    for (const SnapshotOp& op : m_ops) {
        auto [it, fresh] = openUntil.try_emplace(op.slice.track.value, INT64_MIN);
        if (!fresh && op.startUs < it->second) continue;
        it->second = op.endUs;
        if (op.firstEntry <= op.lastEntry) out.push_back(op);
    }
    return out;
}

std::vector<SnapshotOp> SnapshotOpIndex::at(int64_t us) const
{
    std::vector<SnapshotOp> out;
    // Candidates start at most the longest op's duration before the time.
    auto it = std::upper_bound(m_ops.begin(), m_ops.end(), us,
                               [](int64_t t, const SnapshotOp& op) { return t < op.startUs; });
    while (it != m_ops.begin()) {
        --it;
        if (it->startUs < us - m_longest) break;
        if (it->endUs >= us) out.push_back(*it);
    }
    std::sort(out.begin(), out.end(), [](const SnapshotOp& a, const SnapshotOp& b) {
        return a.depth != b.depth ? a.depth < b.depth : a.startUs < b.startUs;
    });
    return out;
}

} // namespace ks
