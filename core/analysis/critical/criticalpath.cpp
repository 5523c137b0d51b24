#include "core/analysis/critical/criticalpath.h"

#include "core/analysis/critical/cpevents.h"
#include "core/analysis/hta/htaevents.h"
#include "core/analysis/timeline/linkindex.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_set>

namespace ks {

const char* cpBoundName(CpBound b)
{
    switch (b) {
    case CpBound::Cpu:
        return "cpu_bound";
    case CpBound::GpuCompute:
        return "gpu_compute_bound";
    case CpBound::GpuCommunication:
        return "gpu_communication_bound";
    case CpBound::LaunchDelay:
        return "gpu_kernel_launch_overhead";
    case CpBound::KernelKernelDelay:
        return "gpu_kernel_kernel_overhead";
    case CpBound::Wait:
        return "dependency";
    }
    return "cpu_bound";
}

LongestPath longestPath(const CriticalGraph& graph, const std::vector<TimeNs>* weights)
{
    LongestPath out;
    const std::vector<CpEdge>& edges = graph.edges();
    const auto& outEdges = graph.outEdges();
    const auto& inEdges = graph.inEdges();
    const size_t n = graph.nodes().size();
    if (n == 0) {
        out.error = "no CPU ops (cpu_op), runtime calls or launched GPU work in the window";
        return out;
    }
    // Topological order by generations, as networkx.topological_sort gives it: the nodes without
    // predecessors in node order, then each generation's children in edge order.
    std::vector<uint32_t> indegree(n);
    for (size_t v = 0; v < n; ++v)
        indegree[v] = uint32_t(inEdges[v].size());
    std::vector<uint32_t> order;
    order.reserve(n);
    for (uint32_t v = 0; v < n; ++v)
        if (indegree[v] == 0) order.push_back(v);
    for (size_t i = 0; i < order.size(); ++i)
        for (uint32_t e : outEdges[order[i]])
            if (--indegree[edges[e].to] == 0) order.push_back(edges[e].to);
    if (order.size() != n) {
        out.error = "the graph has a cycle";
        return out;
    }
    // Longest distance to each node and the edge it came by; the first best predecessor wins.
    std::vector<TimeNs> dist(n, 0);
    std::vector<int64_t> via(n, -1);
    for (uint32_t v : order) {
        for (uint32_t e : inEdges[v]) {
            const TimeNs w = weights ? (*weights)[e] : edges[e].weight;
            const TimeNs d = dist[edges[e].from] + w;
            if (via[v] < 0 ? true : d > dist[v]) {
                dist[v] = d;
                via[v] = e;
            }
        }
        if (dist[v] < 0) {
            dist[v] = 0;
            via[v] = -1;
        }
    }
    uint32_t end = order.front();
    for (uint32_t v : order)
        if (dist[v] > dist[end]) end = v;
    out.length = dist[end];
    for (int64_t v = end;;) {
        out.nodes.push_back(uint32_t(v));
        if (via[size_t(v)] < 0) break;
        out.edges.push_back(uint32_t(via[size_t(v)]));
        v = edges[size_t(via[size_t(v)])].from;
    }
    std::reverse(out.nodes.begin(), out.nodes.end());
    std::reverse(out.edges.begin(), out.edges.end());
    out.ok = true;
    return out;
}

namespace {

bool onGpu(const Trace& trace, SliceRef r)
{
    return r.valid() && trace.track(r.track).kind == TrackKind::GpuStream;
}

CpBound boundOf(const Trace& trace, const CriticalGraph& g, const CpEdge& e, SliceRef& event)
{
    event = e.attributed;
    switch (e.type) {
    case CpEdgeType::KernelKernelDelay:
        return CpBound::KernelKernelDelay;
    case CpEdgeType::KernelLaunchDelay:
        event = g.nodes()[e.to].event; // the kernel that waited for its launch
        return CpBound::LaunchDelay;
    case CpEdgeType::Dependency:
    case CpEdgeType::SyncDependency:
        return CpBound::Wait;
    case CpEdgeType::OperatorKernel:
        break;
    }
    if (!onGpu(trace, event)) return CpBound::Cpu;
    return hta::kernelType(trace.sliceName(event)) == hta::KernelType::Communication
               ? CpBound::GpuCommunication
               : CpBound::GpuCompute;
}

} // namespace

std::vector<CriticalPathWindow> criticalStepWindows(const Trace& trace)
{
    std::vector<CriticalPathWindow> out;
    for (size_t i = 0; i < trace.steps().size(); ++i) {
        const Step& s = trace.steps()[i];
        out.push_back(CriticalPathWindow{"ProfilerStep#" + std::to_string(s.number), s.start, s.end});
    }
    if (out.empty()) out.push_back(criticalTraceWindow(trace));
    return out;
}

bool criticalStepRange(const Trace& trace, int64_t a, int64_t b, CriticalPathWindow& out)
{
    bool found = false;
    for (size_t i = 0; i < trace.steps().size(); ++i) {
        const Step& s = trace.steps()[i];
        if (s.number < a || s.number > b) continue;
        out.from = found ? std::min(out.from, s.start) : s.start;
        out.to = found ? std::max(out.to, s.end) : s.end;
        found = true;
    }
    out.label = "ProfilerStep#" + std::to_string(a);
    if (b != a) out.label += "..#" + std::to_string(b);
    return found;
}

CriticalPathWindow criticalTraceWindow(const Trace& trace)
{
    return CriticalPathWindow{"trace", trace.startTime(), trace.endTime()};
}

bool criticalAnnotationWindow(const Trace& trace, const std::string& text, size_t first, size_t last,
                              CriticalPathWindow& out)
{
    std::vector<std::pair<TimeNs, TimeNs>> found;
    for (size_t t = 0; t < trace.trackCount(); ++t) {
        const Track& track = trace.track(TrackId(uint32_t(t)));
        if (track.kind != TrackKind::CpuThread) continue;
        const SliceTrack& st = track.slices;
        for (size_t r = 0; r < st.size(); ++r)
            if (trace.str(st.name(r)).find(text) != std::string_view::npos)
                found.emplace_back(st.start(r), st.end(r));
    }
    std::sort(found.begin(), found.end());
    if (first > last || last >= found.size()) return false;
    out.from = found[first].first;
    out.to = found[first].second;
    for (size_t i = first; i <= last; ++i) {
        out.from = std::min(out.from, found[i].first);
        out.to = std::max(out.to, found[i].second);
    }
    out.label = text + " #" + std::to_string(first);
    if (last != first) out.label += "..#" + std::to_string(last);
    return true;
}

CpWhatIf whatIf(const Trace& trace, const CriticalPathResult& result, const std::string& name, double factor,
                SliceRef event)
{
    CpWhatIf w;
    w.name = event.valid() ? std::string(trace.sliceName(event)) : name;
    w.event = event;
    w.factor = factor;
    w.before = result.path.length;
    w.after = result.path.length;
    if (!(factor > 0)) return w;
    const CriticalGraph& g = result.graph;
    std::vector<TimeNs> weights(g.edges().size());
    for (size_t i = 0; i < weights.size(); ++i) {
        const CpEdge& e = g.edges()[i];
        weights[i] = e.weight;
        // The kernel's own span: the edge from its start to its end.
        if (e.type != CpEdgeType::OperatorKernel || !g.nodes()[e.from].isStart) continue;
        const SliceRef ev = g.nodes()[e.from].event;
        if (ev != g.nodes()[e.to].event || !onGpu(trace, ev)) continue;
        if (event.valid() ? ev != event : trace.sliceName(ev) != name) continue;
        weights[i] = TimeNs(std::llround(double(e.weight) / factor));
        ++w.kernels;
    }
    if (w.kernels == 0) return w;
    const LongestPath p = longestPath(g, &weights);
    if (p.ok) w.after = p.length;
    return w;
}

CriticalPathResult analyzeCriticalPath(const Trace& trace, const LinkIndex& links,
                                       const CriticalPathWindow& window, const CriticalPathOptions& options)
{
    CriticalPathResult r;
    r.window = window;
    CriticalGraphOptions go;
    go.from = window.from;
    go.to = window.to;
    go.zeroWeightLaunchEdges = options.zeroWeightLaunchEdges;
    go.usRounding = options.usRounding;
    r.graph.build(trace, links, go);
    for (const CpEdge& e : r.graph.edges())
        ++r.edgeTypes[size_t(e.type)];
    r.path = longestPath(r.graph);
    if (!r.path.ok) return r;

    const CriticalGraph& g = r.graph;
    std::unordered_set<uint64_t> seen;
    for (uint32_t n : r.path.nodes) {
        const SliceRef ev = g.nodes()[n].event;
        if (seen.insert(uint64_t(ev.track.value) << 32 | ev.index).second) r.events.push_back(ev);
        // A blocking call whose end is on the path: its 0-weight span is time the CPU waited.
        if (!g.nodes()[n].isStart && cpIsBlockingCall(trace.sliceName(ev)) &&
            !cpIsLockingRuntime(trace.sliceName(ev)))
            r.syncWait += trace.slices(ev.track).duration(ev.index);
    }

    std::map<std::pair<uint64_t, CpBound>, CpContributor> byEvent;
    std::map<std::pair<std::string, CpBound>, CpContributor> byName;
    for (uint32_t ei : r.path.edges) {
        const CpEdge& e = g.edges()[ei];
        SliceRef ev;
        const CpBound b = boundOf(trace, g, e, ev);
        r.bound[size_t(b)] += e.weight;
        if (b == CpBound::Wait || e.weight == 0) continue;
        const std::string name =
            ev.valid() ? std::string(trace.sliceName(ev)) : std::string("(no enclosing op)");
        const uint64_t k = ev.valid() ? uint64_t(ev.track.value) << 32 | ev.index : ~uint64_t(0);
        CpContributor& c = byEvent[{k, b}];
        if (c.count == 0) {
            c.event = ev;
            c.name = name;
            c.bound = b;
        }
        c.time += e.weight;
        c.count = 1;
        CpContributor& cn = byName[{name, b}];
        if (cn.name.empty()) {
            cn.name = name;
            cn.bound = b;
        }
        cn.time += e.weight;
    }
    for (auto& [k, c] : byEvent) {
        (void)k;
        r.topEvents.push_back(c);
        ++byName[{c.name, c.bound}].count;
    }
    for (auto& [k, c] : byName) {
        (void)k;
        r.topNames.push_back(c);
    }
    auto byTime = [](const CpContributor& a, const CpContributor& b) {
        return a.time != b.time ? a.time > b.time : a.name < b.name;
    };
    std::sort(r.topEvents.begin(), r.topEvents.end(), byTime);
    std::sort(r.topNames.begin(), r.topNames.end(), byTime);

    // What-ifs: the kernels that carry the most path time, each made 2x faster.
    size_t tried = 0;
    for (const CpContributor& c : r.topNames) {
        if (tried >= options.whatIfTop) break;
        if (c.bound != CpBound::GpuCompute && c.bound != CpBound::GpuCommunication) continue;
        r.whatIfs.push_back(whatIf(trace, r, c.name, 2.0));
        ++tried;
    }
    for (const auto& [name, factor] : options.whatIf)
        r.whatIfs.push_back(whatIf(trace, r, name, factor));
    return r;
}

} // namespace ks
