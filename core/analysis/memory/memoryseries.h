#pragma once

#include "core/model/counters.h"
#include "core/model/trace.h"

#include <memory>
#include <string>
#include <vector>

namespace ks {

// Allocated bytes over time on one device, derived from the allocator's [memory] events.
struct MemorySeries {
    ProcessId process;  // the host process whose allocator reported it
    int deviceType = 0; // c10::DeviceType (0 CPU, 1 CUDA)
    int deviceId = -1;
    std::string label; // "GPU 0 memory", "CPU memory"
    std::unique_ptr<CounterTrack> allocated;
};

// One series per (process, device), ordered CPU first then by device id. Uses the events' "Total
// Allocated" when present and a running sum of "Bytes" otherwise (2021 traces).
std::vector<MemorySeries> buildMemorySeries(const Trace& trace);

} // namespace ks
