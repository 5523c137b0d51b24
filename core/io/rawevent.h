#pragma once

#include "core/model/args.h"
#include "core/model/types.h"
#include "core/util/largeallocator.h"
#include "core/util/stringpool.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ks {

// An event as parsed from one chunk, before it is placed in the model. Strings are ids in the pool of
// the parser that read it (parsers run in parallel and must not share one); args are already encoded
// in the trace's ArgStore shard that belongs to the parsing thread.
struct RawEvent {
    static constexpr uint32_t kNoString = UINT32_MAX;

    TimeNs ts = 0;
    TimeNs dur = -1; // -1: no "dur"
    int64_t pidNum = 0;
    int64_t tidNum = 0;
    int64_t externalId = -1;
    int64_t correlation = -1;
    uint64_t flowId = 0;
    ArgsRef args;
    uint32_t name = kNoString;
    uint32_t cat = kNoString;
    uint32_t pidStr = kNoString; // set when pid is a non-numeric string
    uint32_t tidStr = kNoString;
    char ph = 0;
    char scope = 0;
    bool hasTs = false;
    bool hasId = false;
    bool bindEnclosing = false; // "bp": "e"
    bool hasPid = false;
    bool hasTid = false;
};

// Parse statistics, summed over chunks.
struct ParseCounters {
    uint64_t events = 0;
    uint64_t notObjects = 0;
    uint64_t missingPh = 0;
    uint64_t missingTs = 0;
    uint64_t duplicateKeys = 0; // keys repeated within one event (the last value counts)
    uint64_t byPhase[128] = {};

    void add(const ParseCounters& o)
    {
        events += o.events;
        notObjects += o.notObjects;
        missingPh += o.missingPh;
        missingTs += o.missingTs;
        duplicateKeys += o.duplicateKeys;
        for (int i = 0; i < 128; ++i)
            byPhase[i] += o.byPhase[i];
    }
};

// The outcome of parsing one chunk of the traceEvents array.
struct ChunkResult {
    enum class Status {
        Ok,          // every event in the chunk parsed
        ArrayClosed, // the traceEvents array ended inside the chunk; text after it is top-level JSON
        Error,       // parsing stopped at errorOffset
    };

    uint64_t index = 0;
    Status status = Status::Ok;
    LargeVector<RawEvent> events;
    // Where the events' string ids point: either a pool owned by this chunk (one-shot producers), or
    // the persistent pool of the parser that read it, shared by all its chunks. The builder maps a
    // shared pool's ids to the trace's incrementally, so a name repeated in every chunk is interned
    // into the trace once, not once per chunk.
    std::unique_ptr<StringPool> strings;
    const StringPool* sharedStrings = nullptr;
    unsigned poolId = 0;    // which parser's pool sharedStrings is
    size_t stringCount = 0; // size of sharedStrings when this chunk was done
    ParseCounters counters;
    // Offsets are relative to the chunk's text (the bytes between the artificial brackets).
    size_t goodEnd = 0;     // end of the last fully parsed event
    size_t arrayEnd = 0;    // ArrayClosed: offset just past the closing ']'
    size_t errorOffset = 0; // Error: where the parser gave up
    std::string error;
    bool tooDeep = false; // Error: nesting beyond kMaxJsonDepth, not malformed text
    // The first repeated key of an event in this chunk (offset of its opening quote), if any.
    size_t firstDuplicateOffset = SIZE_MAX;
    std::string firstDuplicateKey;

    const StringPool& pool() const { return strings ? *strings : *sharedStrings; }
    size_t poolSize() const { return strings ? strings->size() : stringCount; }
};

} // namespace ks
