#include "core/analysis/compare/windowaverages.h"

#include "core/analysis/summary/eventmapping.h"
#include "core/analysis/summary/functioneventlist.h"

namespace ks {

KeyAverages keyAveragesInWindow(const Trace& trace, const LinkIndex& links, const EventWindow& window,
                                unsigned threads)
{
    KeyAveragesOptions avg;
    avg.threads = threads;
    if (!window.active) return KeyAverages::compute(trace, avg);

    const EventMapping mapping(trace);
    EventListOptions lo;
    lo.threads = threads;
    lo.withSliceRows = true; // device events find their launch through their slice
    const std::unique_ptr<FunctionEventList> list = FunctionEventList::build(trace, mapping, lo);
    FunctionEventList& l = *list;
    auto inside = [&](TimeNs t) { return t >= window.hostFrom && t < window.hostTo; };
    for (const FunctionEventList::Lane& lane : l.lanes()) {
        for (uint32_t g = lane.begin; g < lane.end; ++g) {
            TimeNs t = l.start[g];
            if (lane.kind == FunctionEventList::LaneKind::Device && lane.track.valid()) {
                const SliceRef launch = links.launchOf(SliceRef{lane.track, l.sliceRow[g]});
                if (launch.valid()) t = trace.slices(launch.track).start(launch.index);
            }
            if (!inside(t)) l.flags[g] |= FunctionEventList::kRemoved;
        }
    }
    return KeyAverages::fromEventList(l, mapping, threads);
}

} // namespace ks
