#include "core/live/windowmerge.h"

#include "core/io/bytesource.h"
#include "core/io/tracereader.h"
#include "core/live/livetime.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <vector>

namespace ks::live {

namespace {

bool profilerStepLabel(std::string_view name, int64_t& label)
{
    constexpr std::string_view prefix = "ProfilerStep#";
    if (name.substr(0, prefix.size()) != prefix) return false;
    const std::string_view digits = name.substr(prefix.size());
    if (digits.empty() || digits.size() > 18) return false;
    int64_t v = 0;
    for (char c : digits) {
        if (c < '0' || c > '9') return false;
        v = v * 10 + (c - '0');
    }
    label = v;
    return true;
}

// A slice's name; empty for a slice without one (the reader keeps an "X" event that has no name
// with an invalid name id, which the string pool must not be asked for).
std::string_view nameOf(const Trace& w, StringId id)
{
    return id.valid() ? w.str(id) : std::string_view();
}

// Window time + delta = live time.
bool windowDelta(const Trace& w, const WindowFrame& frame, const WindowPlacement& place, int64_t& delta,
                 std::string& how)
{
    std::map<int64_t, int64_t> anchors;
    std::map<int64_t, int> seen;
    for (const auto& [label, t] : frame.anchors) {
        anchors[label] = t;
        ++seen[label];
    }
    // torch 1.13 names two steps ProfilerStep#0; a label given twice cannot anchor anything.
    for (const auto& [label, n] : seen)
        if (n > 1) anchors.erase(label);
    std::vector<int64_t> deltas;
    for (size_t i = 0; i < w.trackCount() && !anchors.empty(); ++i) {
        const Track& tr = w.track(TrackId(uint32_t(i)));
        if (tr.kind == TrackKind::GpuStream || tr.kind == TrackKind::GpuAnnotation) continue;
        const SliceTrack& st = tr.slices;
        for (size_t r = 0; r < st.size(); ++r) {
            int64_t label;
            if (!profilerStepLabel(nameOf(w, st.name(r)), label)) continue;
            auto it = anchors.find(label);
            if (it != anchors.end())
                deltas.push_back(
                    addLiveTime(addLiveTime(it->second, place.monoToTrace), -clampLiveTime(st.start(r))));
        }
    }
    if (!deltas.empty()) {
        std::nth_element(deltas.begin(), deltas.begin() + long(deltas.size() / 2), deltas.end());
        delta = deltas[deltas.size() / 2];
        how = "steps";
        return true;
    }
    if (w.baseTimeNs() > 0) {
        delta = w.baseTimeNs() - place.liveBaseNs;
        how = "epoch";
        return true;
    }
    // Kineto without baseTimeNanoseconds writes Unix-epoch microseconds.
    if (w.startTime() > int64_t(1e17)) {
        delta = -place.liveBaseNs;
        how = "epoch";
        return true;
    }
    if (frame.startNs > 0) {
        // The legacy profiler counts from its own start, which is when the window started.
        delta = addLiveTime(addLiveTime(frame.startNs, place.monoToTrace), -clampLiveTime(w.startTime()));
        how = "start";
        return true;
    }
    return false;
}

class Copier {
public:
    Copier(Trace& live, LiveTracks& tracks, ArgShard& shard, const Trace& w, const WindowPlacement& place,
           int64_t delta)
        : m_live(live), m_tracks(tracks), m_shard(shard), m_w(w), m_place(place), m_delta(delta)
    {}

    void run(WindowMergeResult& res)
    {
        m_rowMap.resize(m_w.trackCount());
        m_trackMap.assign(m_w.trackCount(), TrackId());
        for (size_t i = 0; i < m_w.trackCount(); ++i)
            copyTrack(TrackId(uint32_t(i)), res);
        copyFlows(res);
        copyMemory(res);
        copyCounters(res);
    }

private:
    StringId str(StringId windowId)
    {
        if (!windowId.valid()) return windowId;
        if (windowId.value >= m_strings.size()) m_strings.resize(windowId.value + 1, StringId());
        StringId& s = m_strings[windowId.value];
        if (!s.valid()) s = m_live.strings().intern(m_w.str(windowId));
        return s;
    }
    StringId cat(StringId windowId)
    {
        if (!windowId.valid()) return windowId;
        auto it = m_cats.find(windowId.value);
        if (it != m_cats.end()) return it->second;
        const StringId id = m_live.internCategory(m_w.str(windowId));
        m_cats.emplace(windowId.value, id);
        return id;
    }
    ArgsRef args(ArgsRef ref)
    {
        if (!ref.valid()) return ref;
        m_shard.begin();
        m_w.args().forEach(ref, [&](const Arg& a) {
            m_shard.add(a.key, a.value);
            return true;
        });
        return m_shard.finish();
    }

    ProcessId processFor(const Process& p)
    {
        if (p.kind == ProcessKind::Gpu) {
            const int64_t dev = p.deviceId >= 0 ? p.deviceId : (p.pid.isString() ? 0 : p.pid.number);
            return m_live.findOrAddProcess(RowKey::fromNumber(dev), ProcessKind::Gpu);
        }
        return m_place.hostProcess;
    }

    void copyTrack(TrackId id, WindowMergeResult& res)
    {
        const Track& src = m_w.track(id);
        if (src.kind == TrackKind::Span) return; // "PyTorch Profiler (0)": the window itself
        if (src.slices.empty() && src.instants.empty()) return;
        const Process& proc = m_w.process(src.process);
        const ProcessId dstProc = processFor(proc);
        RowKey tid = src.tid;
        if (tid.isString()) tid = RowKey::fromString(m_live.strings().intern(m_w.str(tid.string)));
        const std::string label = "torch.profiler · " + m_w.trackLabel(id);
        const TrackId dst = m_tracks.get(dstProc, tid, src.kind, LiveTracks::Purpose::Window, label);
        if (src.stream >= 0) m_live.track(dst).stream = src.stream;
        m_trackMap[id.value] = dst;
        std::vector<SliceRef>& rows = m_rowMap[id.value];
        const SliceTrack& st = src.slices;
        rows.assign(st.size(), SliceRef{});
        for (size_t r = 0; r < st.size(); ++r) {
            int64_t label;
            if (profilerStepLabel(nameOf(m_w, st.name(r)), label)) continue;
            const TimeNs start = addLiveTime(st.start(r), m_delta);
            const TimeNs dur = st.end(r) - st.start(r);
            rows[r] = m_tracks.appendClosed(dst, start, dur, str(st.name(r)), cat(st.category(r)),
                                            args(st.args(r)));
            if (!rows[r].valid()) continue;
            ++res.slices;
            ++res.events;
            res.first = res.slices == 1 ? start : std::min(res.first, start);
            res.last = std::max(res.last, start + dur);
        }
        for (size_t k = 0; k < src.instants.size(); ++k) {
            InstantEvent e = src.instants[k];
            e.ts = addLiveTime(e.ts, m_delta);
            e.name = str(e.name);
            e.category = cat(e.category);
            e.args = args(e.args);
            Track& into = m_live.track(dst);
            if (!into.instants.empty() && e.ts < into.instants.back().ts) continue;
            into.instants.push_back(e);
            ++res.events;
        }
    }

    void copyFlows(WindowMergeResult& res)
    {
        auto map = [&](SliceRef r) -> SliceRef {
            if (!r.valid() || r.track.value >= m_rowMap.size()) return SliceRef{};
            const auto& rows = m_rowMap[r.track.value];
            return r.index < rows.size() ? rows[r.index] : SliceRef{};
        };
        for (size_t i = 0; i < m_w.flows().size(); ++i) {
            Flow f = m_w.flows()[i];
            const SliceRef from = map(f.from()), to = map(f.to());
            if (!from.valid() || !to.valid()) continue;
            f.fromTrack = from.track;
            f.fromRow = from.index;
            f.toTrack = to.track;
            f.toRow = to.index;
            f.fromTs = addLiveTime(f.fromTs, m_delta);
            f.toTs = addLiveTime(f.toTs, m_delta);
            f.category = str(f.category);
            f.name = str(f.name);
            m_live.flows().push_back(f);
            ++res.events;
        }
        for (size_t i = 0; i < m_w.linkIds().size(); ++i) {
            SliceLinkIds l = m_w.linkIds()[i];
            l.slice = map(l.slice);
            if (l.slice.valid()) m_live.linkIds().push_back(l);
        }
    }

    void copyMemory(WindowMergeResult& res)
    {
        for (size_t i = 0; i < m_w.memoryEvents().size(); ++i) {
            MemoryEvent m = m_w.memoryEvents()[i];
            if (!m.track.valid() || m.track.value >= m_trackMap.size()) continue;
            TrackId dst = m_trackMap[m.track.value];
            if (!dst.valid()) {
                // A thread with only memory events has no window row yet.
                const Track& src = m_w.track(m.track);
                const Process& proc = m_w.process(src.process);
                RowKey tid = src.tid;
                if (tid.isString()) tid = RowKey::fromString(m_live.strings().intern(m_w.str(tid.string)));
                dst = m_tracks.get(processFor(proc), tid, src.kind, LiveTracks::Purpose::Window,
                                   "torch.profiler · " + m_w.trackLabel(m.track));
                m_trackMap[m.track.value] = dst;
            }
            m.track = dst;
            m.ts = addLiveTime(m.ts, m_delta);
            m.name = str(m.name);
            m.category = cat(m.category);
            m.args = args(m.args);
            m_live.memoryEvents().push_back(m);
            ++res.events;
        }
    }

    void copyCounters(WindowMergeResult& res)
    {
        for (size_t i = 0; i < m_w.counterCount(); ++i) {
            const CounterTrack& c = m_w.counter(CounterTrackId(uint32_t(i)));
            const ProcessId p = processFor(m_w.process(c.process()));
            CounterTrack& dst = m_live.counter(m_live.findOrAddCounter(p, str(c.name()), str(c.series())));
            for (size_t k = 0; k < c.size(); ++k) {
                const TimeNs t = addLiveTime(c.ts(k), m_delta);
                if (dst.size() && t < dst.ts(dst.size() - 1)) continue;
                dst.append(t, c.value(k));
                ++res.events;
            }
        }
    }

    Trace& m_live;
    LiveTracks& m_tracks;
    ArgShard& m_shard;
    const Trace& m_w;
    const WindowPlacement& m_place;
    int64_t m_delta;
    std::vector<StringId> m_strings;
    std::unordered_map<uint32_t, StringId> m_cats;
    std::vector<std::vector<SliceRef>> m_rowMap;
    std::vector<TrackId> m_trackMap;
};

} // namespace

WindowMergeResult mergeWindow(Trace& live, LiveTracks& tracks, ArgShard& shard, const WindowFrame& window,
                              const WindowPlacement& placement, const std::string& readPath)
{
    WindowMergeResult res;
    LoadOptions lo;
    lo.threads = 1; // the ingest thread must not take every core from the target
    LoadResult r;
    if (placement.maxBytes == 0) {
        r = loadTraceFile(readPath.empty() ? window.path : readPath, lo);
    } else {
        // Read through the byte source (which undoes gzip) up to the limit, then load the text: a
        // sparse 20 GB file or a gzip bomb costs at most the limit, and the file cannot grow between
        // a size check and the load.
        std::string error, text;
        auto source = openByteSource(readPath.empty() ? window.path : readPath, error);
        if (!source) {
            res.error = "cannot read window " + window.path + ": " + error;
            return res;
        }
        try {
            const uint64_t limit = placement.maxBytes;
            text.resize(size_t(std::min<uint64_t>(limit + 1, 1 << 20)));
            size_t have = 0;
            while (size_t got = source->read(text.data() + have, text.size() - have)) {
                have += got;
                if (have > limit) {
                    res.error = "window " + window.path + " is larger than the " +
                                std::to_string(limit >> 20) +
                                " MB the session's memory budget has left for it: not merged";
                    return res;
                }
                if (have == text.size()) text.resize(size_t(std::min<uint64_t>(limit + 1, text.size() * 2)));
            }
            text.resize(have);
        } catch (const std::exception& e) {
            res.error = "cannot read window " + window.path + ": " + e.what();
            return res;
        }
        r = loadTraceData(text, lo);
    }
    if (!r.ok()) {
        res.error = "cannot read window " + window.path + ": " + r.error;
        return res;
    }
    int64_t delta = 0;
    if (!windowDelta(*r.trace, window, placement, delta, res.alignment)) {
        res.error =
            "cannot place window " + window.path + " on the timeline (no step anchors, no start time)";
        return res;
    }
    Copier(live, tracks, shard, *r.trace, placement, delta).run(res);
    if (res.slices > 0) live.extendBounds(res.first, res.last);
    res.ok = true;
    return res;
}

} // namespace ks::live
