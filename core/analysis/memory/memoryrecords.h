#pragma once

#include "core/model/trace.h"
#include "core/util/saturate.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace ks {

// The "[memory]" records of a trace the way torch's MemRecordsAcc sees them: sorted by time, with
// running byte totals per device class, so an event's inclusive allocation total is two lookups.
// "[OutOfMemory]" records are not part of it; torch lists them as rows of their own.
class MemoryRecords {
public:
    explicit MemoryRecords(const Trace& trace);

    bool empty() const { return m_ts.empty(); }
    size_t size() const { return m_ts.size(); }
    TimeNs ts(size_t i) const { return m_ts[i]; }
    // Index into Trace::memoryEvents().
    uint32_t traceIndex(size_t i) const { return m_index[i]; }
    // Indices of the [OutOfMemory] records, in time order.
    const std::vector<uint32_t>& outOfMemory() const { return m_oom; }

    // Records with start <= ts <= end (both ends count, as in torch), as an index range. `from` is a
    // lower bound for the answer's first index: callers visiting events in start order pass the
    // previous answer's first index, which makes the search cheap.
    std::pair<size_t, size_t> within(TimeNs start, TimeNs end, size_t from = 0) const;
    int64_t cpuBytes(size_t lo, size_t hi) const { return subSaturated(m_cpu[hi], m_cpu[lo]); }
    int64_t deviceBytes(size_t lo, size_t hi) const { return subSaturated(m_device[hi], m_device[lo]); }

    // torch counts bytes of CPU, MKLDNN and IDEEP allocations as CPU memory, and of CUDA, HIP, XPU
    // and PrivateUse1 allocations as device memory (c10::DeviceType numbers).
    static bool isCpuDevice(int deviceType) { return deviceType == 0 || deviceType == 2 || deviceType == 5; }
    static bool isAcceleratorDevice(int deviceType)
    {
        return deviceType == 1 || deviceType == 6 || deviceType == 12 || deviceType == 20;
    }

private:
    size_t firstAtOrAfter(TimeNs t, size_t from) const;
    size_t firstAfter(TimeNs t, size_t from) const;

    std::vector<TimeNs> m_ts;
    std::vector<uint32_t> m_index;
    std::vector<int64_t> m_cpu;    // size()+1 running totals
    std::vector<int64_t> m_device; // size()+1 running totals
    std::vector<uint32_t> m_oom;
};

} // namespace ks
