#include "io/tracebuilder.h"

#include "io/jsonscan.h"
#include "io/numparse.h"
#include "util/hash.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <map>
#include <thread>
#include <unordered_map>

namespace ks {

namespace {

struct PendingSlice {
    TimeNs start;
    TimeNs dur;
    StringId name;
    StringId cat;
    ArgsRef args;
    uint32_t seq; // arrival order within the track, the last sort key
};

struct PendingLink {
    uint32_t seq;
    int64_t externalId;
    int64_t correlation;
};

struct TrackPending {
    std::vector<PendingSlice> slices;
    std::vector<PendingLink> links;
    std::vector<std::pair<uint64_t, InstantEvent>> instants; // (arrival, event)
};

struct FlowEnd {
    char ph;
    bool bindEnclosing;
    uint64_t id;
    StringId cat;
    StringId name;
    RowKey pid;
    RowKey tid;
    TimeNs ts;
};

struct PendingMeta {
    StringId name;
    RowKey pid;
    RowKey tid;
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

struct TrackKeyHash {
    size_t operator()(const std::tuple<RowKey, RowKey, uint8_t>& k) const
    {
        const auto& [p, t, kind] = k;
        uint64_t h = mix64(uint64_t(p.number) ^ (uint64_t(p.string.value) << 32));
        h = mix64(h ^ uint64_t(t.number) ^ (uint64_t(t.string.value) << 32));
        return size_t(h ^ kind);
    }
};

struct PidTidHash {
    size_t operator()(const std::pair<RowKey, RowKey>& k) const
    {
        uint64_t h = mix64(uint64_t(k.first.number) ^ (uint64_t(k.first.string.value) << 32));
        return size_t(mix64(h ^ uint64_t(k.second.number) ^ (uint64_t(k.second.string.value) << 32)));
    }
};

bool stepNumber(std::string_view name, int64_t& n)
{
    // "ProfilerStep#12"; tolerate spaces the way HTA's regex does.
    constexpr std::string_view prefix = "ProfilerStep";
    if (name.substr(0, prefix.size()) != prefix)
        return false;
    size_t i = prefix.size();
    while (i < name.size() && name[i] == ' ')
        ++i;
    if (i >= name.size() || name[i] != '#')
        return false;
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

    std::vector<StringId> remap;
    std::vector<TrackPending> pending; // indexed by TrackId
    std::unordered_map<std::tuple<RowKey, RowKey, uint8_t>, TrackId, TrackKeyHash> trackCache;
    std::vector<FlowEnd> flowEnds;
    std::vector<PendingMeta> metas;
    std::map<std::pair<RowKey, RowKey>, std::vector<OpenB>> openB;
    std::vector<MemoryEvent> memory;
    std::vector<PendingCounter> counterSamples;

    uint64_t unmatchedE = 0;
    uint64_t unmatchedB = 0;
    uint64_t missingDur = 0;
    uint64_t unsupported[128] = {};
    uint64_t flowsWithoutSlice = 0;
    uint64_t missingPidTid = 0;

    StringId catMemoryInstant;
    StringId nameMemory;
    StringId nameOom;

    StringId global(uint32_t local) const { return local == RawEvent::kNoString ? StringId() : remap[local]; }

    RowKey pidKey(const RawEvent& e) const
    {
        return e.pidStr != RawEvent::kNoString ? RowKey::fromString(remap[e.pidStr]) : RowKey::fromNumber(e.pidNum);
    }
    RowKey tidKey(const RawEvent& e) const
    {
        return e.tidStr != RawEvent::kNoString ? RowKey::fromString(remap[e.tidStr]) : RowKey::fromNumber(e.tidNum);
    }

    ProcessKind processKindFor(RowKey pid, TrackKind tk) const
    {
        if (pid.isString()) {
            const std::string_view s = trace.str(pid.string);
            if (s == "Spans")
                return ProcessKind::Spans;
            if (s == "CPU functions")
                return ProcessKind::Cpu;
            return ProcessKind::Other;
        }
        if (pid.number == -1 && tk == TrackKind::Other)
            return ProcessKind::Overhead;
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

    TrackId trackFor(RowKey pid, RowKey tid, TrackKind kind)
    {
        const auto key = std::make_tuple(pid, tid, uint8_t(kind));
        auto it = trackCache.find(key);
        if (it != trackCache.end())
            return it->second;
        const ProcessId p = trace.findOrAddProcess(pid, processKindFor(pid, kind));
        const TrackId t = trace.findOrAddTrack(p, tid, kind);
        trackCache.emplace(key, t);
        if (pending.size() <= t.value)
            pending.resize(t.value + 1);
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
        if (pid.isString() && trace.str(pid.string) == "Spans")
            return TrackKind::Span;
        return TrackKind::CpuThread;
    }

    void addSlice(TrackId t, TimeNs start, TimeNs dur, StringId name, StringId cat, ArgsRef args, int64_t ext,
                  int64_t corr)
    {
        TrackPending& tp = pending[t.value];
        const uint32_t seq = uint32_t(tp.slices.size());
        tp.slices.push_back(PendingSlice{start, dur, name, cat, args, seq});
        if (ext >= 0 || corr >= 0)
            tp.links.push_back(PendingLink{seq, ext, corr});
    }

    void addMemory(const RawEvent& e, StringId name, RowKey pid, RowKey tid)
    {
        MemoryEvent m;
        m.ts = e.ts;
        m.name = name;
        m.category = global(e.cat);
        m.outOfMemory = trace.str(name) == "[OutOfMemory]";
        m.args = e.args;
        m.track = trackFor(pid, tid, TrackKind::CpuThread);
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
        const ProcessId p = trace.findOrAddProcess(pid, pid.isString() ? ProcessKind::Other : ProcessKind::Cpu);
        trace.args().forEach(e.args, [&](const Arg& a) {
            if (!a.value.isNumber())
                return true;
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
        StringId cat = global(e.cat);
        const RowKey pid = pidKey(e);
        const RowKey tid = tidKey(e);
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
            const EventKind kind = trace.kindOf(cat);
            const TrackId t = trackFor(pid, tid, trackKindFor(kind, pid));
            addSlice(t, e.ts, dur, name, cat, e.args, e.externalId, e.correlation);
            return;
        }
        case 'B': {
            if (!e.hasTs) {
                ++counters.missingTs;
                return;
            }
            openB[{pid, tid}].push_back(OpenB{e.ts, name, cat, e.args});
            return;
        }
        case 'E': {
            auto it = openB.find({pid, tid});
            if (it == openB.end() || it->second.empty() || !e.hasTs) {
                ++unmatchedE;
                return;
            }
            const OpenB b = it->second.back();
            it->second.pop_back();
            const EventKind kind = trace.kindOf(b.cat);
            const TrackId t = trackFor(pid, tid, trackKindFor(kind, pid));
            addSlice(t, b.ts, std::max<TimeNs>(0, e.ts - b.ts), b.name, b.cat, b.args.valid() ? b.args : e.args,
                     e.externalId, e.correlation);
            return;
        }
        case 'i':
        case 'I': {
            if (!e.hasTs) {
                ++counters.missingTs;
                return;
            }
            if (name == nameMemory || name == nameOom) {
                addMemory(e, name, pid, tid);
                return;
            }
            const TrackId t = trackFor(pid, tid, TrackKind::CpuThread);
            InstantEvent inst;
            inst.ts = e.ts;
            inst.name = name;
            inst.category = cat;
            inst.args = e.args;
            inst.scope = e.scope ? e.scope : 't';
            pending[t.value].instants.emplace_back(arrival, inst);
            return;
        }
        case 's':
        case 'f':
        case 't': {
            if (!e.hasTs || !e.hasId) {
                ++counters.missingTs;
                return;
            }
            flowEnds.push_back(FlowEnd{e.ph, e.bindEnclosing, e.flowId, cat, name, pid, tid, e.ts});
            return;
        }
        case 'M':
            metas.push_back(PendingMeta{name, pid, tid, e.hasTid, e.args});
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

    // --- finish ---------------------------------------------------------------------------

    void buildTrack(TrackId id, std::vector<SliceLinkIds>& links, std::vector<Step>& steps,
                    const std::vector<int64_t>& stepOfName)
    {
        TrackPending& tp = pending[id.value];
        auto& v = tp.slices;
        auto less = [](const PendingSlice& a, const PendingSlice& b) {
            if (a.start != b.start)
                return a.start < b.start;
            if (a.dur != b.dur)
                return a.dur > b.dur;
            return a.seq < b.seq;
        };
        if (!std::is_sorted(v.begin(), v.end(), less))
            std::sort(v.begin(), v.end(), less);
        Track& track = trace.track(id);
        SliceTrack& st = track.slices;
        std::vector<uint32_t> rowOfSeq;
        if (!tp.links.empty())
            rowOfSeq.resize(v.size());
        for (const PendingSlice& s : v) {
            const uint32_t row = st.append(s.start, s.dur, s.name, s.cat, s.args);
            if (!rowOfSeq.empty())
                rowOfSeq[s.seq] = row;
            if (track.kind == TrackKind::CpuThread && s.name.value < stepOfName.size() &&
                stepOfName[s.name.value] != INT64_MIN)
                steps.push_back(Step{stepOfName[s.name.value], s.start, s.start + s.dur, SliceRef{id, row}});
        }
        for (const PendingLink& l : tp.links)
            links.push_back(SliceLinkIds{SliceRef{id, rowOfSeq[l.seq]}, l.externalId, l.correlation});
        std::vector<PendingSlice>().swap(v);
        std::vector<PendingLink>().swap(tp.links);

        auto& inst = tp.instants;
        std::stable_sort(inst.begin(), inst.end(),
                         [](const auto& a, const auto& b) { return a.second.ts < b.second.ts; });
        for (const auto& [arr, ev] : inst)
            track.instants.push_back(ev);
        if (!inst.empty())
            st.advanceTime(inst.back().second.ts);
        decltype(tp.instants)().swap(inst);
    }

    void buildTracks(unsigned threads)
    {
        // Which names are ProfilerStep#N, computed once over the string pool.
        std::vector<int64_t> stepOfName(trace.strings().size(), INT64_MIN);
        for (size_t i = 0; i < stepOfName.size(); ++i) {
            int64_t n;
            if (stepNumber(trace.strings().view(StringId(uint32_t(i))), n))
                stepOfName[i] = n;
        }
        const size_t n = trace.trackCount();
        pending.resize(n);
        // Largest tracks first so the threads finish together.
        std::vector<uint32_t> order(n);
        for (uint32_t i = 0; i < n; ++i)
            order[i] = i;
        std::sort(order.begin(), order.end(), [this](uint32_t a, uint32_t b) {
            return pending[a].slices.size() > pending[b].slices.size();
        });
        threads = std::max(1u, std::min<unsigned>(threads, unsigned(n)));
        std::vector<std::vector<SliceLinkIds>> links(threads);
        std::vector<std::vector<Step>> steps(threads);
        std::atomic<size_t> next{0};
        auto work = [&](unsigned w) {
            while (true) {
                const size_t i = next.fetch_add(1);
                if (i >= n)
                    return;
                buildTrack(TrackId(order[i]), links[w], steps[w], stepOfName);
            }
        };
        if (threads == 1) {
            work(0);
        } else {
            std::vector<std::thread> pool;
            for (unsigned w = 1; w < threads; ++w)
                pool.emplace_back(work, w);
            work(0);
            for (auto& t : pool)
                t.join();
        }
        std::vector<SliceLinkIds> allLinks;
        for (auto& l : links)
            allLinks.insert(allLinks.end(), l.begin(), l.end());
        std::sort(allLinks.begin(), allLinks.end(),
                  [](const SliceLinkIds& a, const SliceLinkIds& b) { return a.slice < b.slice; });
        trace.linkIds().append(allLinks.data(), allLinks.size());
        std::vector<Step> allSteps;
        for (auto& s : steps)
            allSteps.insert(allSteps.end(), s.begin(), s.end());
        std::sort(allSteps.begin(), allSteps.end(), [](const Step& a, const Step& b) {
            return a.start != b.start ? a.start < b.start : a.number < b.number;
        });
        trace.steps().append(allSteps.data(), allSteps.size());
    }

    std::unordered_map<std::pair<RowKey, RowKey>, std::vector<TrackId>, PidTidHash> tracksByPidTid;
    std::unordered_map<SliceRef, int64_t> correlationOf;
    bool correlationBuilt = false;

    int64_t correlation(SliceRef r)
    {
        if (!correlationBuilt) {
            for (size_t i = 0; i < trace.linkIds().size(); ++i) {
                const SliceLinkIds& l = trace.linkIds()[i];
                if (l.correlation >= 0)
                    correlationOf[l.slice] = l.correlation;
            }
            correlationBuilt = true;
        }
        auto it = correlationOf.find(r);
        return it == correlationOf.end() ? -1 : it->second;
    }

    // Binds a flow end to a slice on its (pid, tid): a slice starting exactly at ts wins (ties: the
    // one whose correlation equals the flow id, then launch/GPU work, then the deepest); otherwise
    // the innermost slice enclosing ts; 'f' without "bp":"e" may bind to the next slice (Chrome v1).
    bool bindEnd(const FlowEnd& fe, TrackId& trackOut, uint32_t& rowOut)
    {
        auto it = tracksByPidTid.find({fe.pid, fe.tid});
        if (it == tracksByPidTid.end())
            return false;
        int bestScore = -1;
        for (TrackId tid : it->second) {
            const SliceTrack& st = trace.track(tid).slices;
            const size_t n = st.size();
            if (n == 0)
                continue;
            // First row with start >= ts.
            size_t lo = 0, hi = n;
            while (lo < hi) {
                const size_t mid = (lo + hi) / 2;
                if (st.start(mid) < fe.ts)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (size_t r = lo; r < n && st.start(r) == fe.ts; ++r) {
                const EventKind k = trace.kindOf(st.category(r));
                int score = 10 + st.depth(r);
                if (isLaunchKind(k) || isGpuWorkKind(k))
                    score += 1000;
                if (k == EventKind::GpuUserAnnotation)
                    score -= 5;
                if (correlation(SliceRef{tid, uint32_t(r)}) == int64_t(fe.id))
                    score += 100000;
                if (score > bestScore) {
                    bestScore = score;
                    trackOut = tid;
                    rowOut = uint32_t(r);
                }
            }
        }
        if (bestScore >= 0)
            return true;
        for (TrackId tid : it->second) {
            const SliceTrack& st = trace.track(tid).slices;
            const int64_t r = st.rowAt(fe.ts);
            if (r >= 0) {
                trackOut = tid;
                rowOut = uint32_t(r);
                return true;
            }
        }
        if (fe.ph == 'f' && !fe.bindEnclosing) {
            for (TrackId tid : it->second) {
                const SliceTrack& st = trace.track(tid).slices;
                size_t lo = 0, hi = st.size();
                while (lo < hi) {
                    const size_t mid = (lo + hi) / 2;
                    if (st.start(mid) < fe.ts)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                if (lo < st.size()) {
                    trackOut = tid;
                    rowOut = uint32_t(lo);
                    return true;
                }
            }
        }
        return false;
    }

    void buildFlows()
    {
        for (size_t i = 0; i < trace.trackCount(); ++i) {
            const Track& t = trace.track(TrackId(uint32_t(i)));
            tracksByPidTid[{trace.process(t.process).pid, t.tid}].push_back(t.id);
        }
        // Pair starts and ends per (category, id), whatever their order in the file (Kineto often
        // writes the kernel's 'f' before the launch's 's'); ids repeat across categories (fwdbwd
        // counts from 1 like small correlation ids). Within one key, the i-th start in time pairs
        // with the i-th end.
        struct Ends {
            std::vector<size_t> starts;
            std::vector<size_t> finishes;
        };
        std::map<std::pair<uint32_t, uint64_t>, Ends> byKey;
        for (size_t i = 0; i < flowEnds.size(); ++i) {
            const FlowEnd& fe = flowEnds[i];
            if (fe.ph == 's')
                byKey[{fe.cat.value, fe.id}].starts.push_back(i);
            else if (fe.ph == 'f')
                byKey[{fe.cat.value, fe.id}].finishes.push_back(i);
            // 't' (flow step) events carry no binding we use.
        }
        std::vector<Flow> flows;
        flows.reserve(flowEnds.size() / 2 + 1);
        auto bindInto = [&](const FlowEnd& fe, TrackId& track, uint32_t& row) {
            if (bindEnd(fe, track, row))
                return;
            ++flowsWithoutSlice;
            row = UINT32_MAX;
            // Keep the row of an unbound end so the flow can still be drawn from its thread.
            auto tIt = tracksByPidTid.find({fe.pid, fe.tid});
            track = (tIt != tracksByPidTid.end() && !tIt->second.empty()) ? tIt->second.front() : TrackId();
        };
        auto byTs = [this](size_t a, size_t b) { return flowEnds[a].ts < flowEnds[b].ts; };
        for (auto& [key, ends] : byKey) {
            std::stable_sort(ends.starts.begin(), ends.starts.end(), byTs);
            std::stable_sort(ends.finishes.begin(), ends.finishes.end(), byTs);
            const size_t n = std::max(ends.starts.size(), ends.finishes.size());
            for (size_t i = 0; i < n; ++i) {
                Flow f;
                f.id = key.second;
                f.category = StringId(key.first);
                if (i < ends.starts.size()) {
                    const FlowEnd& fe = flowEnds[ends.starts[i]];
                    f.name = fe.name;
                    f.fromTs = fe.ts;
                    f.hasFrom = true;
                    bindInto(fe, f.fromTrack, f.fromRow);
                }
                if (i < ends.finishes.size()) {
                    const FlowEnd& fe = flowEnds[ends.finishes[i]];
                    if (!f.name.valid())
                        f.name = fe.name;
                    f.toTs = fe.ts;
                    f.hasTo = true;
                    bindInto(fe, f.toTrack, f.toRow);
                }
                flows.push_back(f);
            }
        }
        std::vector<FlowEnd>().swap(flowEnds);
        trace.flows().append(flows.data(), flows.size());
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
            if (m.name == processName || m.name == processLabels || m.name == processSort) {
                ProcessId p = trace.findProcess(m.pid);
                if (!p.valid())
                    p = trace.addProcess(m.pid, processKindFor(m.pid, TrackKind::CpuThread));
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
                auto it = tracksByPidTid.find({m.pid, m.tid});
                if (it == tracksByPidTid.end())
                    continue; // a name for a thread with no events
                for (TrackId t : it->second) {
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
            if (p.kind == ProcessKind::Overhead)
                continue;
            if (cpu && !gpu)
                p.kind = ProcessKind::Cpu;
            else if (gpu && !cpu)
                p.kind = ProcessKind::Gpu;
            else if (span && !cpu && !gpu)
                p.kind = ProcessKind::Spans;
            if (p.kind == ProcessKind::Gpu && !p.pid.isString())
                p.deviceId = int(p.pid.number);
        }
    }

    void finishOther()
    {
        std::stable_sort(memory.begin(), memory.end(),
                         [](const MemoryEvent& a, const MemoryEvent& b) { return a.ts < b.ts; });
        trace.memoryEvents().append(memory.data(), memory.size());
        std::vector<MemoryEvent>().swap(memory);

        std::sort(counterSamples.begin(), counterSamples.end(), [](const PendingCounter& a, const PendingCounter& b) {
            if (a.counter != b.counter)
                return a.counter < b.counter;
            if (a.ts != b.ts)
                return a.ts < b.ts;
            return a.seq < b.seq;
        });
        for (const PendingCounter& c : counterSamples)
            trace.counter(c.counter).append(c.ts, c.value);
        std::vector<PendingCounter>().swap(counterSamples);
    }

    void closeOpenB()
    {
        for (auto& [key, stack] : openB) {
            for (const OpenB& b : stack) {
                ++unmatchedB;
                const EventKind kind = trace.kindOf(b.cat);
                const TrackId t = trackFor(key.first, key.second, trackKindFor(kind, key.first));
                // Chrome shows an unterminated B until the end of the trace; we end it at the last
                // time seen on its row, or give it zero length.
                TimeNs end = b.ts;
                for (const PendingSlice& s : pending[t.value].slices)
                    end = std::max(end, s.start + s.dur);
                addSlice(t, b.ts, end - b.ts, b.name, b.cat, b.args, -1, -1);
            }
        }
        openB.clear();
    }
};

TraceBuilder::TraceBuilder(Trace& trace) : d(std::make_unique<Impl>(trace))
{
    d->catMemoryInstant = trace.internCategory("cpu_instant_event");
    d->nameMemory = trace.strings().intern("[memory]");
    d->nameOom = trace.strings().intern("[OutOfMemory]");
}

TraceBuilder::~TraceBuilder() = default;

void TraceBuilder::addChunk(ChunkResult& chunk)
{
    d->counters.add(chunk.counters);
    const StringPool& local = *chunk.strings;
    const size_t n = local.size();
    d->remap.resize(n);
    for (size_t i = 0; i < n; ++i) {
        const StringId id{uint32_t(i)};
        d->remap[i] = d->trace.strings().intern(local.view(id), local.hashOf(id));
        if (!d->trace.metadata().legacyCpuFunctions && local.view(id) == "CPU functions")
            d->trace.metadata().legacyCpuFunctions = true;
    }
    // Categories go through the trace once per distinct string so each gets its event kind.
    std::vector<uint8_t> isCat(n, 0);
    for (const RawEvent& e : chunk.events) {
        if (e.cat != RawEvent::kNoString && !isCat[e.cat]) {
            isCat[e.cat] = 1;
            d->trace.internCategory(local.view(StringId(e.cat)));
        }
    }
    for (const RawEvent& e : chunk.events)
        d->route(e);
}

void TraceBuilder::addTopLevel(std::string_view key, std::string_view rawValue)
{
    std::string canon;
    canonicalJson(rawValue, canon);
    TraceMetadata& md = d->trace.metadata();
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
    md.set(std::string(key), std::move(canon));
}

void TraceBuilder::finish(unsigned threads)
{
    d->closeOpenB();
    d->buildTracks(threads);
    d->buildFlows();
    d->applyMetadata();
    d->finishOther();
    d->trace.updateBounds();
    d->trace.bumpRevision();
}

uint64_t TraceBuilder::eventCount() const { return d->counters.events; }
const ParseCounters& TraceBuilder::counters() const { return d->counters; }

std::vector<std::string> TraceBuilder::warnings() const
{
    std::vector<std::string> w;
    auto add = [&w](uint64_t n, const std::string& what) {
        if (n)
            w.push_back(std::to_string(n) + " " + what);
    };
    add(d->counters.notObjects, "entries of traceEvents are not objects and were skipped");
    add(d->counters.missingPh, "events without \"ph\" were skipped");
    add(d->counters.missingTs, "events without a usable \"ts\" (or flow \"id\") were skipped");
    add(d->missingDur, "complete ('X') events had no \"dur\" and were given zero length");
    add(d->unmatchedE, "'E' events had no matching 'B' and were skipped");
    add(d->unmatchedB, "'B' events had no matching 'E' and were ended at the last time on their row");
    for (int c = 0; c < 128; ++c)
        if (d->unsupported[c])
            add(d->unsupported[c], std::string("events of phase '") + char(c) + "' are not supported and were skipped");
    return w;
}

} // namespace ks
