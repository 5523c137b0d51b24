#include "core/analysis/timeline/rangestats.h"

#include <algorithm>
#include <unordered_map>

namespace ks {

namespace {

TimeNs clippedDuration(const SliceTrack& st, uint32_t row, TimeNs t0, TimeNs t1)
{
    return std::max<TimeNs>(0, std::min(st.end(row), t1) - std::max(st.start(row), t0));
}

} // namespace

RangeStats computeRangeStats(const Trace& trace, const std::vector<TrackId>& tracks, TimeNs t0, TimeNs t1,
                             const std::atomic<bool>* cancel)
{
    RangeStats out;
    std::unordered_map<uint32_t, size_t> rowOfName;
    uint64_t visited = 0;
    for (TrackId tid : tracks) {
        const SliceTrack& st = trace.slices(tid);
        for (size_t d = 0; d < st.levelCount(); ++d) {
            const SliceTrack::Level& lv = st.level(d);
            const size_t first = st.firstAtDepthEndingAfter(d, t0, true);
            const size_t last = st.endAtDepthStartingBefore(d, t1, true);
            for (size_t i = first; i < last; ++i) {
                if ((++visited & 0xffff) == 0 && cancel && cancel->load(std::memory_order_relaxed)) {
                    out.cancelled = true;
                    out.rows.clear();
                    return out;
                }
                const uint32_t row = lv.rows[i];
                if (st.end(row) < t0) continue;
                const TimeNs clipped = clippedDuration(st, row, t0, t1);
                const StringId name = st.name(row);
                auto [it, fresh] = rowOfName.try_emplace(name.value, out.rows.size());
                if (fresh) out.rows.push_back(RangeRow{name, trace.kindOf(st.category(row)), 0, 0, 0});
                RangeRow& r = out.rows[it->second];
                ++r.count;
                r.total += clipped;
                r.self += clipped;
                ++out.slices;
                // A child's time is not its parent's self time.
                if (d > 0) {
                    const int64_t parent = st.parent(row);
                    if (parent >= 0) {
                        auto pit = rowOfName.find(st.name(uint32_t(parent)).value);
                        // The parent overlaps the range whenever its child does, and depth d-1 was
                        // visited first, so its name is already in the table.
                        if (pit != rowOfName.end()) out.rows[pit->second].self -= clipped;
                    }
                }
            }
        }
    }
    std::sort(out.rows.begin(), out.rows.end(), [&](const RangeRow& a, const RangeRow& b) {
        return a.total != b.total ? a.total > b.total : trace.str(a.name) < trace.str(b.name);
    });
    return out;
}

TimeNs selfTime(const SliceTrack& st, uint32_t row)
{
    const TimeNs s = st.start(row);
    const TimeNs e = st.end(row);
    TimeNs self = e - s;
    const size_t d = size_t(st.depth(row)) + 1;
    if (d >= st.levelCount()) return self;
    const SliceTrack::Level& lv = st.level(d);
    size_t i = lv.rows.lowerBound(row, [](uint32_t r, uint32_t key) { return r < key; });
    for (; i < lv.rows.size(); ++i) {
        const uint32_t child = lv.rows[i];
        if (st.start(child) > e || st.parent(child) != int64_t(row)) break;
        self -= std::min(st.end(child), e) - st.start(child);
    }
    return std::max<TimeNs>(0, self);
}

} // namespace ks
