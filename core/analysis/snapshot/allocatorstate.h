#pragma once

// The caching allocator's segments and blocks of one device after a trace entry, as memory_viz's
// "Allocator State History" rebuilds them (MemoryViz.js, simulate_memory): start from the segments
// at the snapshot and undo the trace backwards down to the entry. Docs: docs/snapshots.md.

#include "core/model/snapshot/memorysnapshot.h"

#include <cstdint>
#include <vector>

namespace ks {

struct StateBlock {
    int64_t addr = 0;
    int64_t size = 0;      // the block (rounded up by the allocator)
    int64_t requested = 0; // what was asked for; size - requested is lost to rounding
    uint32_t stack = kNoStack;
    bool freeRequested = false; // active_pending_free: freed, waiting for its stream's uses
};

struct StateSegment {
    int64_t addr = 0;
    int64_t size = 0;
    int64_t stream = 0;
    uint32_t stack = kNoStack;
    std::vector<StateBlock> blocks; // by address
    int64_t allocated = 0;          // requested bytes of its blocks
};

struct AllocatorState {
    std::vector<StateSegment> segments; // by address
    int64_t reserved = 0;
    int64_t allocated = 0;    // requested bytes of the blocks (memory_viz's "allocated")
    uint64_t strayBlocks = 0; // blocks in no known segment (an inconsistent trace): not drawn
    int64_t fragmentation() const { return reserved - allocated; }
};

// After `entry` of the device's trace; UINT32_MAX (or past the end): the state at the snapshot.
AllocatorState allocatorStateAt(const MemorySnapshot& snap, size_t device, uint32_t entry);

} // namespace ks
