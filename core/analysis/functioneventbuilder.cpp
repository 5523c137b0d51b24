#include "analysis/functioneventbuilder.h"

#include "analysis/eventtree.h"
#include "analysis/flopcounter.h"
#include "analysis/pyrepr.h"
#include "analysis/tracklinkcursor.h"
#include "util/parallelfor.h"

#include <algorithm>
#include <unordered_map>

namespace ks {

namespace {

constexpr uint32_t kNoShape = UINT32_MAX;

struct StackEntry {
    uint32_t g;
    TimeNs end;
    int64_t externalId; // ops only, else -1
    bool ownsKernels;
};

std::string_view jsonArg(const ArgStore& args, ArgsRef ref, std::string_view key)
{
    ArgValue v;
    if (!ref.valid() || !args.find(ref, key, v) || v.type != ArgType::Json) return {};
    return v.text;
}

} // namespace

std::unique_ptr<FunctionEventList> FunctionEventList::build(const Trace& trace, const EventMapping& mapping,
                                                            const EventListOptions& options)
{
    return FunctionEventBuilder(trace, mapping, options).build();
}

FunctionEventBuilder::FunctionEventBuilder(const Trace& trace, const EventMapping& mapping,
                                           const EventListOptions& options)
    : m_trace(trace), m_map(mapping), m_options(options), m_list(std::make_unique<FunctionEventList>()),
      m_memory(trace)
{}

FunctionEventBuilder::~FunctionEventBuilder() = default;

std::unique_ptr<FunctionEventList> FunctionEventBuilder::build()
{
    planLanes();
    allocateColumns();
    if (m_options.withFlops) {
        m_flopOp.assign(m_map.nameKeyBound(), uint8_t(FlopOp::None));
        for (std::string_view n : {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::conv2d",
                                   "aten::mul", "aten::add"}) {
            const StringId id = m_trace.strings().find(n);
            if (id.valid() && id.value < m_map.nameKeyBound() && m_map.nameKey(id) != EventMapping::kFiltered)
                m_flopOp[m_map.nameKey(id)] = uint8_t(FlopCounter::opOf(n));
        }
    }
    forLanes(FunctionEventList::LaneKind::Cpu, &FunctionEventBuilder::fillCpuLane);
    forLanes(FunctionEventList::LaneKind::Device, &FunctionEventBuilder::fillDeviceLane);
    computeBase();

    if (m_list->m_deviceEvents > 0) {
        KernelLinker linker(m_trace, *m_list, m_options.threads);
        std::vector<LaneLinkStats> stats;
        for (const LaneScratch& s : m_scratch)
            stats.push_back(s.links);
        linker.run(stats);
        m_list->m_linkMode = linker.byCorrelation() ? 'c' : 'e';
        m_list->m_attributed = linker.attributed();
    }

    std::vector<size_t> cpuLanes;
    for (size_t i = 0; i < m_list->m_lanes.size(); ++i)
        if (m_list->m_lanes[i].kind == FunctionEventList::LaneKind::Cpu) cpuLanes.push_back(i);
    parallelFor(cpuLanes.size(), m_options.threads, [&](size_t i) {
        // Scratch arrays per task cost little next to a lane's work and keep tasks independent.
        EventTree tree(*m_list);
        tree.finishLane(m_list->m_lanes[cpuLanes[i]]);
    });

    addMemoryLane();
    if (m_options.groupByInputShape) internShapes();
    return std::move(m_list);
}

void FunctionEventBuilder::planLanes()
{
    FunctionEventList& l = *m_list;
    size_t offset = 0;
    for (size_t t = 0; t < m_trace.trackCount(); ++t) {
        const Track& track = m_trace.track(TrackId(uint32_t(t)));
        if (track.slices.empty()) continue;
        FunctionEventList::LaneKind kind;
        if (track.kind == TrackKind::CpuThread)
            kind = FunctionEventList::LaneKind::Cpu;
        else if (track.kind == TrackKind::GpuStream || track.kind == TrackKind::GpuAnnotation)
            kind = FunctionEventList::LaneKind::Device;
        else
            continue;
        if (kind == FunctionEventList::LaneKind::Device) m_hasDeviceLanes = true;
        // Lanes get the track's whole row count as room; rows that are not events leave a gap
        // that is never touched (the columns are not zeroed, so the gap costs no memory).
        l.m_lanes.push_back(FunctionEventList::Lane{kind, track.id, uint32_t(offset), uint32_t(offset)});
        offset += track.slices.size();
    }
    l.m_lanes.push_back(FunctionEventList::Lane{FunctionEventList::LaneKind::Memory, TrackId(),
                                                uint32_t(offset), uint32_t(offset)});
    offset += m_trace.memoryEvents().size();
    m_capacity = offset;
    m_scratch.resize(l.m_lanes.size());
}

void FunctionEventBuilder::allocateColumns()
{
    FunctionEventList& l = *m_list;
    const size_t n = m_capacity;
    l.start.allocate(n);
    l.end.allocate(n);
    l.row.allocate(n);
    l.nameKey.allocate(n);
    l.flags.allocate(n);
    l.link.allocate(n);
    l.selfCpuUs.allocate(n);
    if (m_hasDeviceLanes) {
        l.deviceUs.allocate(n);
        l.selfDeviceUs.allocate(n);
    }
    if (!m_trace.memoryEvents().empty()) {
        l.cpuMemory.allocate(n);
        l.deviceMemory.allocate(n);
        l.selfCpuMemory.allocate(n);
        l.selfDeviceMemory.allocate(n);
    }
    if (m_options.withFlops) l.flops.allocate(n);
    if (m_options.groupByInputShape) l.inputShape.allocate(n);
}

void FunctionEventBuilder::forLanes(FunctionEventList::LaneKind kind,
                                    void (FunctionEventBuilder::*fn)(size_t))
{
    std::vector<size_t> lanes;
    for (size_t i = 0; i < m_list->m_lanes.size(); ++i)
        if (m_list->m_lanes[i].kind == kind) lanes.push_back(i);
    // Largest first, so one big thread does not end up last.
    std::sort(lanes.begin(), lanes.end(), [this](size_t a, size_t b) {
        return m_trace.track(m_list->m_lanes[a].track).slices.size() >
               m_trace.track(m_list->m_lanes[b].track).slices.size();
    });
    parallelFor(lanes.size(), m_options.threads, [&](size_t i) { (this->*fn)(lanes[i]); });
}

void FunctionEventBuilder::fillCpuLane(size_t laneIndex)
{
    FunctionEventList& l = *m_list;
    FunctionEventList::Lane& lane = l.m_lanes[laneIndex];
    LaneScratch& scratch = m_scratch[laneIndex];
    const Track& track = m_trace.track(lane.track);
    const SliceTrack& st = track.slices;
    const ArgStore& args = m_trace.args();
    const bool hasDevice = l.deviceUs.allocated();
    const bool hasMemory = l.cpuMemory.allocated();
    const bool withFlops = l.flops.allocated();
    const bool withShapes = l.inputShape.allocated();

    TrackLinkCursor links(m_trace, lane.track);
    std::vector<StackEntry> stack;
    FlopCounter flopCounter;
    std::unordered_map<std::string_view, uint32_t> shapeIds;
    size_t memoryFrom = 0;
    uint32_t g = lane.begin;
    const size_t rows = st.size();
    for (size_t r = 0; r < rows; ++r) {
        const EventRole role = m_map.role(m_trace.kindOf(st.category(r)), track.kind);
        if (!isCpuRole(role)) continue;
        const uint32_t key = m_map.nameKey(st.name(r));
        if (key == EventMapping::kFiltered) continue;
        const TimeNs s = st.start(r);
        const TimeNs e = st.end(r);
        l.start[g] = s;
        l.end[g] = e;
        l.row[g] = uint32_t(r);
        l.nameKey[g] = key;
        const bool owns = role != EventRole::CpuRuntime;
        l.flags[g] = owns ? (FunctionEventList::kOwnsKernels |
                             (role == EventRole::CpuAnnotation ? FunctionEventList::kUserAnnotation : 0))
                          : FunctionEventList::kRuntime;

        // torch's stack rule: drop open events this one starts after or outlasts.
        while (!stack.empty() && (s >= stack.back().end || e > stack.back().end))
            stack.pop_back();
        const uint32_t parent = stack.empty() ? FunctionEventList::kNone : stack.back().g;
        l.link[g] = parent;

        int64_t ext, corr;
        links.find(uint32_t(r), ext, corr);
        if (owns) {
            if (ext > 0) scratch.links.addOpId(ext);
        } else {
            const int64_t callKey = corr > 0 ? corr : ext;
            if (callKey > 0) scratch.links.addCallId(callKey);
            if (ext > 0) {
                for (size_t k = stack.size(); k-- > 0;) {
                    if (!stack[k].ownsKernels) continue;
                    if (stack[k].externalId > 0) {
                        ++scratch.links.callsChecked;
                        scratch.links.callsAgreeing += stack[k].externalId == ext;
                    }
                    break;
                }
            }
        }
        stack.push_back(StackEntry{g, e, owns ? ext : -1, owns});

        if (hasDevice) l.deviceUs[g] = 0.0;
        if (hasMemory) {
            int64_t cpu = 0, dev = 0;
            if (!m_memory.empty()) {
                const auto [lo, hi] = m_memory.within(s, e, memoryFrom);
                memoryFrom = lo;
                cpu = m_memory.cpuBytes(lo, hi);
                dev = m_memory.deviceBytes(lo, hi);
                if (parent == FunctionEventList::kNone && hi > lo)
                    scratch.coveredMemory.emplace_back(uint32_t(lo), uint32_t(hi));
            }
            l.cpuMemory[g] = cpu;
            l.deviceMemory[g] = dev;
        }
        if (withFlops) {
            uint64_t f = 0;
            if (role == EventRole::CpuOp && m_flopOp[key] != uint8_t(FlopOp::None)) {
                const FlopOp op = FlopOp(m_flopOp[key]);
                const ArgsRef a = st.args(r);
                const std::string_view dims = jsonArg(args, a, "Input Dims");
                if (!dims.empty())
                    f = flopCounter.count(op, dims,
                                          op == FlopOp::Conv2d ? jsonArg(args, a, "Concrete Inputs") : "");
            }
            l.flops[g] = int64_t(f);
        }
        if (withShapes) {
            const ArgsRef a = st.args(r);
            std::string_view dims = jsonArg(args, a, "Input Dims");
            if (dims.empty()) dims = jsonArg(args, a, "Input dims");
            uint32_t id = kNoShape;
            if (!dims.empty()) {
                auto [it, inserted] = shapeIds.emplace(dims, uint32_t(scratch.shapeJson.size()));
                if (inserted) scratch.shapeJson.push_back(dims);
                id = it->second;
            }
            l.inputShape[g] = id;
        }
        ++g;
    }
    lane.end = g;
    if (lane.end > lane.begin) scratch.first = l.start[lane.begin];
}

void FunctionEventBuilder::fillDeviceLane(size_t laneIndex)
{
    FunctionEventList& l = *m_list;
    FunctionEventList::Lane& lane = l.m_lanes[laneIndex];
    const Track& track = m_trace.track(lane.track);
    const SliceTrack& st = track.slices;
    uint32_t g = lane.begin;
    const size_t rows = st.size();
    for (size_t r = 0; r < rows; ++r) {
        const EventRole role = m_map.role(m_trace.kindOf(st.category(r)), track.kind);
        if (!isDeviceRole(role)) continue;
        const uint32_t key = m_map.nameKey(st.name(r));
        if (key == EventMapping::kFiltered) continue;
        l.start[g] = st.start(r);
        l.end[g] = st.end(r);
        l.row[g] = uint32_t(r);
        l.nameKey[g] = key;
        l.flags[g] = FunctionEventList::kDeviceType | FunctionEventList::kTopLevel |
                     (role == EventRole::DeviceAnnotation ? FunctionEventList::kUserAnnotation : 0);
        l.link[g] = FunctionEventList::kNone;
        ++g;
    }
    lane.end = g;
    if (lane.end > lane.begin) m_scratch[laneIndex].first = l.start[lane.begin];
}

void FunctionEventBuilder::computeBase()
{
    // torch measures from the profiler's start, which a trace file does not record; the earliest
    // event stands in for it. Only the last bits of the µs doubles depend on the choice.
    FunctionEventList& l = *m_list;
    TimeNs base = INT64_MAX;
    size_t devices = 0;
    for (size_t i = 0; i < l.m_lanes.size(); ++i) {
        base = std::min(base, m_scratch[i].first);
        if (l.m_lanes[i].kind == FunctionEventList::LaneKind::Device)
            devices += l.m_lanes[i].end - l.m_lanes[i].begin;
    }
    const Column<MemoryEvent>& mem = m_trace.memoryEvents();
    for (size_t i = 0; i < mem.size(); ++i)
        base = std::min(base, mem[i].ts);
    l.m_base = base == INT64_MAX ? 0 : base;
    l.m_deviceEvents = devices;
    size_t n = 0;
    for (const FunctionEventList::Lane& lane : l.m_lanes)
        n = std::max<size_t>(n, lane.end);
    l.m_size = n;
}

void FunctionEventBuilder::addMemoryLane()
{
    FunctionEventList& l = *m_list;
    FunctionEventList::Lane& lane = l.m_lanes.back();
    const Column<MemoryEvent>& events = m_trace.memoryEvents();
    l.m_memoryRecords = events.size();
    if (events.empty()) return;

    // A record is used when any CPU event encloses it; top-level events cover all the others.
    std::vector<int32_t> cover(m_memory.size() + 1, 0);
    for (const LaneScratch& s : m_scratch) {
        for (const auto& [lo, hi] : s.coveredMemory) {
            ++cover[lo];
            --cover[hi];
        }
    }
    // Unused records, then out-of-memory records, merged by time; at equal times the [memory]
    // rows stay first, as torch appends them first before its stable sort.
    std::vector<uint32_t> unused;
    int32_t depth = 0;
    for (size_t i = 0; i < m_memory.size(); ++i) {
        depth += cover[i];
        if (depth == 0) unused.push_back(uint32_t(i));
    }
    const std::vector<uint32_t>& oom = m_memory.outOfMemory();
    uint32_t g = lane.begin;
    auto put = [&](uint32_t traceIndex, bool outOfMemory) {
        const MemoryEvent& m = events[traceIndex];
        l.start[g] = m.ts;
        l.end[g] = m.ts;
        l.row[g] = traceIndex;
        l.nameKey[g] = outOfMemory ? m_map.outOfMemoryKey() : m_map.memoryKey();
        l.flags[g] = FunctionEventList::kTopLevel;
        l.link[g] = FunctionEventList::kNone;
        l.selfCpuUs[g] = 0.0;
        if (l.deviceUs.allocated()) {
            l.deviceUs[g] = 0.0;
            l.selfDeviceUs[g] = 0.0;
        }
        const int64_t cpu = MemoryRecords::isCpuDevice(m.deviceType) ? m.bytes : 0;
        const int64_t dev = MemoryRecords::isAcceleratorDevice(m.deviceType) ? m.bytes : 0;
        l.cpuMemory[g] = cpu;
        l.deviceMemory[g] = dev;
        l.selfCpuMemory[g] = cpu;
        l.selfDeviceMemory[g] = dev;
        if (l.flops.allocated()) l.flops[g] = 0;
        if (l.inputShape.allocated()) l.inputShape[g] = kNoShape;
        ++g;
    };
    size_t a = 0, b = 0;
    while (a < unused.size() || b < oom.size()) {
        const bool takeUnused =
            b == oom.size() || (a < unused.size() && m_memory.ts(unused[a]) <= events[oom[b]].ts);
        if (takeUnused)
            put(m_memory.traceIndex(unused[a++]), false);
        else
            put(oom[b++], true);
    }
    lane.end = g;
    l.m_size = std::max<size_t>(l.m_size, lane.end);
}

void FunctionEventBuilder::internShapes()
{
    FunctionEventList& l = *m_list;
    std::unordered_map<std::string, uint32_t> ids;
    auto idOf = [&](std::string text) {
        auto [it, inserted] = ids.emplace(text, uint32_t(l.m_shapeTexts.size()));
        if (inserted) l.m_shapeTexts.push_back(std::move(text));
        return it->second;
    };
    // Events without recorded shapes print as an empty list.
    const uint32_t empty = idOf("[]");
    std::vector<std::vector<uint32_t>> remap(l.m_lanes.size());
    for (size_t i = 0; i < l.m_lanes.size(); ++i) {
        for (std::string_view json : m_scratch[i].shapeJson) {
            std::string repr;
            if (!appendPythonRepr(json, repr)) repr.assign(json);
            remap[i].push_back(idOf(std::move(repr)));
        }
    }
    parallelFor(l.m_lanes.size(), m_options.threads, [&](size_t i) {
        const FunctionEventList::Lane& lane = l.m_lanes[i];
        for (uint32_t g = lane.begin; g < lane.end; ++g) {
            const bool cpu = lane.kind == FunctionEventList::LaneKind::Cpu;
            const uint32_t local = cpu ? l.inputShape[g] : kNoShape;
            l.inputShape[g] = local == kNoShape ? empty : remap[i][local];
        }
    });
}

} // namespace ks
