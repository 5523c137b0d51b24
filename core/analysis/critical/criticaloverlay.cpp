#include "core/analysis/critical/criticaloverlay.h"

#include <algorithm>
#include <unordered_set>

namespace ks {

CriticalOverlayStats overlayCriticalPath(Trace& trace, const std::vector<CriticalPathResult>& results,
                                         bool allEdges)
{
    CriticalOverlayStats stats;
    // The reader fills the low shards, one per parser; the overlay writes after the load, alone.
    ArgShard& shard = trace.args().shard(ArgStore::kMaxShards - 1);
    std::unordered_set<uint64_t> marked;
    for (const CriticalPathResult& r : results) {
        for (const SliceRef& ev : r.events) {
            if (!marked.insert(uint64_t(ev.track.value) << 32 | ev.index).second) continue;
            SliceTrack& st = trace.track(ev.track).slices;
            ArgList args = trace.args().decode(st.args(ev.index));
            args.erase(
                std::remove_if(args.begin(), args.end(), [](const Arg& a) { return a.key == "critical"; }),
                args.end());
            args.push_back(Arg{"critical", ArgValue::integer(1)});
            st.setArgs(ev.index, shard.store(args));
            ++stats.markedEvents;
        }
    }

    // Flow ids above every id in the trace, so no existing arrow is joined to ours.
    uint64_t nextId = 0;
    for (size_t i = 0; i < trace.flows().size(); ++i)
        nextId = std::max(nextId, trace.flows()[i].id + 1);
    const StringId name = trace.strings().intern("critical_path");
    const StringId cat = trace.internCategory("critical_path");
    for (const CriticalPathResult& r : results) {
        if (!r.path.ok) continue;
        const CriticalGraph& g = r.graph;
        for (uint32_t ei : r.path.edges) {
            const CpEdge& e = g.edges()[ei];
            if (!allEdges && e.type != CpEdgeType::Dependency && e.type != CpEdgeType::KernelLaunchDelay &&
                e.type != CpEdgeType::SyncDependency)
                continue;
            auto at = [&](uint32_t node) {
                const CpNode& n = g.nodes()[node];
                const SliceTrack& st = trace.slices(n.event.track);
                // The trace's own times, as HTA takes them from the raw events (not the graph's
                // rounded ones).
                if (n.isStart) return st.start(n.event.index);
                // An arrow ending exactly at a GPU slice's end is drawn past it; HTA moves it 1 us in.
                const TimeNs end = st.end(n.event.index), dur = st.duration(n.event.index);
                return trace.track(n.event.track).kind == TrackKind::GpuStream
                           ? end - std::min<TimeNs>(1000, dur)
                           : end;
            };
            Flow f;
            f.id = nextId++;
            f.category = cat;
            f.name = name;
            f.fromTrack = g.nodes()[e.from].event.track;
            f.fromRow = g.nodes()[e.from].event.index;
            f.toTrack = g.nodes()[e.to].event.track;
            f.toRow = g.nodes()[e.to].event.index;
            f.fromTs = at(e.from);
            f.toTs = at(e.to);
            f.hasFrom = f.hasTo = true;
            shard.begin();
            if (e.weight % 1000 == 0)
                shard.addInt("weight", e.weight / 1000);
            else
                shard.addDouble("weight", double(e.weight) / 1000.0);
            shard.addBool("critical", true);
            shard.addString("type", cpEdgeTypeName(e.type));
            f.args = shard.finish();
            trace.flows().push_back(f);
            ++stats.flows;
        }
    }
    return stats;
}

} // namespace ks
