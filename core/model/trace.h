#pragma once

#include "core/model/args.h"
#include "core/model/counters.h"
#include "core/model/metadata.h"
#include "core/model/records.h"
#include "core/model/slicetrack.h"
#include "core/model/types.h"
#include "core/util/column.h"
#include "core/util/stringpool.h"

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace ks {

struct Process {
    ProcessId id;
    RowKey pid;
    ProcessKind kind = ProcessKind::Other;
    StringId name;   // process_name metadata
    StringId labels; // process_labels metadata ("CPU", "GPU 0")
    int64_t sortIndex = 0;
    bool hasSortIndex = false;
    int deviceId = -1; // GPU processes: the device index
    Column<TrackId> tracks;
};

class Track {
public:
    TrackId id;
    ProcessId process;
    RowKey tid;
    TrackKind kind = TrackKind::Other;
    StringId name; // thread_name metadata
    int64_t sortIndex = 0;
    bool hasSortIndex = false;
    int64_t stream = -1; // GPU tracks: the stream id

    SliceTrack slices;
    Column<InstantEvent> instants;
};

// The in-memory trace: processes, their tracks of slices, and everything else a Kineto trace holds.
//
// Built by one writer (a reader, or the live ingest); readable from other threads meanwhile: every
// collection is append-only with stable addresses, and counts are published after the data.
class Trace {
public:
    Trace();
    ~Trace();
    Trace(const Trace&) = delete;
    Trace& operator=(const Trace&) = delete;

    StringPool& strings() { return m_strings; }
    const StringPool& strings() const { return m_strings; }
    std::string_view str(StringId id) const { return m_strings.view(id); }
    ArgStore& args() { return m_args; }
    const ArgStore& args() const { return m_args; }

    // Processes and tracks ------------------------------------------------------------------
    size_t processCount() const { return m_processes.size(); }
    const Process& process(ProcessId id) const { return *m_processes[id.value]; }
    Process& process(ProcessId id) { return *m_processes[id.value]; }
    size_t trackCount() const { return m_tracks.size(); }
    const Track& track(TrackId id) const { return *m_tracks[id.value]; }
    Track& track(TrackId id) { return *m_tracks[id.value]; }

    ProcessId findProcess(RowKey pid) const;
    ProcessId addProcess(RowKey pid, ProcessKind kind);
    ProcessId findOrAddProcess(RowKey pid, ProcessKind kind);
    TrackId findTrack(ProcessId process, RowKey tid, TrackKind kind) const;
    TrackId addTrack(ProcessId process, RowKey tid, TrackKind kind);
    TrackId findOrAddTrack(ProcessId process, RowKey tid, TrackKind kind);

    // Human-readable labels for the UI and CLI.
    std::string processLabel(ProcessId id) const;
    std::string trackLabel(TrackId id) const;
    std::string keyText(RowKey key) const;

    // Slices by reference.
    const SliceTrack& slices(TrackId id) const { return track(id).slices; }
    std::string_view sliceName(SliceRef r) const { return str(track(r.track).slices.name(r.index)); }
    EventKind sliceKind(SliceRef r) const { return kindOf(track(r.track).slices.category(r.index)); }

    // Category ids map to event kinds; the table is filled as categories are interned.
    StringId internCategory(std::string_view cat);
    EventKind kindOf(StringId category) const;

    // Other events ----------------------------------------------------------------------------
    Column<Flow>& flows() { return m_flows; }
    const Column<Flow>& flows() const { return m_flows; }
    Column<MemoryEvent>& memoryEvents() { return m_memory; }
    const Column<MemoryEvent>& memoryEvents() const { return m_memory; }
    Column<SliceLinkIds>& linkIds() { return m_linkIds; }
    const Column<SliceLinkIds>& linkIds() const { return m_linkIds; }
    Column<Step>& steps() { return m_steps; }
    const Column<Step>& steps() const { return m_steps; }

    size_t counterCount() const { return m_counters.size(); }
    const CounterTrack& counter(CounterTrackId id) const { return *m_counters[id.value]; }
    CounterTrack& counter(CounterTrackId id) { return *m_counters[id.value]; }
    CounterTrackId findOrAddCounter(ProcessId process, StringId name, StringId series);

    TraceMetadata& metadata() { return m_metadata; }
    const TraceMetadata& metadata() const { return m_metadata; }
    // Unix-epoch ns of time 0 on the trace axis (baseTimeNanoseconds), or 0 when absent.
    int64_t baseTimeNs() const { return m_metadata.baseTimeNs.value_or(0); }

    // Time bounds over everything in the trace; recomputed by updateBounds().
    TimeNs startTime() const { return m_start.load(std::memory_order_relaxed); }
    TimeNs endTime() const { return m_end.load(std::memory_order_relaxed); }
    void updateBounds();
    void extendBounds(TimeNs t0, TimeNs t1);

    // Incremented by writers after each published batch so views can refresh.
    uint64_t revision() const { return m_revision.load(std::memory_order_acquire); }
    void bumpRevision() { m_revision.fetch_add(1, std::memory_order_acq_rel); }

    size_t sliceCount() const;
    size_t bytesUsed() const;

private:
    StringPool m_strings;
    ArgStore m_args;
    Column<Process*> m_processes;
    Column<Track*> m_tracks;
    Column<CounterTrack*> m_counters;
    std::vector<std::unique_ptr<Process>> m_ownedProcesses;
    std::vector<std::unique_ptr<Track>> m_ownedTracks;
    std::vector<std::unique_ptr<CounterTrack>> m_ownedCounters;
    std::map<RowKey, ProcessId> m_processByPid;
    std::map<std::tuple<uint32_t, RowKey, uint8_t>, TrackId> m_trackByKey;
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, CounterTrackId> m_counterByKey;
    Column<uint8_t> m_categoryKinds; // indexed by StringId; 0xff = not a category
    Column<Flow> m_flows;
    Column<MemoryEvent> m_memory;
    Column<SliceLinkIds> m_linkIds;
    Column<Step> m_steps;
    TraceMetadata m_metadata;
    std::atomic<TimeNs> m_start{0};
    std::atomic<TimeNs> m_end{0};
    std::atomic<uint64_t> m_revision{0};
};

} // namespace ks
