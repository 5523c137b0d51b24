#pragma once

#include "core/analysis/critical/criticalgraph.h"

#include <array>
#include <string>
#include <vector>

namespace ks {

class LinkIndex;

// The longest path through a CriticalGraph, found as networkx's dag_longest_path finds it (HTA
// calls it): nodes in topological-generation order, each taking its first best predecessor, the
// path ending at the first node with the greatest length.
struct LongestPath {
    bool ok = false;
    std::string error;           // "the graph has a cycle"
    std::vector<uint32_t> nodes; // in path order
    std::vector<uint32_t> edges; // edges[i] joins nodes[i] and nodes[i + 1]
    TimeNs length = 0;           // sum of the edges' weights
};
// weights: one per edge to use instead of the graph's (a what-if), or null.
LongestPath longestPath(const CriticalGraph& graph, const std::vector<TimeNs>* weights = nullptr);

// What bounds an edge of the path (HTA's BoundType); Wait holds the 0-weight dependency edges.
enum class CpBound : uint8_t { Cpu, GpuCompute, GpuCommunication, LaunchDelay, KernelKernelDelay, Wait };
constexpr size_t kCpBoundCount = 6;
const char* cpBoundName(CpBound b); // HTA's spelling: "cpu_bound", ...

struct CpContributor {
    SliceRef event; // for one event; invalid when aggregated by name
    std::string name;
    CpBound bound = CpBound::Cpu;
    TimeNs time = 0; // path time attributed to it
    size_t count = 0;
};

struct CpWhatIf {
    std::string name; // kernel name (all kernels of that name), or one event's name
    SliceRef event;   // when one event was scaled
    double factor = 2;
    size_t kernels = 0; // kernels scaled
    TimeNs before = 0;
    TimeNs after = 0;
};

struct CriticalPathWindow {
    std::string label; // "ProfilerStep#5", "ProfilerStep#5..#7", "trace", or the annotation
    TimeNs from = 0;
    TimeNs to = 0;
};

struct CriticalPathOptions {
    bool zeroWeightLaunchEdges = false;
    bool usRounding = true; // HTA's rounding of sub-us traces (CriticalGraphOptions)
    size_t whatIfTop = 5;   // kernel names on the path to try 2x faster
    std::vector<std::pair<std::string, double>> whatIf; // extra (kernel name, factor) to try
};

struct CriticalPathResult {
    CriticalPathWindow window;
    CriticalGraph graph;
    LongestPath path;
    std::array<size_t, 5> edgeTypes{}; // edges of the graph per CpEdgeType
    std::array<TimeNs, kCpBoundCount> bound{};
    // Time the path spends in blocking sync calls (cudaStreamSynchronize, ...) whose own weight is
    // 0: the CPU waited there for the GPU work that the path goes through instead.
    TimeNs syncWait = 0;
    std::vector<SliceRef> events;         // events on the path (HTA's critical_path_events_set), path order
    std::vector<CpContributor> topEvents; // by attributed time, largest first
    std::vector<CpContributor> topNames;  // the same, summed per name and bound
    std::vector<CpWhatIf> whatIfs;
};

// Windows: each ProfilerStep#N (or one window for steps A..B), the whole trace when it has no
// steps, or HTA's annotation + instance range.
std::vector<CriticalPathWindow> criticalStepWindows(const Trace& trace);
bool criticalStepRange(const Trace& trace, int64_t a, int64_t b, CriticalPathWindow& out);
CriticalPathWindow criticalTraceWindow(const Trace& trace);
// The instances first..last (0-based, in time order) of CPU slices whose name contains `text`.
bool criticalAnnotationWindow(const Trace& trace, const std::string& text, size_t first, size_t last,
                              CriticalPathWindow& out);

CriticalPathResult analyzeCriticalPath(const Trace& trace, const LinkIndex& links,
                                       const CriticalPathWindow& window,
                                       const CriticalPathOptions& options = {});

// The path length with the kernels named `name` (or, when event is valid, that one event) made
// `factor` times faster. Fills kernels, before and after.
CpWhatIf whatIf(const Trace& trace, const CriticalPathResult& result, const std::string& name, double factor,
                SliceRef event = SliceRef());

} // namespace ks
