#pragma once

#include "core/model/trace.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ks {

struct SaveOptions {
    // Called from the writing thread with (events written, events in total), at most ~50 times/s.
    std::function<void(uint64_t, uint64_t)> progress;
    // Polled while writing; when it becomes true the save stops with cancelled = true and, for
    // saveTraceFile, the target file is left untouched.
    const std::atomic<bool>* cancel = nullptr;
    // zlib level for ".gz" targets (1 fastest .. 9 smallest, Python's gzip default).
    int gzipLevel = 6;
    // "Call stack" args. The model keeps each distinct stack once, but the file repeats it for
    // every op that has it, so a few stacks shared by many ops could make a file far larger than
    // the model. A stack longer than maxStackTextBytes is written cut to that length (at a frame
    // boundary where it can) with a marker saying how much was left out; once maxStackBytes of
    // stack text are written, further stacks are written as a marker only. Both are counted in
    // the result's warnings. 0: no limit.
    size_t maxStackTextBytes = size_t(1) << 20;
    uint64_t maxStackBytes = 0;
};

struct SaveStats {
    uint64_t events = 0;    // entries written to traceEvents
    uint64_t jsonBytes = 0; // bytes of JSON text
    uint64_t fileBytes = 0; // bytes on disk (compressed size for .gz)
    bool compressed = false;
    double seconds = 0;
};

struct SaveResult {
    bool ok = false;
    bool cancelled = false;
    std::string error; // one line: what went wrong
    // What could not be written as it was, one line each (e.g. stored JSON text that is not valid
    // JSON, written as a string instead).
    std::vector<std::string> warnings;
    SaveStats stats;
};

// Receives the JSON text piece by piece, in order; returns false to stop the write.
using TextSink = std::function<bool(std::string_view)>;

// Writes a trace as one Kineto-style JSON object (format spec sections 2-8): "schemaVersion",
// "deviceProperties", the other top-level keys of the source in their order and with their JSON
// text unchanged, "displayTimeUnit", "baseTimeNanoseconds", "traceEvents", "traceName" last; each
// of those keys only when the source had it.
//
// Events per process (in model order): every slice as 'X', instants ('i'), allocator events,
// counter samples ('C', one per series and sample), then all flows ('s' and 'f' with "bp": "e"),
// then the 'M' events naming and ordering processes and threads. Reading the output back yields
// the same model: same processes and tracks in the same order within each process, same slices,
// args (types included), flows and their bindings, metadata.
//
// A legacy bare-array source ("CPU functions") is written in the object form: every current
// consumer reads it, and the events are the same; only the wrapper differs.
//
// The text is produced in pieces of about 1 MiB, never as one string.
SaveResult writeTrace(const Trace& trace, const TextSink& sink, const SaveOptions& options = {});

// Writes to a file atomically (temporary file + fsync + rename; on any failure the target is left
// as it was). A name ending in ".gz" gets a single-member gzip stream.
SaveResult saveTraceFile(const Trace& trace, const std::string& path, const SaveOptions& options = {});

} // namespace ks
