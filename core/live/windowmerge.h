#pragma once

#include "core/live/frames.h"
#include "core/live/livetracks.h"
#include "core/model/trace.h"

#include <cstdint>
#include <string>

namespace ks::live {

struct WindowPlacement {
    ProcessId hostProcess;   // the target process the window's host threads belong to
    int64_t monoToTrace = 0; // add to a monotonic ns time to get the live trace's time
    int64_t liveBaseNs = 0;  // the live trace's baseTimeNanoseconds (Unix epoch ns of time 0)
    // The most bytes of (decompressed) JSON text read from the window file; a larger one is refused
    // (what the session's memory budget has left). 0: no limit.
    uint64_t maxBytes = 0;
};

struct WindowMergeResult {
    bool ok = false;
    std::string error;
    std::string alignment; // how the window was placed: "steps" (anchors), "epoch", "start"
    uint64_t slices = 0;
    uint64_t events = 0; // everything copied
    TimeNs first = 0;
    TimeNs last = 0;
};

// Reads a torch.profiler window (a Kineto or legacy Chrome trace file) and appends its slices,
// instants, flows, memory events and counters to the live trace: host threads under the target's
// process, GPU streams under their device, each on its own window rows. The window is placed on
// the session's time axis by its ProfilerStep#N slices (paired with the anchors the target sent),
// else by the file's own epoch times, else by the window's start time. Its ProfilerStep slices
// are left out: the session's own step row already shows the steps.
// readPath, when given, is what is read (an already opened and checked file, /proc/self/fd/N);
// messages still name window.path.
WindowMergeResult mergeWindow(Trace& live, LiveTracks& tracks, ArgShard& shard, const WindowFrame& window,
                              const WindowPlacement& placement, const std::string& readPath = {});

} // namespace ks::live
