#include "core/analysis/snapshot/allocatorstate.h"

#include <algorithm>
#include <unordered_map>

namespace ks {

namespace {

using Segments = std::vector<StateSegment>;

Segments::iterator firstAfter(Segments& segs, int64_t addr)
{
    return std::upper_bound(segs.begin(), segs.end(), addr,
                            [](int64_t a, const StateSegment& s) { return a < s.addr; });
}

// Undoing a segment_free (or segment_unmap: `merge`, the expandable segment grows back and joins
// its neighbours of the same stream, as memory_viz's map_segment).
void mapSegment(Segments& segs, StateSegment seg, bool merge)
{
    auto it = segs.insert(firstAfter(segs, seg.addr), std::move(seg));
    if (!merge) return;
    if (it + 1 != segs.end() && it->addr + it->size == (it + 1)->addr && it->stream == (it + 1)->stream) {
        it->size += (it + 1)->size;
        segs.erase(it + 1);
    }
    if (it != segs.begin() && (it - 1)->addr + (it - 1)->size == it->addr && (it - 1)->stream == it->stream) {
        (it - 1)->size += it->size;
        segs.erase(it);
    }
}

// Undoing a segment_alloc (or segment_map: `merge`, the mapped range leaves the segment holding it).
void unmapSegment(Segments& segs, int64_t addr, int64_t size, bool merge)
{
    if (!merge) {
        for (auto it = segs.begin(); it != segs.end(); ++it)
            if (it->addr == addr) {
                segs.erase(it);
                return;
            }
        return;
    }
    const int64_t end = addr + size;
    auto it = std::find_if(segs.begin(), segs.end(),
                           [&](const StateSegment& s) { return s.addr <= addr && end <= s.addr + s.size; });
    if (it == segs.end()) return;
    const int64_t existingEnd = it->addr + it->size;
    if (it->addr == addr) {
        it->addr += size;
        it->size -= size;
        if (it->size == 0) segs.erase(it);
    } else if (existingEnd == end) {
        it->size -= size;
    } else {
        StateSegment rest = *it;
        it->size = addr - it->addr;
        rest.addr = end;
        rest.size = existingEnd - end;
        segs.insert(it + 1, std::move(rest));
    }
}

} // namespace

AllocatorState allocatorStateAt(const MemorySnapshot& snap, size_t device, uint32_t entry)
{
    AllocatorState state;
    Segments& segs = state.segments;
    std::unordered_map<int64_t, StateBlock> blocks;
    const SegmentTable& s = snap.segments;
    const BlockTable& b = snap.blocks;
    for (size_t k = 0; k < s.count(); ++k) {
        if (s.device[k] != int64_t(device)) continue;
        StateSegment seg;
        seg.addr = s.address[k];
        seg.size = s.totalSize[k];
        seg.stream = s.stream[k];
        seg.stack = s.stack[k];
        segs.push_back(seg);
        for (uint32_t j = s.firstBlock[k]; j < s.firstBlock[k] + s.blockCount[k]; ++j) {
            if (b.state[j] != BlockState::ActiveAllocated && b.state[j] != BlockState::ActivePendingFree)
                continue;
            blocks[b.address[j]] = StateBlock{b.address[j], b.size[j], b.requestedSize[j], b.stack[j],
                                              b.state[j] == BlockState::ActivePendingFree};
        }
    }
    std::sort(segs.begin(), segs.end(),
              [](const StateSegment& x, const StateSegment& y) { return x.addr < y.addr; });

    if (device < snap.traces.size()) {
        const DeviceTrace& tr = snap.traces[device];
        const size_t stop = entry == UINT32_MAX ? tr.count() : size_t(entry) + 1; // undo entries >= stop
        for (size_t i = tr.count(); i-- > stop;) {
            const int64_t addr = tr.addr[i], size = tr.size[i];
            switch (tr.action[i]) {
            case SnapshotAction::FreeCompleted:
                blocks[addr] = StateBlock{addr, size, size, tr.stack[i], true};
                break;
            case SnapshotAction::FreeRequested: {
                const auto it = blocks.find(addr);
                if (it != blocks.end()) it->second.freeRequested = false;
                break;
            }
            case SnapshotAction::Alloc:
                blocks.erase(addr);
                break;
            case SnapshotAction::SegmentFree:
            case SnapshotAction::SegmentUnmap: {
                StateSegment seg;
                seg.addr = addr;
                seg.size = size;
                seg.stream = tr.stream[i];
                seg.stack = tr.stack[i];
                mapSegment(segs, std::move(seg), tr.action[i] == SnapshotAction::SegmentUnmap);
                break;
            }
            case SnapshotAction::SegmentAlloc:
            case SnapshotAction::SegmentMap:
                unmapSegment(segs, addr, size, tr.action[i] == SnapshotAction::SegmentMap);
                break;
            default:
                break;
            }
        }
    }

    for (const StateSegment& seg : segs)
        state.reserved += seg.size;
    for (const auto& [addr, block] : blocks) {
        auto it = firstAfter(segs, addr);
        if (it == segs.begin() || addr >= (it - 1)->addr + (it - 1)->size) {
            ++state.strayBlocks;
            continue;
        }
        StateSegment& seg = *(it - 1);
        seg.blocks.push_back(block);
        seg.allocated += block.requested;
        state.allocated += block.requested;
    }
    for (StateSegment& seg : segs)
        std::sort(seg.blocks.begin(), seg.blocks.end(),
                  [](const StateBlock& x, const StateBlock& y) { return x.addr < y.addr; });
    return state;
}

} // namespace ks
