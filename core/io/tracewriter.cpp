#include "core/io/tracewriter.h"

#include "core/io/eventwriter.h"
#include "core/util/atomicfile.h"
#include "core/util/jsonwrite.h"

#include <chrono>

namespace ks {

namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kFlushBytes = 1 << 20;
// Events between looks at the cancel flag and the clock.
constexpr unsigned kCheckEvery = 1024;

// Kineto's header keys, written first in this order; traceName goes last.
constexpr std::string_view kLeadingKeys[] = {"schemaVersion", "deviceProperties"};
constexpr std::string_view kTrailingHeaderKeys[] = {"displayTimeUnit", "baseTimeNanoseconds"};
constexpr std::string_view kLastKey = "traceName";

bool isPlacedKey(std::string_view key)
{
    for (auto k : kLeadingKeys)
        if (k == key) return true;
    for (auto k : kTrailingHeaderKeys)
        if (k == key) return true;
    return key == kLastKey || key == "traceEvents";
}

class TraceWriter {
public:
    TraceWriter(const Trace& trace, const TextSink& sink, const SaveOptions& options)
        : m_trace(trace), m_sink(sink), m_options(options), m_events(trace, m_buffer)
    {
        m_buffer.reserve(kFlushBytes + (64 << 10));
        m_events.limitStacks(options.maxStackTextBytes, options.maxStackBytes);
    }

    SaveResult run();

private:
    bool cancelled() const { return m_options.cancel && m_options.cancel->load(std::memory_order_relaxed); }
    uint64_t countEvents() const;
    void header();
    void member(std::string_view key, std::string_view json);
    bool events();
    bool processEvents(const Process& p, const std::vector<std::vector<uint32_t>>& memoryByTrack,
                       const std::vector<std::vector<uint32_t>>& countersByProcess);
    bool flush();
    // Drains the buffer when it is full and reports progress; false when the write must stop.
    bool step();

    const Trace& m_trace;
    const TextSink& m_sink;
    const SaveOptions& m_options;
    std::string m_buffer;
    EventWriter m_events;
    uint64_t m_jsonBytes = 0;
    uint64_t m_total = 0;
    uint64_t m_droppedFlowEnds = 0;
    uint64_t m_invalidMetadata = 0;
    unsigned m_sinceCheck = 0;
    bool m_stopped = false;
    bool m_cancelled = false;
    Clock::time_point m_lastProgress{};
};

uint64_t TraceWriter::countEvents() const
{
    uint64_t n = m_trace.memoryEvents().size();
    for (size_t i = 0; i < m_trace.flows().size(); ++i) {
        const Flow& f = m_trace.flows()[i];
        n += uint64_t(f.hasFrom && f.fromTrack.valid()) + uint64_t(f.hasTo && f.toTrack.valid());
    }
    for (size_t i = 0; i < m_trace.trackCount(); ++i) {
        const Track& t = m_trace.track(TrackId(uint32_t(i)));
        n += t.slices.size() + t.instants.size();
    }
    for (size_t i = 0; i < m_trace.counterCount(); ++i)
        n += m_trace.counter(CounterTrackId(uint32_t(i))).size();
    for (size_t i = 0; i < m_trace.processCount(); ++i)
        n += m_events.processMetadataCount(m_trace.process(ProcessId(uint32_t(i))));
    return n;
}

bool TraceWriter::flush()
{
    if (m_stopped) return false;
    if (!m_buffer.empty()) {
        m_jsonBytes += m_buffer.size();
        if (!m_sink(m_buffer)) {
            m_stopped = true;
            return false;
        }
        m_buffer.clear();
    }
    return true;
}

bool TraceWriter::step()
{
    if (m_buffer.size() >= kFlushBytes && !flush()) return false;
    if (++m_sinceCheck < kCheckEvery) return !m_stopped;
    m_sinceCheck = 0;
    if (cancelled()) {
        m_cancelled = m_stopped = true;
        return false;
    }
    if (m_options.progress) {
        const auto now = Clock::now();
        if (now - m_lastProgress >= std::chrono::milliseconds(20)) {
            m_lastProgress = now;
            m_options.progress(m_events.eventCount(), m_total);
        }
    }
    return !m_stopped;
}

void TraceWriter::member(std::string_view key, std::string_view json)
{
    m_buffer += "  ";
    appendJsonString(m_buffer, key);
    m_buffer += ": ";
    const uint64_t before = m_events.invalidJson();
    m_events.verbatimJson(json);
    if (m_events.invalidJson() != before) ++m_invalidMetadata;
    m_buffer += ",\n";
}

void TraceWriter::header()
{
    const TraceMetadata& md = m_trace.metadata();
    m_buffer += "{\n";
    for (auto key : kLeadingKeys)
        if (const std::string* v = md.find(key)) member(key, *v);
    for (const auto& [key, value] : md.entries)
        if (!isPlacedKey(key)) member(key, value);
    for (auto key : kTrailingHeaderKeys)
        if (const std::string* v = md.find(key)) member(key, *v);
    m_buffer += "  \"traceEvents\": [";
}

bool TraceWriter::processEvents(const Process& p, const std::vector<std::vector<uint32_t>>& memoryByTrack,
                                const std::vector<std::vector<uint32_t>>& countersByProcess)
{
    for (size_t k = 0; k < p.tracks.size(); ++k) {
        const Track& t = m_trace.track(p.tracks[k]);
        for (size_t row = 0; row < t.slices.size(); ++row) {
            m_events.slice(t, row);
            if (!step()) return false;
        }
        for (size_t i = 0; i < t.instants.size(); ++i) {
            m_events.instant(t, t.instants[i]);
            if (!step()) return false;
        }
        if (t.id.value < memoryByTrack.size()) {
            for (uint32_t m : memoryByTrack[t.id.value]) {
                m_events.memory(m_trace.memoryEvents()[m]);
                if (!step()) return false;
            }
        }
    }
    // Counters after the tracks: a process that has both is created by its first track on reload,
    // which keeps its kind.
    for (uint32_t c : countersByProcess[p.id.value]) {
        const CounterTrack& counter = m_trace.counter(CounterTrackId(c));
        for (size_t i = 0; i < counter.size(); ++i) {
            m_events.counterSample(counter, i);
            if (!step()) return false;
        }
    }
    return true;
}

bool TraceWriter::events()
{
    const size_t processCount = m_trace.processCount();
    std::vector<std::vector<uint32_t>> memoryByTrack(m_trace.trackCount());
    const Column<MemoryEvent>& memory = m_trace.memoryEvents();
    const size_t memoryCount = memory.size();
    for (size_t i = 0; i < memoryCount; ++i) {
        const TrackId t = memory[i].track;
        if (t.valid() && t.value < memoryByTrack.size())
            memoryByTrack[t.value].push_back(uint32_t(i));
        else
            m_events.memory(memory[i]); // no thread: written first, pid/tid 0
    }
    std::vector<std::vector<uint32_t>> countersByProcess(processCount);
    for (size_t i = 0; i < m_trace.counterCount(); ++i) {
        const ProcessId p = m_trace.counter(CounterTrackId(uint32_t(i))).process();
        if (p.valid() && p.value < processCount) countersByProcess[p.value].push_back(uint32_t(i));
    }
    // Process by process, tracks in their order inside the process: reading the output creates
    // processes, and tracks inside each process, in the model's order.
    for (size_t i = 0; i < processCount; ++i)
        if (!processEvents(m_trace.process(ProcessId(uint32_t(i))), memoryByTrack, countersByProcess))
            return false;
    // Flows in model order: the reader pairs the i-th start of a (category, id) with its i-th end
    // in time, and equal times keep file order, so the pairs come back unchanged.
    const Column<Flow>& flows = m_trace.flows();
    const size_t flowCount = flows.size();
    for (size_t i = 0; i < flowCount; ++i) {
        const Flow& f = flows[i];
        for (bool start : {true, false}) {
            const bool present = start ? f.hasFrom : f.hasTo;
            if (!m_events.flowEnd(f, start) && present) ++m_droppedFlowEnds;
            if (!step()) return false;
        }
    }
    for (size_t i = 0; i < processCount; ++i) {
        m_events.processMetadata(m_trace.process(ProcessId(uint32_t(i))));
        if (!step()) return false;
    }
    return true;
}

SaveResult TraceWriter::run()
{
    const auto t0 = Clock::now();
    SaveResult result;
    m_total = countEvents();
    if (cancelled())
        m_cancelled = m_stopped = true;
    else
        header();
    const bool complete = !m_stopped && events();
    if (complete) {
        m_buffer += "\n  ]";
        if (const std::string* name = m_trace.metadata().find(kLastKey)) {
            const uint64_t before = m_events.invalidJson();
            m_buffer += ",\n  \"traceName\": ";
            m_events.verbatimJson(*name);
            if (m_events.invalidJson() != before) ++m_invalidMetadata;
        }
        m_buffer += "\n}\n";
    }
    if (complete && flush()) {
        result.ok = true;
        if (m_options.progress) m_options.progress(m_events.eventCount(), m_total);
    }
    result.cancelled = m_cancelled;
    if (m_cancelled)
        result.error = "cancelled";
    else if (!result.ok)
        result.error = "the output stopped accepting data";
    if (m_droppedFlowEnds)
        result.warnings.push_back(std::to_string(m_droppedFlowEnds) +
                                  " flow ends were left out: their thread has no track in the model");
    const uint64_t invalidArgs = m_events.invalidJson() - m_invalidMetadata;
    if (m_invalidMetadata)
        result.warnings.push_back(std::to_string(m_invalidMetadata) +
                                  " top-level values were not valid JSON and were written as strings");
    if (invalidArgs)
        result.warnings.push_back(std::to_string(invalidArgs) +
                                  " nested arg values were not valid JSON and were written as strings");
    if (m_events.stacksCut())
        result.warnings.push_back(std::to_string(m_events.stacksCut()) + " call stacks longer than " +
                                  std::to_string(m_options.maxStackTextBytes) +
                                  " bytes were cut to that length (marked \"[call stack cut: ...]\")");
    if (m_events.stacksLeftOut())
        result.warnings.push_back(
            std::to_string(m_events.stacksLeftOut()) +
            " call stacks were left out (marked \"[call stack left out: ...]\"): the file's "
            "limit of " +
            std::to_string(m_options.maxStackBytes) + " bytes of call stacks was reached");
    result.stats.events = m_events.eventCount();
    result.stats.jsonBytes = m_jsonBytes;
    result.stats.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return result;
}

} // namespace

SaveResult writeTrace(const Trace& trace, const TextSink& sink, const SaveOptions& options)
{
    TraceWriter writer(trace, sink, options);
    return writer.run();
}

SaveResult saveTraceFile(const Trace& trace, const std::string& path, const SaveOptions& options)
{
    AtomicFile::Options fileOptions;
    fileOptions.gzipLevel = options.gzipLevel;
    AtomicFile file(path, fileOptions);
    SaveResult result;
    if (!file.open()) {
        result.error = file.error();
        return result;
    }
    const auto t0 = Clock::now();
    result = writeTrace(
        trace, [&file](std::string_view text) { return file.write(text); }, options);
    if (result.ok && !file.commit()) result.ok = false;
    if (!result.ok) {
        if (!result.cancelled && !file.error().empty()) result.error = file.error();
        file.discard();
    }
    result.stats.compressed = file.compressed();
    result.stats.fileBytes = result.ok ? file.bytesOut() : 0;
    result.stats.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return result;
}

} // namespace ks
