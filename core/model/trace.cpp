#include "core/model/trace.h"

#include <algorithm>
#include <limits>

namespace ks {

Trace::Trace() = default;
Trace::~Trace() = default;

ProcessId Trace::findProcess(RowKey pid) const
{
    auto it = m_processByPid.find(pid);
    return it == m_processByPid.end() ? ProcessId() : it->second;
}

ProcessId Trace::addProcess(RowKey pid, ProcessKind kind)
{
    auto p = std::make_unique<Process>();
    p->id = ProcessId(uint32_t(m_processes.size()));
    p->pid = pid;
    p->kind = kind;
    if (kind == ProcessKind::Gpu && !pid.isString()) p->deviceId = int(pid.number);
    const ProcessId id = p->id;
    m_processByPid[pid] = id;
    m_processes.push_back(p.get());
    m_ownedProcesses.push_back(std::move(p));
    return id;
}

ProcessId Trace::findOrAddProcess(RowKey pid, ProcessKind kind)
{
    const ProcessId id = findProcess(pid);
    return id.valid() ? id : addProcess(pid, kind);
}

TrackId Trace::findTrack(ProcessId process, RowKey tid, TrackKind kind) const
{
    auto it = m_trackByKey.find({process.value, tid, uint8_t(kind)});
    return it == m_trackByKey.end() ? TrackId() : it->second;
}

TrackId Trace::addTrack(ProcessId process, RowKey tid, TrackKind kind)
{
    auto t = std::make_unique<Track>();
    t->id = TrackId(uint32_t(m_tracks.size()));
    t->process = process;
    t->tid = tid;
    t->kind = kind;
    if (kind == TrackKind::GpuStream || kind == TrackKind::GpuAnnotation) {
        if (!tid.isString()) {
            t->stream = tid.number;
        } else {
            // 2020 traces name GPU rows "stream 7".
            const std::string_view s = str(tid.string);
            const size_t sp = s.find_last_of(' ');
            if (sp != std::string_view::npos) {
                int64_t v = 0;
                bool ok = sp + 1 < s.size();
                for (size_t i = sp + 1; i < s.size() && ok; ++i) {
                    ok = s[i] >= '0' && s[i] <= '9';
                    v = v * 10 + (s[i] - '0');
                }
                if (ok) t->stream = v;
            }
        }
    }
    const TrackId id = t->id;
    m_trackByKey[{process.value, tid, uint8_t(kind)}] = id;
    m_tracks.push_back(t.get());
    m_ownedTracks.push_back(std::move(t));
    m_processes[process.value]->tracks.push_back(id);
    return id;
}

TrackId Trace::findOrAddTrack(ProcessId process, RowKey tid, TrackKind kind)
{
    const TrackId id = findTrack(process, tid, kind);
    return id.valid() ? id : addTrack(process, tid, kind);
}

CounterTrackId Trace::findOrAddCounter(ProcessId process, StringId name, StringId series)
{
    const auto key = std::make_tuple(process.value, name.value, series.value);
    auto it = m_counterByKey.find(key);
    if (it != m_counterByKey.end()) return it->second;
    const CounterTrackId id(uint32_t(m_counters.size()));
    auto c = std::make_unique<CounterTrack>(process, name, series);
    m_counters.push_back(c.get());
    m_ownedCounters.push_back(std::move(c));
    m_counterByKey[key] = id;
    return id;
}

std::string Trace::keyText(RowKey key) const
{
    return key.isString() ? std::string(str(key.string)) : std::to_string(key.number);
}

std::string Trace::processLabel(ProcessId id) const
{
    const Process& p = process(id);
    std::string out;
    switch (p.kind) {
    case ProcessKind::Gpu:
        out = p.deviceId >= 0 ? "GPU " + std::to_string(p.deviceId) : "GPU " + keyText(p.pid);
        if (p.name.valid() && !str(p.name).empty()) out += " (" + std::string(str(p.name)) + ")";
        return out;
    case ProcessKind::Spans:
        return "Spans";
    case ProcessKind::Overhead:
        return p.name.valid() && !str(p.name).empty() ? std::string(str(p.name)) : "Overhead";
    default:
        break;
    }
    if (p.name.valid() && !str(p.name).empty())
        out = std::string(str(p.name)) + " (" + keyText(p.pid) + ")";
    else
        out = "Process " + keyText(p.pid);
    return out;
}

std::string Trace::trackLabel(TrackId id) const
{
    const Track& t = track(id);
    switch (t.kind) {
    case TrackKind::GpuStream:
        return t.stream >= 0 ? "Stream " + std::to_string(t.stream) : "Stream " + keyText(t.tid);
    case TrackKind::GpuAnnotation:
        return (t.stream >= 0 ? "Stream " + std::to_string(t.stream) : "Stream " + keyText(t.tid)) +
               " annotations";
    default:
        break;
    }
    if (t.name.valid() && !str(t.name).empty()) return std::string(str(t.name));
    return "Thread " + keyText(t.tid);
}

StringId Trace::internCategory(std::string_view cat)
{
    const StringId id = m_strings.intern(cat);
    while (m_categoryKinds.size() <= id.value)
        m_categoryKinds.push_back(0xff);
    if (m_categoryKinds[id.value] == 0xff) m_categoryKinds[id.value] = uint8_t(classifyCategory(cat));
    return id;
}

EventKind Trace::kindOf(StringId category) const
{
    if (!category.valid()) return EventKind::Other;
    if (category.value < m_categoryKinds.size()) {
        const uint8_t k = m_categoryKinds[category.value];
        if (k != 0xff) return EventKind(k);
    }
    return classifyCategory(str(category));
}

void Trace::updateBounds()
{
    TimeNs lo = std::numeric_limits<TimeNs>::max();
    TimeNs hi = std::numeric_limits<TimeNs>::min();
    for (size_t i = 0; i < m_tracks.size(); ++i) {
        const Track& t = *m_tracks[i];
        // Span rows ("PyTorch Profiler (0)") cover the whole window and do not extend it.
        if (!t.slices.empty()) {
            lo = std::min(lo, t.slices.minTime());
            hi = std::max(hi, t.slices.maxTime());
        }
        if (!t.instants.empty()) {
            for (size_t k = 0; k < t.instants.size(); ++k) {
                lo = std::min(lo, t.instants[k].ts);
                hi = std::max(hi, t.instants[k].ts);
            }
        }
    }
    for (size_t i = 0; i < m_counters.size(); ++i) {
        const CounterTrack& c = *m_counters[i];
        if (c.size()) {
            lo = std::min(lo, c.ts(0));
            hi = std::max(hi, c.ts(c.size() - 1));
        }
    }
    for (size_t i = 0; i < m_memory.size(); ++i) {
        lo = std::min(lo, m_memory[i].ts);
        hi = std::max(hi, m_memory[i].ts);
    }
    if (lo > hi) lo = hi = 0;
    m_start.store(lo, std::memory_order_relaxed);
    m_end.store(hi, std::memory_order_relaxed);
}

void Trace::extendBounds(TimeNs t0, TimeNs t1)
{
    if (sliceCount() == 0 && m_start.load() == 0 && m_end.load() == 0) {
        m_start.store(t0);
        m_end.store(t1);
        return;
    }
    if (t0 < m_start.load(std::memory_order_relaxed)) m_start.store(t0, std::memory_order_relaxed);
    if (t1 > m_end.load(std::memory_order_relaxed)) m_end.store(t1, std::memory_order_relaxed);
}

size_t Trace::sliceCount() const
{
    size_t n = 0;
    for (size_t i = 0; i < m_tracks.size(); ++i)
        n += m_tracks[i]->slices.size();
    return n;
}

size_t Trace::bytesUsed() const
{
    size_t n = m_strings.bytesUsed() + m_args.bytesUsed() + m_flows.bytesUsed() + m_memory.bytesUsed() +
               m_linkIds.bytesUsed() + m_steps.bytesUsed();
    for (size_t i = 0; i < m_tracks.size(); ++i)
        n += m_tracks[i]->slices.bytesUsed() + m_tracks[i]->instants.bytesUsed() + sizeof(Track);
    for (size_t i = 0; i < m_counters.size(); ++i)
        n += m_counters[i]->bytesUsed();
    return n;
}

} // namespace ks
