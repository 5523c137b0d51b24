#pragma once

#include "core/io/rawevent.h"

#include <memory>
#include <string_view>

namespace ks {

class ArgShard;
class StringPool;

// Parses chunks of the traceEvents array with simdjson On-Demand. One instance per thread; it keeps
// its simdjson parser (and that parser's buffers) and its string pool across chunks, so strings
// that recur in every chunk are hashed into the trace only once.
//
// Every value it reads is validated: text that is not JSON makes the chunk fail with the byte where
// parsing stopped (never an exception, never a silently dropped field).
class EventParser {
public:
    // poolId tells the builder which parser's pool a chunk's string ids belong to.
    EventParser(ArgShard& shard, unsigned poolId);
    ~EventParser();
    EventParser(const EventParser&) = delete;
    EventParser& operator=(const EventParser&) = delete;

    // buffer holds '[' + text + ']' followed by at least padding() readable bytes; text is a run of
    // comma-separated event objects (possibly followed by the end of the array and more JSON). out is
    // overwritten; its vectors keep their capacity, so results can be recycled.
    void parse(const char* buffer, size_t textSize, size_t capacity, ChunkResult& out);

    // Sizes the parser's buffers for chunks of this many bytes up front, so they are not reallocated
    // (and faulted in again) as chunk sizes vary.
    void reserve(size_t chunkBytes);

    const StringPool& strings() const;
    static size_t padding();

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace ks
