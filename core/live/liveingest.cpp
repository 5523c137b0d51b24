#include "core/live/liveingest.h"

#include "core/io/tracereader.h"
#include "core/live/windowfile.h"
#include "core/live/windowmerge.h"
#include "core/live/wirestrings.h"
#include "core/record/clock.h"
#include "core/record/recordtypes.h"

#include <algorithm>
#include <limits>
#include <unistd.h>

namespace ks::live {

namespace {

using record::RecordType;

// Rough bytes of model per kept item, for the memory budget (columns, level index, args handle).
constexpr uint64_t kSliceBytes = 64;
constexpr uint64_t kOtherBytes = 48;
constexpr uint32_t kMaxStringId = 1u << 26;
// An error about a window stays one line whatever the target named or the file held (paths and
// JSON keys are quoted in messages): control characters become \xNN.
std::string oneLine(const std::string& text)
{
    std::string out;
    out.reserve(text.size());
    for (const char ch : text) {
        const auto u = static_cast<unsigned char>(ch);
        if (u >= 0x20 && u != 0x7f) {
            out += ch;
            continue;
        }
        static const char* hex = "0123456789abcdef";
        out += "\\x";
        out += hex[u >> 4];
        out += hex[u & 15];
    }
    return out;
}

// Bookkeeping per string or payload kept (table entry, hash node), on top of its text.
constexpr uint64_t kStringBytes = 32;

} // namespace

struct LiveIngest::ThreadState {
    uint64_t tid = 0;
    TrackId track;
    std::vector<uint32_t> open; // rows begun and not ended; kSkipped for ranges not kept
    TimeNs last = std::numeric_limits<TimeNs>::min();
    static constexpr uint32_t kSkipped = UINT32_MAX;
};

struct LiveIngest::Conn {
    ConnectionInfo info;
    ProcessId process;
    WireStrings strings;
    // Texts not yet parsed (dropped once parsed into payloadArgs).
    std::unordered_map<uint64_t, std::string> payloads;
    std::unordered_map<uint64_t, ArgsRef> payloadArgs;
    std::unordered_map<uint64_t, std::unique_ptr<ThreadState>> threads;
    std::map<std::pair<int, int>, int64_t> totals;
    std::map<std::tuple<int, int, uint64_t>, int64_t> allocations;
    std::map<uint32_t, TimeNs> counterLast; // by counter track
    TrackId steps;

    bool name(uint32_t id, StringId& out) const
    {
        if (id == 0) {
            out = StringPool::kEmpty;
            return true;
        }
        return strings.find(id, out);
    }
};

LiveIngest::LiveIngest(Trace& trace, std::string traceName)
    : m_trace(trace), m_tracks(trace), m_shard(trace.args().shard(0)),
      m_latest(std::numeric_limits<TimeNs>::min()), m_earliest(std::numeric_limits<TimeNs>::max())
{
    // Time 0 of the trace is the whole second before the session started, as Kineto does.
    const int64_t mono = int64_t(record::Clock::monotonicNs());
    const int64_t epoch = record::Clock::realtimeNs();
    m_baseNs = epoch - epoch % 1000000000;
    m_monoToTrace = (epoch - mono) - m_baseNs;
    TraceMetadata& md = trace.metadata();
    md.schemaVersion = 1;
    md.baseTimeNs = m_baseNs;
    md.displayTimeUnit = "ms";
    md.traceName = traceName;
    md.set("schemaVersion", "1");
    md.set("deviceProperties", "[]");
    md.set("displayTimeUnit", "\"ms\"");
    md.set("baseTimeNanoseconds", std::to_string(m_baseNs));
    std::string name = "\"";
    for (char ch : traceName)
        if (ch != '"' && ch != '\\' && uint8_t(ch) >= 0x20) name += ch;
    md.set("traceName", name + "\"");
    m_catUser = trace.internCategory("user_annotation");
    m_catOp = trace.internCategory("cpu_op");
    m_catMark = trace.internCategory("user_mark");
    m_catMemory = trace.internCategory("cpu_instant_event");
    m_nameMemory = trace.strings().intern("[memory]");
    m_catGap = trace.internCategory("kinetoscope_gap");
}

LiveIngest::~LiveIngest() = default;

const ConnectionInfo& LiveIngest::connection(ConnId c) const
{
    return m_conns[c]->info;
}

LiveIngest::ConnId LiveIngest::open(uint32_t peerPid)
{
    auto c = std::make_unique<Conn>();
    c->info.pid = peerPid;
    m_conns.push_back(std::move(c));
    return ConnId(m_conns.size() - 1);
}

ProcessId LiveIngest::process(uint32_t pid, const std::string& name)
{
    auto it = m_processes.find(pid);
    if (it != m_processes.end()) {
        Process& p = m_trace.process(it->second);
        if (!name.empty() && (!p.name.valid() || m_trace.str(p.name).empty()))
            p.name = m_trace.strings().intern(name);
        return it->second;
    }
    const ProcessId id = m_trace.findOrAddProcess(RowKey::fromNumber(pid), ProcessKind::Cpu);
    if (!name.empty()) m_trace.process(id).name = m_trace.strings().intern(name);
    m_trace.process(id).labels = m_trace.strings().intern("CPU");
    m_processes.emplace(pid, id);
    return id;
}

LiveIngest::ThreadState& LiveIngest::thread(Conn& c, uint64_t tid)
{
    auto it = c.threads.find(tid);
    if (it != c.threads.end()) return *it->second;
    auto ts = std::make_unique<ThreadState>();
    ts->tid = tid;
    ts->track = m_tracks.get(c.process, RowKey::fromNumber(int64_t(tid)), TrackKind::CpuThread,
                             LiveTracks::Purpose::Thread, std::string());
    ThreadState& ref = *ts;
    c.threads.emplace(tid, std::move(ts));
    return ref;
}

bool LiveIngest::overBudget()
{
    return m_budget != 0 && m_approxBytes > m_budget;
}

bool LiveIngest::apply(ConnId id, const Frame& f, std::string& error)
{
    Conn& c = *m_conns[id];
    ++m_counters.frames;
    const auto type = FrameType(f.type);
    if (!c.info.hello && type != FrameType::Hello) {
        error = "the stream did not start with a hello frame (first frame: " +
                std::string(frameTypeName(f.type)) + ")";
        return false;
    }
    switch (type) {
    case FrameType::Hello: {
        if (c.info.hello) {
            error = "a second hello frame on one connection";
            return false;
        }
        HelloFrame h;
        if (!decodeHello(f.payload, h, error)) return false;
        c.info.hello = true;
        c.info.pid = h.pid;
        c.info.ppid = h.ppid;
        c.info.program = h.program;
        c.info.host = h.host;
        c.info.options = h.options;
        c.process = process(h.pid, h.program);
        m_dirty = true;
        return true;
    }
    case FrameType::Strings: {
        std::vector<std::pair<uint32_t, std::string_view>> defs;
        if (!decodeStrings(f.payload, defs, error)) return false;
        for (const auto& [sid, text] : defs) {
            if (sid >= kMaxStringId) {
                error = "strings frame: id " + std::to_string(sid) + " is out of range";
                return false;
            }
            // String tables count against the budget; beyond it, names are not kept (the events
            // using them are over the budget too) and show as "(over budget)".
            if (overBudget()) {
                if (!c.strings.refusing()) c.strings.refuse(m_trace.strings().intern("(over budget)"));
                m_counters.overBudgetBytes += text.size();
                continue;
            }
            c.strings.define(sid, m_trace.strings().intern(text));
            m_approxBytes += text.size() + kStringBytes;
        }
        return true;
    }
    case FrameType::Thread: {
        uint64_t tid;
        std::string_view name;
        if (!decodeThread(f.payload, tid, name, error)) return false;
        ThreadState& ts = thread(c, tid);
        if (!name.empty()) m_trace.track(ts.track).name = m_trace.strings().intern(name);
        m_dirty = true;
        return true;
    }
    case FrameType::Payload: {
        uint64_t pid;
        std::string_view json;
        if (!decodePayload(f.payload, pid, json, error)) return false;
        // Kept until parsed, and counted against the budget: beyond it, args are not kept.
        if (overBudget()) {
            m_counters.overBudgetBytes += json.size();
            return true;
        }
        auto [it, fresh] = c.payloads.try_emplace(pid);
        if (!fresh) m_approxBytes -= std::min<uint64_t>(m_approxBytes, it->second.size());
        it->second = std::string(json);
        m_approxBytes += json.size() + kStringBytes;
        return true;
    }
    case FrameType::Events:
        return applyEvents(c, f.payload, error);
    case FrameType::Step: {
        StepFrame s;
        if (!decodeStep(f.payload, s, error)) return false;
        const TimeNs start = toTrace(s.startNs), end = toTrace(s.endNs);
        if (!c.steps.valid()) {
            // A row of its own (tid "steps"), first in its process: a saved trace then names the
            // stepping thread as before and still finds the steps on reload.
            c.steps = m_tracks.get(c.process, RowKey::fromString(m_trace.strings().intern("steps")),
                                   TrackKind::CpuThread, LiveTracks::Purpose::Steps, "Steps");
            m_trace.track(c.steps).sortIndex = -1;
            m_trace.track(c.steps).hasSortIndex = true;
        }
        const std::string name = "ProfilerStep#" + std::to_string(s.number);
        const SliceRef ref = m_tracks.appendClosed(c.steps, start, liveDuration(start, end),
                                                   m_trace.strings().intern(name), m_catUser, {});
        if (ref.valid()) m_trace.steps().push_back(Step{s.number, start, end, ref});
        ++m_counters.steps;
        StepArrival a;
        a.pid = c.info.pid;
        a.number = s.number;
        a.start = start;
        a.end = end;
        a.endMonoNs = s.endNs;
        a.arrivedMonoNs = int64_t(record::Clock::monotonicNs());
        m_steps.push_back(a);
        seen(start);
        seen(end);
        return true;
    }
    case FrameType::Log: {
        LogFrame l;
        if (!decodeLog(f.payload, l, error)) return false;
        m_logs.push_back(LogLine{c.info.pid, l.level, std::move(l.text)});
        return true;
    }
    case FrameType::Window:
        return applyWindow(c, f.payload, error);
    case FrameType::Device:
        return applyDevice(c, f.payload, error);
    case FrameType::Stats:
    case FrameType::Goodbye: {
        StatsFrame s;
        if (type == FrameType::Stats) {
            if (!decodeStats(f.payload, s, error)) return false;
        } else {
            int32_t reason;
            if (!decodeGoodbye(f.payload, reason, s, error)) return false;
            c.info.goodbye = true;
        }
        c.info.stats = s;
        uint64_t dropped = 0;
        for (const auto& other : m_conns)
            dropped += other->info.stats.eventsDropped;
        m_counters.senderDropped = dropped;
        return true;
    }
    case FrameType::Info: {
        std::string_view key, value;
        if (!decodeInfo(f.payload, key, value, error)) return false;
        c.info.info.emplace_back(std::string(key), std::string(value));
        return true;
    }
    case FrameType::Gap: {
        GapFrame g;
        if (!decodeGap(f.payload, g, error)) return false;
        applyGap(c, g);
        return true;
    }
    }
    error = "unknown frame type " + std::to_string(f.type);
    return false;
}

ArgsRef LiveIngest::argsFor(Conn& c, uint64_t payload, int64_t correlation)
{
    ArgsRef parsed;
    if (payload != 0) {
        auto cached = c.payloadArgs.find(payload);
        if (cached != c.payloadArgs.end()) {
            parsed = cached->second;
        } else {
            auto text = c.payloads.find(payload);
            if (text != c.payloads.end()) {
                // Parse through the regular reader so every JSON type is handled as in files.
                const std::string doc = "[{\"ph\":\"i\",\"ts\":0,\"args\":" + text->second + "}]";
                const LoadResult r = loadTraceData(doc, LoadOptions{1});
                if (r.ok()) {
                    for (size_t t = 0; t < r.trace->trackCount(); ++t) {
                        const Track& tr = r.trace->track(TrackId(uint32_t(t)));
                        if (tr.instants.size() == 0) continue;
                        m_shard.begin();
                        r.trace->args().forEach(tr.instants[0].args, [&](const Arg& a) {
                            m_shard.add(a.key, a.value);
                            return true;
                        });
                        parsed = m_shard.finish();
                    }
                }
            }
            c.payloadArgs.emplace(payload, parsed);
            m_approxBytes += kStringBytes;
            // The parsed args are what is kept; the text would only sit there (its bytes stay
            // counted: the args hold about as much).
            if (text != c.payloads.end()) c.payloads.erase(text);
        }
    }
    if (correlation == 0) return parsed;
    m_shard.begin();
    m_shard.addInt("External id", correlation);
    if (parsed.valid())
        m_trace.args().forEach(parsed, [&](const Arg& a) {
            m_shard.add(a.key, a.value);
            return true;
        });
    return m_shard.finish();
}

bool LiveIngest::applyEvents(Conn& c, std::string_view payload, std::string& error)
{
    uint64_t tid;
    if (!decodeEvents(payload, tid, m_records, error)) return false;
    ThreadState& ts = thread(c, tid);
    Track& track = m_trace.track(ts.track);
    SliceTrack& st = track.slices;
    const size_t n = m_records.size();
    // Pass 1: clamped times and, for each begin, its end within this batch.
    m_match.assign(n, -1);
    m_times.resize(n);
    std::vector<int32_t> stack;
    TimeNs last = ts.last;
    for (size_t i = 0; i < n; ++i) {
        const WireRecord& r = m_records[i];
        const TimeNs t = std::max(toTrace(r.timeNs), last);
        m_times[i] = t;
        last = t;
        if (r.type == uint8_t(RecordType::Begin)) {
            stack.push_back(int32_t(i));
        } else if (r.type == uint8_t(RecordType::End) && !stack.empty()) {
            m_match[size_t(stack.back())] = int32_t(i);
            m_match[i] = -2; // ends a range of this batch
            stack.pop_back();
        }
    }
    // Pass 2: in order, so that nesting and closes happen as they did in the target.
    for (size_t i = 0; i < n; ++i) {
        const WireRecord& r = m_records[i];
        const TimeNs t = m_times[i];
        StringId name;
        if (!c.name(r.name, name)) {
            error = "events frame: string id " + std::to_string(r.name) + " was never defined";
            return false;
        }
        switch (RecordType(r.type)) {
        case RecordType::Begin: {
            const bool keep = !overBudget();
            const int32_t end = m_match[i];
            if (!keep) {
                ++m_counters.overBudget;
                if (end < 0) ts.open.push_back(ThreadState::kSkipped);
                break;
            }
            const ArgsRef args = argsFor(c, r.a, r.b);
            // A Begin's device type field is its category (record::RangeCategory).
            const StringId cat = r.deviceType == uint8_t(record::RangeCategory::CpuOp) ? m_catOp : m_catUser;
            if (end >= 0) {
                st.append(t, m_times[size_t(end)] - t, name, cat, args);
            } else {
                ts.open.push_back(st.begin(t, name, cat, args));
            }
            ++m_counters.slices;
            m_approxBytes += kSliceBytes;
            break;
        }
        case RecordType::End:
            if (m_match[i] == -2) break;
            if (!ts.open.empty()) {
                const uint32_t row = ts.open.back();
                ts.open.pop_back();
                if (row != ThreadState::kSkipped) st.close(row, t);
            }
            break;
        case RecordType::Mark:
            if (overBudget()) {
                ++m_counters.overBudget;
                break;
            }
            track.instants.push_back(InstantEvent{t, name, m_catMark, argsFor(c, r.a, 0), 't'});
            m_approxBytes += kOtherBytes;
            break;
        case RecordType::Counter: {
            if (overBudget()) {
                ++m_counters.overBudget;
                break;
            }
            double v;
            std::memcpy(&v, &r.a, sizeof v);
            const CounterTrackId cid = m_trace.findOrAddCounter(c.process, name, name);
            TimeNs& prev =
                c.counterLast.try_emplace(cid.value, std::numeric_limits<TimeNs>::min()).first->second;
            m_trace.counter(cid).append(std::max(t, prev), v);
            prev = std::max(t, prev);
            m_approxBytes += 16;
            break;
        }
        case RecordType::Alloc:
        case RecordType::Free:
            if (overBudget()) {
                ++m_counters.overBudget;
                break;
            }
            memory(c, ts, r, t);
            break;
        case RecordType::Complete: {
            if (overBudget()) {
                ++m_counters.overBudget;
                break;
            }
            const TimeNs end = toTrace(int64_t(r.a));
            const TimeNs start = toTrace(r.timeNs);
            if (m_tracks
                    .appendClosed(ts.track, start, liveDuration(start, end), name, m_catUser,
                                  argsFor(c, 0, r.b))
                    .valid())
                ++m_counters.slices;
            seen(end);
            break;
        }
        case RecordType::Stack:  // never on the wire: the sender keeps stacks to windows
        case RecordType::OpInfo: // nor operator ids
            break;
        }
    }
    m_counters.events += n;
    if (n > 0) {
        ts.last = last;
        st.advanceTime(last);
        seen(m_times[0]);
        seen(last);
    }
    m_counters.late = m_tracks.late();
    return true;
}

void LiveIngest::memory(Conn& c, ThreadState& ts, const WireRecord& r, TimeNs t)
{
    const auto device = std::make_pair(int(r.deviceType), int(r.deviceIndex));
    int64_t& total = c.totals[device];
    int64_t bytes = r.b;
    const auto key = std::make_tuple(device.first, device.second, r.a);
    if (r.type == uint8_t(RecordType::Alloc)) {
        c.allocations[key] = bytes;
        total = addSaturated(total, bytes);
    } else {
        auto it = c.allocations.find(key);
        if (it != c.allocations.end()) {
            if (bytes == 0) bytes = it->second;
            c.allocations.erase(it);
        }
        bytes = negateSaturated(bytes);
        total = addSaturated(total, bytes);
    }
    MemoryEvent e;
    e.ts = t;
    e.track = ts.track;
    e.name = m_nameMemory;
    e.category = m_catMemory;
    e.deviceType = r.deviceType;
    e.deviceId = r.deviceIndex;
    e.hasAddr = true;
    e.addr = r.a;
    e.bytes = bytes;
    e.totalAllocated = total;
    m_shard.begin();
    m_shard.addInt("Total Allocated", total);
    m_shard.addInt("Bytes", bytes);
    m_shard.addUInt("Addr", r.a);
    m_shard.addInt("Device Id", r.deviceIndex);
    m_shard.addInt("Device Type", r.deviceType);
    e.args = m_shard.finish();
    m_trace.memoryEvents().push_back(e);
    m_approxBytes += kOtherBytes;
}

void LiveIngest::applyGap(Conn& c, const GapFrame& g)
{
    ThreadState& ts = thread(c, g.tid);
    SliceTrack& st = m_trace.track(ts.track).slices;
    const TimeNs t = std::max(toTrace(g.fromNs), ts.last);
    // Ranges open across the gap lost their ends in it: end them where the gap starts. Ends that
    // arrive later for them find an empty stack and are ignored.
    while (!ts.open.empty()) {
        const uint32_t row = ts.open.back();
        ts.open.pop_back();
        if (row != ThreadState::kSkipped) st.close(row, t);
    }
    const std::string label = std::to_string(g.dropped) + " events dropped (viewer too slow)";
    m_trace.track(ts.track).instants.push_back(
        InstantEvent{t, m_trace.strings().intern(label), m_catGap, ArgsRef(), 't'});
    ts.last = std::max(t, toTrace(g.toNs));
    st.advanceTime(ts.last);
    ++m_counters.gaps;
    seen(ts.last);
}

bool LiveIngest::applyWindow(Conn& c, std::string_view payload, std::string& error)
{
    WindowFrame w;
    if (!decodeWindow(payload, w, error)) return false;
    WindowPlacement place;
    place.hostProcess = c.process;
    place.monoToTrace = m_monoToTrace;
    place.liveBaseNs = m_baseNs;
    // Only a regular file inside the session's window directory is read (and removed): a target
    // naming a FIFO, a device or someone else's file gets a one-line error for that window.
    std::string resolved, why;
    const int fd = openWindowFile(w.path, m_windowDir, resolved, why);
    if (fd < 0) {
        ++m_counters.windowErrors;
        m_logs.push_back(LogLine{c.info.pid, LogLevel::Error, oneLine(why)});
        return true;
    }
    const WindowMergeResult res =
        mergeWindow(m_trace, m_tracks, m_shard, w, place, "/proc/self/fd/" + std::to_string(fd));
    ::close(fd);
    if (w.removeAfter) ::unlink(resolved.c_str());
    if (!res.ok) {
        ++m_counters.windowErrors;
        m_logs.push_back(LogLine{c.info.pid, LogLevel::Error, oneLine(res.error)});
        return true; // a bad file is the window's problem, not the stream's
    }
    ++m_counters.windows;
    m_counters.windowEvents += res.events;
    m_approxBytes += res.slices * kSliceBytes + (res.events - res.slices) * kOtherBytes;
    m_logs.push_back(LogLine{c.info.pid, LogLevel::Info,
                             "torch.profiler window (steps " + std::to_string(w.firstStep) + "–" +
                                 std::to_string(w.lastStep) + "): " + std::to_string(res.events) +
                                 " events, placed by " + res.alignment});
    if (res.slices) {
        seen(res.first);
        seen(res.last);
    }
    m_counters.late = m_tracks.late();
    return true;
}

bool LiveIngest::applyDevice(Conn& c, std::string_view payload, std::string& error)
{
    std::vector<record::DeviceActivity> acts;
    auto resolve = [&](uint32_t id, std::string_view& out) {
        StringId s;
        if (!c.name(id, s)) return false;
        out = m_trace.str(s);
        return true;
    };
    if (!decodeDevice(payload, acts, resolve, error)) return false;
    std::stable_sort(acts.begin(), acts.end(),
                     [](const record::DeviceActivity& a, const record::DeviceActivity& b) {
                         return a.startNs < b.startNs;
                     });
    using K = record::DeviceActivity::Kind;
    for (const record::DeviceActivity& a : acts) {
        if (overBudget()) {
            ++m_counters.overBudget;
            continue;
        }
        if (a.kind == K::Memory) {
            // Device allocations (CUPTI MEMORY2) join the allocator records of the thread that
            // made them, as windows write them.
            WireRecord r{};
            r.timeNs = a.startNs;
            r.type = uint8_t(a.bytes > 0 ? RecordType::Alloc : RecordType::Free);
            r.deviceType = a.backend == record::DeviceActivity::Backend::Xpu ? 20 : 1;
            r.deviceIndex = int16_t(a.device);
            r.a = a.address;
            r.b = a.bytes > 0 ? a.bytes : -a.bytes;
            const TimeNs t = toTrace(a.startNs);
            memory(c, thread(c, a.hostTid), r, t);
            seen(t);
            continue;
        }
        const bool onDevice =
            a.kind == K::Kernel || a.kind == K::Memcpy || a.kind == K::Memset || a.kind == K::Sync;
        const char* defaultCat = "kernel";
        switch (a.kind) {
        case K::Kernel:
            defaultCat = "kernel";
            break;
        case K::Memcpy:
            defaultCat = "gpu_memcpy";
            break;
        case K::Memset:
            defaultCat = "gpu_memset";
            break;
        case K::Sync:
            defaultCat = "cuda_sync";
            break;
        case K::Runtime:
            defaultCat = "cuda_runtime";
            break;
        case K::Driver:
            defaultCat = "cuda_driver";
            break;
        case K::Overhead:
            defaultCat = "overhead";
            break;
        case K::Range:
            defaultCat = "user_annotation";
            break;
        case K::Mark:
            defaultCat = "user_mark";
            break;
        case K::Memory: // handled above
            break;
        }
        const StringId cat = m_trace.internCategory(a.category.empty() ? std::string_view(defaultCat)
                                                                       : std::string_view(a.category));
        const StringId name = m_trace.strings().intern(a.name);
        m_shard.begin();
        if (onDevice) {
            m_shard.addInt("device", a.device);
            m_shard.addInt("stream", a.stream);
        }
        if (a.correlation != 0) m_shard.addInt("correlation", a.correlation);
        if (a.externalId != 0) m_shard.addInt("External id", a.externalId);
        for (const record::DeviceArg& d : a.args) {
            switch (d.type) {
            case record::DeviceArg::Type::Int:
                m_shard.addInt(d.key, d.i);
                break;
            case record::DeviceArg::Type::Double:
                m_shard.addDouble(d.key, d.d);
                break;
            case record::DeviceArg::Type::String:
                m_shard.addString(d.key, d.text);
                break;
            case record::DeviceArg::Type::Json:
                m_shard.addJson(d.key, d.text);
                break;
            }
        }
        const ArgsRef args = m_shard.finish();
        const TimeNs start = toTrace(a.startNs);
        const TimeNs dur = liveDuration(start, toTrace(a.endNs));
        TrackId track;
        if (onDevice) {
            const ProcessId p = m_trace.findOrAddProcess(RowKey::fromNumber(a.device), ProcessKind::Gpu);
            track = m_tracks.get(p, RowKey::fromNumber(a.stream), TrackKind::GpuStream,
                                 LiveTracks::Purpose::Device, std::string());
            m_trace.track(track).stream = a.stream;
        } else if (a.kind == K::Overhead) {
            const ProcessId p = m_trace.findOrAddProcess(RowKey::fromNumber(-1), ProcessKind::Overhead);
            track = m_tracks.get(p, RowKey::fromNumber(0), TrackKind::Other, LiveTracks::Purpose::Device,
                                 "Overhead");
        } else {
            const bool nvtx = a.kind == K::Range || a.kind == K::Mark;
            track = m_tracks.get(c.process, RowKey::fromNumber(int64_t(a.hostTid)), TrackKind::CpuThread,
                                 LiveTracks::Purpose::DeviceApi,
                                 (nvtx ? "NVTX · thread " : "GPU API · thread ") + std::to_string(a.hostTid));
        }
        if (a.kind == K::Mark) {
            Track& tr = m_trace.track(track);
            if (tr.instants.empty() || tr.instants.back().ts <= start)
                tr.instants.push_back(InstantEvent{start, name, cat, args, 't'});
        } else {
            const SliceRef ref = m_tracks.appendClosed(track, start, dur, name, cat, args);
            if (ref.valid() && (a.correlation != 0 || a.externalId != 0))
                m_trace.linkIds().push_back(SliceLinkIds{ref, a.externalId != 0 ? a.externalId : -1,
                                                         a.correlation != 0 ? a.correlation : -1});
            if (ref.valid()) ++m_counters.slices;
        }
        m_approxBytes += kSliceBytes;
        seen(start);
        seen(start + dur);
    }
    m_counters.events += acts.size();
    m_counters.late = m_tracks.late();
    return true;
}

void LiveIngest::close(ConnId id)
{
    Conn& c = *m_conns[id];
    if (c.info.closed) return;
    c.info.closed = true;
    for (auto& [tid, ts] : c.threads) {
        SliceTrack& st = m_trace.track(ts->track).slices;
        while (!ts->open.empty()) {
            const uint32_t row = ts->open.back();
            ts->open.pop_back();
            if (row != ThreadState::kSkipped) st.close(row, std::max(ts->last, st.start(row)));
        }
    }
    m_dirty = true;
}

void LiveIngest::sample(uint32_t pid, int64_t monoNs, double cpuPercent, double rssMiB)
{
    const ProcessId p = process(pid);
    auto it = m_samplers.find(pid);
    if (it == m_samplers.end()) {
        const StringId name = m_trace.strings().intern("process");
        Sampler s{m_trace.findOrAddCounter(p, name, m_trace.strings().intern("CPU %")),
                  m_trace.findOrAddCounter(p, name, m_trace.strings().intern("RSS MiB"))};
        it = m_samplers.emplace(pid, s).first;
    }
    const TimeNs t = toTrace(monoNs);
    for (const auto& [cid, v] :
         {std::make_pair(it->second.cpu, cpuPercent), std::make_pair(it->second.rss, rssMiB)}) {
        CounterTrack& ct = m_trace.counter(cid);
        if (ct.size() == 0 || ct.ts(ct.size() - 1) <= t) ct.append(t, v);
    }
    seen(t);
}

std::vector<StepArrival> LiveIngest::takeSteps()
{
    std::vector<StepArrival> out;
    out.swap(m_steps);
    return out;
}

std::vector<LogLine> LiveIngest::takeLogs()
{
    std::vector<LogLine> out;
    out.swap(m_logs);
    return out;
}

bool LiveIngest::publish()
{
    if (!m_dirty) return false;
    m_dirty = false;
    if (m_latest >= m_earliest) m_trace.extendBounds(m_earliest, m_latest);
    m_trace.bumpRevision();
    return true;
}

} // namespace ks::live
