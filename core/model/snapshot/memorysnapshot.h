#pragma once

// A CUDA caching-allocator memory snapshot (torch.cuda.memory._snapshot / _dump_snapshot): the
// segments and blocks at the moment it was taken and, per device, the allocator's recorded trace
// of actions before it. Columnar and interned like the trace model: frames are deduplicated by
// (filename, line, name) and stacks by their frame sequence, so the trace's columns hold ids.
// The format and where each field comes from: docs/snapshots.md.

#include "core/util/column.h"
#include "core/util/stringpool.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ks {

enum class SnapshotAction : uint8_t {
    Alloc,
    FreeRequested,
    FreeCompleted,
    SegmentAlloc,
    SegmentFree,
    SegmentMap,
    SegmentUnmap,
    Snapshot,
    Oom,
    Other, // an action this reader does not know (kept, never counted)
};
const char* actionName(SnapshotAction a);

enum class BlockState : uint8_t { ActiveAllocated, ActivePendingFree, Inactive, Other };
const char* blockStateName(BlockState s);

struct SnapshotFrame {
    StringId filename;
    StringId name;
    int64_t line = 0;
};

// Index into MemorySnapshot::stacks; kNoStack for an entry without frames.
constexpr uint32_t kNoStack = UINT32_MAX;

// One device's trace, in recorded order.
struct DeviceTrace {
    Column<SnapshotAction> action;
    Column<int64_t> addr; // device_free for an OOM (where torch puts it)
    Column<int64_t> size;
    Column<int64_t> stream;
    Column<int64_t> timeUs; // 0 when the snapshot has no time_us (torch before 2.1)
    Column<uint32_t> stack;
    Column<StringId> compileContext; // invalid when absent
    Column<StringId> userMetadata;   // invalid when absent
    size_t count() const { return action.size(); }
};

struct SegmentTable {
    Column<int64_t> device, address, totalSize, allocatedSize, activeSize, requestedSize, stream;
    Column<int64_t> poolOwner, poolId; // segment_pool_id
    Column<uint8_t> large, expandable;
    Column<uint32_t> stack;
    Column<uint32_t> firstBlock, blockCount;
    size_t count() const { return address.size(); }
};

struct BlockTable {
    Column<int64_t> address, size, requestedSize;
    Column<BlockState> state;
    Column<uint32_t> stack;
    size_t count() const { return address.size(); }
};

// external_annotations (torch >= 2.6: _record_memory_history(..., global_record_annotations)).
struct SnapshotAnnotation {
    int64_t device = 0;
    int64_t timeUs = 0;
    StringId stage;
    StringId name;
};

class MemorySnapshot {
public:
    StringPool strings;
    std::vector<SnapshotFrame> frames;
    // Stack s is frameIds[stackStart[s] .. stackStart[s + 1]), innermost frame first (as torch).
    std::vector<uint32_t> stackStart{0}; // stackCount() + 1 entries
    std::vector<uint32_t> frameIds;
    SegmentTable segments;
    BlockTable blocks;
    std::vector<DeviceTrace> traces; // device_traces[d]
    std::vector<SnapshotAnnotation> annotations;
    std::vector<std::pair<std::string, std::string>> allocatorSettings; // key, value as text

    size_t stackCount() const { return stackStart.size() - 1; }
    std::pair<const uint32_t*, size_t> stackFrames(uint32_t stack) const;
    size_t entryCount() const;
    // Bytes of the model's own storage (for the memory figure of the bench).
    size_t bytesUsed() const;
};

} // namespace ks
