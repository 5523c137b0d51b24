#pragma once

// Kineto-shaped events as JSON text, loaded through the real reader: for analysis tests whose
// answers are known to the nanosecond. Times are µs, as in the files.

#include "core/io/tracereader.h"

#include <QtGlobal>
#include <memory>
#include <string>

namespace ks::test {

// A trace from events written by the helpers below (each ends with a comma; the last one's is
// dropped here).
inline std::unique_ptr<Trace> loadEvents(std::string events)
{
    if (!events.empty() && events.back() == ',') events.pop_back();
    LoadResult r = loadTraceData("{\"traceEvents\": [" + events + "]}");
    if (!r.trace) qFatal("trace did not load: %s", r.error.c_str());
    return std::move(r.trace);
}

inline std::string x(const char* cat, const char* name, int64_t ts, int64_t dur, int tid,
                     const std::string& args = "{}", int pid = 1)
{
    return "{\"ph\":\"X\",\"cat\":\"" + std::string(cat) + "\",\"name\":\"" + name +
           "\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
           ",\"ts\":" + std::to_string(ts) + ",\"dur\":" + std::to_string(dur) + ",\"args\":" + args + "},";
}

// GPU work on device 0 (pid 0), stream 7 unless given.
inline std::string kernel(const char* name, int64_t ts, int64_t dur, int corr, int ext,
                          const char* cat = "kernel", int stream = 7)
{
    return x(cat, name, ts, dur, stream,
             "{\"device\":0,\"stream\":" + std::to_string(stream) +
                 ",\"correlation\":" + std::to_string(corr) + ",\"External id\":" + std::to_string(ext) + "}",
             0);
}

// A cudaLaunchKernel on thread 1.
inline std::string launch(int64_t ts, int64_t dur, int corr, int ext)
{
    return x("cuda_runtime", "cudaLaunchKernel", ts, dur, 1,
             "{\"correlation\":" + std::to_string(corr) + ",\"External id\":" + std::to_string(ext) + "}");
}

inline TimeNs us(int64_t v)
{
    return v * 1000;
}

} // namespace ks::test
