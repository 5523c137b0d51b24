#include "core/analysis/memory/memorytimeline.h"

#include "core/analysis/memory/memorycategorizer.h"
#include "core/analysis/memory/memorytags.h"
#include "core/util/saturate.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <unordered_map>

namespace ks {

namespace {

MemoryDevice deviceOf(const MemoryEvent& e)
{
    // CPU events report index -1 (or, from some builds, 0); torch names them all "cpu".
    return MemoryDevice{e.deviceType, e.deviceType == 0 ? int16_t(-1) : e.deviceId};
}

// Live blocks by address: open addressing with linear probing and backward-shift deletion, so the
// constant churn of allocations and frees leaves no tombstones behind. std::unordered_map spends
// most of a million-event build in node allocation.
class AddressMap {
public:
    static constexpr uint32_t kEmpty = kNoIndex;

    uint32_t find(uint64_t addr) const
    {
        if (m_slots.empty()) return kEmpty;
        for (size_t i = slot(addr);; i = (i + 1) & m_mask) {
            if (m_slots[i].value == kEmpty) return kEmpty;
            if (m_slots[i].addr == addr) return m_slots[i].value;
        }
    }

    void insert(uint64_t addr, uint32_t value)
    {
        if ((m_size + 1) * 2 > m_slots.size()) grow();
        size_t i = slot(addr);
        while (m_slots[i].value != kEmpty && m_slots[i].addr != addr)
            i = (i + 1) & m_mask;
        if (m_slots[i].value == kEmpty) ++m_size;
        m_slots[i] = {addr, value};
    }

    void erase(uint64_t addr)
    {
        if (m_slots.empty()) return;
        size_t i = slot(addr);
        while (m_slots[i].addr != addr || m_slots[i].value == kEmpty) {
            if (m_slots[i].value == kEmpty) return;
            i = (i + 1) & m_mask;
        }
        // Pull later members of the probe run back so that lookups never stop early.
        for (size_t j = (i + 1) & m_mask; m_slots[j].value != kEmpty; j = (j + 1) & m_mask) {
            const size_t home = slot(m_slots[j].addr);
            if (((j - home) & m_mask) >= ((j - i) & m_mask)) {
                m_slots[i] = m_slots[j];
                i = j;
            }
        }
        m_slots[i].value = kEmpty;
        --m_size;
    }

private:
    struct Slot {
        uint64_t addr = 0;
        uint32_t value = kEmpty;
    };

    size_t slot(uint64_t addr) const
    {
        // Allocator addresses share their low bits; mix before masking.
        uint64_t h = addr * 0x9e3779b97f4a7c15ull;
        return size_t(h >> 32) & m_mask;
    }

    void grow()
    {
        std::vector<Slot> old = std::move(m_slots);
        m_slots.assign(old.empty() ? 1024 : old.size() * 2, Slot{});
        m_mask = m_slots.size() - 1;
        m_size = 0;
        for (const Slot& s : old)
            if (s.value != kEmpty) insert(s.addr, s.value);
    }

    std::vector<Slot> m_slots;
    size_t m_mask = 0;
    size_t m_size = 0;
};

// Pairs allocations with frees the way torch's Pass A does for blocks without a tensor identity:
// by (address, device); a free of an address that is not live is pre-existing memory, and an
// allocation at a live address is a new version of that block.
class Pairing {
public:
    Pairing(MemoryDeviceTimeline& dev, const Trace& trace, const MemoryScopes& scopes)
        : m_dev(dev), m_trace(trace), m_scopes(scopes)
    {}

    void add(uint32_t index)
    {
        const MemoryEvent& e = m_trace.memoryEvents()[index];
        MemoryPoint p;
        p.ts = e.ts;
        p.bytes = e.bytes;
        p.totalAllocated = e.totalAllocated;
        p.totalReserved = e.totalReserved;
        p.event = index;
        if (e.bytes > 0)
            allocate(p, e);
        else
            release(p, e);
        m_dev.points.push_back(p);
    }

private:
    uint32_t newAllocation(const MemoryEvent& e, uint32_t index, int64_t bytes)
    {
        MemoryAllocation a;
        a.addr = e.hasAddr ? e.addr : 0;
        a.bytes = bytes;
        a.allocTs = e.ts;
        a.allocEvent = index;
        a.allocOp = m_scopes.event(index).op;
        m_dev.allocations.push_back(a);
        return uint32_t(m_dev.allocations.size() - 1);
    }

    void allocate(MemoryPoint& p, const MemoryEvent& e)
    {
        if (e.hasAddr) {
            const uint32_t live = m_live.find(e.addr);
            if (live != AddressMap::kEmpty) {
                p.kind = MemoryPoint::Realloc;
                p.allocation = live;
                ++m_dev.allocations[live].reallocations;
                ++m_dev.balance.reallocations;
                return;
            }
            p.allocation = newAllocation(e, p.event, e.bytes);
            m_live.insert(e.addr, p.allocation);
            return;
        }
        p.allocation = newAllocation(e, p.event, e.bytes);
        m_dev.allocations[p.allocation].flags |= MemoryAllocation::kPairedBySize;
        m_bySize[e.bytes].push_back(p.allocation);
    }

    void release(MemoryPoint& p, const MemoryEvent& e)
    {
        p.kind = MemoryPoint::Free;
        const int64_t size = negateSaturated(e.bytes);
        uint32_t found = kNoIndex;
        if (e.hasAddr) {
            found = m_live.find(e.addr); // kEmpty is kNoIndex
            if (found != kNoIndex) m_live.erase(e.addr);
        } else {
            const auto it = m_bySize.find(size);
            if (it != m_bySize.end() && !it->second.empty()) {
                found = it->second.back();
                it->second.pop_back();
                ++m_dev.balance.pairedBySize;
            }
        }
        if (found == kNoIndex) {
            MemoryAllocation a;
            a.addr = e.hasAddr ? e.addr : 0;
            a.bytes = size;
            a.flags = MemoryAllocation::kPreexisting;
            m_dev.allocations.push_back(a);
            found = uint32_t(m_dev.allocations.size() - 1);
            ++m_dev.balance.preexistingFrees;
        }
        MemoryAllocation& a = m_dev.allocations[found];
        a.freeTs = e.ts;
        a.freeEvent = p.event;
        a.freedBytes = size;
        a.freeOp = m_scopes.event(p.event).op;
        if (size != a.bytes) {
            a.flags |= MemoryAllocation::kSizeMismatch;
            ++m_dev.balance.sizeMismatches;
        }
        p.allocation = found;
    }

    MemoryDeviceTimeline& m_dev;
    const Trace& m_trace;
    const MemoryScopes& m_scopes;
    AddressMap m_live;
    // Traces without "Addr" (2021): live blocks per size, newest last.
    std::unordered_map<int64_t, std::vector<uint32_t>> m_bySize;
};

void checkBalance(MemoryDeviceTimeline& dev)
{
    MemoryBalance& b = dev.balance;
    int64_t preexisting = 0;
    for (const MemoryAllocation& a : dev.allocations)
        if (a.flags & MemoryAllocation::kPreexisting) preexisting = addSaturated(preexisting, a.bytes);
    int64_t sum = 0;
    for (const MemoryPoint& p : dev.points) {
        sum = addSaturated(sum, p.bytes);
        if (p.totalAllocated >= 0) {
            b.hasTotals = true;
            b.baseline = subSaturated(p.totalAllocated, sum);
            break;
        }
    }
    if (!b.hasTotals) {
        // Without the allocator's totals only the pre-existing blocks the window frees are known.
        b.baseline = preexisting;
        b.untouched = 0;
        return;
    }
    b.untouched = subSaturated(b.baseline, preexisting);
    int64_t live = addSaturated(preexisting, b.untouched);
    int64_t running = b.baseline;
    for (const MemoryPoint& p : dev.points) {
        live = addSaturated(live, p.liveDelta(dev.allocations[p.allocation]));
        running = addSaturated(running, p.bytes);
        if (p.totalAllocated < 0) continue;
        ++b.checked;
        const int64_t dl = absSaturated(subSaturated(p.totalAllocated, live));
        if (dl != 0) {
            if (b.liveMismatches == 0) b.liveFirstMismatch = p.ts;
            ++b.liveMismatches;
            b.liveMaxDiff = std::max(b.liveMaxDiff, dl);
        }
        const int64_t ds = absSaturated(subSaturated(p.totalAllocated, running));
        if (ds != 0) {
            ++b.sumMismatches;
            b.sumMaxDiff = std::max(b.sumMaxDiff, ds);
        }
    }
}

void summarize(MemoryDeviceTimeline& dev)
{
    dev.initial.fill(0);
    for (const MemoryAllocation& a : dev.allocations)
        if (a.preexisting())
            dev.initial[size_t(a.category)] = addSaturated(dev.initial[size_t(a.category)], a.bytes);
    int64_t live = 0;
    for (int64_t v : dev.initial)
        live = addSaturated(live, v);
    dev.peakLive = live;
    dev.peakLiveTs = dev.points.empty() ? 0 : dev.points.front().ts;
    for (const MemoryPoint& p : dev.points) {
        live = addSaturated(live, p.liveDelta(dev.allocations[p.allocation]));
        if (live > dev.peakLive) {
            dev.peakLive = live;
            dev.peakLiveTs = p.ts;
        }
        dev.maxReportedAllocated = std::max(dev.maxReportedAllocated, p.totalAllocated);
        dev.maxReportedReserved = std::max(dev.maxReportedReserved, p.totalReserved);
    }
    if (!dev.points.empty()) {
        dev.firstTs = dev.points.front().ts;
        dev.lastTs = dev.points.back().ts;
    }
}

} // namespace

std::string MemoryBalance::describe() const
{
    std::string s;
    if (!hasTotals) {
        s = "no Total Allocated in the trace: balance not checkable";
    } else if (ok()) {
        s = "balanced: " + std::to_string(checked) + " events match Total Allocated";
    } else {
        s = "MISMATCH: " + std::to_string(liveMismatches) + " of " + std::to_string(checked) +
            " events differ from our live bytes (max " + std::to_string(liveMaxDiff) + " B), " +
            std::to_string(sumMismatches) + " from the running sum of Bytes (max " +
            std::to_string(sumMaxDiff) + " B)";
        if (untouched < 0)
            s += ", pre-existing frees exceed the baseline by " + std::to_string(-untouched) + " B";
    }
    s += "; baseline " + std::to_string(baseline) + " B, untouched " + std::to_string(untouched) + " B";
    if (preexistingFrees) s += ", " + std::to_string(preexistingFrees) + " pre-existing frees";
    if (reallocations) s += ", " + std::to_string(reallocations) + " re-allocations at a live address";
    if (sizeMismatches) s += ", " + std::to_string(sizeMismatches) + " frees of another size";
    if (pairedBySize) s += ", " + std::to_string(pairedBySize) + " frees paired by size (no Addr)";
    if (zeroByteEvents) s += ", " + std::to_string(zeroByteEvents) + " zero-byte events ignored";
    return s;
}

MemoryTimeline MemoryTimeline::build(const Trace& trace, const MemoryBuildOptions& options)
{
    MemoryTimeline out;
    out.m_trace = &trace;
    out.m_scopes = MemoryScopes::build(trace);
    const Column<MemoryEvent>& events = trace.memoryEvents();

    const std::vector<MemoryTag> tags = readMemoryTags(trace);
    std::map<MemoryDevice, LargeVector<uint32_t>> byDevice;
    for (size_t i = 0; i < events.size(); ++i)
        byDevice[deviceOf(events[i])].push_back(uint32_t(i));

    for (auto& [device, indices] : byDevice) {
        MemoryDeviceTimeline dev;
        dev.device = device;
        dev.points.reserve(indices.size());
        dev.allocations.reserve(indices.size() / 2 + 16);
        Pairing pairing(dev, trace, out.m_scopes);
        for (uint32_t i : indices) {
            const MemoryEvent& e = events[i];
            if (e.outOfMemory)
                dev.outOfMemory.push_back(i);
            else if (e.bytes == 0)
                ++dev.balance.zeroByteEvents;
            else
                pairing.add(i);
        }
        checkBalance(dev);
        if (options.includeBaseline && dev.balance.untouched > 0) {
            MemoryAllocation a;
            a.bytes = dev.balance.untouched;
            a.flags = MemoryAllocation::kBaseline;
            dev.allocations.push_back(a);
        }
        for (MemoryAllocation& a : dev.allocations)
            categorizeAllocation(a, out.m_scopes);
        applyMemoryTags(dev, tags);
        summarize(dev);
        out.m_devices.push_back(std::move(dev));
    }
    return out;
}

const MemoryDeviceTimeline* MemoryTimeline::find(MemoryDevice d) const
{
    if (d.type == 0) d.index = -1;
    for (const MemoryDeviceTimeline& dev : m_devices)
        if (dev.device == d) return &dev;
    return nullptr;
}

std::optional<MemoryDevice> MemoryTimeline::defaultDevice() const
{
    if (m_devices.empty()) return std::nullopt;
    if (find(MemoryDevice{1, 0})) return MemoryDevice{1, 0};
    for (const MemoryDeviceTimeline& dev : m_devices)
        if (dev.device.isCuda()) return dev.device;
    for (const MemoryDeviceTimeline& dev : m_devices)
        if (!dev.device.isCpu()) return dev.device;
    return m_devices.front().device;
}

std::string MemoryTimeline::deviceList() const
{
    std::string s;
    for (const MemoryDeviceTimeline& dev : m_devices) {
        if (!s.empty()) s += ", ";
        s += dev.device.name();
    }
    return s;
}

} // namespace ks
