// CriticalGraph: the edges along the call stack of each CPU thread.
#include "core/analysis/critical/cpevents.h"
#include "core/analysis/critical/criticalgraph.h"

#include <algorithm>
#include <map>
#include <set>

namespace ks {

namespace {

// The one thread whose cpu_op or user_annotation names contain `part`, or an invalid id when none
// or several do (HTA's _get_tid_for_event).
TrackId onlyThreadWith(const Trace& trace, const std::vector<SliceRef>& window, std::string_view part)
{
    std::set<uint32_t> tracks;
    for (const SliceRef& r : window) {
        const EventKind k = trace.sliceKind(r);
        if ((k == EventKind::CpuOp || k == EventKind::UserAnnotation) &&
            trace.sliceName(r).find(part) != std::string_view::npos)
            tracks.insert(r.track.value);
    }
    return tracks.size() == 1 ? TrackId(*tracks.begin()) : TrackId();
}

} // namespace

void CriticalGraph::callStackEdges(const Trace& trace)
{
    if (m_cpuEvents.empty()) return;
    const TimeNs from = m_from, to = m_to;
    // Every CPU event of the window (not only nodes), for the forward/backward thread test and for
    // the parents edges are attributed to.
    std::vector<SliceRef> window;
    std::set<uint32_t> cpuTracks;
    for (const SliceRef& r : m_cpuEvents)
        cpuTracks.insert(r.track.value);
    for (uint32_t t : cpuTracks) {
        const SliceTrack& st = trace.slices(TrackId(t));
        for (size_t r = 0; r < st.size(); ++r)
            if (m_clock.start(st, r) >= from && m_clock.start(st, r) <= to && m_clock.duration(st, r) > 0)
                window.push_back(SliceRef{TrackId(t), uint32_t(r)});
    }
    auto clipped = [&](SliceRef r) {
        const SliceTrack& st = trace.slices(r.track);
        const TimeNs s = m_clock.start(st, r.index);
        return s >= from && s <= to && m_clock.duration(st, r.index) > 0;
    };
    // The backward pass usually runs on its own thread, after the forward pass; HTA follows it on
    // the forward thread so that the path goes through both.
    const TrackId fwd = onlyThreadWith(trace, window, "forward");
    const TrackId bwd = onlyThreadWith(trace, window, "autograd");
    auto stackOf = [&](TrackId t) { return fwd.valid() && bwd.valid() && t == bwd ? fwd : t; };

    std::map<uint32_t, std::vector<SliceRef>> stacks;
    for (const SliceRef& r : m_cpuEvents)
        stacks[stackOf(r.track).value].push_back(r);

    for (auto& [trackValue, evs] : stacks) {
        (void)trackValue;
        std::sort(evs.begin(), evs.end(), [&](SliceRef a, SliceRef b) {
            const SliceTrack& sa = trace.slices(a.track);
            const SliceTrack& sb = trace.slices(b.track);
            const TimeNs s0 = m_clock.start(sa, a.index), s1 = m_clock.start(sb, b.index);
            if (s0 != s1) return s0 < s1;
            const TimeNs e0 = m_clock.end(sa, a.index), e1 = m_clock.end(sb, b.index);
            if (e0 != e1) return e0 > e1;
            return a < b;
        });
        // The enclosing event HTA's call stack would give (any CPU event of the window, the root
        // when there is none).
        auto parentOf = [&](SliceRef r) {
            const SliceTrack& st = trace.slices(r.track);
            for (int64_t p = st.parent(r.index); p >= 0; p = st.parent(size_t(p))) {
                const SliceRef pr{r.track, uint32_t(p)};
                if (clipped(pr)) return pr;
            }
            return SliceRef();
        };

        int64_t last = -1;
        SliceRef lastParent;
        int depth = 0;
        auto sharesLock = [&](uint32_t a, uint32_t b) {
            // Two runtime calls that hold the lock are linked by runtimeLockEdges(), unless the
            // first ended before the second started.
            const CpNode& na = m_nodes[a];
            const CpNode& nb = m_nodes[b];
            return cpIsLockingRuntime(trace.sliceName(na.event)) &&
                   cpIsLockingRuntime(trace.sliceName(nb.event)) && (na.isStart || !nb.isStart);
        };
        auto enter = [&](SliceRef ev) {
            const uint32_t s = uint32_t(startNode(ev));
            if (last >= 0 && !sharesLock(uint32_t(last), s)) {
                const CpEdgeType type = depth == 0 ? CpEdgeType::Dependency : CpEdgeType::OperatorKernel;
                attribute(addEdge(uint32_t(last), s, type), lastParent);
            }
            last = s;
            lastParent = parentOf(ev);
            ++depth;
        };
        auto exit = [&](SliceRef ev) {
            const uint32_t e = uint32_t(endNode(ev));
            if (last >= 0 && !sharesLock(uint32_t(last), e)) {
                const bool blocking = cpIsBlockingCall(trace.sliceName(ev));
                attribute(addEdge(uint32_t(last), e, CpEdgeType::OperatorKernel, blocking), lastParent);
            }
            last = e;
            lastParent = parentOf(ev);
            --depth;
        };
        std::vector<SliceRef> open;
        for (const SliceRef& ev : evs) {
            const TimeNs s = m_clock.start(trace, ev);
            while (!open.empty() && m_clock.end(trace, open.back()) <= s) {
                exit(open.back());
                open.pop_back();
            }
            enter(ev);
            open.push_back(ev);
        }
        while (!open.empty()) {
            exit(open.back());
            open.pop_back();
        }
    }
}

} // namespace ks
