#include "core/analysis/timeline/tracestats.h"

#include <algorithm>
#include <unordered_map>

namespace ks {

TraceStats computeTraceStats(const Trace& trace)
{
    TraceStats out;
    std::unordered_map<uint32_t, size_t> byCategory;
    for (size_t t = 0; t < trace.trackCount(); ++t) {
        const Track& track = trace.track(TrackId(uint32_t(t)));
        const SliceTrack& st = track.slices;
        out.threads += track.kind == TrackKind::CpuThread && !st.empty();
        out.streams += track.kind == TrackKind::GpuStream && !st.empty();
        out.instants += track.instants.size();
        out.maxDepth = std::max(out.maxDepth, st.levelCount());
        for (size_t r = 0; r < st.size(); ++r) {
            const StringId cat = st.category(r);
            auto [it, fresh] = byCategory.try_emplace(cat.value, out.categories.size());
            if (fresh)
                out.categories.push_back(CategoryCount{
                    cat.valid() ? std::string(trace.str(cat)) : std::string(), trace.kindOf(cat), 0, 0});
            CategoryCount& c = out.categories[it->second];
            ++c.slices;
            c.total += st.end(r) - st.start(r);
            ++out.slices;
        }
    }
    std::sort(out.categories.begin(), out.categories.end(),
              [](const CategoryCount& a, const CategoryCount& b) { return a.slices > b.slices; });
    out.flows = trace.flows().size();
    out.memoryEvents = trace.memoryEvents().size();
    for (size_t c = 0; c < trace.counterCount(); ++c)
        out.counterSamples += trace.counter(CounterTrackId(uint32_t(c))).size();
    return out;
}

} // namespace ks
