#include "core/analysis/critical/criticalgraph.h"

#include "core/analysis/critical/cpevents.h"
#include "core/analysis/timeline/linkindex.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace ks {

const char* cpEdgeTypeName(CpEdgeType t)
{
    switch (t) {
    case CpEdgeType::OperatorKernel:
        return "critical_path_operator";
    case CpEdgeType::Dependency:
        return "critical_path_dependency";
    case CpEdgeType::KernelLaunchDelay:
        return "critical_path_kernel_launch_delay";
    case CpEdgeType::KernelKernelDelay:
        return "critical_path_kernel_kernel_delay";
    case CpEdgeType::SyncDependency:
        return "critical_path_sync_dependency";
    }
    return "critical_path_dependency";
}

int64_t CriticalGraph::startNode(SliceRef ev) const
{
    const auto it = m_startOf.find(key(ev));
    return it == m_startOf.end() ? -1 : int64_t(it->second);
}

int64_t CriticalGraph::endNode(SliceRef ev) const
{
    const auto it = m_endOf.find(key(ev));
    return it == m_endOf.end() ? -1 : int64_t(it->second);
}

int64_t CriticalGraph::edgeBetween(uint32_t u, uint32_t v) const
{
    const auto it = m_edgeOf.find(uint64_t(u) << 32 | v);
    return it == m_edgeOf.end() ? -1 : int64_t(it->second);
}

uint32_t CriticalGraph::addEdge(uint32_t u, uint32_t v, CpEdgeType type, bool zeroWeight)
{
    TimeNs w = 0;
    if (type != CpEdgeType::Dependency && type != CpEdgeType::SyncDependency && !zeroWeight)
        w = m_nodes[v].ts - m_nodes[u].ts;
    if (w < 0) {
        // A child that ends after its parent (clock rounding in the trace); HTA sets these to 0.
        ++m_negative;
        w = 0;
    }
    const uint64_t k = uint64_t(u) << 32 | v;
    const auto it = m_edgeOf.find(k);
    if (it != m_edgeOf.end()) {
        // Adding an edge twice replaces it in place, as in networkx: the order stays the first one.
        CpEdge& e = m_edges[it->second];
        e.type = type;
        e.weight = w;
        return it->second;
    }
    const uint32_t idx = uint32_t(m_edges.size());
    m_edges.push_back(CpEdge{u, v, type, w, SliceRef()});
    m_out[u].push_back(idx);
    m_in[v].push_back(idx);
    m_edgeOf.emplace(k, idx);
    return idx;
}

void CriticalGraph::attribute(uint32_t edge, SliceRef srcParent)
{
    // HTA's _attribute_edge: the time of an edge belongs to the op it runs inside.
    CpEdge& e = m_edges[edge];
    if (e.type != CpEdgeType::OperatorKernel && e.type != CpEdgeType::KernelKernelDelay) return;
    const CpNode& src = m_nodes[e.from];
    const CpNode& dst = m_nodes[e.to];
    if (e.type == CpEdgeType::KernelKernelDelay || src.isStart)
        e.attributed = src.event; // start -> start or start -> end: inside src
    else if (!dst.isStart)
        e.attributed = dst.event; // end -> end: unwinding, inside dst
    else
        e.attributed = srcParent; // end -> start: between two children, inside their parent
}

void CriticalGraph::build(const Trace& trace, const LinkIndex& links, const CriticalGraphOptions& options)
{
    *this = CriticalGraph();
    m_clock.round = options.usRounding && CpClock::hasSubMicrosecondTimes(trace);
    // HTA's window is the annotation's rounded start and end.
    m_from = m_clock.up(options.from);
    m_to = m_clock.down(options.from, options.to);
    CriticalGraphOptions o = options;
    o.from = m_from;
    o.to = m_to;
    createNodes(trace, links, o);
    runtimeLockEdges(trace);
    callStackEdges(trace);
    kernelEdges(trace, links, o);
}

void CriticalGraph::createNodes(const Trace& trace, const LinkIndex& links, const CriticalGraphOptions& o)
{
    std::vector<SliceRef> events;
    for (size_t t = 0; t < trace.trackCount(); ++t) {
        const Track& track = trace.track(TrackId(uint32_t(t)));
        const SliceTrack& st = track.slices;
        if (track.kind == TrackKind::CpuThread) {
            for (size_t r = 0; r < st.size(); ++r) {
                const TimeNs s = m_clock.start(st, r);
                if (s < o.from || s > o.to || m_clock.duration(st, r) <= 0) continue;
                const EventKind k = trace.kindOf(st.category(r));
                if (k != EventKind::CpuOp && !isLaunchKind(k)) continue;
                const SliceRef ref{track.id, uint32_t(r)};
                events.push_back(ref);
                m_cpuEvents.push_back(ref);
            }
        } else if (track.kind == TrackKind::GpuStream) {
            for (size_t r = 0; r < st.size(); ++r) {
                const SliceRef ref{track.id, uint32_t(r)};
                if (cpStreamOf(trace, ref) == -1) continue;
                const SliceRef rt = links.launchOf(ref);
                if (!rt.valid()) continue;
                // HTA keeps GPU work whose launch is in the window, and every Stream Wait Event.
                const SliceTrack& rts = trace.slices(rt.track);
                const TimeNs rs = m_clock.start(rts, rt.index);
                const bool inWindow = rs >= o.from && rs <= o.to && m_clock.duration(rts, rt.index) > 0;
                if (!inWindow && trace.sliceName(ref) != "Stream Wait Event") continue;
                events.push_back(ref);
                ++m_gpuEvents;
            }
        }
    }
    // Nodes in time order; ties in the order HTA's file index would give (approximated by start,
    // then track and row), a start before its own end.
    std::vector<std::tuple<TimeNs, TimeNs, uint32_t, uint32_t>> order;
    order.reserve(events.size());
    for (const SliceRef& r : events)
        order.emplace_back(trace.slices(r.track).start(r.index), 0, r.track.value, r.index); // file order
    std::sort(order.begin(), order.end());
    struct Raw {
        TimeNs ts;
        uint32_t ordinal;
        bool isStart;
    };
    std::vector<Raw> raw;
    raw.reserve(order.size() * 2);
    std::vector<SliceRef> byOrdinal(order.size());
    for (uint32_t i = 0; i < order.size(); ++i) {
        const SliceRef ref{TrackId(std::get<2>(order[i])), std::get<3>(order[i])};
        byOrdinal[i] = ref;
        const SliceTrack& st = trace.slices(ref.track);
        raw.push_back({m_clock.start(st, ref.index), i, true});
        raw.push_back({m_clock.end(st, ref.index), i, false});
    }
    std::sort(raw.begin(), raw.end(), [](const Raw& a, const Raw& b) {
        if (a.ts != b.ts) return a.ts < b.ts;
        if (a.ordinal != b.ordinal) return a.ordinal < b.ordinal;
        return a.isStart && !b.isStart;
    });
    m_nodes.reserve(raw.size());
    m_startOf.reserve(order.size());
    m_endOf.reserve(order.size());
    m_edgeOf.reserve(raw.size() + raw.size() / 4);
    m_edges.reserve(raw.size() + raw.size() / 4);
    for (const Raw& r : raw) {
        const SliceRef ev = byOrdinal[r.ordinal];
        const uint32_t idx = uint32_t(m_nodes.size());
        m_nodes.push_back(CpNode{ev, r.ts, r.isStart});
        (r.isStart ? m_startOf : m_endOf).emplace(key(ev), idx);
    }
    m_out.resize(m_nodes.size());
    m_in.resize(m_nodes.size());
}

void CriticalGraph::runtimeLockEdges(const Trace& trace)
{
    // cudaLaunchKernel, cudaMemcpyAsync and cudaHostAlloc take the CUDA runtime's lock: calls on
    // different threads that overlap wait for each other, in the order they end.
    std::vector<uint32_t> starts;
    int64_t last = -1;
    for (uint32_t n = 0; n < m_nodes.size(); ++n) {
        const CpNode& node = m_nodes[n];
        if (!cpIsLockingRuntime(trace.sliceName(node.event))) continue;
        if (node.isStart) {
            starts.push_back(n);
        } else {
            while (!starts.empty()) {
                const uint32_t prev = starts.back();
                starts.pop_back();
                if (m_nodes[prev].event == node.event)
                    attribute(addEdge(prev, n, CpEdgeType::OperatorKernel), node.event);
                else
                    addEdge(prev, n, CpEdgeType::Dependency);
            }
            if (last >= 0 && !m_nodes[size_t(last)].isStart)
                addEdge(uint32_t(last), n, CpEdgeType::Dependency);
        }
        last = n;
    }
}

} // namespace ks
