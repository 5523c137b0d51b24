#include "core/record/windowbuilder.h"

#include "core/io/rawevent.h"
#include "core/io/tracebuilder.h"
#include "core/io/tracereader.h"
#include "core/record/clock.h"
#include "core/record/fwdbwdlinks.h"
#include "core/record/stacksymbols.h"
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

class Converter {
public:
    Converter(Trace& trace, const Recorder& recorder, const WindowOptions& o, int64_t baseTimeNs)
        : m_trace(trace), m_recorder(recorder), m_options(o), m_base(baseTimeNs),
          m_shard(trace.args().shard(0))
    {
        m_chunk.strings = std::make_unique<StringPool>();
        m_epoch = Clock::epochOffsetNs();
        m_catUser = local("user_annotation");
        m_catOp = local("cpu_op");
        m_catPython = local("python_function");
        m_catInstant = local("cpu_instant_event");
        m_catMark = local("user_mark");
        m_nameMemory = local("[memory]");
    }

    ChunkResult& chunk() { return m_chunk; }

    void addThread(const ThreadRecords& tr, uint64_t pid)
    {
        std::vector<Open> stack;
        m_frames.clear();
        const size_t firstEvent = m_chunk.events.size();
        m_orderKeys.clear();
        m_keyed = true;
        // Stack records belong to the Begin right before them; one cut off from it (a drain
        // between the two) is dropped.
        bool afterBegin = false;
        uint64_t index = 0;
        for (const Record& r : tr.records) {
            const uint64_t ns = r.ticks;
            const bool continuesBegin = afterBegin;
            afterBegin = false;
            m_orderKey = index++;
            switch (r.type) {
            case RecordType::Begin:
                stack.push_back(Open{ns, r.name, r.a, r.b, m_orderKey});
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
                    m_orderKey = o.order;
                    if (o.startTicks >= m_options.startTicks) addSlice(pid, tr.tid, o, ns);
                }
                break;
            case RecordType::Complete:
                if (ns >= m_options.startTicks) addSlice(pid, tr.tid, Open{ns, r.name, 0, r.b}, r.a);
                break;
            case RecordType::Mark:
                if (inWindow(ns)) addInstant(pid, tr.tid, ns, r.name, r.a);
                break;
            case RecordType::Counter:
                if (inWindow(ns)) {
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
            m_orderKey = o.order;
            if (o.startTicks >= m_options.startTicks && o.startTicks <= m_options.stopTicks)
                addSlice(pid, tr.tid, o, m_options.stopTicks);
        }
        m_keyed = false;
        emitInBeginOrder(firstEvent);
        std::string threadName = "thread " + std::to_string(tr.tid);
        if (!tr.name.empty()) threadName += " (" + tr.name + ")";
        addMeta(pid, tr.tid, "thread_name", "name", threadName);
    }

    void addDevice(uint64_t pid, const DeviceActivity& a)
    {
        using K = DeviceActivity::Kind;
        if (a.kind == K::Memory) {
            addDeviceMemory(pid, a);
            return;
        }
        const bool onDevice =
            a.kind == K::Kernel || a.kind == K::Memcpy || a.kind == K::Memset || a.kind == K::Sync;
        const uint64_t p = onDevice ? uint64_t(a.device) : (a.kind == K::Overhead ? uint64_t(-1) : pid);
        const uint64_t t = onDevice ? uint64_t(a.stream) : (a.kind == K::Overhead ? 0 : a.hostTid);
        if (onDevice) m_deviceRows[{a.device, a.stream}] = a.backend;
        if (a.kind == K::Overhead) m_overhead = true;
        const int64_t startFile = a.startNs + m_epoch - m_base;
        RawEvent e;
        e.ph = a.kind == K::Mark ? 'i' : 'X';
        e.scope = 't';
        e.ts = startFile;
        e.hasTs = true;
        e.dur = a.kind == K::Mark ? -1 : std::max<int64_t>(0, a.endNs - a.startNs);
        e.pidNum = int64_t(p);
        e.tidNum = int64_t(t);
        e.hasPid = e.hasTid = true;
        e.name = local(a.name);
        e.cat = local(a.category.empty() ? std::string_view(defaultCategory(a.kind))
                                         : std::string_view(a.category));
        m_shard.begin();
        if (a.ownArgs) {
            // Kineto writes the linked op's id first, then the activity's own metadata.
            if (a.externalId != 0) m_shard.addInt("External id", a.externalId);
        } else {
            if (onDevice) {
                m_shard.addInt("device", a.device);
                m_shard.addInt("stream", a.stream);
            }
            if (a.correlation != 0) m_shard.addInt("correlation", a.correlation);
            if (a.externalId != 0) m_shard.addInt("External id", a.externalId);
        }
        if (a.correlation != 0) e.correlation = a.correlation;
        if (a.externalId != 0) e.externalId = a.externalId;
        for (const DeviceArg& d : a.args) {
            switch (d.type) {
            case DeviceArg::Type::Int:
                m_shard.addInt(d.key, d.i);
                break;
            case DeviceArg::Type::Double:
                m_shard.addDouble(d.key, d.d);
                break;
            case DeviceArg::Type::String:
                m_shard.addString(d.key, d.text);
                break;
            case DeviceArg::Type::Json:
                m_shard.addJson(d.key, d.text);
                break;
            }
        }
        e.args = m_shard.finish();
        push(e);
        // Launch -> GPU work arrows, as Kineto writes them: 's' on the launching call, 'f' with
        // "bp": "e" on the kernel, both with the correlation id.
        if (a.correlation != 0 && ((onDevice && a.kind != K::Sync) || a.flowStart)) {
            RawEvent f;
            f.ph = onDevice ? 'f' : 's';
            f.bindEnclosing = onDevice;
            f.ts = startFile;
            f.hasTs = true;
            f.pidNum = e.pidNum;
            f.tidNum = e.tidNum;
            f.hasPid = f.hasTid = true;
            f.flowId = uint64_t(a.correlation);
            f.hasId = true;
            f.cat = local("ac2g");
            f.name = local("ac2g");
            push(f);
        }
    }

    // Names the device rows the way Kineto does: one process per device labelled "GPU <n>" and
    // sorted after the host processes, one thread per stream ("stream <n> "; "Stream <n>" for XPU
    // queues), and the CUPTI overhead process.
    void addDeviceRowsMeta(const std::string& processName)
    {
        std::map<int32_t, DeviceActivity::Backend> devices;
        for (const auto& [row, backend] : m_deviceRows)
            devices.emplace(row.first, backend);
        for (const auto& [device, backend] : devices) {
            const uint64_t p = uint64_t(int64_t(device));
            const char* label = backend == DeviceActivity::Backend::Xpu ? "XPU " : "GPU ";
            addMeta(p, 0, "process_name", "name", processName, false);
            addMeta(p, 0, "process_labels", "labels", label + std::to_string(device), false);
            addMetaInt(p, 0, "process_sort_index", 16777216 + int64_t(device), false);
        }
        for (const auto& [row, backend] : m_deviceRows) {
            const uint64_t p = uint64_t(int64_t(row.first));
            const uint64_t t = uint64_t(row.second);
            const std::string name = backend == DeviceActivity::Backend::Xpu
                                         ? "Stream " + std::to_string(row.second)
                                         : "stream " + std::to_string(row.second) + " ";
            addMeta(p, t, "thread_name", "name", name);
            addMetaInt(p, t, "thread_sort_index", row.second);
        }
        if (m_overhead) {
            addMeta(uint64_t(-1), 0, "process_name", "name", "CUPTI Overhead", false);
            addMetaInt(uint64_t(-1), 0, "process_sort_index", -1, false);
        }
    }

    void addProcessMeta(uint64_t pid, const std::string& processName)
    {
        addMeta(pid, 0, "process_name", "name", processName, false);
        addMeta(pid, 0, "process_labels", "labels", "CPU", false);
    }

    // Kineto's "fwdbwd" arrows from forward ops to their backward functions: 's' at the forward
    // op, 'f' bound to the enclosing slice ("bp": "e") at the backward one.
    void addFwdBwdFlows()
    {
        const uint32_t cat = local("fwdbwd");
        for (const FwdBwdLinks::Link& l : m_links.links()) {
            for (const FwdBwdLinks::End* end : {&l.forward, &l.backward}) {
                RawEvent f = base(end == &l.forward ? 's' : 'f', end->pid, end->tid, end->startTicks);
                f.bindEnclosing = end == &l.backward;
                f.flowId = l.id;
                f.hasId = true;
                f.cat = cat;
                f.name = cat;
                push(f);
            }
        }
    }

private:
    static const char* defaultCategory(DeviceActivity::Kind k)
    {
        using K = DeviceActivity::Kind;
        switch (k) {
        case K::Kernel:
            return "kernel";
        case K::Memcpy:
            return "gpu_memcpy";
        case K::Memset:
            return "gpu_memset";
        case K::Sync:
            return "cuda_sync";
        case K::Runtime:
            return "cuda_runtime";
        case K::Driver:
            return "cuda_driver";
        case K::Overhead:
            return "overhead";
        case K::Range:
            return "user_annotation";
        case K::Mark:
            return "user_mark";
        case K::Memory:
            return "cpu_instant_event";
        }
        return "kernel";
    }

    bool inWindow(uint64_t t) const { return t >= m_options.startTicks && t <= m_options.stopTicks; }
    int64_t fileNs(uint64_t ticks) const { return Clock::toNs(ticks) + m_epoch - m_base; }

    uint32_t local(std::string_view s) { return m_chunk.strings->intern(s).value; }
    uint32_t localName(uint32_t recorderName)
    {
        auto it = m_nameCache.find(recorderName);
        if (it != m_nameCache.end()) return it->second;
        const uint32_t id = local(m_recorder.name(recorderName));
        m_nameCache.emplace(recorderName, id);
        return id;
    }

    RawEvent base(char ph, uint64_t pid, uint64_t tid, uint64_t ns)
    {
        RawEvent e;
        e.ph = ph;
        e.ts = fileNs(ns);
        e.hasTs = true;
        e.pidNum = int64_t(pid);
        e.tidNum = int64_t(tid);
        e.hasPid = e.hasTid = true;
        return e;
    }

    // Payloads are JSON objects; their members become the event's args in order. The call stack
    // comes after them, where Kineto puts it (after "Input Dims"/"Input type"), unless the payload
    // already has one.
    ArgsRef args(uint64_t payload, int64_t correlation, int64_t* externalId, std::string_view callStack = {},
                 const Open* op = nullptr)
    {
        if (payload == 0 && correlation == 0 && callStack.empty() && !op) return {};
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
                if (a.key == "Call stack") callStack = {};
            }
        }
        if (!callStack.empty()) m_shard.addString("Call stack", callStack);
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
    std::string callStackOf(const Open& o)
    {
        if (o.stackText != 0) {
            auto it = m_stackTexts.find(o.stackText);
            if (it == m_stackTexts.end())
                it = m_stackTexts.emplace(o.stackText, m_recorder.name(o.stackText)).first;
            return it->second;
        }
        if (o.frameCount == 0) return {};
        return m_symbolizer.callStack(m_frames.data() + o.framesBegin, o.frameCount);
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
        RawEvent e = base('X', pid, tid, o.startTicks);
        e.dur = std::max<int64_t>(0, Clock::toNs(endTicks) - Clock::toNs(o.startTicks));
        e.name = localName(o.name);
        e.cat = o.category == uint8_t(RangeCategory::CpuOp)            ? m_catOp
                : o.category == uint8_t(RangeCategory::PythonFunction) ? m_catPython
                                                                       : m_catUser;
        e.args = args(o.payload, o.correlation, &e.externalId, callStackOf(o), o.op ? &o : nullptr);
        push(e);
        if (o.op && o.sequenceNr >= 0) {
            const FwdBwdLinks::End end{pid, tid, o.startTicks};
            if (o.fwdThreadId == 0)
                m_links.forward(o.sequenceNr, o.torchThreadId, end);
            else
                m_links.backward(o.sequenceNr, o.fwdThreadId, end);
        }
    }

    void addInstant(uint64_t pid, uint64_t tid, uint64_t ns, uint32_t name, uint64_t payload)
    {
        RawEvent e = base('i', pid, tid, ns);
        e.scope = 't';
        e.name = localName(name);
        e.cat = m_catMark;
        e.args = args(payload, 0, nullptr);
        push(e);
    }

    void addCounter(uint64_t pid, uint64_t tid, uint64_t ns, uint32_t name, double v)
    {
        RawEvent e = base('C', pid, tid, ns);
        e.name = localName(name);
        m_shard.begin();
        m_shard.addDouble(m_recorder.name(name), v);
        e.args = m_shard.finish();
        push(e);
    }

    void addMemory(uint64_t pid, uint64_t tid, uint64_t ns, const Record& r)
    {
        const bool alloc = r.type == RecordType::Alloc;
        const int64_t bytes = updateTotals(r.deviceType, r.deviceIndex, r.a, alloc, r.b);
        if (!inWindow(ns)) return;
        addMemoryEvent(base('i', pid, tid, ns), r.deviceType, r.deviceIndex, r.a, bytes);
    }

    // A device allocation reported by a collector: kept in the same per-device running totals as
    // the recorder's own allocation records.
    void addDeviceMemory(uint64_t pid, const DeviceActivity& a)
    {
        const uint8_t type = a.backend == DeviceActivity::Backend::Xpu ? 20 : 1;
        const int64_t bytes =
            updateTotals(type, int16_t(a.device), a.address, a.bytes > 0, a.bytes > 0 ? a.bytes : -a.bytes);
        RawEvent e;
        e.ph = 'i';
        e.ts = a.startNs + m_epoch - m_base;
        e.hasTs = true;
        e.pidNum = int64_t(pid);
        e.tidNum = int64_t(a.hostTid);
        e.hasPid = e.hasTid = true;
        addMemoryEvent(e, type, int16_t(a.device), a.address, bytes);
    }

    // Returns the signed size of the event (negative for frees, sized from the matching alloc).
    int64_t updateTotals(uint8_t deviceType, int16_t deviceIndex, uint64_t address, bool alloc, int64_t bytes)
    {
        const auto device = std::make_pair(int(deviceType), int(deviceIndex));
        int64_t& total = m_totals[device];
        if (alloc) {
            m_live[{device, address}] = bytes;
            total += bytes;
            return bytes;
        }
        auto it = m_live.find({device, address});
        if (it != m_live.end()) {
            bytes = it->second;
            m_live.erase(it);
        }
        total -= bytes;
        return -bytes;
    }

    void addMemoryEvent(RawEvent e, uint8_t deviceType, int16_t deviceIndex, uint64_t address, int64_t bytes)
    {
        e.scope = 't';
        e.name = m_nameMemory;
        e.cat = m_catInstant;
        m_shard.begin();
        m_shard.addInt("Total Allocated", m_totals[{int(deviceType), int(deviceIndex)}]);
        m_shard.addInt("Bytes", bytes);
        m_shard.addUInt("Addr", address);
        m_shard.addInt("Device Id", deviceIndex);
        m_shard.addInt("Device Type", deviceType);
        e.args = m_shard.finish();
        push(e);
    }

    void addMeta(uint64_t pid, uint64_t tid, const char* what, const char* key, const std::string& value,
                 bool hasTid = true)
    {
        RawEvent e = base('M', pid, tid, m_options.startTicks);
        e.hasTid = hasTid;
        e.name = local(what);
        m_shard.begin();
        m_shard.addString(key, value);
        e.args = m_shard.finish();
        push(e);
    }

    void addMetaInt(uint64_t pid, uint64_t tid, const char* what, int64_t value, bool hasTid = true)
    {
        RawEvent e = base('M', pid, tid, m_options.startTicks);
        e.hasTid = hasTid;
        e.name = local(what);
        m_shard.begin();
        m_shard.addInt("sort_index", value);
        e.args = m_shard.finish();
        push(e);
    }

    // Slices are made at their End, so a child comes before its parent. The trace builder breaks
    // ties of equal start and duration (ticks truncated to the same ns) by arrival order, so the
    // thread's events are put back in the order their ranges began: parents first.
    void emitInBeginOrder(size_t first)
    {
        const size_t n = m_chunk.events.size() - first;
        if (std::is_sorted(m_orderKeys.begin(), m_orderKeys.end())) return;
        std::vector<uint32_t> order(n);
        for (size_t i = 0; i < n; ++i)
            order[i] = uint32_t(i);
        std::stable_sort(order.begin(), order.end(),
                         [this](uint32_t a, uint32_t b) { return m_orderKeys[a] < m_orderKeys[b]; });
        LargeVector<RawEvent> sorted(n);
        for (size_t i = 0; i < n; ++i)
            sorted[i] = m_chunk.events[first + order[i]];
        for (size_t i = 0; i < n; ++i)
            m_chunk.events[first + i] = sorted[i];
    }

    void push(const RawEvent& e)
    {
        if (m_keyed) m_orderKeys.push_back(m_orderKey);
        m_chunk.events.push_back(e);
        ++m_chunk.counters.events;
        ++m_chunk.counters.byPhase[uint8_t(e.ph) & 127];
    }

    Trace& m_trace;
    const Recorder& m_recorder;
    const WindowOptions& m_options;
    int64_t m_base;
    int64_t m_epoch = 0;
    ArgShard& m_shard;
    ChunkResult m_chunk;
    uint32_t m_catUser, m_catOp, m_catPython, m_catInstant, m_catMark, m_nameMemory;
    std::unordered_map<uint32_t, uint32_t> m_nameCache;
    std::unordered_map<uint64_t, ArgsRef> m_payloadArgs;
    std::vector<uint64_t> m_frames; // native frames of the current thread's ranges
    StackSymbolizer m_symbolizer;
    std::unordered_map<uint32_t, std::string> m_stackTexts;
    std::map<std::pair<int, int>, int64_t> m_totals;
    std::map<std::pair<std::pair<int, int>, uint64_t>, int64_t> m_live;
    std::map<std::pair<int32_t, int64_t>, DeviceActivity::Backend> m_deviceRows;
    FwdBwdLinks m_links;
    bool m_overhead = false;
    // Begin order of the current thread's events (see emitInBeginOrder).
    bool m_keyed = false;
    uint64_t m_orderKey = 0;
    std::vector<uint64_t> m_orderKeys;
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
    Converter conv(*trace, recorder, options, base);
    const uint64_t pid = recorder.pid();
    const std::string processName = options.processName.empty() ? selfComm() : options.processName;
    conv.addProcessMeta(pid, processName);
    for (const ThreadRecords& tr : threads)
        conv.addThread(tr, pid);
    conv.addFwdBwdFlows();
    for (const DeviceActivity& a : options.device)
        conv.addDevice(pid, a);
    conv.addDeviceRowsMeta(processName);

    TraceBuilder builder(*trace);
    builder.addTopLevel("schemaVersion", "1");
    builder.addTopLevel("deviceProperties", options.deviceProperties);
    for (const auto& [k, v] : options.metadata)
        builder.addTopLevel(k, v);
    builder.addTopLevel("displayTimeUnit", "\"ms\"");
    builder.addTopLevel("baseTimeNanoseconds", std::to_string(base));
    builder.addChunk(conv.chunk());
    std::string name;
    appendJsonString(name, options.traceName);
    builder.addTopLevel("traceName", name);
    builder.finish(1);
    return trace;
}

} // namespace ks::record
