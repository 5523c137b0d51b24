#pragma once

#include "core/analysis/memory/memorycategory.h"
#include "core/analysis/memory/memorydevice.h"
#include "core/analysis/memory/memoryscopes.h"
#include "core/model/trace.h"
#include "core/util/largeallocator.h"
#include "core/util/saturate.h"

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace ks {

inline constexpr TimeNs kNoTime = std::numeric_limits<TimeNs>::min();
inline constexpr uint32_t kNoIndex = UINT32_MAX;

// One block of device memory between its allocation and its free, rebuilt from "[memory]" events.
struct MemoryAllocation {
    enum Flag : uint8_t {
        kPreexisting = 1,  // freed in the window, allocated before it (torch: PREEXISTING at -1)
        kPairedBySize = 2, // the trace has no "Addr": the free was matched by size (last in, first out)
        kBaseline = 4,     // synthetic: memory in use before the window that the window never frees
        kSizeMismatch = 8, // the free reported another size than the allocation
    };

    uint64_t addr = 0;
    int64_t bytes = 0;              // size at allocation (pre-existing: the size the free reported)
    int64_t freedBytes = 0;         // size the free reported; 0 while alive
    TimeNs allocTs = kNoTime;       // trace time; kNoTime when allocated before the window
    TimeNs freeTs = kNoTime;        // kNoTime while alive at the end of the window
    uint32_t allocEvent = kNoIndex; // index into Trace::memoryEvents()
    uint32_t freeEvent = kNoIndex;
    SliceRef allocOp;
    SliceRef freeOp;
    uint16_t reallocations = 0; // allocations reported again at this live address (INCREMENT_VERSION)
    MemoryCategory category = MemoryCategory::Unknown;
    MemoryRule rule = MemoryRule::NoEvidence;
    uint8_t flags = 0;

    bool preexisting() const { return flags & (kPreexisting | kBaseline); }
    bool alive() const { return freeTs == kNoTime; }
};

// One allocator event of a device, in time order, with what it did to the live set.
struct MemoryPoint {
    enum Kind : uint8_t { Alloc, Free, Realloc };

    TimeNs ts = 0;
    int64_t bytes = 0;           // the event's signed Bytes
    int64_t totalAllocated = -1; // as the event reported it, -1 when absent
    int64_t totalReserved = -1;
    uint32_t event = kNoIndex;      // index into Trace::memoryEvents()
    uint32_t allocation = kNoIndex; // index into MemoryDeviceTimeline::allocations
    Kind kind = Alloc;

    // Change of the live bytes (and of the allocation's category) that this event makes: torch's
    // INCREMENT_VERSION moves bytes between versions of one block, so a re-allocation adds nothing.
    int64_t liveDelta(const MemoryAllocation& a) const
    {
        return kind == Alloc ? a.bytes : kind == Free ? negateSaturated(a.freedBytes) : 0;
    }
};

// How our rebuilt live bytes compare with what the allocator reported.
struct MemoryBalance {
    bool hasTotals = false; // some event reported Total Allocated
    // Bytes allocated before the first event: its Total Allocated minus its own Bytes.
    int64_t baseline = 0;
    // Of those, the bytes the window never frees (the synthetic baseline allocation's size).
    int64_t untouched = 0;
    size_t checked = 0; // events that reported Total Allocated
    // Events where Total Allocated differs from baseline + our live bytes (categories' total).
    size_t liveMismatches = 0;
    int64_t liveMaxDiff = 0;
    TimeNs liveFirstMismatch = kNoTime;
    // Events where Total Allocated differs from baseline + the running sum of Bytes: the event
    // stream itself disagrees with the allocator (lost or reordered events).
    size_t sumMismatches = 0;
    int64_t sumMaxDiff = 0;
    size_t reallocations = 0;  // allocations at a live address
    size_t sizeMismatches = 0; // frees whose size differs from their allocation's
    size_t pairedBySize = 0;   // frees matched by size because the trace has no Addr
    size_t preexistingFrees = 0;
    size_t zeroByteEvents = 0; // ignored

    bool ok() const { return liveMismatches == 0 && sumMismatches == 0 && untouched >= 0; }
    // One line for logs and the CLI.
    std::string describe() const;
};

struct MemoryDeviceTimeline {
    MemoryDevice device;
    LargeVector<MemoryPoint> points;           // allocator events, time order
    LargeVector<MemoryAllocation> allocations; // by first event; the synthetic baseline (when any) last
    std::vector<uint32_t> outOfMemory;         // "[OutOfMemory]" events (indices into the trace)
    MemoryBalance balance;
    // Live bytes per category before the first event: pre-existing blocks and the baseline.
    std::array<int64_t, kMemoryCategoryCount> initial{};
    TimeNs firstTs = 0;
    TimeNs lastTs = 0;
    int64_t peakLive = 0; // maximum of the categories' total
    TimeNs peakLiveTs = 0;
    int64_t maxReportedAllocated = -1;
    int64_t maxReportedReserved = -1;
};

struct MemoryBuildOptions {
    // Add one allocation for memory in use before the window that the window never frees, so that
    // the categories add up to Total Allocated. torch's own profile sees such memory only when an op
    // reads it; the trace cannot tell, so it is shown as Unknown.
    bool includeBaseline = true;
};

// All devices' allocation timelines, with op attribution and categories.
class MemoryTimeline {
public:
    static MemoryTimeline build(const Trace& trace, const MemoryBuildOptions& options = {});

    const Trace* trace() const { return m_trace; }
    const MemoryScopes& scopes() const { return m_scopes; }
    // Devices sorted by type then index (cpu first).
    const std::vector<MemoryDeviceTimeline>& devices() const { return m_devices; }
    const MemoryDeviceTimeline* find(MemoryDevice d) const;
    bool empty() const { return m_devices.empty(); }
    // torch's default: cuda:0 when the trace has CUDA memory; otherwise the first other accelerator
    // (as torch picks "<use_device>:0"); otherwise cpu. Empty when there are no memory events.
    std::optional<MemoryDevice> defaultDevice() const;
    // "cuda:0, cpu" for messages.
    std::string deviceList() const;

private:
    const Trace* m_trace = nullptr;
    MemoryScopes m_scopes;
    std::vector<MemoryDeviceTimeline> m_devices;
};

} // namespace ks
