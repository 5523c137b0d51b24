#pragma once

#include "model/types.h"

#include <string_view>
#include <vector>

namespace ks {

// How TraceLens's GPU timeline counts a piece of GPU work (TreePerf/gpu_event_analyser.py).
enum class GpuWorkClass : uint8_t { Computation, Communication, Memcpy };

// TraceLens's buckets: gpu_memcpy is memcpy; kernels and memsets are communication when the name
// contains "nccl" / "rccl" / "cross_device_reduce" (any case), else computation. ROCm 7.1 copy
// kernels (MEMORY_COPY_*, __amd_rocclr_copyBuffer*) count as memcpy, its fill kernels as computation.
GpuWorkClass classifyGpuWork(EventKind kind, std::string_view name);
// The NCCL/RCCL test alone (TraceLens's is_communication_string), also used to leave collectives
// out of the per-op kernel times.
bool isCommunicationKernel(std::string_view name);

// A union of half-open time intervals, kept as sorted disjoint spans. Adds are buffered and merged
// in on the next read, so feeding a live trace batch by batch costs a sort of each batch plus one
// linear merge, not a re-sort of everything seen so far.
class IntervalUnion {
public:
    struct Span {
        TimeNs start;
        TimeNs end;
    };

    void add(TimeNs start, TimeNs end) { m_pending.push_back({start, end}); }
    // The merged spans; intervals that touch (start == previous end) merge, as in TraceLens.
    const std::vector<Span>& spans();
    TimeNs length();
    bool empty() const { return m_spans.empty() && m_pending.empty(); }
    void clear();

    // Total length of `a` minus whatever of it `b` covers; both sorted and disjoint.
    static std::vector<Span> subtract(const std::vector<Span>& a, const std::vector<Span>& b);
    static TimeNs lengthOf(const std::vector<Span>& spans);

private:
    std::vector<Span> m_spans;
    std::vector<Span> m_pending;
    std::vector<Span> m_scratch;
};

// TraceLens's gpu_timeline rows, in ns. computation + exposedComm + exposedMemcpy + idle == total.
struct GpuTimelineMetrics {
    TimeNs computation = 0;   // union of computation work
    TimeNs exposedComm = 0;   // communication not overlapped by computation
    TimeNs exposedMemcpy = 0; // memcpy not overlapped by computation or communication
    TimeNs busy = 0;          // union of all GPU work
    TimeNs idle = 0;          // total - busy
    TimeNs total = 0;         // end of the last work - start of the first
    TimeNs totalComm = 0;     // union of communication work
    TimeNs totalMemcpy = 0;   // union of memcpy work
    bool valid = false;       // false when no GPU work was seen
};

// The GPU timeline breakdown of one set of GPU work (a device, or the whole trace). Incremental:
// add() work as it arrives and read metrics() whenever; each read merges only what is new.
class GpuTimeline {
public:
    void add(TimeNs start, TimeNs end, GpuWorkClass cls);
    GpuTimelineMetrics metrics();
    bool empty() const { return m_all.empty(); }

private:
    IntervalUnion m_all;
    IntervalUnion m_comp;
    IntervalUnion m_comm;
    IntervalUnion m_memcpy;
};

} // namespace ks
