#pragma once

#include "core/model/trace.h"

#include <string_view>

namespace ks {

// Names HTA's critical path analysis treats specially (hta/analyzers/critical_path_analysis.py,
// hta/common/trace_symbol_table.py, hta/common/types.py).

// Runtime calls that hold the CUDA runtime lock (CUDA_RUNTIME_EVENTS).
bool cpIsLockingRuntime(std::string_view name);
// Calls that block the CPU until the GPU catches up (BLOCKING_SYNC_CALLS): their own duration is
// waiting, so it is given weight 0.
bool cpIsBlockingCall(std::string_view name);
// Runtime/driver calls that enqueue GPU work (get_runtime_launch_events_mask).
bool cpIsLaunchCall(std::string_view name);
// HTA's communication kernels (CommunicateKernelGroupingPattern).
bool cpIsCommKernel(std::string_view name);

// The "stream" arg of a GPU-side event (HTA's stream column), else the stream of its track.
int64_t cpStreamOf(const Trace& trace, SliceRef ref);

} // namespace ks
