#pragma once

#include "core/io/rawevent.h"
#include "core/model/trace.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ks {

// Places parsed events into a Trace. Chunks must be added in file order (ties in time keep file
// order); finish() sorts each track, computes nesting, binds flows to slices, applies "M" metadata
// and collects steps, memory events and counters.
class TraceBuilder {
public:
    explicit TraceBuilder(Trace& trace);
    ~TraceBuilder();
    TraceBuilder(const TraceBuilder&) = delete;
    TraceBuilder& operator=(const TraceBuilder&) = delete;

    void addChunk(ChunkResult& chunk);
    // A top-level key other than traceEvents, with its raw JSON value.
    void addTopLevel(std::string_view key, std::string_view rawValue);
    void finish(unsigned threads);

    uint64_t eventCount() const;
    const ParseCounters& counters() const;
    // Things that were tolerated; each is one line for the user.
    std::vector<std::string> warnings() const;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace ks
