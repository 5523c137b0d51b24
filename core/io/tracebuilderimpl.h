#pragma once

// TraceBuilder's state, shared by its two halves: routing parsed events (tracebuilder.cpp) and
// finishing the trace once they are all in (tracebuilderfinish.cpp). Private to core/io.

#include "core/io/rawevent.h"
#include "core/io/rowtable.h"
#include "core/io/tracebuilder.h"
#include "core/util/column.h"
#include "core/util/largeallocator.h"

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace ks {

namespace tracebuild {

// A slice's link ids, kept per track until the track's final row order is known.
struct PendingLink {
    uint32_t row; // staged row
    int64_t externalId;
    int64_t correlation;
};

struct TrackStage {
    Column<PendingLink> links;
    // When finishing moved the rows: per final row, the index of its link in links (rows have one
    // link at most), or UINT32_MAX; the links keep their staged rows.
    LargeVector<uint32_t> linkAt;
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

} // namespace tracebuild

struct TraceBuilder::Impl {
    using PendingLink = tracebuild::PendingLink;
    using TrackStage = tracebuild::TrackStage;
    using PendingMeta = tracebuild::PendingMeta;
    using OpenB = tracebuild::OpenB;
    using PendingCounter = tracebuild::PendingCounter;

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

    // Routing: each parsed event to its track, or to the pending metadata, flows, memory events and
    // counters (tracebuilder.cpp).
    void addMemory(const RawEvent& e, StringId name, uint32_t row);
    void addCounter(const RawEvent& e, StringId name, RowKey pid);
    void route(const RawEvent& e);
    void mapStrings(const ChunkResult& chunk);

    // Finishing, once every chunk is in (tracebuilderfinish.cpp).
    void closeOpenB();
    void buildTracks(unsigned threads);
    void applyMetadata();
    void finishOther();
};

} // namespace ks
