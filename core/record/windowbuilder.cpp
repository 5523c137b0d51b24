#include "core/record/windowbuilder.h"

#include "core/io/tracebuilder.h"
#include "core/io/tracereader.h"
#include "core/record/clock.h"
#include "core/record/deviceconverter.h"
#include "core/record/fwdbwdlinks.h"
#include "core/record/stacksymbols.h"
#include "core/record/windowemitter.h"
#include "core/util/jsonwrite.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <unordered_map>

namespace ks::record {

namespace {

struct Open {
    uint64_t startTicks;
    uint32_t name;
    uint64_t payload;
    int64_t correlation;
    uint64_t order = 0; // index of the Begin record in its thread: where the slice is emitted
    // Its call stack: native frames at [framesBegin, +frameCount) of the thread's frame list, or
    // an interned text.
    uint32_t framesBegin = 0;
    uint32_t frameCount = 0;
    uint32_t stackText = 0;
    uint8_t category = 0; // RangeCategory
    // Operators (OpInfo): Kineto's "Record function id", "Sequence number", "Fwd thread id".
    bool op = false;
    uint64_t recordFunctionId = 0;
    int64_t sequenceNr = -1;
    uint64_t fwdThreadId = 0;
    uint32_t torchThreadId = 0;
};

// Turns one thread's drained records into slices, instants, counters and memory events, and the
// forward → backward arrows between the operators of all threads.
class ThreadConverter {
public:
    ThreadConverter(WindowEmitter& out, const Trace& trace, const Recorder& recorder)
        : m_out(out), m_trace(trace), m_recorder(recorder), m_options(out.options()), m_shard(out.shard())
    {}

    void addThread(const ThreadRecords& tr, uint64_t pid)
    {
        std::vector<Open> stack;
        m_frames.clear();
        const size_t firstEvent = m_out.beginOrdered();
        // Stack records belong to the Begin right before them; one cut off from it (a drain
        // between the two) is dropped.
        bool afterBegin = false;
        uint64_t index = 0;
        for (const Record& r : tr.records) {
            const uint64_t ns = r.ticks;
            const bool continuesBegin = afterBegin;
            afterBegin = false;
            const uint64_t orderKey = index++;
            m_out.setOrderKey(orderKey);
            switch (r.type) {
            case RecordType::Begin:
                stack.push_back(Open{ns, r.name, r.a, r.b, orderKey});
                stack.back().category = r.deviceType;
                afterBegin = true;
                break;
            case RecordType::OpInfo:
                if (continuesBegin && !stack.empty()) {
                    Open& o = stack.back();
                    o.op = true;
                    o.recordFunctionId = r.ticks;
                    o.sequenceNr = int64_t(r.a);
                    o.fwdThreadId = uint64_t(r.b);
                    o.torchThreadId = r.name;
                    afterBegin = true;
                }
                break;
            case RecordType::Stack:
                if (continuesBegin && !stack.empty()) {
                    addStack(stack.back(), r);
                    afterBegin = true;
                }
                break;
            case RecordType::End:
                // An end without a begin belongs to a range opened before the window.
                if (!stack.empty()) {
                    const Open o = stack.back();
                    stack.pop_back();
                    m_out.setOrderKey(o.order);
                    if (o.startTicks >= m_options.startTicks) addSlice(pid, tr.tid, o, ns);
                }
                break;
            case RecordType::Complete:
                if (ns >= m_options.startTicks) addSlice(pid, tr.tid, Open{ns, r.name, 0, r.b}, r.a);
                break;
            case RecordType::Mark:
                if (m_out.inWindow(ns)) addInstant(pid, tr.tid, ns, r.name, r.a);
                break;
            case RecordType::Counter:
                if (m_out.inWindow(ns)) {
                    double v;
                    __builtin_memcpy(&v, &r.a, sizeof v);
                    addCounter(pid, tr.tid, ns, r.name, v);
                }
                break;
            case RecordType::Alloc:
            case RecordType::Free:
                addMemory(pid, tr.tid, ns, r);
                break;
            }
        }
        // Ranges still open when the window closed end with it.
        while (!stack.empty()) {
            const Open o = stack.back();
            stack.pop_back();
            m_out.setOrderKey(o.order);
            if (o.startTicks >= m_options.startTicks && o.startTicks <= m_options.stopTicks)
                addSlice(pid, tr.tid, o, m_options.stopTicks);
        }
        m_out.endOrdered(firstEvent);
        std::string threadName = "thread " + std::to_string(tr.tid);
        if (!tr.name.empty()) threadName += " (" + tr.name + ")";
        m_out.addMeta(pid, tr.tid, "thread_name", "name", threadName);
    }

    void addProcessMeta(uint64_t pid, const std::string& processName)
    {
        m_out.addMeta(pid, 0, "process_name", "name", processName, false);
        m_out.addMeta(pid, 0, "process_labels", "labels", "CPU", false);
    }

    // Kineto's "fwdbwd" arrows from forward ops to their backward functions: 's' at the forward
    // op, 'f' bound to the enclosing slice ("bp": "e") at the backward one.
    void addFwdBwdFlows()
    {
        const uint32_t cat = m_out.local("fwdbwd");
        for (const FwdBwdLinks::Link& l : m_links.links()) {
            for (const FwdBwdLinks::End* end : {&l.forward, &l.backward}) {
                RawEvent f = m_out.event(end == &l.forward ? 's' : 'f', end->pid, end->tid, end->startTicks);
                f.bindEnclosing = end == &l.backward;
                f.flowId = l.id;
                f.hasId = true;
                f.cat = cat;
                f.name = cat;
                m_out.push(f);
            }
        }
    }

private:
    uint32_t localName(uint32_t recorderName)
    {
        auto it = m_nameCache.find(recorderName);
        if (it != m_nameCache.end()) return it->second;
        const uint32_t id = m_out.local(m_recorder.name(recorderName));
        m_nameCache.emplace(recorderName, id);
        return id;
    }
    // Payloads are JSON objects; their members become the event's args in order. The call stack
    // comes after them, where Kineto puts it (after "Input Dims"/"Input type"), unless the payload
    // already has one.
    // callStack: the "Call stack" text as interned in m_shard (callStackOf()), or an invalid id.
    ArgsRef args(uint64_t payload, int64_t correlation, int64_t* externalId, StringId callStack = {},
                 const Open* op = nullptr)
    {
        if (payload == 0 && correlation == 0 && !callStack.valid() && !op) return {};
        // Parsed before this object begins: parsing builds an object of its own in the shard.
        ArgsRef parsed;
        if (payload != 0)
            parsed = m_payloadArgs.count(payload) ? m_payloadArgs[payload] : parsePayload(payload);
        m_shard.begin();
        if (correlation != 0) {
            m_shard.addInt("External id", correlation);
            if (externalId) *externalId = correlation;
        }
        if (payload != 0) {
            for (const Arg& a : m_trace.args().decode(parsed)) {
                m_shard.add(a.key, a.value);
                if (a.key == "Call stack") callStack = StringId();
            }
        }
        if (callStack.valid()) m_shard.addString("Call stack", callStack);
        if (op) {
            // As Kineto writes them: the autograd ids only for ops that autograd numbered.
            m_shard.addInt("Record function id", int64_t(op->recordFunctionId));
            if (op->sequenceNr >= 0) {
                m_shard.addInt("Fwd thread id", int64_t(op->fwdThreadId));
                m_shard.addInt("Sequence number", op->sequenceNr);
            }
        }
        return m_shard.finish();
    }

    void addStack(Open& o, const Record& r)
    {
        if (r.deviceType == 1) {
            o.stackText = r.name;
            return;
        }
        if (o.frameCount == 0) o.framesBegin = uint32_t(m_frames.size());
        const uint64_t frames[3] = {r.ticks, r.a, uint64_t(r.b)};
        const int k = std::clamp<int>(r.deviceIndex, 0, 3);
        m_frames.insert(m_frames.end(), frames, frames + k);
        o.frameCount += uint32_t(k);
    }

    // Symbolized here, once per distinct address, since the hot path only kept addresses.
    // The stack's text interned in m_shard. A caller's text (the Python stack) that many ops share
    // is looked up and interned once, not copied and hashed again for every op.
    StringId callStackOf(const Open& o)
    {
        if (o.stackText != 0) {
            auto it = m_stackTexts.find(o.stackText);
            if (it == m_stackTexts.end())
                it = m_stackTexts.emplace(o.stackText, m_shard.internString(m_recorder.name(o.stackText)))
                         .first;
            return it->second;
        }
        if (o.frameCount == 0) return {};
        return m_shard.internString(m_symbolizer.callStack(m_frames.data() + o.framesBegin, o.frameCount));
    }

    ArgsRef parsePayload(uint64_t payload)
    {
        // Small documents: parse through the regular reader path for one event so every JSON type
        // is handled the same way as in files.
        const std::string text = "[{\"ph\":\"i\",\"ts\":0,\"args\":" + m_recorder.payload(payload) + "}]";
        const LoadResult r = loadTraceData(text);
        ArgsRef out;
        if (r.ok()) {
            for (size_t t = 0; t < r.trace->trackCount(); ++t) {
                const Track& tr = r.trace->track(TrackId(uint32_t(t)));
                if (tr.instants.size()) {
                    m_shard.begin();
                    for (const Arg& a : r.trace->args().decode(tr.instants[0].args))
                        m_shard.add(a.key, a.value);
                    out = m_shard.finish();
                }
            }
        }
        m_payloadArgs[payload] = out;
        return out;
    }

    void addSlice(uint64_t pid, uint64_t tid, const Open& o, uint64_t endTicks)
    {
        RawEvent e = m_out.event('X', pid, tid, o.startTicks);
        e.dur = std::max<int64_t>(0, Clock::toNs(endTicks) - Clock::toNs(o.startTicks));
        e.name = localName(o.name);
        e.cat = o.category == uint8_t(RangeCategory::CpuOp)            ? m_out.catOp()
                : o.category == uint8_t(RangeCategory::PythonFunction) ? m_out.catPython()
                                                                       : m_out.catUser();
        e.args = args(o.payload, o.correlation, &e.externalId, callStackOf(o), o.op ? &o : nullptr);
        m_out.push(e);
        if (o.op && o.sequenceNr >= 0) {
            const FwdBwdLinks::End end{pid, tid, o.startTicks, endTicks};
            if (o.fwdThreadId == 0)
                m_links.forward(o.sequenceNr, o.torchThreadId, end);
            else
                m_links.backward(o.sequenceNr, o.fwdThreadId, end);
        }
    }

    void addInstant(uint64_t pid, uint64_t tid, uint64_t ns, uint32_t name, uint64_t payload)
    {
        RawEvent e = m_out.event('i', pid, tid, ns);
        e.scope = 't';
        e.name = localName(name);
        e.cat = m_out.catMark();
        e.args = args(payload, 0, nullptr);
        m_out.push(e);
    }

    void addCounter(uint64_t pid, uint64_t tid, uint64_t ns, uint32_t name, double v)
    {
        RawEvent e = m_out.event('C', pid, tid, ns);
        e.name = localName(name);
        m_shard.begin();
        m_shard.addDouble(m_recorder.name(name), v);
        e.args = m_shard.finish();
        m_out.push(e);
    }

    void addMemory(uint64_t pid, uint64_t tid, uint64_t ns, const Record& r)
    {
        const bool alloc = r.type == RecordType::Alloc;
        const int64_t bytes = m_out.updateTotals(r.deviceType, r.deviceIndex, r.a, alloc, r.b);
        if (!m_out.inWindow(ns)) return;
        m_out.addMemoryEvent(m_out.event('i', pid, tid, ns), r.deviceType, r.deviceIndex, r.a, bytes);
    }

    WindowEmitter& m_out;
    const Trace& m_trace;
    const Recorder& m_recorder;
    const WindowOptions& m_options;
    ArgShard& m_shard;
    std::unordered_map<uint32_t, uint32_t> m_nameCache;
    std::unordered_map<uint64_t, ArgsRef> m_payloadArgs;
    std::vector<uint64_t> m_frames; // native frames of the current thread's ranges
    StackSymbolizer m_symbolizer;
    std::unordered_map<uint32_t, StringId> m_stackTexts; // recorder's text id -> m_shard's copy
    FwdBwdLinks m_links;
};

std::string selfComm()
{
    std::ifstream f("/proc/self/comm");
    std::string s;
    std::getline(f, s);
    return s.empty() ? "process" : s;
}

} // namespace

std::unique_ptr<Trace> buildTrace(const std::vector<ThreadRecords>& threads, const Recorder& recorder,
                                  const WindowOptions& options)
{
    auto trace = std::make_unique<Trace>();
    // Kineto publishes a base a little before the data so relative timestamps stay small; whole
    // seconds keep it readable.
    Clock::recalibrate();
    const int64_t epochStart = Clock::toNs(options.startTicks) + Clock::epochOffsetNs();
    const int64_t base = epochStart - epochStart % 1000000000;
    WindowEmitter out(*trace, options, base);
    ThreadConverter host(out, *trace, recorder);
    const uint64_t pid = recorder.pid();
    const std::string processName = options.processName.empty() ? selfComm() : options.processName;
    host.addProcessMeta(pid, processName);
    for (const ThreadRecords& tr : threads)
        host.addThread(tr, pid);
    host.addFwdBwdFlows();
    DeviceConverter device(out);
    for (const DeviceActivity& a : options.device)
        device.add(pid, a);
    device.addRowsMeta(processName);

    TraceBuilder builder(*trace);
    builder.addTopLevel("schemaVersion", "1");
    builder.addTopLevel("deviceProperties", options.deviceProperties);
    for (const auto& [k, v] : options.metadata)
        builder.addTopLevel(k, v);
    builder.addTopLevel("displayTimeUnit", "\"ms\"");
    builder.addTopLevel("baseTimeNanoseconds", std::to_string(base));
    builder.addChunk(out.chunk());
    std::string name;
    appendJsonString(name, options.traceName);
    builder.addTopLevel("traceName", name);
    builder.finish(1);
    return trace;
}

} // namespace ks::record
