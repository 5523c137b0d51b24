#include "core/analysis/summary/keyaverages.h"

#include "core/analysis/summary/backwardstacks.h"
#include "core/analysis/summary/eventmapping.h"
#include "core/analysis/summary/functioneventlist.h"
#include "core/analysis/summary/lanemerge.h"
#include "core/analysis/summary/stackexport.h"
#include "core/util/parallelfor.h"

#include <algorithm>
#include <unordered_map>

namespace ks {

namespace {

// Running sums of one group while events are visited; the public row is made at the end.
struct Accumulator {
    uint32_t first = 0; // the group's first event in list order
    uint32_t nameKey = 0;
    uint32_t shape = 0;
    uint32_t stack = 0;
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

// The part of the key besides the name: device type, and (torch 2.x) the user-annotation flag.
uint32_t variantOf(uint8_t f, bool annotationKey)
{
    return ((f & FunctionEventList::kDeviceType) ? 2u : 0u) +
           (annotationKey && (f & FunctionEventList::kUserAnnotation) ? 1u : 0u);
}

// Events in no row: duplicates folded into their parent, and Python function events, which
// torch 2.x's key_averages skips (include_python_functions=False).
constexpr uint8_t kNotInRows = FunctionEventList::kRemoved | FunctionEventList::kPython;

// Sums of one set of groups, visited in list order: a group's sums are torch's only if its events
// are added in torch's order, but different groups are independent, so tasks split the groups.
class GroupTask {
public:
    GroupTask(const FunctionEventList& list, std::vector<uint32_t>* slots,
              const std::vector<uint32_t>* stacks)
        : m_list(list), m_slots(slots), m_stacks(stacks), m_hasDevice(list.deviceUs.allocated()),
          m_hasMemory(list.hasMemoryColumns()), m_hasFlops(list.flops.allocated()),
          m_annotationKey(list.torch() == TorchFlavor::Torch2)
    {}

    // What add(g) reads of one event, copied out for mergeStagedLists().
    struct Staged {
        TimeNs start;
        TimeNs end;
        double elapsed;
        double selfCpu;
        double device;
        double selfDevice;
        int64_t flops;
        uint32_t g;
        uint32_t memorySlot;
        uint32_t nameKey;
        uint8_t flags;
    };
    void stage(uint32_t g, Staged& r) const
    {
        const FunctionEventList& l = m_list;
        r.start = l.start[g];
        r.end = l.end[g];
        r.elapsed = l.elapsedUs(g);
        r.g = g;
        r.nameKey = l.nameKey[g];
        r.flags = l.flags[g];
        if (r.flags & FunctionEventList::kDeviceType) return;
        r.selfCpu = l.selfCpuUs[g];
        if (m_hasDevice) {
            r.device = l.deviceUs[g];
            r.selfDevice = l.selfDeviceUs[g];
        }
        if (m_hasMemory) r.memorySlot = l.memorySlot[g];
        if (m_hasFlops) r.flops = l.flops[g];
    }
    [[gnu::always_inline]] void add(const Staged& r)
    {
        const FunctionEventList& l = m_list;
        if (r.flags & FunctionEventList::kPython) return;
        Accumulator& a = groupOf(r.g, r.nameKey, r.flags);
        ++a.count;
        if (r.flags & FunctionEventList::kDeviceType) {
            // No CPU time; its own duration is its device total and self time.
            a.cpuTotal += 0.0;
            a.selfCpu += 0.0;
            a.deviceTotal += r.elapsed;
            a.selfDevice += r.elapsed;
            return;
        }
        a.cpuTotal += r.elapsed;
        a.selfCpu += r.selfCpu;
        if (m_hasDevice) {
            a.deviceTotal += r.device;
            a.selfDevice += r.selfDevice;
        }
        if (m_hasMemory && r.memorySlot != FunctionEventList::kNoMemory) {
            const FunctionEventList::MemoryUsage& m = l.memoryUsage[r.memorySlot];
            a.cpuMem += m.cpu;
            a.selfCpuMem += m.selfCpu;
            a.deviceMem += m.device;
            a.selfDeviceMem += m.selfDevice;
        }
        if (m_hasFlops) a.flops += r.flops;
    }

    void add(uint32_t g)
    {
        Staged r{};
        stage(g, r);
        add(r);
    }

    std::vector<Accumulator>& groups() { return m_groups; }

private:
    [[gnu::always_inline]] Accumulator& groupOf(uint32_t g, uint32_t nameKey, uint8_t flags)
    {
        const FunctionEventList& l = m_list;
        const uint32_t compact = nameKey * 4 + variantOf(flags, m_annotationKey);
        uint32_t* slot;
        const uint32_t shape = l.inputShape.allocated() ? l.inputShape[g] : 0;
        const uint32_t stack = m_stacks && g < m_stacks->size() ? (*m_stacks)[g] : 0;
        if (m_slots) {
            slot = &(*m_slots)[compact];
        } else {
            const Key key{(uint64_t(compact) << 32) | shape, stack};
            slot = &m_byKey.try_emplace(key, UINT32_MAX).first->second;
        }
        if (*slot == UINT32_MAX) {
            *slot = uint32_t(m_groups.size());
            Accumulator a;
            a.first = g;
            a.nameKey = nameKey;
            a.shape = shape;
            a.stack = stack;
            a.flags = flags;
            m_groups.push_back(a);
        }
        return m_groups[*slot];
    }

    struct Key {
        uint64_t nameShape;
        uint32_t stack;
        bool operator==(const Key&) const = default;
    };
    struct KeyHash {
        size_t operator()(const Key& k) const
        {
            return std::hash<uint64_t>()(k.nameShape ^ (uint64_t(k.stack) << 40));
        }
    };

    const FunctionEventList& m_list;
    // Group of (name, variant), shared by tasks: each slot belongs to one task's groups only.
    std::vector<uint32_t>* m_slots;
    const std::vector<uint32_t>* m_stacks;
    std::unordered_map<Key, uint32_t, KeyHash> m_byKey; // grouping by shape or stack
    std::vector<Accumulator> m_groups;
    bool m_hasDevice;
    bool m_hasMemory;
    bool m_hasFlops;
    bool m_annotationKey;
};

} // namespace

KeyAverages KeyAverages::compute(const Trace& trace, const KeyAveragesOptions& options)
{
    const EventMapping mapping(trace);
    EventListOptions listOptions;
    listOptions.groupByInputShape = options.groupByInputShape;
    listOptions.withFlops = options.withFlops;
    listOptions.threads = options.threads;
    listOptions.withSliceRows = options.groupByStackN > 0;
    listOptions.torch = options.torch;
    const std::unique_ptr<FunctionEventList> list = FunctionEventList::build(trace, mapping, listOptions);
    if (options.groupByStackN <= 0) return fromEventList(*list, mapping, options.threads);
    const Stacks stacks = stacksOf(trace, *list, options.groupByStackN);
    return fromEventList(*list, mapping, options.threads, &stacks);
}

KeyAverages::Stacks KeyAverages::stacksOf(const Trace& trace, const FunctionEventList& list, int n)
{
    Stacks out;
    out.frames.emplace_back(); // key 0: no frames
    std::unordered_map<std::string, uint32_t> ids;
    std::vector<std::string_view> frames;
    std::string joined;
    const BackwardStacks backward(trace, list);
    for (const FunctionEventList::Lane& lane : list.lanes()) {
        // Only CPU events carry stacks (device and allocator events have none in torch either).
        if (lane.kind != FunctionEventList::LaneKind::Cpu) continue;
        if (out.key.size() < lane.end) out.key.resize(lane.end, 0);
        for (uint32_t g = lane.begin; g < lane.end; ++g) {
            if (list.flags[g] & kNotInRows) continue;
            backward.stackOf(g, frames);
            if (frames.empty()) continue;
            if (frames.size() > size_t(n)) frames.resize(size_t(n));
            joined.clear();
            for (std::string_view f : frames) {
                joined += f;
                joined += '\x1f'; // never inside a frame: frames are single-line text
            }
            auto [it, fresh] = ids.try_emplace(joined, uint32_t(out.frames.size()));
            if (fresh) out.frames.emplace_back(frames.begin(), frames.end());
            out.key[g] = it->second;
        }
    }
    return out;
}

KeyAverages KeyAverages::fromEventList(const FunctionEventList& l, const EventMapping& mapping,
                                       unsigned threads, const Stacks* stacks)
{
    KeyAverages result;
    result.m_hasDevice = l.hasDeviceEvents();
    result.m_hasMemory = l.hasMemoryRecords();
    result.m_linkMode = l.kernelLinkMode();
    result.m_attributed = l.attributedDeviceEvents();

    // CPU and device events never share a group (the device type is part of the key), and the
    // allocator lane holds rows of its own names; within each kind, groups are split by a hash of
    // their key so that several tasks can merge at once.
    std::vector<uint32_t> cpuLanes, deviceLanes, memoryLanes;
    for (uint32_t i = 0; i < l.lanes().size(); ++i) {
        switch (l.lanes()[i].kind) {
        case FunctionEventList::LaneKind::Cpu:
            cpuLanes.push_back(i);
            break;
        case FunctionEventList::LaneKind::Device:
            deviceLanes.push_back(i);
            break;
        case FunctionEventList::LaneKind::Memory:
            memoryLanes.push_back(i);
            break;
        }
    }
    const bool byShape = l.inputShape.allocated();
    const bool annotationKey = l.torch() == TorchFlavor::Torch2;
    const bool byStack = stacks && stacks->frames.size() > 1;
    std::vector<uint32_t> slots;
    if (!byShape && !byStack) slots.assign(mapping.nameKeyBound() * 4, UINT32_MAX);
    // Each kind is split into one part per thread by a hash of the group key: one pass over every
    // lane files each event's number under its part (in lane order), then each part merges only
    // its own lists.
    const uint32_t parts = workerCount(threads);
    std::vector<uint32_t> partOf;
    EventColumn<uint32_t> filed; // per lane, its events' numbers part after part
    std::vector<std::vector<uint32_t>> partBegin(l.lanes().size());
    if (parts > 1) {
        partOf.resize(size_t(mapping.nameKeyBound()) * 4);
        for (size_t compact = 0; compact < partOf.size(); ++compact)
            partOf[compact] = uint32_t(((uint64_t(compact) * 0x9e3779b97f4a7c15ull) >> 40) % parts);
        filed.allocate(l.lanes().empty() ? 0 : l.lanes().back().end);
        std::vector<uint32_t> split = cpuLanes;
        split.insert(split.end(), deviceLanes.begin(), deviceLanes.end());
        parallelFor(split.size(), threads, [&](size_t i) {
            const FunctionEventList::Lane& lane = l.lanes()[split[i]];
            std::vector<uint32_t>& begin = partBegin[split[i]];
            // Removed events are counted under a last, unused part.
            std::vector<uint32_t> at(parts + 2, 0);
            auto partOfEvent = [&](uint32_t g) {
                const uint8_t f = l.flags[g];
                return (f & kNotInRows) ? parts : partOf[l.nameKey[g] * 4 + variantOf(f, annotationKey)];
            };
            for (uint32_t g = lane.begin; g < lane.end; ++g)
                ++at[partOfEvent(g) + 1];
            at[0] = lane.begin;
            for (uint32_t p = 1; p <= parts + 1; ++p)
                at[p] += at[p - 1];
            begin.assign(at.begin(), at.end() - 1); // part p: [begin[p], begin[p + 1])
            for (uint32_t g = lane.begin; g < lane.end; ++g)
                filed[at[partOfEvent(g)]++] = g;
        });
    }
    struct Job {
        const std::vector<uint32_t>* lanes;
        uint32_t part; // UINT32_MAX: every event of the lanes
    };
    std::vector<Job> jobs;
    for (uint32_t p = 0; p < parts; ++p) {
        jobs.push_back(Job{&cpuLanes, parts > 1 ? p : UINT32_MAX});
        if (!deviceLanes.empty()) jobs.push_back(Job{&deviceLanes, parts > 1 ? p : UINT32_MAX});
    }
    jobs.push_back(Job{&memoryLanes, UINT32_MAX});
    std::vector<GroupTask> tasks(
        jobs.size(), GroupTask(l, slots.empty() ? nullptr : &slots, byStack ? &stacks->key : nullptr));
    parallelFor(jobs.size(), threads, [&](size_t i) {
        const Job& job = jobs[i];
        GroupTask& task = tasks[i];
        if (job.part == UINT32_MAX) {
            mergeLanes(
                l, *job.lanes, [](uint32_t) { return true; }, [&task](uint32_t g) { task.add(g); });
            return;
        }
        std::vector<std::span<const uint32_t>> lists;
        for (uint32_t lane : *job.lanes) {
            const std::vector<uint32_t>& begin = partBegin[lane];
            lists.emplace_back(filed.data() + begin[job.part], begin[job.part + 1] - begin[job.part]);
        }
        mergeStagedLists<GroupTask::Staged>(
            l, lists, [&task](uint32_t g, GroupTask::Staged& r) { task.stage(g, r); },
            [&task](const GroupTask::Staged& r) { task.add(r); });
    });

    // Groups in order of their first events: key_averages' first-seen order.
    std::vector<Accumulator> acc;
    for (GroupTask& t : tasks)
        acc.insert(acc.end(), t.groups().begin(), t.groups().end());
    std::sort(acc.begin(), acc.end(), [&l](const Accumulator& a, const Accumulator& b) {
        const uint32_t x = a.first, y = b.first;
        if (l.start[x] != l.start[y]) return l.start[x] < l.start[y];
        if (l.end[x] != l.end[y]) return l.end[x] > l.end[y];
        return x < y;
    });
    size_t events = 0;
    result.m_rows.reserve(acc.size());
    for (const Accumulator& a : acc) {
        KeyAverage r;
        r.key = std::string(mapping.displayName(a.nameKey));
        r.deviceType = a.flags & FunctionEventList::kDeviceType;
        r.userAnnotation = a.flags & FunctionEventList::kUserAnnotation;
        r.topLevel = a.flags & FunctionEventList::kTopLevel;
        if (byShape) r.inputShapes = l.shapeText(a.shape);
        if (byStack) r.stack = stacks->frames[a.stack];
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
        events += size_t(a.count);
        result.m_rows.push_back(std::move(r));
    }
    result.m_events = events;
    return result;
}

} // namespace ks
