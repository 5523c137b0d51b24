#include "analysis/keyaverages.h"

#include "analysis/eventmapping.h"
#include "analysis/functioneventlist.h"

#include <unordered_map>

namespace ks {

namespace {

// Running sums of one group while the list is walked; the public row is made at the end.
struct Accumulator {
    uint32_t nameKey = 0;
    uint32_t shape = 0;
    uint8_t flags = 0; // of the first event
    int64_t count = 0;
    double cpuTotal = 0;
    double selfCpu = 0;
    double deviceTotal = 0;
    double selfDevice = 0;
    int64_t cpuMem = 0;
    int64_t selfCpuMem = 0;
    int64_t deviceMem = 0;
    int64_t selfDeviceMem = 0;
    int64_t flops = 0;
};

} // namespace

KeyAverages KeyAverages::compute(const Trace& trace, const KeyAveragesOptions& options)
{
    const EventMapping mapping(trace);
    EventListOptions listOptions;
    listOptions.groupByInputShape = options.groupByInputShape;
    listOptions.withFlops = options.withFlops;
    listOptions.threads = options.threads;
    const std::unique_ptr<FunctionEventList> list = FunctionEventList::build(trace, mapping, listOptions);
    const FunctionEventList& l = *list;

    KeyAverages result;
    result.m_hasDevice = l.hasDeviceEvents();
    result.m_hasMemory = l.hasMemoryRecords();
    result.m_linkMode = l.kernelLinkMode();
    result.m_attributed = l.attributedDeviceEvents();

    const bool hasDevice = l.deviceUs.allocated();
    const bool hasMemory = l.cpuMemory.allocated();
    const bool hasFlops = l.flops.allocated();
    const bool byShape = l.inputShape.allocated();

    // Group of (name, device type, user annotation): a flat table, as names are dense keys.
    auto variant = [](uint8_t f) {
        return uint32_t((f & FunctionEventList::kDeviceType) ? 2 : 0) +
               ((f & FunctionEventList::kUserAnnotation) ? 1 : 0);
    };
    std::vector<uint32_t> slot;
    std::unordered_map<uint64_t, uint32_t> shapeSlot;
    if (!byShape) slot.assign(mapping.nameKeyBound() * 4, UINT32_MAX);
    std::vector<Accumulator> acc;
    size_t events = 0;

    l.forEachInOrder([&](uint32_t g) {
        ++events;
        const uint8_t f = l.flags[g];
        const uint32_t compact = l.nameKey[g] * 4 + variant(f);
        uint32_t* target;
        if (byShape) {
            const uint64_t k = (uint64_t(compact) << 32) | l.inputShape[g];
            target = &shapeSlot.try_emplace(k, UINT32_MAX).first->second;
        } else {
            target = &slot[compact];
        }
        if (*target == UINT32_MAX) {
            *target = uint32_t(acc.size());
            Accumulator a;
            a.nameKey = l.nameKey[g];
            a.shape = byShape ? l.inputShape[g] : 0;
            a.flags = f;
            acc.push_back(a);
        }
        Accumulator& a = acc[*target];
        ++a.count;
        if (f & FunctionEventList::kDeviceType) {
            // A device event: no CPU time; its own duration is its device total and self time.
            const double d = l.elapsedUs(g);
            a.cpuTotal += 0.0;
            a.selfCpu += 0.0;
            a.deviceTotal += d;
            a.selfDevice += d;
            return;
        }
        a.cpuTotal += l.elapsedUs(g);
        a.selfCpu += l.selfCpuUs[g];
        if (hasDevice) {
            a.deviceTotal += l.deviceUs[g];
            a.selfDevice += l.selfDeviceUs[g];
        }
        if (hasMemory) {
            a.cpuMem += l.cpuMemory[g];
            a.selfCpuMem += l.selfCpuMemory[g];
            a.deviceMem += l.deviceMemory[g];
            a.selfDeviceMem += l.selfDeviceMemory[g];
        }
        if (hasFlops) a.flops += l.flops[g];
    });

    result.m_events = events;
    result.m_rows.reserve(acc.size());
    for (const Accumulator& a : acc) {
        KeyAverage r;
        r.key = std::string(mapping.displayName(a.nameKey));
        r.deviceType = a.flags & FunctionEventList::kDeviceType;
        r.userAnnotation = a.flags & FunctionEventList::kUserAnnotation;
        r.topLevel = a.flags & FunctionEventList::kTopLevel;
        if (byShape) r.inputShapes = l.shapeText(a.shape);
        r.count = a.count;
        r.cpuTimeTotal = a.cpuTotal;
        r.selfCpuTimeTotal = a.selfCpu;
        r.deviceTimeTotal = a.deviceTotal;
        r.selfDeviceTimeTotal = a.selfDevice;
        r.cpuMemoryUsage = a.cpuMem;
        r.selfCpuMemoryUsage = a.selfCpuMem;
        r.deviceMemoryUsage = a.deviceMem;
        r.selfDeviceMemoryUsage = a.selfDeviceMem;
        r.flops = a.flops;
        result.m_rows.push_back(std::move(r));
    }
    return result;
}

} // namespace ks
