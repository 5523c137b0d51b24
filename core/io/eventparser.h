#pragma once

#include "io/rawevent.h"

#include <memory>
#include <string_view>

namespace ks {

class ArgShard;

// Parses chunks of the traceEvents array with simdjson On-Demand. One instance per thread; it keeps
// its simdjson parser (and that parser's buffers) across chunks.
class EventParser {
public:
    explicit EventParser(ArgShard& shard);
    ~EventParser();
    EventParser(const EventParser&) = delete;
    EventParser& operator=(const EventParser&) = delete;

    // buffer holds '[' + text + ']' followed by at least kPadding readable bytes; text is a run of
    // comma-separated event objects (possibly followed by the end of the array and more JSON).
    void parse(const char* buffer, size_t textSize, size_t capacity, ChunkResult& out);

    static size_t padding();

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace ks
