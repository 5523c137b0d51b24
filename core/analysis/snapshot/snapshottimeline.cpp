#include "core/analysis/snapshot/snapshottimeline.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

namespace ks {

bool frameShown(const MemorySnapshot& snap, uint32_t frame)
{
    // The lists of MemoryViz.js's frameFilter (substring matches on the name and the file name).
    static constexpr std::string_view kNames[] = {"unwind::unwind",    "CapturedTraceback::gather",
                                                  "gather_with_cpp",   "_start",
                                                  "__libc_start_main", "PyEval_",
                                                  "PyObject_",         "PyFunction_"};
    static constexpr std::string_view kFiles[] = {"core/boxing",
                                                  "/Register",
                                                  "/Redispatch",
                                                  "pythonrun.c",
                                                  "Modules/main.c",
                                                  "Objects/call.c",
                                                  "Objects/methodobject.c",
                                                  "pycore_ceval.h",
                                                  "ceval.c",
                                                  "cpython/abstract.h"};
    const SnapshotFrame& f = snap.frames[frame];
    const std::string_view name = snap.strings.view(f.name);
    const std::string_view file = snap.strings.view(f.filename);
    for (std::string_view n : kNames)
        if (name.find(n) != std::string_view::npos) return false;
    for (std::string_view n : kFiles)
        if (file.find(n) != std::string_view::npos) return false;
    return true;
}

uint32_t topFrame(const MemorySnapshot& snap, uint32_t stack)
{
    const auto [p, n] = snap.stackFrames(stack);
    for (size_t k = 0; k < n; ++k)
        if (frameShown(snap, p[k])) return p[k];
    return UINT32_MAX;
}

std::string frameText(const MemorySnapshot& snap, uint32_t frame)
{
    if (frame == UINT32_MAX) return "<no frames recorded>";
    const SnapshotFrame& f = snap.frames[frame];
    return std::string(snap.strings.view(f.filename)) + ":" + std::to_string(f.line) + ":" +
           std::string(snap.strings.view(f.name));
}

SnapshotTimeline SnapshotTimeline::build(const MemorySnapshot& snap, size_t device)
{
    SnapshotTimeline t;
    t.device = device;
    const DeviceTrace empty;
    const DeviceTrace& tr = device < snap.traces.size() ? snap.traces[device] : empty;
    const size_t n = tr.count();
    t.liveAfter.resize(n);
    t.reservedAfter.resize(n);
    std::unordered_map<int64_t, uint32_t> open; // addr -> allocation (memory_viz's addr_to_alloc)
    int64_t delta = 0;                          // live bytes relative to the start
    std::vector<int64_t> segDelta(n);
    for (size_t i = 0; i < n; ++i) {
        const SnapshotAction a = tr.action[i];
        const int64_t addr = tr.addr[i];
        const int64_t size = tr.size[i];
        switch (a) {
        case SnapshotAction::Alloc: {
            SnapshotAllocation al;
            al.addr = addr;
            al.size = size;
            al.stack = tr.stack[i];
            al.begin = uint32_t(i);
            open[addr] = uint32_t(t.allocations.size());
            t.allocations.push_back(al);
            delta += size;
            break;
        }
        case SnapshotAction::FreeCompleted: {
            const auto it = open.find(addr);
            if (it != open.end()) {
                SnapshotAllocation& al = t.allocations[it->second];
                al.end = uint32_t(i);
                delta -= al.size;
                open.erase(it);
            } else {
                // Allocated before the trace began: alive from the start until here.
                SnapshotAllocation al;
                al.addr = addr;
                al.size = size;
                al.stack = tr.stack[i];
                al.end = uint32_t(i);
                al.origin = SnapshotAllocation::Origin::FreedOnly;
                t.allocations.push_back(al);
                t.initialBytes += size;
                delta -= size;
                ++t.unmatchedFrees;
            }
            break;
        }
        case SnapshotAction::SegmentAlloc:
        case SnapshotAction::SegmentMap:
            segDelta[i] = size;
            break;
        case SnapshotAction::SegmentFree:
        case SnapshotAction::SegmentUnmap:
            segDelta[i] = -size;
            break;
        case SnapshotAction::Oom:
            t.ooms.push_back(uint32_t(i));
            break;
        default:
            break;
        }
        t.liveAfter[i] = delta;
    }
    // Active blocks of the snapshot that the trace never allocated were alive all along.
    const SegmentTable& s = snap.segments;
    const BlockTable& b = snap.blocks;
    for (size_t k = 0; k < s.count(); ++k) {
        if (s.device[k] != int64_t(device)) continue;
        t.finalReserved += s.totalSize[k];
        for (uint32_t j = s.firstBlock[k]; j < s.firstBlock[k] + s.blockCount[k]; ++j) {
            if (b.state[j] != BlockState::ActiveAllocated || open.count(b.address[j])) continue;
            SnapshotAllocation al;
            al.addr = b.address[j];
            al.size = b.requestedSize[j];
            al.stack = b.stack[j];
            al.origin = SnapshotAllocation::Origin::SegmentBlock;
            t.allocations.push_back(al);
            t.initialBytes += al.size;
        }
    }
    t.peakBytes = t.initialBytes;
    for (size_t i = 0; i < n; ++i) {
        t.liveAfter[i] += t.initialBytes;
        if (t.liveAfter[i] > t.peakBytes) {
            t.peakBytes = t.liveAfter[i];
            t.peakEntry = uint32_t(i);
        }
    }
    // Reserved bytes, backwards from the segments at the snapshot.
    int64_t reserved = t.finalReserved;
    for (size_t i = n; i-- > 0;) {
        t.reservedAfter[i] = reserved;
        reserved -= segDelta[i];
    }
    t.initialReserved = reserved;
    return t;
}

int64_t SnapshotTimeline::reservedAt(uint32_t entry) const
{
    return entry == kBeforeTrace ? initialReserved : reservedAfter[entry];
}

std::vector<uint32_t> SnapshotTimeline::aliveAt(uint32_t entry) const
{
    std::vector<uint32_t> out;
    for (uint32_t k = 0; k < allocations.size(); ++k) {
        const SnapshotAllocation& a = allocations[k];
        const bool alive = entry == kBeforeTrace ? a.begin == kBeforeTrace : a.aliveAfter(entry);
        if (alive) out.push_back(k);
    }
    std::stable_sort(out.begin(), out.end(),
                     [&](uint32_t x, uint32_t y) { return allocations[x].size > allocations[y].size; });
    return out;
}

namespace {

std::vector<SnapshotGroup> sorted(std::unordered_map<uint32_t, SnapshotGroup>& groups)
{
    std::vector<SnapshotGroup> out;
    out.reserve(groups.size());
    for (auto& [k, g] : groups)
        out.push_back(g);
    std::sort(out.begin(), out.end(), [](const SnapshotGroup& a, const SnapshotGroup& b) {
        return a.bytes != b.bytes ? a.bytes > b.bytes : a.frame < b.frame;
    });
    return out;
}

} // namespace

std::vector<SnapshotGroup> SnapshotTimeline::groupByTopFrame(const MemorySnapshot& snap,
                                                             const std::vector<uint32_t>& alive) const
{
    std::unordered_map<uint32_t, SnapshotGroup> groups;
    std::unordered_map<uint32_t, uint32_t> topOfStack;
    for (uint32_t k : alive) {
        const SnapshotAllocation& a = allocations[k];
        uint32_t top = UINT32_MAX;
        if (a.stack != kNoStack) {
            const auto [it, inserted] = topOfStack.try_emplace(a.stack, 0);
            if (inserted) it->second = topFrame(snap, a.stack);
            top = it->second;
        }
        SnapshotGroup& g = groups[top];
        g.frame = top;
        g.bytes += a.size;
        ++g.count;
    }
    return sorted(groups);
}

std::vector<SnapshotGroup> SnapshotTimeline::bytesPerFrame(const MemorySnapshot& snap,
                                                           const std::vector<uint32_t>& alive) const
{
    std::unordered_map<uint32_t, SnapshotGroup> groups;
    std::vector<uint32_t> seen;
    for (uint32_t k : alive) {
        const SnapshotAllocation& a = allocations[k];
        const auto [p, n] = snap.stackFrames(a.stack);
        seen.assign(p, p + n);
        std::sort(seen.begin(), seen.end());
        seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
        for (uint32_t f : seen) {
            SnapshotGroup& g = groups[f];
            g.frame = f;
            g.bytes += a.size;
            ++g.count;
        }
    }
    return sorted(groups);
}

} // namespace ks
