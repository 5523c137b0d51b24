#pragma once

#include "core/record/collector.h"

#include <memory>
#include <string>

namespace ks::collect {

// The GPU collector this build has for an activity (CUDA: CUPTI, XPU: Level Zero), shared by every
// Profiler in the process; null with the reason in why when the build has none.
std::shared_ptr<record::ActivityCollector> defaultCollector(record::Activity activity, std::string& why);

// Makes defaultCollector the factory every Profiler in the process falls back to
// (record::setBuiltinCollectorFactory). Called by whatever owns the process's recording: the C ABI,
// the injection library, the CLI, tests.
void installBuiltinCollectors();

// "CUPTI yes, NVTX yes, Level Zero yes" for diagnostics.
std::string buildSummary();

} // namespace ks::collect
