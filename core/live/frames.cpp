#include "core/live/frames.h"

namespace ks::live {

const char* frameTypeName(uint16_t type)
{
    switch (FrameType(type)) {
    case FrameType::Hello:
        return "hello";
    case FrameType::Strings:
        return "strings";
    case FrameType::Thread:
        return "thread";
    case FrameType::Events:
        return "events";
    case FrameType::Payload:
        return "payload";
    case FrameType::Step:
        return "step";
    case FrameType::Log:
        return "log";
    case FrameType::Window:
        return "window";
    case FrameType::Device:
        return "device";
    case FrameType::Stats:
        return "stats";
    case FrameType::Goodbye:
        return "goodbye";
    case FrameType::Info:
        return "info";
    case FrameType::Gap:
        return "gap";
    }
    return "unknown";
}

namespace {

bool finish(const PayloadReader& r, const char* what, std::string& error)
{
    if (r.failed()) {
        error = std::string(what) + " frame: truncated payload";
        return false;
    }
    if (!r.atEnd()) {
        error = std::string(what) + " frame: " + std::to_string(r.remaining()) + " unexpected trailing bytes";
        return false;
    }
    return true;
}

void putStats(FrameBuilder& b, const StatsFrame& f)
{
    b.u64(f.eventsSent);
    b.u64(f.eventsDropped);
    b.u64(f.bytesSent);
    b.u64(f.batchesDropped);
}

void getStats(PayloadReader& r, StatsFrame& f)
{
    f.eventsSent = r.u64();
    f.eventsDropped = r.u64();
    f.bytesSent = r.u64();
    f.batchesDropped = r.u64();
}

} // namespace

void encodeHello(std::string& out, const HelloFrame& f)
{
    FrameBuilder b(out);
    b.begin(FrameType::Hello);
    b.u32(kMagic);
    b.u16(f.major);
    b.u16(f.minor);
    b.u32(f.pid);
    b.u32(f.ppid);
    b.i64(f.monotonicNs);
    b.i64(f.realtimeNs);
    b.str(f.host);
    b.str(f.program);
    b.str(f.library);
    b.str(f.options);
    b.end();
}

bool decodeHello(std::string_view p, HelloFrame& f, std::string& error)
{
    PayloadReader r(p);
    if (r.u32() != kMagic) {
        error = "not a Kinetoscope live stream (bad magic in the first frame)";
        return false;
    }
    f.major = r.u16();
    f.minor = r.u16();
    if (!r.failed() && f.major != kProtocolMajor) {
        error = "protocol version " + std::to_string(f.major) + "." + std::to_string(f.minor) +
                " is not supported (this Kinetoscope speaks " + std::to_string(kProtocolMajor) + ".x)";
        return false;
    }
    f.pid = r.u32();
    f.ppid = r.u32();
    f.monotonicNs = r.i64();
    f.realtimeNs = r.i64();
    f.host = r.str();
    f.program = r.str();
    f.library = r.str();
    f.options = r.str();
    // Newer minor versions may append fields: ignore what follows.
    if (r.failed()) {
        error = "hello frame: truncated payload";
        return false;
    }
    return true;
}

void encodeStrings(std::string& out, const std::vector<std::pair<uint32_t, std::string>>& defs)
{
    FrameBuilder b(out);
    b.begin(FrameType::Strings);
    b.u32(uint32_t(defs.size()));
    for (const auto& [id, text] : defs) {
        b.u32(id);
        b.str(text);
    }
    b.end();
}

bool decodeStrings(std::string_view p, std::vector<std::pair<uint32_t, std::string_view>>& defs,
                   std::string& error)
{
    PayloadReader r(p);
    const uint32_t n = r.u32();
    if (r.failed() || uint64_t(n) * 8 > r.remaining()) {
        error = "strings frame: bad count";
        return false;
    }
    for (uint32_t i = 0; i < n && !r.failed(); ++i) {
        const uint32_t id = r.u32();
        const std::string_view text = r.str();
        defs.emplace_back(id, text);
    }
    return finish(r, "strings", error);
}

void encodeThread(std::string& out, uint64_t tid, std::string_view name)
{
    FrameBuilder b(out);
    b.begin(FrameType::Thread);
    b.u64(tid);
    b.str(name);
    b.end();
}

bool decodeThread(std::string_view p, uint64_t& tid, std::string_view& name, std::string& error)
{
    PayloadReader r(p);
    tid = r.u64();
    name = r.str();
    return finish(r, "thread", error);
}

void encodeEvents(std::string& out, uint64_t tid, const WireRecord* records, uint32_t count)
{
    FrameBuilder b(out);
    b.begin(FrameType::Events);
    b.u64(tid);
    b.u32(count);
    b.raw(records, size_t(count) * sizeof(WireRecord));
    b.end();
}

bool decodeEvents(std::string_view p, uint64_t& tid, std::vector<WireRecord>& out, std::string& error)
{
    PayloadReader r(p);
    tid = r.u64();
    const uint32_t n = r.u32();
    if (r.failed() || r.remaining() != size_t(n) * sizeof(WireRecord)) {
        error = "events frame: the record count does not match the payload size";
        return false;
    }
    const std::string_view bytes = r.bytes(size_t(n) * sizeof(WireRecord));
    out.resize(n);
    std::memcpy(out.data(), bytes.data(), bytes.size());
    // Types 1-7, OpInfo (9) since 1.1 and Stack (8) since 1.2.
    for (const WireRecord& w : out) {
        if (w.type < 1 || w.type > 9) {
            error = "events frame: unknown event type " + std::to_string(w.type);
            return false;
        }
    }
    return true;
}

void encodePayload(std::string& out, uint64_t id, std::string_view json)
{
    FrameBuilder b(out);
    b.begin(FrameType::Payload);
    b.u64(id);
    b.str(json);
    b.end();
}

bool decodePayload(std::string_view p, uint64_t& id, std::string_view& json, std::string& error)
{
    PayloadReader r(p);
    id = r.u64();
    json = r.str();
    return finish(r, "payload", error);
}

void encodeStep(std::string& out, const StepFrame& f)
{
    FrameBuilder b(out);
    b.begin(FrameType::Step);
    b.i64(f.number);
    b.i64(f.startNs);
    b.i64(f.endNs);
    b.u64(f.tid);
    b.end();
}

bool decodeStep(std::string_view p, StepFrame& f, std::string& error)
{
    PayloadReader r(p);
    f.number = r.i64();
    f.startNs = r.i64();
    f.endNs = r.i64();
    f.tid = r.u64();
    if (!finish(r, "step", error)) return false;
    if (f.endNs < f.startNs) {
        error = "step frame: step " + std::to_string(f.number) + " ends before it starts";
        return false;
    }
    return true;
}

void encodeLog(std::string& out, const LogFrame& f)
{
    FrameBuilder b(out);
    b.begin(FrameType::Log);
    b.u8(uint8_t(f.level));
    b.i64(f.timeNs);
    b.str(f.text);
    b.end();
}

bool decodeLog(std::string_view p, LogFrame& f, std::string& error)
{
    PayloadReader r(p);
    const uint8_t level = r.u8();
    f.timeNs = r.i64();
    f.text = r.str();
    if (!finish(r, "log", error)) return false;
    f.level = level > 2 ? LogLevel::Error : LogLevel(level);
    return true;
}

void encodeWindow(std::string& out, const WindowFrame& f)
{
    FrameBuilder b(out);
    b.begin(FrameType::Window);
    b.i64(f.firstStep);
    b.i64(f.lastStep);
    b.i64(f.startNs);
    b.i64(f.endNs);
    b.str(f.path);
    b.u8(f.removeAfter ? 1 : 0);
    b.u32(uint32_t(f.anchors.size()));
    for (const auto& [label, t] : f.anchors) {
        b.i64(label);
        b.i64(t);
    }
    b.end();
}

bool decodeWindow(std::string_view p, WindowFrame& f, std::string& error)
{
    PayloadReader r(p);
    f.firstStep = r.i64();
    f.lastStep = r.i64();
    f.startNs = r.i64();
    f.endNs = r.i64();
    f.path = r.str();
    f.removeAfter = r.u8() != 0;
    const uint32_t n = r.u32();
    if (r.failed() || uint64_t(n) * 16 != r.remaining()) {
        error = "window frame: bad anchor count";
        return false;
    }
    for (uint32_t i = 0; i < n; ++i) {
        const int64_t label = r.i64();
        const int64_t t = r.i64();
        f.anchors.emplace_back(label, t);
    }
    return finish(r, "window", error);
}

void encodeStats(std::string& out, const StatsFrame& f)
{
    FrameBuilder b(out);
    b.begin(FrameType::Stats);
    putStats(b, f);
    b.end();
}

bool decodeStats(std::string_view p, StatsFrame& f, std::string& error)
{
    PayloadReader r(p);
    getStats(r, f);
    return finish(r, "stats", error);
}

void encodeGoodbye(std::string& out, int32_t reason, const StatsFrame& f)
{
    FrameBuilder b(out);
    b.begin(FrameType::Goodbye);
    b.i32(reason);
    putStats(b, f);
    b.end();
}

bool decodeGoodbye(std::string_view p, int32_t& reason, StatsFrame& f, std::string& error)
{
    PayloadReader r(p);
    reason = r.i32();
    getStats(r, f);
    return finish(r, "goodbye", error);
}

void encodeInfo(std::string& out, std::string_view key, std::string_view value)
{
    FrameBuilder b(out);
    b.begin(FrameType::Info);
    b.str(key);
    b.str(value);
    b.end();
}

bool decodeInfo(std::string_view p, std::string_view& key, std::string_view& value, std::string& error)
{
    PayloadReader r(p);
    key = r.str();
    value = r.str();
    return finish(r, "info", error);
}

void encodeGap(std::string& out, const GapFrame& f)
{
    FrameBuilder b(out);
    b.begin(FrameType::Gap);
    b.u64(f.tid);
    b.i64(f.fromNs);
    b.i64(f.toNs);
    b.u64(f.dropped);
    b.end();
}

bool decodeGap(std::string_view p, GapFrame& f, std::string& error)
{
    PayloadReader r(p);
    f.tid = r.u64();
    f.fromNs = r.i64();
    f.toNs = r.i64();
    f.dropped = r.u64();
    return finish(r, "gap", error);
}

bool decodeStrings(std::string_view p, StringsFrame& f, std::string& error)
{
    f.defs.clear();
    return decodeStrings(p, f.defs, error);
}

bool decodeThread(std::string_view p, ThreadFrame& f, std::string& error)
{
    return decodeThread(p, f.tid, f.name, error);
}

bool decodeEvents(std::string_view p, EventsFrame& f, std::string& error)
{
    return decodeEvents(p, f.tid, f.records, error);
}

bool decodePayload(std::string_view p, PayloadFrame& f, std::string& error)
{
    return decodePayload(p, f.id, f.json, error);
}

bool decodeGoodbye(std::string_view p, GoodbyeFrame& f, std::string& error)
{
    return decodeGoodbye(p, f.reason, f.stats, error);
}

bool decodeInfo(std::string_view p, InfoFrame& f, std::string& error)
{
    return decodeInfo(p, f.key, f.value, error);
}

} // namespace ks::live
