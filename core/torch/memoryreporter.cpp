#include "memoryreporter.h"

#include "kinetoscope.h"

#include <c10/util/ThreadLocalDebugInfo.h>

namespace ks::torchobs {

using torch::profiler::impl::ProfilerConfig;
using torch::profiler::impl::ProfilerState;

MemoryReporter::MemoryReporter()
    : ProfilerStateBase(ProfilerConfig(ProfilerState::Disabled, /*report_input_shapes=*/false,
                                       /*profile_memory=*/true))
{}

void MemoryReporter::reportMemoryUsage(void* ptr, int64_t allocSize, MemoryTotal /*totalAllocated*/,
                                       MemoryTotal /*totalReserved*/, c10::Device device)
{
    // The running totals are kept per window by the recorder ("Total Allocated"), from the sizes.
    ks_record_memory(ptr, allocSize, int(device.type()), int(device.index()));
}

torch::profiler::impl::ActiveProfilerType MemoryReporter::profilerType()
{
    return torch::profiler::impl::ActiveProfilerType::NONE;
}

bool MemoryReporter::install()
{
    if (c10::ThreadLocalDebugInfo::get(c10::DebugInfoKind::PROFILER_STATE)) return false;
    c10::ThreadLocalDebugInfo::_push(c10::DebugInfoKind::PROFILER_STATE, std::make_shared<MemoryReporter>());
    return true;
}

void MemoryReporter::uninstall()
{
    auto* current = c10::ThreadLocalDebugInfo::get(c10::DebugInfoKind::PROFILER_STATE);
    if (current && dynamic_cast<MemoryReporter*>(current))
        c10::ThreadLocalDebugInfo::_pop(c10::DebugInfoKind::PROFILER_STATE);
}

} // namespace ks::torchobs
