#include "core/io/flowlinker.h"
#include "core/io/numparse.h"
#include "core/io/tracebuilderimpl.h"
#include "core/util/nearsort.h"
#include "core/util/parallelfor.h"

#include <algorithm>

namespace ks {

namespace {

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

void TraceBuilder::Impl::closeOpenB()
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

void TraceBuilder::Impl::buildTracks(unsigned threads)
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
        if (!newRow.empty() && !stage.links.empty()) {
            // Rows moved: the links follow them, in row order. An index by row (4 B a row) leads
            // there without two sorted copies of the links (24 B each).
            stage.linkAt.assign(st.size(), UINT32_MAX);
            bool unique = true;
            for (size_t i = 0; i < stage.links.size() && unique; ++i) {
                uint32_t& at = stage.linkAt[newRow[stage.links[i].row]];
                unique = at == UINT32_MAX;
                at = uint32_t(i);
            }
            if (!unique) {
                // A row with two links (not made by the reader today): a stable sort keeps both.
                LargeVector<uint32_t>().swap(stage.linkAt);
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
        st.releaseUnusedTails();
        track.instants.releaseUnusedTail();
    });
    // Link ids go out sorted by slice reference (track, then row), which readers rely on.
    std::vector<SliceLinkIds> buffer;
    for (size_t t = 0; t < n; ++t) {
        Column<PendingLink>& links = stages[t].links;
        LargeVector<uint32_t>& linkAt = stages[t].linkAt;
        if (!linkAt.empty()) {
            buffer.clear();
            for (size_t r = 0; r < linkAt.size(); ++r) {
                if (linkAt[r] == UINT32_MAX) continue;
                const PendingLink& p = links[linkAt[r]];
                buffer.push_back(
                    SliceLinkIds{SliceRef{TrackId(uint32_t(t)), uint32_t(r)}, p.externalId, p.correlation});
                if (buffer.size() == 4096) {
                    trace.linkIds().append(buffer.data(), buffer.size());
                    buffer.clear();
                }
            }
            trace.linkIds().append(buffer.data(), buffer.size());
            LargeVector<uint32_t>().swap(linkAt);
        } else {
            links.forEachSpan(0, links.size(), [&](const PendingLink* p, size_t count, size_t) {
                buffer.clear();
                for (size_t i = 0; i < count; ++i)
                    buffer.push_back(SliceLinkIds{SliceRef{TrackId(uint32_t(t)), p[i].row}, p[i].externalId,
                                                  p[i].correlation});
                trace.linkIds().append(buffer.data(), buffer.size());
            });
        }
        links = Column<PendingLink>();
    }
    std::vector<Step> allSteps;
    for (auto& s : steps)
        allSteps.insert(allSteps.end(), s.begin(), s.end());
    std::sort(allSteps.begin(), allSteps.end(), [](const Step& a, const Step& b) {
        return a.start != b.start ? a.start < b.start : a.number < b.number;
    });
    trace.steps().append(allSteps.data(), allSteps.size());
    trace.linkIds().releaseUnusedTail();
    trace.flows().releaseUnusedTail();
    trace.memoryEvents().releaseUnusedTail();
}

void TraceBuilder::Impl::applyMetadata()
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

void TraceBuilder::Impl::finishOther()
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

} // namespace ks
