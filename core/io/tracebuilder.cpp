#include "core/io/tracebuilder.h"

#include "core/io/flowlinker.h"
#include "core/io/jsonscan.h"
#include "core/io/tracebuilderimpl.h"
#include "core/util/textescape.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <thread>

namespace ks {

void TraceBuilder::Impl::addMemory(const RawEvent& e, StringId name, uint32_t row)
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

void TraceBuilder::Impl::addCounter(const RawEvent& e, StringId name, RowKey pid)
{
    const ProcessId p = trace.findOrAddProcess(pid, pid.isString() ? ProcessKind::Other : ProcessKind::Cpu);
    trace.args().forEach(e.args, [&](const Arg& a) {
        if (!a.value.isNumber()) return true;
        const StringId series = trace.strings().intern(a.key);
        const CounterTrackId c = trace.findOrAddCounter(p, name, series);
        counterSamples.push_back(PendingCounter{c, e.ts, a.value.toDouble(), arrival});
        return true;
    });
}

void TraceBuilder::Impl::route(const RawEvent& e)
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
        addSlice(trackFor(row, trackKindFor(kindOf(cat), pid)), e.ts, dur, name, cat, e.args, e.externalId,
                 e.correlation);
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

void TraceBuilder::Impl::mapStrings(const ChunkResult& chunk)
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
