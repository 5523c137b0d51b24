#pragma once

#include "core/live/frames.h"
#include "core/live/framestream.h"
#include "core/live/livetime.h"
#include "core/live/livetracks.h"
#include "core/model/trace.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ks::live {

struct IngestCounters {
    uint64_t frames = 0;
    uint64_t events = 0; // records applied (ranges count twice: begin and end)
    uint64_t slices = 0;
    uint64_t deviceSlices = 0; // of those, GPU kernels, copies and fills on a device's streams
    uint64_t steps = 0;
    uint64_t windows = 0;
    uint64_t windowEvents = 0;
    uint64_t windowErrors = 0;
    uint64_t senderDropped = 0; // dropped in the targets (their last stats, summed)
    uint64_t gaps = 0;
    uint64_t late = 0;            // slices that went to a "(late)" row
    uint64_t overBudget = 0;      // events not kept because the session reached its memory budget
    uint64_t overBudgetBytes = 0; // string and payload bytes not kept (over the budget)
};

// A step as it reached the model, for the step strip and the latency report.
struct StepArrival {
    uint32_t pid = 0;
    int64_t number = 0;
    TimeNs start = 0; // trace time
    TimeNs end = 0;
    int64_t endMonoNs = 0;     // when it ended in the target
    int64_t arrivedMonoNs = 0; // when it was in the model
};

struct LogLine {
    uint32_t pid = 0;
    LogLevel level = LogLevel::Info;
    std::string text;
};

// What one connection said about itself.
struct ConnectionInfo {
    uint32_t pid = 0;
    uint32_t ppid = 0;
    std::string program;
    std::string host;
    std::string options;
    uint16_t minor = 0; // the sender's protocol minor version
    bool hello = false;
    bool goodbye = false;
    bool closed = false;
    StatsFrame stats;
    std::vector<std::pair<std::string, std::string>> info;
};

// Applies live frames to a Trace. Single writer: one thread calls everything here, while other
// threads read the trace (the model is append-only with published counts). Times from the targets
// are CLOCK_MONOTONIC ns; the trace's axis is Unix-epoch ns minus baseTimeNanoseconds, set once at
// construction from this process's own clocks (same machine, same monotonic clock).
//
// Per thread, ranges are kept in start order: a batch's begin/end pairs become finished slices at
// once, ranges still running become open slices (SliceTrack::begin) closed by a later batch. Small
// backward steps of a thread's clock (TSC recalibration) are clamped. Everything else that can arrive
// out of order (device activity, window files) goes through LiveTracks.
class LiveIngest {
public:
    explicit LiveIngest(Trace& trace, std::string traceName = "live session");
    ~LiveIngest();

    // Clamped to ±2^61 ns (live/livetime.h): targets may send any int64.
    TimeNs toTrace(int64_t monoNs) const { return addLiveTime(monoNs, m_monoToTrace); }
    int64_t monoToTrace() const { return m_monoToTrace; }
    int64_t baseNs() const { return m_baseNs; }

    using ConnId = uint32_t;
    ConnId open(uint32_t peerPid);
    // Applies one frame. False on a protocol error (with the reason); the connection must close.
    bool apply(ConnId c, const Frame& frame, std::string& error);
    // The connection ended: open ranges end at the last time seen on their thread.
    void close(ConnId c);
    const ConnectionInfo& connection(ConnId c) const;
    size_t connectionCount() const { return m_conns.size(); }

    // The target's process (created with a name when first seen).
    ProcessId process(uint32_t pid, const std::string& name = {});
    // CPU and memory samples taken by the viewer from /proc.
    void sample(uint32_t pid, int64_t monoNs, double cpuPercent, double rssMiB);
    // Events beyond this many bytes of model are dropped and counted (0: no limit).
    void setBudget(uint64_t bytes) { m_budget = bytes; }
    // Only files in this directory are deleted after a window merge (the session's own temp dir).
    void setWindowDir(std::string dir) { m_windowDir = std::move(dir); }

    const IngestCounters& counters() const { return m_counters; }
    // Moves out what arrived since the last call.
    std::vector<StepArrival> takeSteps();
    std::vector<LogLine> takeLogs();
    // Latest time seen anywhere (trace axis).
    TimeNs latest() const { return m_latest; }
    // Extends the trace's bounds and bumps its revision when something changed since the last call.
    bool publish();

private:
    struct ThreadState;
    struct Conn;

    ThreadState& thread(Conn& c, uint64_t tid);
    // apply() decodes each frame once and hands it to the one of these for its type. Those that
    // return bool can find the frame inconsistent with the connection (error set; it must close).
    // liveingest.cpp: the connection's own frames, steps, logs, stats and windows.
    void applyHello(Conn& c, const HelloFrame& h);
    bool applyStrings(Conn& c, const StringsFrame& s, std::string& error);
    void applyThread(Conn& c, const ThreadFrame& t);
    void applyPayload(Conn& c, const PayloadFrame& p);
    void applyStep(Conn& c, const StepFrame& s);
    void applyLog(Conn& c, LogFrame&& l);
    void applyWindow(Conn& c, const WindowFrame& w);
    void applyStats(Conn& c, const StatsFrame& s);
    void applyGoodbye(Conn& c, const GoodbyeFrame& g);
    void applyInfo(Conn& c, const InfoFrame& i);
    // liveingestevents.cpp: a thread's recorded events and the gaps in them.
    bool applyEvents(Conn& c, const EventsFrame& e, std::string& error);
    void applyGap(Conn& c, const GapFrame& g);
    // op: the OpInfo record after an operator's Begin (its ids become Kineto's args), or null.
    // callStack: the "Call stack" text as interned in m_shard (stackArg()), or an invalid id.
    ArgsRef argsFor(Conn& c, uint64_t payload, int64_t correlation, const WireRecord* op = nullptr,
                    StringId callStack = {});
    // The shard's copy of a "Call stack" text the trace holds as text: interned once per text, so
    // ops sharing a stack share one copy (and its bytes count against the budget once).
    StringId stackArg(StringId text);
    // Kineto's fwdbwd arrow between an operator of the forward pass and each backward function
    // autograd ran for it (record/fwdbwdlinks.h has the rule).
    // Forward ops are keyed at their Begin; backward ops (their key in ThreadState::openBackward
    // until then) are linked by endBackward() when they end.
    void linkAutograd(Conn& c, ThreadState& ts, SliceRef slice, TimeNs start, bool ended,
                      const WireRecord& op);
    void endBackward(Conn& c, SliceRef slice, TimeNs start, const std::pair<int64_t, uint64_t>& key);
    void addFwdBwdFlow(SliceRef from, TimeNs fromTs, SliceRef to, TimeNs toTs);
    // liveingestdevice.cpp: device activity (sorted by start in place) and memory events.
    void applyDevice(Conn& c, DeviceFrame& d);
    void memory(Conn& c, ThreadState& ts, const WireRecord& r, TimeNs t);
    bool overBudget();
    void seen(TimeNs t)
    {
        if (t > m_latest) m_latest = t;
        if (t < m_earliest) m_earliest = t;
        m_dirty = true;
    }

    Trace& m_trace;
    LiveTracks m_tracks;
    ArgShard& m_shard;
    int64_t m_monoToTrace = 0;
    int64_t m_baseNs = 0;
    std::vector<std::unique_ptr<Conn>> m_conns;
    std::map<uint32_t, ProcessId> m_processes;
    struct Sampler {
        CounterTrackId cpu;
        CounterTrackId rss;
    };
    std::map<uint32_t, Sampler> m_samplers;
    IngestCounters m_counters;
    std::vector<StepArrival> m_steps;
    std::vector<LogLine> m_logs;
    std::string m_windowDir;
    uint64_t m_budget = 0;
    uint64_t m_approxBytes = 0;
    std::unordered_map<uint32_t, StringId> m_stackArgs; // trace string id -> m_shard's copy
    TimeNs m_latest;
    TimeNs m_earliest;
    bool m_dirty = false;
    StringId m_catUser, m_catOp, m_catPython, m_catMark, m_catMemory, m_nameMemory, m_catGap, m_catFwdBwd,
        m_nameFwdBwd;
    // Flow ids of the arrows made here, far above the ids torch.profiler windows bring along, so
    // that a saved session pairs each flow's ends back as they were.
    uint64_t m_nextFlowId = uint64_t(1) << 40;
    EventsFrame m_events; // reused: decoding copies the records into it
    std::vector<int32_t> m_match;
    std::vector<TimeNs> m_times;
    // applyEvents(): End records of this batch that end a backward op begun in it, to their rows.
    std::unordered_map<size_t, uint32_t> m_endsBackward;
};

} // namespace ks::live
