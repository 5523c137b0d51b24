#pragma once

// Small hand-made Kineto traces for the operator summary tests (tst_summary, tst_summaryflavor).

#include "core/analysis/summary/keyaverages.h"
#include "core/io/tracereader.h"

#include <string>

namespace ks::test {

// A trace from a list of event objects (JSON text, comma separated).
inline LoadResult traceOf(const std::string& events)
{
    return loadTraceData("{\"traceEvents\":[" + events + "]}");
}

// An X event on CPU thread `tid` of pid 1; ts and dur in µs (written with 6 decimals).
inline std::string op(const char* name, double ts, double dur, int tid = 1, int ext = -1,
                      const char* cat = "cpu_op", const std::string& extraArgs = {})
{
    std::string args = ext >= 0 ? "\"External id\":" + std::to_string(ext) : std::string();
    if (!extraArgs.empty()) args += (args.empty() ? "" : ",") + extraArgs;
    return "{\"ph\":\"X\",\"cat\":\"" + std::string(cat) + "\",\"name\":\"" + name +
           "\",\"pid\":1,\"tid\":" + std::to_string(tid) + ",\"ts\":" + std::to_string(ts) +
           ",\"dur\":" + std::to_string(dur) + ",\"args\":{" + args + "}}";
}

inline std::string gpu(const char* name, double ts, double dur, int ext, int corr = -1,
                       const char* cat = "kernel")
{
    std::string args = "\"External id\":" + std::to_string(ext);
    if (corr >= 0) args += ",\"correlation\":" + std::to_string(corr);
    return "{\"ph\":\"X\",\"cat\":\"" + std::string(cat) + "\",\"name\":\"" + name +
           "\",\"pid\":0,\"tid\":7,\"ts\":" + std::to_string(ts) + ",\"dur\":" + std::to_string(dur) +
           ",\"args\":{" + args + "}}";
}

inline std::string memory(double ts, long long bytes, int deviceType = 0, int tid = 1)
{
    return "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":1,"
           "\"tid\":" +
           std::to_string(tid) + ",\"ts\":" + std::to_string(ts) +
           ",\"args\":{\"Device Type\":" + std::to_string(deviceType) +
           ",\"Device Id\":0,\"Bytes\":" + std::to_string(bytes) + "}}";
}

inline const KeyAverage* row(const KeyAverages& a, const char* key, bool device = false)
{
    for (const KeyAverage& r : a.rows())
        if (r.key == key && r.deviceType == device) return &r;
    return nullptr;
}

} // namespace ks::test
