#pragma once

#include "core/model/args.h"
#include "core/model/types.h"

#include <cstdint>

namespace ks {

// An instant event ('i'/'I') other than allocator events.
struct InstantEvent {
    TimeNs ts = 0;
    StringId name;
    StringId category;
    ArgsRef args;
    char scope = 't'; // 't' thread, 'p' process, 'g' global
};

// One allocator event ("[memory]" or "[OutOfMemory]").
struct MemoryEvent {
    TimeNs ts = 0;
    TrackId track; // the CPU thread it was recorded on
    StringId name;
    StringId category;      // "cpu_instant_event", or invalid when the event had no "cat" (2021 traces)
    int16_t deviceType = 0; // c10::DeviceType: 0 CPU, 1 CUDA, ...
    int16_t deviceId = -1;
    bool hasAddr = false;
    bool outOfMemory = false;
    uint64_t addr = 0;
    int64_t bytes = 0;           // negative for frees
    int64_t totalAllocated = -1; // -1 when the event did not say
    int64_t totalReserved = -1;
    ArgsRef args;
};

// A flow arrow between two slices ('s' -> 'f'). Either end may be missing in real traces.
struct Flow {
    uint64_t id = 0;
    StringId category;
    StringId name;
    TrackId fromTrack;
    TrackId toTrack;
    uint32_t fromRow = UINT32_MAX; // slice row the start binds to, if any
    uint32_t toRow = UINT32_MAX;
    TimeNs fromTs = 0;
    TimeNs toTs = 0;
    bool hasFrom = false;
    bool hasTo = false;
    // Args written on both ends ('s' and 'f'); the reader keeps none, analyses that add flows
    // (the critical path overlay) may.
    ArgsRef args;

    SliceRef from() const { return SliceRef{fromTrack, fromRow}; }
    SliceRef to() const { return SliceRef{toTrack, toRow}; }
};

// Identifiers that join CPU ops, runtime calls and GPU work ("External id" and "correlation"), kept
// for every slice that carries either so analyses need not decode args.
struct SliceLinkIds {
    SliceRef slice;
    int64_t externalId = -1;
    int64_t correlation = -1;
};

// A ProfilerStep#N range.
struct Step {
    int64_t number = 0;
    TimeNs start = 0;
    TimeNs end = 0;
    SliceRef slice;
};

} // namespace ks
