#include "ui/document/tracedocument.h"

#include "core/io/etcompanion.h"
#include "core/io/etreader.h"

#include <chrono>

namespace ks::ui {

namespace {

void analyse(TraceDocument& doc, const std::atomic<bool>* cancel)
{
    const Trace& t = *doc.trace;
    doc.adopt(analyseTrace(t, cancel));
    doc.lods.clear();
    doc.lods.reserve(t.trackCount());
    for (size_t i = 0; i < t.trackCount(); ++i) {
        auto lod = std::make_unique<SliceLod>(t.slices(TrackId(uint32_t(i))));
        lod->update();
        doc.lods.push_back(std::move(lod));
    }
    doc.condensed.clear();
    doc.condensed.resize(t.trackCount());
    for (size_t i = 0; i < t.trackCount(); ++i)
        if (t.track(TrackId(uint32_t(i))).kind == TrackKind::CpuThread)
            doc.condensed[i] = CondensedTrack::build(t, TrackId(uint32_t(i)));
}

} // namespace

DocumentAnalysis analyseTrace(const Trace& t, const std::atomic<bool>* cancel, bool withMemoryTimeline)
{
    DocumentAnalysis a;
    a.links.build(t, cancel);
    a.kernels = computeKernelStats(t, &a.links, cancel);
    a.stats = computeTraceStats(t);
    a.memory = buildMemorySeries(t);
    a.htaCounters = hta::buildCounterSeries(t);
    // Always one when asked for, empty without memory events: the Memory page tells "no trace"
    // (null) from "a trace recorded without profile_memory" (empty) by it.
    if (withMemoryTimeline)
        a.memoryTimeline = std::make_shared<const MemoryTimeline>(
            t.memoryEvents().empty() ? MemoryTimeline() : MemoryTimeline::build(t));
    return a;
}

void TraceDocument::adopt(DocumentAnalysis&& a)
{
    links = std::move(a.links);
    kernels = std::move(a.kernels);
    stats = std::move(a.stats);
    memory = std::move(a.memory);
    htaCounters = std::move(a.htaCounters);
    if (a.memoryTimeline) memoryTimeline = std::move(a.memoryTimeline);
}

size_t TraceDocument::bytesUsed() const
{
    size_t n = trace ? trace->bytesUsed() : 0;
    n += links.bytesUsed();
    for (const auto& l : lods)
        n += l->bytesUsed();
    for (const auto& c : condensed)
        if (c) n += c->bytesUsed();
    for (const KernelRow& k : kernels.rows)
        n += k.occurrences.capacity() * sizeof(SliceRef) + sizeof(KernelRow);
    for (const MemorySeries& m : memory)
        n += m.allocated->bytesUsed();
    for (const hta::CounterSeries& c : htaCounters)
        n += c.track->bytesUsed();
    return n;
}

DocumentLoad loadDocument(const QString& path, const std::atomic<bool>& cancel,
                          const std::function<void(uint64_t, uint64_t)>& progress)
{
    DocumentLoad out;
    const auto t0 = std::chrono::steady_clock::now();
    LoadOptions options;
    options.cancel = &cancel;
    options.progress = progress;
    LoadResult r = loadTraceFile(path.toStdString(), options);
    if (r.cancelled || cancel.load()) {
        out.cancelled = true;
        return out;
    }
    if (!r.ok()) {
        out.error = QString::fromStdString(r.error);
        return out;
    }
    auto doc = std::make_shared<TraceDocument>();
    doc->path = path;
    doc->trace = std::move(r.trace);
    doc->loadStats = r.stats;
    doc->warnings = std::move(r.warnings);
    doc->truncated = r.truncated;
    const auto t1 = std::chrono::steady_clock::now();
    doc->loadSeconds = std::chrono::duration<double>(t1 - t0).count();
    analyse(*doc, &cancel);
    if (cancel.load()) {
        out.cancelled = true;
        return out;
    }
    if (!r.executionTrace) {
        const std::string etPath = findExecutionTraceBeside(path.toStdString());
        if (!etPath.empty()) {
            EtLoadResult et = readExecutionTraceFile(etPath);
            if (et.ok()) {
                doc->etLinks = std::make_shared<EtLinks>(EtLinks::link(*doc->trace, *et.trace));
                doc->executionTrace = std::move(et.trace);
                doc->executionTracePath = QString::fromStdString(etPath);
            } else {
                doc->warnings.push_back("The execution trace beside the file (" + etPath +
                                        ") is not read: " + et.error);
            }
        }
    }
    doc->analysisSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    out.document = std::move(doc);
    return out;
}

std::shared_ptr<TraceDocument> makeDocument(std::unique_ptr<Trace> trace, const QString& path)
{
    auto doc = std::make_shared<TraceDocument>();
    doc->path = path;
    doc->trace = std::move(trace);
    const auto t0 = std::chrono::steady_clock::now();
    analyse(*doc, nullptr);
    doc->analysisSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return doc;
}

} // namespace ks::ui
