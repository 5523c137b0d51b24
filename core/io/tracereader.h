#pragma once

#include "core/model/executiontrace.h"
#include "core/model/trace.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ks {

struct LoadOptions {
    // Parser threads; 0 means one per hardware thread.
    unsigned threads = 0;
    // Bytes of JSON text per parallel chunk; 0 picks a size from the input.
    size_t chunkBytes = 0;
    // Called from the loading thread with (input bytes consumed, input size), at most ~50 times/s.
    std::function<void(uint64_t, uint64_t)> progress;
    // Polled while loading; when it becomes true the load stops with cancelled = true.
    const std::atomic<bool>* cancel = nullptr;
};

struct LoadStats {
    uint64_t inputBytes = 0; // bytes of the file (compressed size for .gz)
    uint64_t jsonBytes = 0;  // bytes of JSON text parsed
    uint64_t events = 0;     // entries of traceEvents
    uint64_t byPhase[128] = {};
    bool compressed = false;
    double seconds = 0;
    double parseSeconds = 0;  // until the last chunk was routed
    double finishSeconds = 0; // sorting, nesting, flows
};

struct LoadResult {
    std::unique_ptr<Trace> trace; // null on error
    // Set when the file was a PyTorch execution trace (io/etreader.h): its op graph.
    std::shared_ptr<ExecutionTrace> executionTrace;
    std::string error; // one line: what went wrong and where
    std::vector<std::string> warnings;
    bool truncated = false;
    bool cancelled = false;
    LoadStats stats;

    bool ok() const { return trace != nullptr; }
};

// Reads a Kineto / Chrome trace (plain JSON or gzip), an nvprof database (nvprofreader.h) or a
// PyTorch execution trace (etreader.h) into a Trace, told apart by their first bytes.
// Bad input never throws: it yields an error, or a best-effort trace with warnings.
LoadResult loadTraceFile(const std::string& path, const LoadOptions& options = {});
LoadResult loadTraceData(std::string_view data, const LoadOptions& options = {});

} // namespace ks
