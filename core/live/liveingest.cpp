#include "core/live/liveingest.h"

#include "core/live/liveingeststate.h"
#include "core/live/windowfile.h"
#include "core/live/windowmerge.h"
#include "core/record/clock.h"

#include <algorithm>
#include <unistd.h>

namespace ks::live {

namespace {

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

} // namespace

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
    m_catPython = trace.internCategory("python_function");
    m_catMark = trace.internCategory("user_mark");
    m_catMemory = trace.internCategory("cpu_instant_event");
    m_nameMemory = trace.strings().intern("[memory]");
    m_catGap = trace.internCategory("kinetoscope_gap");
    m_catFwdBwd = trace.internCategory("fwdbwd");
    m_nameFwdBwd = trace.strings().intern("fwdbwd");
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
    // Each frame is decoded once into its typed value (live/frames.h), then applied.
    switch (type) {
    case FrameType::Hello: {
        if (c.info.hello) {
            error = "a second hello frame on one connection";
            return false;
        }
        HelloFrame h;
        if (!decodeHello(f.payload, h, error)) return false;
        applyHello(c, h);
        return true;
    }
    case FrameType::Strings: {
        StringsFrame s;
        return decodeStrings(f.payload, s, error) && applyStrings(c, s, error);
    }
    case FrameType::Thread: {
        ThreadFrame t;
        if (!decodeThread(f.payload, t, error)) return false;
        applyThread(c, t);
        return true;
    }
    case FrameType::Payload: {
        PayloadFrame p;
        if (!decodePayload(f.payload, p, error)) return false;
        applyPayload(c, p);
        return true;
    }
    case FrameType::Events:
        // One frame kept across calls: its records are copied, and batches come often.
        return decodeEvents(f.payload, m_events, error) && applyEvents(c, m_events, error);
    case FrameType::Step: {
        StepFrame s;
        if (!decodeStep(f.payload, s, error)) return false;
        applyStep(c, s);
        return true;
    }
    case FrameType::Log: {
        LogFrame l;
        if (!decodeLog(f.payload, l, error)) return false;
        applyLog(c, std::move(l));
        return true;
    }
    case FrameType::Window: {
        WindowFrame w;
        if (!decodeWindow(f.payload, w, error)) return false;
        applyWindow(c, w);
        return true;
    }
    case FrameType::Device: {
        // String ids resolve against this connection's table as it stands now.
        auto resolve = [&](uint32_t sid, std::string_view& out) {
            StringId s;
            if (!c.name(sid, s)) return false;
            out = m_trace.str(s);
            return true;
        };
        DeviceFrame d;
        if (!decodeDevice(f.payload, d, resolve, error)) return false;
        applyDevice(c, d);
        return true;
    }
    case FrameType::Stats: {
        StatsFrame s;
        if (!decodeStats(f.payload, s, error)) return false;
        applyStats(c, s);
        return true;
    }
    case FrameType::Goodbye: {
        GoodbyeFrame g;
        if (!decodeGoodbye(f.payload, g, error)) return false;
        applyGoodbye(c, g);
        return true;
    }
    case FrameType::Info: {
        InfoFrame i;
        if (!decodeInfo(f.payload, i, error)) return false;
        applyInfo(c, i);
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

void LiveIngest::applyHello(Conn& c, const HelloFrame& h)
{
    c.info.hello = true;
    c.info.pid = h.pid;
    c.info.ppid = h.ppid;
    c.info.minor = h.minor;
    c.info.program = h.program;
    c.info.host = h.host;
    c.info.options = h.options;
    c.process = process(h.pid, h.program);
    m_dirty = true;
}

bool LiveIngest::applyStrings(Conn& c, const StringsFrame& s, std::string& error)
{
    for (const auto& [sid, text] : s.defs) {
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
        m_approxBytes += text.size() + kIngestStringBytes;
    }
    return true;
}

void LiveIngest::applyThread(Conn& c, const ThreadFrame& t)
{
    ThreadState& ts = thread(c, t.tid);
    if (!t.name.empty()) m_trace.track(ts.track).name = m_trace.strings().intern(t.name);
    m_dirty = true;
}

void LiveIngest::applyPayload(Conn& c, const PayloadFrame& p)
{
    // Kept until parsed, and counted against the budget: beyond it, args are not kept.
    if (overBudget()) {
        m_counters.overBudgetBytes += p.json.size();
        return;
    }
    auto [it, fresh] = c.payloads.try_emplace(p.id);
    if (!fresh) m_approxBytes -= std::min<uint64_t>(m_approxBytes, it->second.size());
    it->second = std::string(p.json);
    m_approxBytes += p.json.size() + kIngestStringBytes;
}

void LiveIngest::applyStep(Conn& c, const StepFrame& s)
{
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
}

void LiveIngest::applyLog(Conn& c, LogFrame&& l)
{
    m_logs.push_back(LogLine{c.info.pid, l.level, std::move(l.text)});
}

void LiveIngest::applyStats(Conn& c, const StatsFrame& s)
{
    c.info.stats = s;
    uint64_t dropped = 0;
    for (const auto& other : m_conns)
        dropped += other->info.stats.eventsDropped;
    m_counters.senderDropped = dropped;
}

void LiveIngest::applyGoodbye(Conn& c, const GoodbyeFrame& g)
{
    c.info.goodbye = true;
    applyStats(c, g.stats); // a goodbye carries the connection's last stats
}

void LiveIngest::applyInfo(Conn& c, const InfoFrame& i)
{
    c.info.info.emplace_back(std::string(i.key), std::string(i.value));
}

void LiveIngest::applyWindow(Conn& c, const WindowFrame& w)
{
    WindowPlacement place;
    place.hostProcess = c.process;
    place.monoToTrace = m_monoToTrace;
    place.liveBaseNs = m_baseNs;
    // The window's text and the trace made of it both live in memory for a while: each may take
    // half of what the budget has left.
    if (m_budget != 0) {
        const uint64_t left = m_budget > m_approxBytes ? m_budget - m_approxBytes : 0;
        place.maxBytes = std::max<uint64_t>(left / 2, 1);
    }
    // Only a regular file inside the session's window directory is read (and removed): a target
    // naming a FIFO, a device or someone else's file gets a one-line error for that window.
    std::string resolved, why;
    const int fd = openWindowFile(w.path, m_windowDir, resolved, why);
    if (fd < 0) {
        ++m_counters.windowErrors;
        m_logs.push_back(LogLine{c.info.pid, LogLevel::Error, oneLine(why)});
        return;
    }
    const WindowMergeResult res =
        mergeWindow(m_trace, m_tracks, m_shard, w, place, "/proc/self/fd/" + std::to_string(fd));
    ::close(fd);
    if (w.removeAfter) ::unlink(resolved.c_str());
    if (!res.ok) {
        ++m_counters.windowErrors;
        m_logs.push_back(LogLine{c.info.pid, LogLevel::Error, oneLine(res.error)});
        return; // a bad file is the window's problem: the stream goes on
    }
    ++m_counters.windows;
    m_counters.windowEvents += res.events;
    m_approxBytes += res.slices * kIngestSliceBytes + (res.events - res.slices) * kIngestOtherBytes;
    m_logs.push_back(LogLine{c.info.pid, LogLevel::Info,
                             "torch.profiler window (steps " + std::to_string(w.firstStep) + "–" +
                                 std::to_string(w.lastStep) + "): " + std::to_string(res.events) +
                                 " events, placed by " + res.alignment});
    if (res.slices) {
        seen(res.first);
        seen(res.last);
    }
    m_counters.late = m_tracks.late();
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
