#include "core/model/snapshot/memorysnapshot.h"

namespace ks {

const char* actionName(SnapshotAction a)
{
    switch (a) {
    case SnapshotAction::Alloc:
        return "alloc";
    case SnapshotAction::FreeRequested:
        return "free_requested";
    case SnapshotAction::FreeCompleted:
        return "free_completed";
    case SnapshotAction::SegmentAlloc:
        return "segment_alloc";
    case SnapshotAction::SegmentFree:
        return "segment_free";
    case SnapshotAction::SegmentMap:
        return "segment_map";
    case SnapshotAction::SegmentUnmap:
        return "segment_unmap";
    case SnapshotAction::Snapshot:
        return "snapshot";
    case SnapshotAction::Oom:
        return "oom";
    case SnapshotAction::Other:
        return "other";
    }
    return "other";
}

const char* blockStateName(BlockState s)
{
    switch (s) {
    case BlockState::ActiveAllocated:
        return "active_allocated";
    case BlockState::ActivePendingFree:
        return "active_pending_free";
    case BlockState::Inactive:
        return "inactive";
    case BlockState::Other:
        return "other";
    }
    return "other";
}

std::pair<const uint32_t*, size_t> MemorySnapshot::stackFrames(uint32_t stack) const
{
    if (stack == kNoStack || stack + 1 >= stackStart.size()) return {nullptr, 0};
    const uint32_t begin = stackStart[stack];
    const uint32_t end = stackStart[stack + 1];
    if (begin == end) return {nullptr, 0};
    return {frameIds.data() + begin, end - begin};
}

size_t MemorySnapshot::entryCount() const
{
    size_t n = 0;
    for (const DeviceTrace& t : traces)
        n += t.action.size();
    return n;
}

size_t MemorySnapshot::bytesUsed() const
{
    size_t n = strings.bytesUsed() + frames.size() * sizeof(SnapshotFrame) +
               (stackStart.size() + frameIds.size()) * sizeof(uint32_t);
    for (const DeviceTrace& t : traces)
        n += t.action.bytesUsed() + t.addr.bytesUsed() + t.size.bytesUsed() + t.stream.bytesUsed() +
             t.timeUs.bytesUsed() + t.stack.bytesUsed() + t.compileContext.bytesUsed() +
             t.userMetadata.bytesUsed();
    n += segments.count() * (9 * sizeof(int64_t) + 2 + 3 * sizeof(uint32_t));
    n += blocks.count() * (3 * sizeof(int64_t) + 1 + sizeof(uint32_t));
    return n;
}

} // namespace ks
