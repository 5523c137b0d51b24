#include "core/io/tracebuilder.h"

#include "core/io/flowlinker.h"
#include "core/io/jsonscan.h"
#include "core/io/numparse.h"
#include "core/io/rowtable.h"
#include "core/util/hash.h"
#include "core/util/largeallocator.h"
#include "core/util/nearsort.h"
#include "core/util/parallelfor.h"
#include "core/util/textescape.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>
#include <unordered_map>

namespace ks {

namespace {

// A slice's link ids, kept per track until the track's final row order is known.
struct PendingLink {
    uint32_t row; // staged row
    int64_t externalId;
    int64_t correlation;
};

struct TrackStage {
    Column<PendingLink> links;
    LargeVector<std::pair<uint64_t, InstantEvent>> instants; // (arrival, event)
};

struct PendingMeta {
    StringId name;
    uint32_t row;
    bool hasTid;
    ArgsRef args;
};

struct OpenB {
    TimeNs ts;
    StringId name;
    StringId cat;
    ArgsRef args;
};

struct PendingCounter {
    CounterTrackId counter;
    TimeNs ts;
    double value;
    uint64_t seq;
};

bool stepNumber(std::string_view name, int64_t& n)
{
    // "ProfilerStep#12"; tolerate spaces the way HTA's regex does.
    constexpr std::string_view prefix = "ProfilerStep";
    if (name.substr(0, prefix.size()) != prefix) return false;
    size_t i = prefix.size();
    while (i < name.size() && name[i] == ' ')
        ++i;
    if (i >= name.size() || name[i] != '#') return false;
    ++i;
    while (i < name.size() && name[i] == ' ')
        ++i;
    return parseInt64(name.substr(i), n);
}

} // namespace

struct TraceBuilder::Impl {
    explicit Impl(Trace& t) : trace(t) {}

    Trace& trace;
    ParseCounters counters;
    uint64_t arrival = 0;

    // String ids of parser pools mapped to the trace's pool: grown incrementally for shared pools
    // (indexed by pool id), rebuilt per chunk for chunk-owned pools.
    std::vector<std::vector<StringId>> sharedRemaps;
    std::vector<StringId> ownRemap;
    const std::vector<StringId>* remap = nullptr;
    std::vector<uint8_t> kindOfString; // by trace StringId: EventKind + 1 once the category is known

    RowTable rows;
    std::vector<TrackStage> stages; // by TrackId
    Column<FlowEnd> flowEnds;
    std::vector<PendingMeta> metas;
    std::map<uint32_t, std::vector<OpenB>> openB;          // by row
    std::unordered_map<std::string, size_t> topLevelIndex; // key -> index in the metadata entries
    Column<MemoryEvent> memory; // becomes the trace's column when already in time order
    LargeVector<PendingCounter> counterSamples;

    uint64_t unmatchedE = 0;
    uint64_t unmatchedB = 0;
    uint64_t missingDur = 0;
    uint64_t unsupported[128] = {};
    uint64_t flowsWithoutSlice = 0;

    StringId nameMemory;
    StringId nameOom;
    StringId spansString;

    StringId global(uint32_t local) const
    {
        return local == RawEvent::kNoString ? StringId() : (*remap)[local];
    }

    RowKey pidKey(const RawEvent& e) const
    {
        return e.pidStr != RawEvent::kNoString ? RowKey::fromString((*remap)[e.pidStr])
                                               : RowKey::fromNumber(e.pidNum);
    }
    RowKey tidKey(const RawEvent& e) const
    {
        return e.tidStr != RawEvent::kNoString ? RowKey::fromString((*remap)[e.tidStr])
                                               : RowKey::fromNumber(e.tidNum);
    }

    EventKind kindOf(StringId cat)
    {
        if (!cat.valid()) return EventKind::Other;
        if (cat.value >= kindOfString.size())
            kindOfString.resize(std::max<size_t>(cat.value + 1, kindOfString.size() * 2), 0);
        uint8_t& k = kindOfString[cat.value];
        if (k == 0) k = uint8_t(trace.kindOf(trace.internCategory(trace.str(cat)))) + 1;
        return EventKind(k - 1);
    }

    ProcessKind processKindFor(RowKey pid, TrackKind tk) const
    {
        if (pid.isString()) {
            const std::string_view s = trace.str(pid.string);
            if (s == "Spans") return ProcessKind::Spans;
            if (s == "CPU functions") return ProcessKind::Cpu;
            return ProcessKind::Other;
        }
        if (pid.number == -1 && tk == TrackKind::Other) return ProcessKind::Overhead;
        switch (tk) {
        case TrackKind::GpuStream:
        case TrackKind::GpuAnnotation:
            return ProcessKind::Gpu;
        case TrackKind::Span:
            return ProcessKind::Spans;
        case TrackKind::CpuThread:
            return ProcessKind::Cpu;
        default:
            return ProcessKind::Other;
        }
    }

    TrackId trackFor(uint32_t rowIndex, TrackKind kind)
    {
        RowTable::Row& row = rows.row(rowIndex);
        TrackId& t = row.tracks[size_t(kind)];
        if (!t.valid()) {
            const ProcessId p = trace.findOrAddProcess(row.pid, processKindFor(row.pid, kind));
            t = trace.findOrAddTrack(p, row.tid, kind);
            if (stages.size() <= t.value) stages.resize(t.value + 1);
        }
        return t;
    }

    TrackKind trackKindFor(EventKind k, RowKey pid) const
    {
        switch (k) {
        case EventKind::Kernel:
        case EventKind::Memcpy:
        case EventKind::Memset:
        case EventKind::Sync:
        case EventKind::CudaEvent:
            return TrackKind::GpuStream;
        case EventKind::GpuUserAnnotation:
            return TrackKind::GpuAnnotation;
        case EventKind::Span:
            return TrackKind::Span;
        case EventKind::Overhead:
            return TrackKind::Other;
        default:
            break;
        }
        if (pid.isString() && pid.string == spansString) return TrackKind::Span;
        return TrackKind::CpuThread;
    }

    void addSlice(TrackId t, TimeNs start, TimeNs dur, StringId name, StringId cat, ArgsRef args, int64_t ext,
                  int64_t corr)
    {
        const uint32_t row = trace.track(t).slices.stage(start, dur, name, cat, args);
        if (ext >= 0 || corr >= 0) stages[t.value].links.push_back(PendingLink{row, ext, corr});
    }

    void addMemory(const RawEvent& e, StringId name, uint32_t row)
    {
        MemoryEvent m;
        m.ts = e.ts;
        m.name = name;
        m.category = global(e.cat);
        m.outOfMemory = name == nameOom;
        m.args = e.args;
        m.track = trackFor(row, TrackKind::CpuThread);
        trace.args().forEach(e.args, [&m](const Arg& a) {
            const std::string_view k = a.key;
            if (k == "Device Type")
                m.deviceType = int16_t(a.value.toInt());
            else if (k == "Device Id")
                m.deviceId = int16_t(a.value.toInt());
            else if (k == "Addr") {
                m.hasAddr = a.value.isNumber();
                m.addr = a.value.type == ArgType::UInt ? a.value.u : uint64_t(a.value.toInt());
            } else if (k == "Bytes")
                m.bytes = a.value.toInt();
            else if (k == "Total Allocated")
                m.totalAllocated = a.value.toInt();
            else if (k == "Total Reserved")
                m.totalReserved = a.value.toInt();
            return true;
        });
        memory.push_back(m);
    }

    void addCounter(const RawEvent& e, StringId name, RowKey pid)
    {
        const ProcessId p =
            trace.findOrAddProcess(pid, pid.isString() ? ProcessKind::Other : ProcessKind::Cpu);
        trace.args().forEach(e.args, [&](const Arg& a) {
            if (!a.value.isNumber()) return true;
            const StringId series = trace.strings().intern(a.key);
            const CounterTrackId c = trace.findOrAddCounter(p, name, series);
            counterSamples.push_back(PendingCounter{c, e.ts, a.value.toDouble(), arrival});
            return true;
        });
    }

    void route(const RawEvent& e)
    {
        ++arrival;
        const StringId name = global(e.name);
        const StringId cat = global(e.cat);
        const RowKey pid = pidKey(e);
        const uint32_t row = rows.find(pid, tidKey(e));
        switch (e.ph) {
        case 'X': {
            if (!e.hasTs) {
                ++counters.missingTs;
                return;
            }
            TimeNs dur = e.dur;
            if (dur < 0) {
                ++missingDur;
                dur = 0;
            }
            addSlice(trackFor(row, trackKindFor(kindOf(cat), pid)), e.ts, dur, name, cat, e.args,
                     e.externalId, e.correlation);
            return;
        }
        case 'B':
            if (!e.hasTs) {
                ++counters.missingTs;
                return;
            }
            openB[row].push_back(OpenB{e.ts, name, cat, e.args});
            return;
        case 'E': {
            auto it = openB.find(row);
            if (it == openB.end() || it->second.empty() || !e.hasTs) {
                ++unmatchedE;
                return;
            }
            const OpenB b = it->second.back();
            it->second.pop_back();
            addSlice(trackFor(row, trackKindFor(kindOf(b.cat), pid)), b.ts, std::max<TimeNs>(0, e.ts - b.ts),
                     b.name, b.cat, b.args.valid() ? b.args : e.args, e.externalId, e.correlation);
            return;
        }
        case 'i':
        case 'I': {
            if (!e.hasTs) {
                ++counters.missingTs;
                return;
            }
            if (name == nameMemory || name == nameOom) {
                addMemory(e, name, row);
                return;
            }
            const TrackId t = trackFor(row, TrackKind::CpuThread);
            InstantEvent inst;
            inst.ts = e.ts;
            inst.name = name;
            inst.category = cat;
            inst.args = e.args;
            inst.scope = e.scope ? e.scope : 't';
            stages[t.value].instants.emplace_back(arrival, inst);
            return;
        }
        case 's':
        case 'f':
        case 't':
            if (!e.hasTs || !e.hasId) {
                ++counters.missingTs;
                return;
            }
            flowEnds.push_back(FlowEnd{e.flowId, e.ts, row, cat, name, e.ph, e.bindEnclosing});
            return;
        case 'M':
            metas.push_back(PendingMeta{name, row, e.hasTid, e.args});
            return;
        case 'C':
            if (!e.hasTs) {
                ++counters.missingTs;
                return;
            }
            addCounter(e, name, pid);
            return;
        default:
            ++unsupported[uint8_t(e.ph) & 127];
            return;
        }
    }

    void mapStrings(const ChunkResult& chunk)
    {
        const StringPool& local = chunk.pool();
        std::vector<StringId>* map = &ownRemap;
        size_t from = 0;
        if (chunk.strings) {
            ownRemap.clear();
        } else {
            if (sharedRemaps.size() <= chunk.poolId) sharedRemaps.resize(chunk.poolId + 1);
            map = &sharedRemaps[chunk.poolId];
            from = map->size();
        }
        const size_t n = chunk.poolSize();
        for (size_t i = from; i < n; ++i) {
            const StringId id{uint32_t(i)};
            const std::string_view s = local.view(id);
            map->push_back(trace.strings().intern(s, local.hashOf(id)));
            if (s == "CPU functions") trace.metadata().legacyCpuFunctions = true;
        }
        remap = map;
    }

    // --- finish ---------------------------------------------------------------------------------

    void closeOpenB()
    {
        for (auto& [row, stack] : openB) {
            for (const OpenB& b : stack) {
                ++unmatchedB;
                const TrackId t = trackFor(row, trackKindFor(kindOf(b.cat), rows.row(row).pid));
                // Chrome shows an unterminated B until the end of the trace; we end it at the last
                // time seen on its row, or give it zero length.
                const SliceTrack& st = trace.track(t).slices;
                TimeNs end = b.ts;
                for (size_t r = 0; r < st.size(); ++r)
                    end = std::max(end, st.start(r) + st.duration(r));
                addSlice(t, b.ts, end - b.ts, b.name, b.cat, b.args, -1, -1);
            }
        }
        openB.clear();
    }

    void buildTracks(unsigned threads)
    {
        // Which names are ProfilerStep#N, decided once per string.
        std::vector<int64_t> stepOfName(trace.strings().size(), INT64_MIN);
        for (size_t i = 0; i < stepOfName.size(); ++i) {
            int64_t n;
            if (stepNumber(trace.strings().view(StringId(uint32_t(i))), n)) stepOfName[i] = n;
        }
        const size_t n = trace.trackCount();
        stages.resize(n);
        // Largest tracks first so the threads finish together.
        std::vector<uint32_t> order(n);
        for (uint32_t i = 0; i < n; ++i)
            order[i] = i;
        std::sort(order.begin(), order.end(), [this](uint32_t a, uint32_t b) {
            return trace.track(TrackId(a)).slices.size() > trace.track(TrackId(b)).slices.size();
        });
        std::vector<std::vector<Step>> steps(n);
        parallelFor(n, threads, [&](size_t k) {
            const TrackId id(order[k]);
            Track& track = trace.track(id);
            SliceTrack& st = track.slices;
            TrackStage& stage = stages[id.value];
            const LargeVector<uint32_t> newRow = st.finishStaged();
            if (!newRow.empty()) {
                // Rows moved: the links follow them and are put back in row order.
                LargeVector<PendingLink> links(stage.links.size());
                for (size_t i = 0; i < links.size(); ++i) {
                    links[i] = stage.links[i];
                    links[i].row = newRow[links[i].row];
                }
                sortNearlySorted(links.data(), links.size(),
                                 [](const PendingLink& a, const PendingLink& b) { return a.row < b.row; });
                stage.links = Column<PendingLink>();
                stage.links.append(links.data(), links.size());
            }
            if (track.kind == TrackKind::CpuThread) {
                for (size_t r = 0; r < st.size(); ++r) {
                    const StringId name = st.name(r);
                    if (name.value < stepOfName.size() && stepOfName[name.value] != INT64_MIN)
                        steps[id.value].push_back(
                            Step{stepOfName[name.value], st.start(r), st.end(r), SliceRef{id, uint32_t(r)}});
                }
            }
            auto& inst = stage.instants;
            std::stable_sort(inst.begin(), inst.end(),
                             [](const auto& a, const auto& b) { return a.second.ts < b.second.ts; });
            for (const auto& [arr, ev] : inst)
                track.instants.push_back(ev);
            if (!inst.empty()) st.advanceTime(inst.back().second.ts);
            decltype(stage.instants)().swap(inst);
        });
        // Link ids go out sorted by slice reference (track, then row), which readers rely on.
        std::vector<SliceLinkIds> buffer;
        for (size_t t = 0; t < n; ++t) {
            Column<PendingLink>& links = stages[t].links;
            links.forEachSpan(0, links.size(), [&](const PendingLink* p, size_t count, size_t) {
                buffer.clear();
                for (size_t i = 0; i < count; ++i)
                    buffer.push_back(SliceLinkIds{SliceRef{TrackId(uint32_t(t)), p[i].row}, p[i].externalId,
                                                  p[i].correlation});
                trace.linkIds().append(buffer.data(), buffer.size());
            });
            links = Column<PendingLink>();
        }
        std::vector<Step> allSteps;
        for (auto& s : steps)
            allSteps.insert(allSteps.end(), s.begin(), s.end());
        std::sort(allSteps.begin(), allSteps.end(), [](const Step& a, const Step& b) {
            return a.start != b.start ? a.start < b.start : a.number < b.number;
        });
        trace.steps().append(allSteps.data(), allSteps.size());
    }

    void applyMetadata()
    {
        StringPool& sp = trace.strings();
        const StringId processName = sp.intern("process_name");
        const StringId processLabels = sp.intern("process_labels");
        const StringId processSort = sp.intern("process_sort_index");
        const StringId threadName = sp.intern("thread_name");
        const StringId threadSort = sp.intern("thread_sort_index");
        for (const PendingMeta& m : metas) {
            const ArgValue nameArg = trace.args().get(m.args, "name");
            const ArgValue labelsArg = trace.args().get(m.args, "labels");
            const ArgValue sortArg = trace.args().get(m.args, "sort_index");
            const RowTable::Row& row = rows.row(m.row);
            if (m.name == processName || m.name == processLabels || m.name == processSort) {
                ProcessId p = trace.findProcess(row.pid);
                if (!p.valid()) p = trace.addProcess(row.pid, processKindFor(row.pid, TrackKind::CpuThread));
                Process& proc = trace.process(p);
                if (m.name == processName && nameArg.type == ArgType::String)
                    proc.name = sp.intern(nameArg.text);
                else if (m.name == processLabels && labelsArg.type == ArgType::String)
                    proc.labels = sp.intern(labelsArg.text);
                else if (m.name == processSort && sortArg.isNumber()) {
                    proc.sortIndex = sortArg.toInt();
                    proc.hasSortIndex = true;
                }
            } else if (m.name == threadName || m.name == threadSort) {
                // A name for a row without events names nothing.
                for (TrackId t : row.tracks) {
                    if (!t.valid()) continue;
                    Track& tr = trace.track(t);
                    if (m.name == threadName && nameArg.type == ArgType::String)
                        tr.name = sp.intern(nameArg.text);
                    else if (m.name == threadSort && sortArg.isNumber()) {
                        tr.sortIndex = sortArg.toInt();
                        tr.hasSortIndex = true;
                    }
                }
            }
        }
        // A process's kind follows its tracks: host threads win over device rows.
        for (size_t i = 0; i < trace.processCount(); ++i) {
            Process& p = trace.process(ProcessId(uint32_t(i)));
            bool cpu = false, gpu = false, span = false;
            for (size_t k = 0; k < p.tracks.size(); ++k) {
                const TrackKind tk = trace.track(p.tracks[k]).kind;
                cpu |= tk == TrackKind::CpuThread;
                gpu |= tk == TrackKind::GpuStream || tk == TrackKind::GpuAnnotation;
                span |= tk == TrackKind::Span;
            }
            if (p.kind == ProcessKind::Overhead) continue;
            if (cpu && !gpu)
                p.kind = ProcessKind::Cpu;
            else if (gpu && !cpu)
                p.kind = ProcessKind::Gpu;
            else if (span && !cpu && !gpu)
                p.kind = ProcessKind::Spans;
            if (p.kind == ProcessKind::Gpu && !p.pid.isString()) p.deviceId = int(p.pid.number);
        }
    }

    void finishOther()
    {
        bool sorted = true;
        for (size_t i = 1; i < memory.size() && sorted; ++i)
            sorted = memory[i - 1].ts <= memory[i].ts;
        if (sorted && trace.memoryEvents().empty()) {
            trace.memoryEvents() = std::move(memory);
        } else {
            LargeVector<MemoryEvent> events(memory.size());
            for (size_t i = 0; i < memory.size(); ++i)
                events[i] = memory[i];
            std::stable_sort(events.begin(), events.end(),
                             [](const MemoryEvent& a, const MemoryEvent& b) { return a.ts < b.ts; });
            trace.memoryEvents().append(events.data(), events.size());
        }
        memory = Column<MemoryEvent>();

        std::sort(counterSamples.begin(), counterSamples.end(),
                  [](const PendingCounter& a, const PendingCounter& b) {
                      if (a.counter != b.counter) return a.counter < b.counter;
                      if (a.ts != b.ts) return a.ts < b.ts;
                      return a.seq < b.seq;
                  });
        for (const PendingCounter& c : counterSamples)
            trace.counter(c.counter).append(c.ts, c.value);
        LargeVector<PendingCounter>().swap(counterSamples);
    }
};

TraceBuilder::TraceBuilder(Trace& trace) : d(std::make_unique<Impl>(trace))
{
    trace.internCategory("cpu_instant_event");
    d->nameMemory = trace.strings().intern("[memory]");
    d->nameOom = trace.strings().intern("[OutOfMemory]");
    d->spansString = trace.strings().intern("Spans");
}

TraceBuilder::~TraceBuilder() = default;

void TraceBuilder::addChunk(ChunkResult& chunk)
{
    d->counters.add(chunk.counters);
    d->mapStrings(chunk);
    for (const RawEvent& e : chunk.events)
        d->route(e);
}

void TraceBuilder::addTopLevel(std::string_view key, std::string_view rawValue)
{
    std::string canon;
    canonicalJson(rawValue, canon);
    TraceMetadata& md = d->trace.metadata();
    const bool known = key == "schemaVersion" || key == "baseTimeNanoseconds" || key == "displayTimeUnit" ||
                       key == "traceName";
    if (known) {
        // A repeated key's last value counts (as with Python's json), usable or not.
        if (key == "schemaVersion") md.schemaVersion.reset();
        if (key == "baseTimeNanoseconds") md.baseTimeNs.reset();
        if (key == "displayTimeUnit") md.displayTimeUnit.clear();
        if (key == "traceName") md.traceName.clear();
        try {
            const auto j = nlohmann::json::parse(canon);
            if (key == "schemaVersion" && j.is_number_integer())
                md.schemaVersion = j.get<int64_t>();
            else if (key == "baseTimeNanoseconds" && j.is_number_integer())
                md.baseTimeNs = j.get<int64_t>();
            else if (key == "displayTimeUnit" && j.is_string())
                md.displayTimeUnit = j.get<std::string>();
            else if (key == "traceName" && j.is_string())
                md.traceName = j.get<std::string>();
        } catch (const std::exception&) {
            // Unparseable metadata stays as text.
        }
    }
    // TraceMetadata::set searches linearly; a file of millions of top-level keys must not make
    // loading quadratic, so the builder keeps its own index of where each key went.
    const auto [it, added] = d->topLevelIndex.try_emplace(std::string(key), md.entries.size());
    if (added)
        md.entries.emplace_back(std::string(key), std::move(canon));
    else
        md.entries[it->second].second = std::move(canon);
}

void TraceBuilder::finish(unsigned threads)
{
    d->closeOpenB();
    // Flow pairing needs only the flow ends, so it overlaps with finishing the tracks.
    FlowLinker linker(d->trace, d->rows);
    std::thread pairing([&] { linker.pair(d->flowEnds); });
    try {
        d->buildTracks(threads);
    } catch (...) {
        pairing.join();
        throw;
    }
    pairing.join();
    d->flowsWithoutSlice = linker.link(d->flowEnds, threads);
    d->flowEnds = Column<FlowEnd>();
    d->applyMetadata();
    d->finishOther();
    d->stages.clear();
    d->trace.updateBounds();
    d->trace.bumpRevision();
}

uint64_t TraceBuilder::eventCount() const
{
    return d->counters.events;
}
const ParseCounters& TraceBuilder::counters() const
{
    return d->counters;
}

std::vector<std::string> TraceBuilder::warnings() const
{
    std::vector<std::string> w;
    auto add = [&w](uint64_t n, const std::string& what) {
        if (n) w.push_back(std::to_string(n) + " " + what);
    };
    add(d->counters.notObjects, "entries of traceEvents are not objects and were skipped");
    add(d->counters.missingPh, "events without \"ph\" were skipped");
    add(d->counters.missingTs, "events without a usable \"ts\" (or flow \"id\") were skipped");
    add(d->missingDur, "complete ('X') events had no \"dur\" and were given zero length");
    add(d->unmatchedE, "'E' events had no matching 'B' and were skipped");
    add(d->unmatchedB, "'B' events had no matching 'E' and were ended at the last time on their row");
    for (int c = 0; c < 128; ++c)
        if (d->unsupported[c])
            add(d->unsupported[c], "events of phase '" + escapeText(std::string(1, char(c))) +
                                       "' are not supported and were skipped");
    return w;
}

} // namespace ks
