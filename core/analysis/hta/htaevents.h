#pragma once

#include "core/model/trace.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace ks::hta {

// One trace event as HTA's trace data frame holds it: only complete events with a category other
// than "Trace", times in the µs of the file, and the args HTA reads ("stream", "correlation",
// "memory bandwidth (GB/s)") with HTA's defaults (-1, -1, 0.0).
struct Event {
    SliceRef slice;
    double ts = 0;  // µs, after HTA's rounding of ns-resolution traces (see EventTable)
    double dur = 0; // µs
    double end() const { return ts + dur; }
    TimeNs tsNs = 0; // ts on the trace's ns axis (ts × 1000 where the times were rounded)
    int64_t stream = -1;
    int64_t correlation = -1;
    double memoryBwGbps = 0;
    StringId name;
    StringId category;
    uint32_t thread = 0; // index into EventTable::threads
    bool gpu = false;    // HTA's GPUKernelFilter: stream >= 0 and correlation >= 0, or Event/Context Sync
    // HTA's index_correlation > 0, computed on the whole file: a correlated event of the other
    // side (CPU ↔ GPU) exists.
    bool correlated = false;
};

// A (pid, tid) pair, HTA's call-stack identity.
struct Thread {
    RowKey pid;
    RowKey tid;
};

// The rows HTA's TraceAnalysis works on for one rank, built from a loaded trace:
//  - HTA rounds traces written with ns resolution (fractional µs) to whole µs: each start up
//    (ceil), each end down (floor), so a sub-µs event can end before it starts. The values are
//    computed from the same doubles Python's json parser gives for the file's decimal text.
//  - With more than one ProfilerStep name in the trace, HTA keeps only the CPU events that start
//    before the last step starts and the GPU events whose correlation matches one of them
//    (Trace._filter_irrelevant_gpu_kernels); a GPU event counts once per matching CPU event.
// The rows are in the order of the trace's tracks, each track in start order.
class EventTable {
public:
    static EventTable build(const Trace& trace);

    const Trace& trace() const { return *m_trace; }
    const std::vector<Event>& events() const { return m_events; }
    const std::vector<Thread>& threads() const { return m_threads; }
    bool rounded() const { return m_rounded; }
    bool filteredToSteps() const { return m_filtered; }
    // HTA's Trace.get_trace_duration: the latest start minus the earliest start, µs.
    double duration() const { return m_duration; }
    // The rank in the trace's distributedInfo, else 0.
    int rank() const { return m_rank; }
    std::string_view str(StringId id) const { return m_trace->str(id); }

private:
    const Trace* m_trace = nullptr;
    std::vector<Event> m_events;
    std::vector<Thread> m_threads;
    bool m_rounded = false;
    bool m_filtered = false;
    double m_duration = 0;
    int m_rank = 0;
};

// TraceSymbolTable.get_runtime_launch_events_mask: the runtime calls that enqueue work on a stream
// (CUDA, HIP and MTIA spellings).
bool isRuntimeLaunch(std::string_view name);

// HTA's kernel types (hta/utils/utils.py get_kernel_type), by name: communication first, then
// memory, then computation; anything else is OTHER.
enum class KernelType : uint8_t { Communication, Memory, Computation, Other };
KernelType kernelType(std::string_view name);
const char* kernelTypeName(KernelType t);
// HTA's get_memory_kernel_type: "Memset", the first 11 characters of a "Memcpy ..." name
// ("Memcpy HtoD"), else "Memcpy Unknown".
std::string_view memoryKernelKind(std::string_view name);

} // namespace ks::hta
