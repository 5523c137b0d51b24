#pragma once

// Frames for live-ingest tests: encoded as a target sends them, applied as the session does.

#include "core/live/frames.h"
#include "core/live/framestream.h"
#include "core/live/liveingest.h"
#include "core/record/recordtypes.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ks::test {

// Feeds encoded frames to the ingest; returns the first error, empty when all applied.
inline std::string feedFrames(live::LiveIngest& in, live::LiveIngest::ConnId c, const std::string& bytes)
{
    live::FrameStream s;
    s.feed(bytes.data(), bytes.size());
    live::Frame f;
    std::string error;
    while (s.next(f))
        if (!in.apply(c, f, error)) return error;
    return s.failed() ? s.error() : std::string();
}

// A Hello from program "target" with the given pid, then a Strings frame defining `strings`.
// minor: the sender's protocol minor version (older senders' streams); default the current one.
inline std::string helloFrames(uint32_t pid, const std::vector<std::pair<uint32_t, std::string>>& strings,
                               std::optional<uint16_t> minor = std::nullopt)
{
    std::string b;
    live::HelloFrame h;
    h.pid = pid;
    h.program = "target";
    if (minor) h.minor = *minor;
    live::encodeHello(b, h);
    live::encodeStrings(b, strings);
    return b;
}

// A record as a target's recorder sends it: time, type, name id and its two values.
inline live::WireRecord wireRecord(int64_t t, record::RecordType type, uint32_t name = 0, uint64_t a = 0,
                                   int64_t b = 0)
{
    return live::WireRecord{t, uint8_t(type), 0, 0, name, a, b};
}

// An Events frame of thread tid.
inline std::string eventFrames(uint64_t tid, const std::vector<live::WireRecord>& records)
{
    std::string b;
    live::encodeEvents(b, tid, records.data(), uint32_t(records.size()));
    return b;
}

} // namespace ks::test
