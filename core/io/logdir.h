#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ks {

// One trace file found in a TensorBoard log directory.
struct LogdirEntry {
    std::string path;   // absolute path of the file
    std::string run;    // sub-directory relative to the log directory ("." for the top level)
    std::string worker; // the file name before the span stamp, e.g. "worker0" or "host_1234"
    std::string span;   // the stamp tensorboard_trace_handler added (time.time_ns() or ms); "" when absent
    uint64_t bytes = 0;
};

// Finds profiler traces under dir, down to maxDepth levels of sub-directories. Files named
// "<worker>.<stamp>.pt.trace.json[.gz]" or "<worker>.pt.trace.json[.gz]" are what
// torch.profiler.tensorboard_trace_handler writes; when none exist, any "*.json[.gz]" counts.
// Sorted by run, worker, then span (oldest first).
std::vector<LogdirEntry> scanLogdir(const std::string& dir, int maxDepth = 4);

// Splits a trace file name into worker and span as scanLogdir does; false for other names.
bool parseTraceFileName(const std::string& fileName, std::string& worker, std::string& span);

} // namespace ks
