#pragma once

#include "core/model/counters.h"
#include "core/model/trace.h"

#include <memory>
#include <string>
#include <vector>

namespace ks::hta {

// HTA's queue length per stream and memory-copy bandwidth per kind as counter tracks for the
// timeline (what HTA's generate_trace_with_counters adds to a trace), placed with the GPU process
// whose work they count. Kept beside the trace, not in it, so exports write the file as it was.
struct CounterSeries {
    ProcessId process;
    std::string label; // "Queue length · stream 7", "Memcpy HtoD bandwidth (GB/s)"
    std::unique_ptr<CounterTrack> track;
};

std::vector<CounterSeries> buildCounterSeries(const Trace& trace);

} // namespace ks::hta
