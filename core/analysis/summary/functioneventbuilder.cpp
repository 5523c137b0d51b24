#include "core/analysis/summary/functioneventbuilder.h"

#include "core/analysis/summary/autogradlinks.h"
#include "core/analysis/summary/eventtree.h"
#include "core/analysis/summary/flopcounter.h"
#include "core/analysis/summary/pyrepr.h"
#include "core/analysis/timeline/tracklinkcursor.h"
#include "core/util/parallelfor.h"

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

// conv2d's "same"/"valid" overload: its padding (input 4) is a string, and torch counts 0 for it.
// typesJson: the "Input type" list, e.g. ["float", "float", "", "GenericList", "str", ...].
bool paddingIsText(std::string_view typesJson)
{
    size_t index = 0;
    for (size_t i = 0; i < typesJson.size(); ++i) {
        if (typesJson[i] != '"') continue;
        const size_t close = typesJson.find('"', i + 1);
        if (close == std::string_view::npos) return false;
        if (index++ == 4) {
            const std::string_view t = typesJson.substr(i + 1, close - i - 1);
            return t == "str" || t == "String" || t == "string";
        }
        i = close;
    }
    return false;
}

// Roles by category for one track; tracks use few categories, so a handful of entries suffice.
// python: python_function slices on CPU threads are events (torch 2.x).
class RoleCache {
public:
    RoleCache(const Trace& t, const EventMapping& m, TrackKind k, bool python = false)
        : m_trace(t), m_map(m), m_kind(k), m_python(python)
    {}

    EventRole operator()(StringId cat)
    {
        for (size_t i = 0; i < m_used; ++i)
            if (m_cats[i] == cat) return m_roles[i];
        const EventKind kind = m_trace.kindOf(cat);
        EventRole r = m_map.role(kind, m_kind);
        if (m_python && kind == EventKind::PythonFunction && m_kind == TrackKind::CpuThread)
            r = EventRole::CpuPython;
        const size_t at = m_used < kSize ? m_used++ : (m_next++ % kSize);
        m_cats[at] = cat;
        m_roles[at] = r;
        return r;
    }

private:
    static constexpr size_t kSize = 8;
    const Trace& m_trace;
    const EventMapping& m_map;
    TrackKind m_kind;
    bool m_python;
    StringId m_cats[kSize];
    EventRole m_roles[kSize] = {};
    size_t m_used = 0;
    size_t m_next = 0;
};

// When torch's profiler started, as Kineto records it: the start of its "PyTorch Profiler (N)" span
// and the "Iteration Start: PyTorch Profiler" instant are both torch's trace_start_ns, the origin
// of torch 2.x's µs. INT64_MAX when the trace has neither.
TimeNs profilerStart(const Trace& trace)
{
    constexpr std::string_view kSpan = "PyTorch Profiler";
    constexpr std::string_view kIteration = "Iteration Start: PyTorch Profiler";
    TimeNs start = INT64_MAX;
    for (size_t t = 0; t < trace.trackCount(); ++t) {
        const Track& track = trace.track(TrackId(uint32_t(t)));
        if (track.kind == TrackKind::Span) {
            const SliceTrack& s = track.slices;
            for (size_t i = 0; i < s.size(); ++i)
                if (trace.str(s.name(i)).starts_with(kSpan)) start = std::min(start, s.start(i));
        }
        for (size_t i = 0; i < track.instants.size(); ++i)
            if (trace.str(track.instants[i].name) == kIteration)
                start = std::min(start, track.instants[i].ts);
    }
    return start;
}

// Calls fn(row, start, duration, name, category) for every slice of a track, span by span.
template <typename Fn>
void forEachSlice(const SliceTrack& st, Fn&& fn)
{
    const Column<TimeNs>& durs = st.durationColumn();
    const Column<StringId>& names = st.nameColumn();
    const Column<StringId>& cats = st.categoryColumn();
    st.startColumn().forEachSpan(0, st.size(), [&](const TimeNs* s, size_t n, size_t first) {
        // The columns share one segment layout, so a span of one is a span of all.
        const TimeNs* d = &durs[first];
        const StringId* nm = &names[first];
        const StringId* ct = &cats[first];
        for (size_t i = 0; i < n; ++i) {
            TimeNs dur = d[i];
            if (dur == SliceTrack::kOpen) dur = st.end(first + i) - s[i];
            fn(uint32_t(first + i), s[i], dur, nm[i], ct[i]);
        }
    });
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
{
    m_list->m_torch = options.torch;
}

FunctionEventBuilder::~FunctionEventBuilder() = default;

std::vector<uint32_t> FunctionEventBuilder::lanesOf(FunctionEventList::LaneKind kind) const
{
    std::vector<uint32_t> lanes;
    for (uint32_t i = 0; i < m_list->m_lanes.size(); ++i)
        if (m_list->m_lanes[i].kind == kind) lanes.push_back(i);
    return lanes;
}

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
        const StringId conv = m_trace.strings().find("aten::conv2d");
        m_hasConv2d = conv.valid() && conv.value < m_map.nameKeyBound() &&
                      m_flopOp[m_map.nameKey(conv)] == uint8_t(FlopOp::Conv2d);
        // The conv2d fallback finds backward functions by their slices.
        if (m_hasConv2d && !m_list->sliceRow.allocated()) m_list->sliceRow.allocate(m_capacity);
    }

    // Pass 1: every lane, largest first so one big thread does not end up last.
    std::vector<uint32_t> lanes = lanesOf(FunctionEventList::LaneKind::Cpu);
    const std::vector<uint32_t> device = lanesOf(FunctionEventList::LaneKind::Device);
    lanes.insert(lanes.end(), device.begin(), device.end());
    std::sort(lanes.begin(), lanes.end(), [this](uint32_t a, uint32_t b) {
        return m_trace.track(m_list->m_lanes[a].track).slices.size() >
               m_trace.track(m_list->m_lanes[b].track).slices.size();
    });
    parallelFor(lanes.size(), m_options.threads, [&](size_t i) {
        if (m_list->m_lanes[lanes[i]].kind == FunctionEventList::LaneKind::Cpu)
            fillCpuLane(lanes[i]);
        else
            fillDeviceLane(lanes[i]);
    });
    computeBase();

    // Pass 2: kernels to ops.
    if (m_list->m_deviceEvents > 0) {
        LinkVotes votes;
        for (const LaneScratch& s : m_scratch) {
            votes.callsChecked += s.votes.callsChecked;
            votes.callsAgreeing += s.votes.callsAgreeing;
        }
        const bool byCorrelation = KernelLinker::joinByCorrelation(votes);
        KernelLinker linker(*m_list, m_options.threads);
        KernelLinker::DeviceLinks links{m_deviceExternalId, m_deviceCorrelation, m_deviceOp, m_kernelCount};
        linker.run(KernelLinker::Indexes{m_opIds, m_callIds}, byCorrelation, links);
        m_list->m_linkMode = byCorrelation ? 'c' : 'e';
        m_list->m_attributed = linker.attributed();
    }
    // The linker's inputs and outputs are spent; free them before the trees and the caller's
    // aggregation allocate theirs (21 B per event).
    m_deviceExternalId.release();
    m_deviceCorrelation.release();
    m_deviceOp.release();
    m_kernelCount.release();
    m_opIds.clear();
    m_callIds.clear();

    // Pass 3: trees.
    std::vector<uint32_t> cpu = lanesOf(FunctionEventList::LaneKind::Cpu);
    std::sort(cpu.begin(), cpu.end(),
              [this](uint32_t a, uint32_t b) { return m_scratch[a].events > m_scratch[b].events; });
    parallelFor(cpu.size(), m_options.threads, [&](size_t i) {
        EventTree tree(*m_list);
        tree.finishLane(m_list->m_lanes[cpu[i]]);
    });

    if (m_hasConv2d) fillConvFlopsFromBackward();
    addMemoryLane();
    if (m_options.groupByInputShape) internShapes();
    return std::move(m_list);
}

void FunctionEventBuilder::fillConvFlopsFromBackward()
{
    // torch 1.13 counted conv2d at record time from the stride, padding, dilation and groups it was
    // called with; its traces keep none of them ("Concrete Inputs" came later). The output size
    // they gave is still there: it is the first input of the conv's backward function.
    FunctionEventList& l = *m_list;
    const ArgStore& args = m_trace.args();
    std::unique_ptr<AutogradLinks> links;
    FlopCounter counter;
    for (uint32_t li : lanesOf(FunctionEventList::LaneKind::Cpu)) {
        const FunctionEventList::Lane& lane = l.m_lanes[li];
        const SliceTrack& st = m_trace.track(lane.track).slices;
        for (uint32_t g = lane.begin; g < lane.end; ++g) {
            if (l.flops[g] != 0 || (l.flags[g] & FunctionEventList::kRemoved) ||
                m_flopOp[l.nameKey[g]] != uint8_t(FlopOp::Conv2d))
                continue;
            const ArgsRef a = st.args(l.sliceRow[g]);
            ArgValue unused;
            if (!a.valid() || args.find(a, "Concrete Inputs", unused)) continue; // torch's own count was 0
            if (paddingIsText(jsonArg(args, a, "Input type"))) continue;
            if (!links) links = std::make_unique<AutogradLinks>(m_trace, l);
            const uint32_t fn = links->backwardOf(g);
            if (fn == AutogradLinks::kNone) continue;
            const SliceTrack& bt = m_trace.track(links->track(fn)).slices;
            l.flops[g] = int64_t(counter.conv2dFromOutput(
                jsonArg(args, a, "Input Dims"), jsonArg(args, bt.args(l.sliceRow[fn]), "Input Dims")));
        }
    }
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
        // A lane gets its track's whole row count as room; rows that are not events leave a gap
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
    l.nameKey.allocate(n);
    l.flags.allocate(n);
    l.selfCpuUs.allocate(n);
    if (m_hasDeviceLanes) {
        l.deviceUs.allocate(n);
        l.selfDeviceUs.allocate(n);
        m_deviceExternalId.allocate(n);
        m_deviceCorrelation.allocate(n);
        m_deviceOp.allocate(n);
        m_kernelCount.allocate(n);
    }
    if (!m_trace.memoryEvents().empty()) {
        l.memorySlot.allocate(n);
        l.memoryUsage.allocateSparse(n);
    }
    if (m_options.withFlops) l.flops.allocate(n);
    if (m_options.groupByInputShape) l.inputShape.allocate(n);
    if (m_options.withSliceRows) l.sliceRow.allocate(n);
}

void FunctionEventBuilder::fillCpuLane(size_t laneIndex)
{
    FunctionEventList& l = *m_list;
    FunctionEventList::Lane& lane = l.m_lanes[laneIndex];
    LaneScratch& scratch = m_scratch[laneIndex];
    const Track& track = m_trace.track(lane.track);
    const SliceTrack& st = track.slices;
    const ArgStore& args = m_trace.args();
    const bool hasDevice = m_hasDeviceLanes;
    const bool hasMemory = l.hasMemoryColumns();
    const bool withFlops = l.flops.allocated();
    const bool withShapes = l.inputShape.allocated();

    RoleCache roleOf(m_trace, m_map, track.kind, m_options.torch == TorchFlavor::Torch2);
    TrackLinkCursor links(m_trace, lane.track);
    std::vector<StackEntry> stack;
    FlopCounter flopCounter;
    std::unordered_map<std::string_view, uint32_t> shapeIds;
    size_t memoryFrom = 0;
    uint32_t nextSlot = lane.begin;
    TimeNs last = INT64_MIN;
    uint32_t g = lane.begin;
    forEachSlice(st, [&](uint32_t r, TimeNs s, TimeNs dur, StringId name, StringId cat) {
        const EventRole role = roleOf(cat);
        const bool python = role == EventRole::CpuPython;
        if (!isCpuRole(role) && !python) return;
        const uint32_t key = m_map.nameKey(name);
        if (key == EventMapping::kFiltered) return;
        const TimeNs e = s + dur;
        l.start[g] = s;
        l.end[g] = e;
        l.nameKey[g] = key;
        if (l.sliceRow.allocated()) l.sliceRow[g] = r;
        last = std::max(last, e);
        const bool owns = role != EventRole::CpuRuntime && !python;

        // torch's stack rule: drop open events this one starts after or outlasts.
        while (!stack.empty() && (s >= stack.back().end || e > stack.back().end))
            stack.pop_back();
        const bool topLevel = stack.empty();
        uint8_t f = owns     ? FunctionEventList::kOwnsKernels
                    : python ? FunctionEventList::kPython
                             : FunctionEventList::kRuntime;
        if (role == EventRole::CpuAnnotation) f |= FunctionEventList::kUserAnnotation;
        if (topLevel) f |= FunctionEventList::kTopLevel;
        l.flags[g] = f;

        int64_t ext, corr;
        links.find(r, ext, corr);
        if (owns) {
            if (ext > 0) m_opIds.insert(ext, g);
        } else if (!python) {
            // The op a runtime call belongs to is the innermost op around it; the call's own
            // External id says whether the trace's ids name ops (see KernelLinker).
            for (size_t k = stack.size(); k-- > 0;) {
                if (!stack[k].ownsKernels) continue;
                const int64_t callKey = corr > 0 ? corr : ext;
                if (callKey > 0) m_callIds.insert(callKey, stack[k].g);
                if (ext > 0 && stack[k].externalId > 0) {
                    ++scratch.votes.callsChecked;
                    scratch.votes.callsAgreeing += stack[k].externalId == ext;
                }
                break;
            }
        }
        stack.push_back(StackEntry{g, e, owns ? ext : -1, owns});

        if (hasDevice) {
            l.deviceUs[g] = 0.0;
            m_kernelCount[g] = 0;
        }
        if (hasMemory) {
            uint32_t slot = FunctionEventList::kNoMemory;
            if (!m_memory.empty()) {
                const auto [lo, hi] = m_memory.within(s, e, memoryFrom);
                memoryFrom = lo;
                if (hi > lo) {
                    slot = nextSlot++;
                    l.memoryUsage[slot] = FunctionEventList::MemoryUsage{m_memory.cpuBytes(lo, hi),
                                                                         m_memory.deviceBytes(lo, hi), 0, 0};
                    if (topLevel) scratch.coveredMemory.emplace_back(uint32_t(lo), uint32_t(hi));
                }
            }
            l.memorySlot[g] = slot;
        }
        if (withFlops) {
            uint64_t fl = 0;
            if (role == EventRole::CpuOp && m_flopOp[key] != uint8_t(FlopOp::None)) {
                const FlopOp op = FlopOp(m_flopOp[key]);
                const ArgsRef a = st.args(r);
                const std::string_view dims = jsonArg(args, a, "Input Dims");
                if (!dims.empty())
                    fl = flopCounter.count(op, dims,
                                           op == FlopOp::Conv2d ? jsonArg(args, a, "Concrete Inputs") : "");
            }
            l.flops[g] = int64_t(fl);
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
    });
    lane.end = g;
    scratch.events = lane.end - lane.begin;
    scratch.last = last;
    if (lane.end > lane.begin) scratch.first = l.start[lane.begin];
}

void FunctionEventBuilder::fillDeviceLane(size_t laneIndex)
{
    FunctionEventList& l = *m_list;
    FunctionEventList::Lane& lane = l.m_lanes[laneIndex];
    const Track& track = m_trace.track(lane.track);
    RoleCache roleOf(m_trace, m_map, track.kind);
    TrackLinkCursor links(m_trace, lane.track);
    TimeNs last = INT64_MIN;
    uint32_t g = lane.begin;
    forEachSlice(track.slices, [&](uint32_t r, TimeNs s, TimeNs dur, StringId name, StringId cat) {
        const EventRole role = roleOf(cat);
        if (!isDeviceRole(role)) return;
        const uint32_t key = m_map.nameKey(name);
        if (key == EventMapping::kFiltered) return;
        l.start[g] = s;
        l.end[g] = s + dur;
        l.nameKey[g] = key;
        if (l.sliceRow.allocated()) l.sliceRow[g] = r;
        last = std::max(last, s + dur);
        l.flags[g] = FunctionEventList::kDeviceType | FunctionEventList::kTopLevel |
                     (role == EventRole::DeviceAnnotation ? FunctionEventList::kUserAnnotation : 0);
        links.find(r, m_deviceExternalId[g], m_deviceCorrelation[g]);
        if (l.inputShape.allocated()) l.inputShape[g] = kNoShape;
        ++g;
    });
    lane.end = g;
    m_scratch[laneIndex].events = lane.end - lane.begin;
    m_scratch[laneIndex].last = last;
    if (lane.end > lane.begin) m_scratch[laneIndex].first = l.start[lane.begin];
}

void FunctionEventBuilder::computeBase()
{
    // torch measures from the profiler's start, which a trace file does not record; the earliest
    // event stands in for it. Only the last bits of the µs doubles depend on the choice.
    FunctionEventList& l = *m_list;
    TimeNs base = INT64_MAX;
    TimeNs last = INT64_MIN;
    size_t devices = 0;
    for (size_t i = 0; i < l.m_lanes.size(); ++i) {
        base = std::min(base, m_scratch[i].first);
        last = std::max(last, m_scratch[i].last);
        if (l.m_lanes[i].kind == FunctionEventList::LaneKind::Device) devices += m_scratch[i].events;
    }
    const Column<MemoryEvent>& mem = m_trace.memoryEvents();
    for (size_t i = 0; i < mem.size(); ++i) {
        base = std::min(base, mem[i].ts);
        last = std::max(last, mem[i].ts);
    }
    l.m_base = base == INT64_MAX ? 0 : base;
    l.m_maxEnd = last == INT64_MIN ? l.m_base : last;
    // torch 1.13 kept whole µs, for which any origin gives the same doubles; torch 2.x divides ns
    // since the profiler's start by 1000, and the last bits of its µs depend on that origin.
    l.m_origin = l.m_base;
    if (m_options.torch == TorchFlavor::Torch2) {
        const TimeNs start = profilerStart(m_trace);
        if (start != INT64_MAX) l.m_origin = start;
    }
    l.m_deviceEvents = devices;
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
        l.nameKey[g] = outOfMemory ? m_map.outOfMemoryKey() : m_map.memoryKey();
        l.flags[g] = FunctionEventList::kTopLevel;
        l.selfCpuUs[g] = 0.0;
        if (l.deviceUs.allocated()) {
            l.deviceUs[g] = 0.0;
            l.selfDeviceUs[g] = 0.0;
        }
        const int64_t cpu = MemoryRecords::isCpuDevice(m.deviceType) ? m.bytes : 0;
        const int64_t dev = MemoryRecords::isAcceleratorDevice(m.deviceType) ? m.bytes : 0;
        l.memorySlot[g] = g;
        l.memoryUsage[g] = FunctionEventList::MemoryUsage{cpu, dev, cpu, dev};
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
            if (!appendInputShapes(json, m_options.torch, repr)) repr.assign(json);
            remap[i].push_back(idOf(std::move(repr)));
        }
    }
    parallelFor(l.m_lanes.size(), m_options.threads, [&](size_t i) {
        const FunctionEventList::Lane& lane = l.m_lanes[i];
        for (uint32_t g = lane.begin; g < lane.end; ++g) {
            const uint32_t local = l.inputShape[g];
            l.inputShape[g] = local == kNoShape ? empty : remap[i][local];
        }
    });
}

} // namespace ks
