#pragma once

#include "core/model/types.h"
#include "core/util/intervalset.h"

#include <string_view>
#include <vector>

namespace ks {

// How TraceLens's GPU timeline counts a piece of GPU work (TreePerf/gpu_event_analyser.py).
enum class GpuWorkClass : uint8_t { Computation, Communication, Memcpy };

// TraceLens's buckets: gpu_memcpy is memcpy; kernels and memsets are communication when
// isCommunicationKernel(name), else computation. ROCm 7.1 copy kernels (MEMORY_COPY_*,
// __amd_rocclr_copyBuffer*) count as memcpy, its fill kernels as computation.
GpuWorkClass classifyGpuWork(EventKind kind, std::string_view name);
// TraceLens's is_communication_string: the name contains "nccl", "rccl" or "cross_device_reduce".
bool isTraceLensCommunicationKernel(std::string_view name);
// TraceLens's test extended to the communication libraries it does not know (NVSHMEM, DeepEP,
// MSCCL, HCCL) and to custom collective kernels (all-reduce, all-gather, reduce-scatter, all-to-all
// in the name): a deliberate difference, documented in docs/analyze.md. Also leaves collectives out
// of the per-op kernel times and decides the step breakdown's Communication.
bool isCommunicationKernel(std::string_view name);

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
    // Fed incrementally: each read merges only what was added since (IntervalSet::normalize).
    IntervalSet m_all;
    IntervalSet m_comp;
    IntervalSet m_comm;
    IntervalSet m_memcpy;
};

} // namespace ks
