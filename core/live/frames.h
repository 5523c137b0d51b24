#pragma once

// Typed frames of the live protocol and their encoding (docs/live-protocol.md). A sender builds
// frames with the encode* functions into a byte string; a receiver cuts the stream into frames
// with FrameStream and decodes each payload with the matching decode* function, which rejects
// payloads that are short, too long or inconsistent.

#include "core/live/wire.h"
#include "core/record/deviceactivity.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ks::live {

struct HelloFrame {
    uint16_t major = kProtocolMajor;
    uint16_t minor = kProtocolMinor;
    uint32_t pid = 0;
    uint32_t ppid = 0;
    int64_t monotonicNs = 0; // sender's CLOCK_MONOTONIC at hello
    int64_t realtimeNs = 0;  // and CLOCK_REALTIME, sampled together
    std::string host;
    std::string program;
    std::string library; // sender library version
    std::string options; // capture options as a JSON object
};

// One recorded event with its time already in monotonic ns. Same shape as record::Record; for
// Complete events `a` is the end time in monotonic ns. An OpInfo record (protocol 1.1) follows the
// Begin of its operator and keeps the recorder's layout: timeNs = record function id, name = torch's
// number for the recording thread (not a string id), a = sequence number (-1 none), b = forward
// thread id. A Stack record (protocol 1.2) comes between them: deviceType 1, name = the string id of
// its "Call stack" text, no time.
struct WireRecord {
    int64_t timeNs;
    uint8_t type; // record::RecordType
    uint8_t deviceType;
    int16_t deviceIndex;
    uint32_t name; // string id (Strings frame)
    uint64_t a;
    int64_t b;
};
static_assert(sizeof(WireRecord) == 32);

struct StepFrame {
    int64_t number = 0;
    int64_t startNs = 0;
    int64_t endNs = 0;
    uint64_t tid = 0;
};

enum class LogLevel : uint8_t { Info = 0, Warning = 1, Error = 2 };

struct LogFrame {
    LogLevel level = LogLevel::Info;
    int64_t timeNs = 0;
    std::string text;
};

// A finished torch.profiler window exported to a file; anchors pair a ProfilerStep#label with the
// monotonic time that step began, so the window can be placed on the session's time axis.
struct WindowFrame {
    int64_t firstStep = 0;
    int64_t lastStep = 0;
    int64_t startNs = 0; // monotonic time the window started recording (0: unknown)
    int64_t endNs = 0;
    std::string path;
    bool removeAfter = false; // the file is a temporary the receiver deletes once merged
    std::vector<std::pair<int64_t, int64_t>> anchors;
};

struct StatsFrame {
    uint64_t eventsSent = 0;
    uint64_t eventsDropped = 0;
    uint64_t bytesSent = 0;
    uint64_t batchesDropped = 0;
};

struct GapFrame {
    uint64_t tid = 0;
    int64_t fromNs = 0;
    int64_t toNs = 0;
    uint64_t dropped = 0;
};

// The frames below exist for the receiver, which decodes each frame once into its typed value and
// then applies it. Their string_views point into the payload they were decoded from.
struct StringsFrame {
    std::vector<std::pair<uint32_t, std::string_view>> defs;
};

struct ThreadFrame {
    uint64_t tid = 0;
    std::string_view name;
};

struct EventsFrame {
    uint64_t tid = 0;
    std::vector<WireRecord> records; // copied out of the payload (it is not aligned)
};

struct PayloadFrame {
    uint64_t id = 0;
    std::string_view json;
};

struct GoodbyeFrame {
    int32_t reason = 0;
    StatsFrame stats;
};

struct InfoFrame {
    std::string_view key;
    std::string_view value;
};

// Its strings are resolved while decoding, so the activities own them.
struct DeviceFrame {
    std::vector<record::DeviceActivity> activities;
};

// Encoding ------------------------------------------------------------------------------------
void encodeHello(std::string& out, const HelloFrame& f);
// Strings: (id, text) pairs.
void encodeStrings(std::string& out, const std::vector<std::pair<uint32_t, std::string>>& defs);
void encodeThread(std::string& out, uint64_t tid, std::string_view name);
void encodeEvents(std::string& out, uint64_t tid, const WireRecord* records, uint32_t count);
void encodePayload(std::string& out, uint64_t id, std::string_view json);
void encodeStep(std::string& out, const StepFrame& f);
void encodeLog(std::string& out, const LogFrame& f);
void encodeWindow(std::string& out, const WindowFrame& f);
// Device activities with their strings given as ids; intern maps a string to its id (and must make
// sure the id is defined by a Strings frame sent before this one).
template <typename Intern>
void encodeDevice(std::string& out, const std::vector<record::DeviceActivity>& acts, Intern&& intern);
void encodeStats(std::string& out, const StatsFrame& f);
void encodeGoodbye(std::string& out, int32_t reason, const StatsFrame& f);
void encodeInfo(std::string& out, std::string_view key, std::string_view value);
void encodeGap(std::string& out, const GapFrame& f);

// Decoding: false with a one-line reason when the payload does not match its type.
bool decodeHello(std::string_view p, HelloFrame& f, std::string& error);
bool decodeStrings(std::string_view p, std::vector<std::pair<uint32_t, std::string_view>>& defs,
                   std::string& error);
bool decodeThread(std::string_view p, uint64_t& tid, std::string_view& name, std::string& error);
// records points into p (copy before p goes away); alignment is not guaranteed, so records are
// copied into out.
bool decodeEvents(std::string_view p, uint64_t& tid, std::vector<WireRecord>& out, std::string& error);
bool decodePayload(std::string_view p, uint64_t& id, std::string_view& json, std::string& error);
bool decodeStep(std::string_view p, StepFrame& f, std::string& error);
bool decodeLog(std::string_view p, LogFrame& f, std::string& error);
bool decodeWindow(std::string_view p, WindowFrame& f, std::string& error);
// Device activities; resolve(id, string_view&) maps string ids to text and returns false for an
// id no Strings frame defined.
template <typename Resolve>
bool decodeDevice(std::string_view p, std::vector<record::DeviceActivity>& out, Resolve&& resolve,
                  std::string& error);
bool decodeStats(std::string_view p, StatsFrame& f, std::string& error);
bool decodeGoodbye(std::string_view p, int32_t& reason, StatsFrame& f, std::string& error);
bool decodeInfo(std::string_view p, std::string_view& key, std::string_view& value, std::string& error);
bool decodeGap(std::string_view p, GapFrame& f, std::string& error);
// The same into the typed frames (f is reset first, so a receiver may reuse one).
bool decodeStrings(std::string_view p, StringsFrame& f, std::string& error);
bool decodeThread(std::string_view p, ThreadFrame& f, std::string& error);
bool decodeEvents(std::string_view p, EventsFrame& f, std::string& error);
bool decodePayload(std::string_view p, PayloadFrame& f, std::string& error);
bool decodeGoodbye(std::string_view p, GoodbyeFrame& f, std::string& error);
bool decodeInfo(std::string_view p, InfoFrame& f, std::string& error);
template <typename Resolve>
bool decodeDevice(std::string_view p, DeviceFrame& f, Resolve&& resolve, std::string& error)
{
    f.activities.clear();
    return decodeDevice(p, f.activities, std::forward<Resolve>(resolve), error);
}

// ---------------------------------------------------------------------------------------------

inline constexpr const char* kMemoryAddressArg = "Addr";
inline constexpr const char* kMemoryBytesArg = "Bytes";

template <typename Intern>
void encodeDevice(std::string& out, const std::vector<record::DeviceActivity>& acts, Intern&& intern)
{
    FrameBuilder b(out);
    b.begin(FrameType::Device);
    b.u32(uint32_t(acts.size()));
    for (const record::DeviceActivity& a : acts) {
        b.u8(uint8_t(a.kind));
        b.u8(uint8_t((a.flowStart ? 1 : 0) | (a.backend == record::DeviceActivity::Backend::Xpu ? 2 : 0)));
        b.i64(a.startNs);
        b.i64(a.endNs);
        b.i32(a.device);
        b.i64(a.stream);
        b.u64(a.hostTid);
        b.u32(intern(a.name));
        b.u32(a.category.empty() ? 0 : intern(a.category));
        b.i64(a.correlation);
        b.i64(a.externalId);
        // A device allocation carries its address and signed size as two leading Int args.
        const bool memory = a.kind == record::DeviceActivity::Kind::Memory;
        const size_t extra = memory ? 2 : 0;
        const size_t nargs = std::min<size_t>(a.args.size(), UINT16_MAX - extra);
        b.u16(uint16_t(nargs + extra));
        if (memory) {
            b.u32(intern(kMemoryAddressArg));
            b.u8(uint8_t(record::DeviceArg::Type::Int));
            b.i64(int64_t(a.address));
            b.u32(intern(kMemoryBytesArg));
            b.u8(uint8_t(record::DeviceArg::Type::Int));
            b.i64(a.bytes);
        }
        for (size_t i = 0; i < nargs; ++i) {
            const record::DeviceArg& d = a.args[i];
            b.u32(intern(d.key));
            b.u8(uint8_t(d.type));
            switch (d.type) {
            case record::DeviceArg::Type::Int:
                b.i64(d.i);
                break;
            case record::DeviceArg::Type::Double:
                b.f64(d.d);
                break;
            default:
                b.u32(intern(d.text));
                break;
            }
        }
    }
    b.end();
}

template <typename Resolve>
bool decodeDevice(std::string_view p, std::vector<record::DeviceActivity>& out, Resolve&& resolve,
                  std::string& error)
{
    PayloadReader r(p);
    const uint32_t n = r.u32();
    // Each activity takes at least 63 bytes: a count that cannot fit is garbage, not a reason to
    // reserve gigabytes.
    if (r.failed() || uint64_t(n) * 63 > r.remaining()) {
        error = "device frame: bad activity count";
        return false;
    }
    out.reserve(out.size() + n);
    auto text = [&](uint32_t id, std::string& s) {
        std::string_view v;
        if (!resolve(id, v)) return false;
        s.assign(v);
        return true;
    };
    for (uint32_t i = 0; i < n; ++i) {
        record::DeviceActivity a;
        const uint8_t kind = r.u8();
        const uint8_t flags = r.u8();
        a.flowStart = flags & 1;
        a.backend =
            (flags & 2) ? record::DeviceActivity::Backend::Xpu : record::DeviceActivity::Backend::Cuda;
        a.startNs = r.i64();
        a.endNs = r.i64();
        a.device = r.i32();
        a.stream = r.i64();
        a.hostTid = r.u64();
        const uint32_t name = r.u32();
        const uint32_t cat = r.u32();
        a.correlation = r.i64();
        a.externalId = r.i64();
        const uint16_t nargs = r.u16();
        if (r.failed() || kind > uint8_t(record::DeviceActivity::Kind::Memory)) {
            error = "device frame: bad activity";
            return false;
        }
        a.kind = record::DeviceActivity::Kind(kind);
        if (!text(name, a.name) || (cat != 0 && !text(cat, a.category))) {
            error = "device frame: undefined string id";
            return false;
        }
        for (uint16_t k = 0; k < nargs; ++k) {
            record::DeviceArg d;
            const uint32_t key = r.u32();
            const uint8_t type = r.u8();
            if (r.failed() || type > uint8_t(record::DeviceArg::Type::Json) || !text(key, d.key)) {
                error = "device frame: bad argument";
                return false;
            }
            d.type = record::DeviceArg::Type(type);
            if (d.type == record::DeviceArg::Type::Int) {
                d.i = r.i64();
            } else if (d.type == record::DeviceArg::Type::Double) {
                d.d = r.f64();
            } else if (!text(r.u32(), d.text)) {
                error = "device frame: undefined string id";
                return false;
            }
            if (a.kind == record::DeviceActivity::Kind::Memory && d.type == record::DeviceArg::Type::Int &&
                k < 2 && (d.key == kMemoryAddressArg || d.key == kMemoryBytesArg)) {
                if (d.key == kMemoryAddressArg)
                    a.address = uint64_t(d.i);
                else
                    a.bytes = d.i;
                continue;
            }
            a.args.push_back(std::move(d));
        }
        if (r.failed()) {
            error = "device frame: truncated";
            return false;
        }
        out.push_back(std::move(a));
    }
    if (!r.atEnd()) {
        error = "device frame: trailing bytes";
        return false;
    }
    return true;
}

} // namespace ks::live
