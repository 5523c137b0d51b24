#pragma once

#include "core/analysis/hta/htacountertracks.h"
#include "core/analysis/memory/memoryseries.h"
#include "core/analysis/memory/memorytimeline.h"
#include "core/analysis/timeline/condensedtrack.h"
#include "core/analysis/timeline/etlinker.h"
#include "core/analysis/timeline/kernelstats.h"
#include "core/analysis/timeline/linkindex.h"
#include "core/analysis/timeline/lod.h"
#include "core/analysis/timeline/tracestats.h"
#include "core/io/tracereader.h"
#include "core/model/trace.h"

#include <QString>
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ks::ui {

// The analyses of a trace that are worth computing once: computed off the GUI thread, possibly
// again and again while a live session's trace grows.
struct DocumentAnalysis {
    LinkIndex links;
    KernelStats kernels;
    TraceStats stats;
    std::vector<MemorySeries> memory;
    std::shared_ptr<const MemoryTimeline> memoryTimeline;
    std::vector<hta::CounterSeries> htaCounters;
};
// The memory timeline (allocation pairing and categories) wants a trace that no longer grows, so a
// live session asks for it only once the target has ended.
DocumentAnalysis analyseTrace(const Trace& trace, const std::atomic<bool>* cancel = nullptr,
                              bool withMemoryTimeline = true);

// One loaded trace with everything the views need that is worth computing once, off the GUI
// thread: link index, kernel table, counts, memory series, LOD indexes. Read-only once built; shared
// (shared_ptr) so background jobs such as a search keep it alive while they run.
class TraceDocument {
public:
    QString path;
    std::unique_ptr<Trace> trace;
    LoadStats loadStats;
    std::vector<std::string> warnings;
    bool truncated = false;

    LinkIndex links;
    KernelStats kernels;
    TraceStats stats;
    std::vector<MemorySeries> memory;
    // Allocations and categories for the memory page; null when the trace has no allocator events.
    std::shared_ptr<const MemoryTimeline> memoryTimeline;
    // HTA's queue length per stream and memcpy bandwidth, drawn as counter tracks.
    std::vector<hta::CounterSeries> htaCounters;
    std::vector<std::unique_ptr<SliceLod>> lods; // by TrackId
    // By TrackId: the track without its deep Python frames, null where none are left out. Empty in
    // live sessions (their tracks grow).
    std::vector<std::unique_ptr<CondensedTrack>> condensed;
    // The execution trace recorded beside the file under a known name (io/etcompanion.h), linked to
    // its ops; null when there is none.
    std::shared_ptr<const ExecutionTrace> executionTrace;
    std::shared_ptr<const EtLinks> etLinks;
    QString executionTracePath;

    double loadSeconds = 0;     // reading and building the model
    double analysisSeconds = 0; // everything above after that

    const SliceLod& lod(TrackId id) const { return *lods[id.value]; }
    const CondensedTrack* condensedTrack(TrackId id) const
    {
        return id.value < condensed.size() ? condensed[id.value].get() : nullptr;
    }
    // Takes fresh analyses (live sessions; GUI thread, then rebuild the timeline's rows: memory
    // counters move).
    void adopt(DocumentAnalysis&& a);
    size_t bytesUsed() const;
};

struct DocumentLoad {
    std::shared_ptr<TraceDocument> document; // null on error or cancel
    QString error;
    bool cancelled = false;
};

// Reads a trace file and runs the analyses. Runs on a worker thread; progress(done, total) reports
// input bytes and is called from that thread.
DocumentLoad loadDocument(const QString& path, const std::atomic<bool>& cancel,
                          const std::function<void(uint64_t, uint64_t)>& progress);

// Builds a document around an existing trace (benchmarks and tests that generate traces).
std::shared_ptr<TraceDocument> makeDocument(std::unique_ptr<Trace> trace, const QString& path = {});

} // namespace ks::ui
