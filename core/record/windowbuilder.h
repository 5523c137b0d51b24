#pragma once

#include "core/model/trace.h"
#include "core/record/deviceactivity.h"
#include "core/record/recorder.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ks::record {

struct WindowOptions {
    // Window bounds in raw Clock ticks (the unit records carry), so the window test never depends
    // on the tick→ns calibration.
    uint64_t startTicks = 0; // records before are dropped
    uint64_t stopTicks = 0;  // ranges still open are ended here
    // Top-level metadata keys after deviceProperties, in order, with JSON values (profile_memory,
    // with_stack, user add_metadata...).
    std::vector<std::pair<std::string, std::string>> metadata;
    std::string deviceProperties = "[]";
    std::string traceName;
    std::string processName; // defaults to /proc/self/comm
    // GPU work, launches and NVTX/ITT ranges reported by collectors for this window.
    std::vector<DeviceActivity> device;
};

// Turns drained records into a Trace, through the same builder the file reader uses, so recorded
// and loaded traces get identical tracks, nesting, steps, memory events and counters. Ranges become
// "user_annotation" slices (like torch's record_function), allocations "[memory]" instants with
// Kineto's args and a running Total Allocated per device, counters "C" events.
std::unique_ptr<Trace> buildTrace(const std::vector<ThreadRecords>& threads, const Recorder& recorder,
                                  const WindowOptions& options);

} // namespace ks::record
