#pragma once

#include "core/analysis/critical/cpevents.h"
#include "core/model/trace.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ks {

class LinkIndex;

// Edge kinds of HTA's critical path graph (hta/analyzers/critical_path_analysis.py, CPEdgeType);
// name() gives HTA's spelling ("critical_path_operator", ...), which the overlay writes.
enum class CpEdgeType : uint8_t {
    OperatorKernel,    // inside one CPU op or GPU kernel (start -> end, or between nested ops)
    Dependency,        // consecutive top-level ops on a thread, runtime calls sharing the CUDA lock
    KernelLaunchDelay, // runtime launch start -> kernel start
    KernelKernelDelay, // previous kernel end -> kernel start on the same stream
    SyncDependency,    // kernel end -> end of the runtime call that waited for it, or kernel -> kernel
};
const char* cpEdgeTypeName(CpEdgeType t);

// A point in time: the start or the end of one event.
struct CpNode {
    SliceRef event;
    TimeNs ts = 0;
    bool isStart = false;
};

struct CpEdge {
    uint32_t from = 0;
    uint32_t to = 0;
    CpEdgeType type = CpEdgeType::Dependency;
    TimeNs weight = 0;
    // The event this edge's time belongs to (HTA's edge attribution); only OperatorKernel and
    // KernelKernelDelay edges have one. Invalid otherwise, or when it is the root (no parent).
    SliceRef attributed;
};

struct CriticalGraphOptions {
    TimeNs from = 0; // events are taken from [from, to] the way HTA clips a trace
    TimeNs to = 0;
    // HTA's CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE: a 0-weight runtime -> kernel edge for every
    // kernel that got no launch-delay edge (keeps causality when weights are changed).
    bool zeroWeightLaunchEdges = false;
    // HTA's rounding of sub-microsecond traces to whole microseconds (its default; CpClock).
    bool usRounding = true;
};

// HTA's critical path graph of one rank, restricted to a time window: a start and an end node for
// every CPU op and runtime/driver call that starts in the window (and lasts > 0) and for every
// piece of GPU work whose launch does; edges as HTA builds them (call stacks on each thread, the
// CUDA runtime lock, kernel launches, kernels on each stream, CUDA synchronisation). docs/critical-path.md
// lists where it differs from HTA.
class CriticalGraph {
public:
    void build(const Trace& trace, const LinkIndex& links, const CriticalGraphOptions& options);

    const std::vector<CpNode>& nodes() const { return m_nodes; }
    const std::vector<CpEdge>& edges() const { return m_edges; }
    // Edge indices out of / into each node, in the order they were added.
    const std::vector<std::vector<uint32_t>>& outEdges() const { return m_out; }
    const std::vector<std::vector<uint32_t>>& inEdges() const { return m_in; }

    // The start and end node of an event, or -1.
    int64_t startNode(SliceRef ev) const;
    int64_t endNode(SliceRef ev) const;
    // The edge from u to v, or -1.
    int64_t edgeBetween(uint32_t u, uint32_t v) const;

    size_t eventCount() const { return m_startOf.size(); }
    // Edges whose weight came out negative (a child ending after its parent) and were set to 0,
    // as HTA does.
    size_t negativeWeights() const { return m_negative; }
    bool hasGpu() const { return m_gpuEvents > 0; }
    bool hasSyncEvents() const { return m_syncEvents > 0; }
    // The times the graph was built with (rounded to us as HTA does, or not).
    const CpClock& clock() const { return m_clock; }

private:
    struct PairHash {
        size_t operator()(uint64_t k) const noexcept
        {
            return std::hash<uint64_t>()(k * 0x9E3779B97F4A7C15ull);
        }
    };
    static uint64_t key(SliceRef r) { return uint64_t(r.track.value) << 32 | r.index; }

    uint32_t addEdge(uint32_t u, uint32_t v, CpEdgeType type, bool zeroWeight = false);
    void attribute(uint32_t edge, SliceRef srcParent);
    void createNodes(const Trace& trace, const LinkIndex& links, const CriticalGraphOptions& o);
    void runtimeLockEdges(const Trace& trace);
    void callStackEdges(const Trace& trace);
    void kernelEdges(const Trace& trace, const LinkIndex& links, const CriticalGraphOptions& o);

    std::vector<CpNode> m_nodes;
    std::vector<CpEdge> m_edges;
    std::vector<std::vector<uint32_t>> m_out, m_in;
    std::unordered_map<uint64_t, uint32_t, PairHash> m_startOf, m_endOf, m_edgeOf;
    std::vector<SliceRef> m_cpuEvents; // node events on CPU threads
    TimeNs m_from = 0, m_to = 0;
    CpClock m_clock;
    size_t m_negative = 0;
    size_t m_gpuEvents = 0;
    size_t m_syncEvents = 0;
};

} // namespace ks
