#pragma once

#include "core/analysis/summary/keyaverages.h"

#include <string>
#include <string_view>
#include <vector>

namespace ks {

// The FunctionEventAvg attributes a summary can be sorted by (table(sort_by=...)).
enum class SortKey {
    None, // keep key_averages order
    CpuTime,
    CpuTimeTotal,
    SelfCpuTimeTotal,
    DeviceTime,
    DeviceTimeTotal,
    SelfDeviceTimeTotal,
    CpuMemoryUsage,
    SelfCpuMemoryUsage,
    DeviceMemoryUsage,
    SelfDeviceMemoryUsage,
    Count,
    Flops,
};

// Accepts torch's attribute names; "cuda", "xpu" and "privateuse1" in a name read as "device", as
// newer torch rewrites them (self_cuda_time_total -> self_device_time_total).
bool parseSortKey(std::string_view name, SortKey& out);
// The accepted names, in their device spelling.
std::vector<std::string> sortKeyNames();

// Python's sorted(rows, key=..., reverse=True): descending, ties keep their order.
void sortKeyAverages(std::vector<KeyAverage>& rows, SortKey key);

} // namespace ks
