#pragma once

#include "core/util/id.h"

#include <compare>
#include <cstdint>
#include <string_view>

namespace ks {

// Nanoseconds on the trace's own time axis: the file's "ts" times 1000. For traces written relative
// to baseTimeNanoseconds, add Trace::baseTimeNs() for Unix-epoch time.
using TimeNs = int64_t;

// A pid or tid exactly as the trace wrote it: a number, or a string (interned in the trace's pool).
// Strings made only of digits are stored as numbers, because 2020-21 Kineto wrote the same tid as
// "123" in slices and 123 in flows.
struct RowKey {
    int64_t number = 0;
    StringId string; // valid when the key is a non-numeric string

    bool isString() const { return string.valid(); }
    static RowKey fromNumber(int64_t n) { return RowKey{n, StringId()}; }
    static RowKey fromString(StringId s) { return RowKey{0, s}; }
    auto operator<=>(const RowKey&) const = default;
};

// What an event is, derived from its category; legacy (2020-21) category names map to the same
// kinds as their current spelling.
enum class EventKind : uint8_t {
    Other,
    CpuOp,
    UserAnnotation,
    GpuUserAnnotation,
    PythonFunction,
    Runtime,
    Driver,
    Kernel,
    Memcpy,
    Memset,
    Sync,
    CudaEvent,
    Overhead,
    Span,
    InstantCpu,
    Flow,
};

EventKind classifyCategory(std::string_view cat);
const char* eventKindName(EventKind kind);

inline bool isDeviceKind(EventKind k)
{
    return k == EventKind::Kernel || k == EventKind::Memcpy || k == EventKind::Memset ||
           k == EventKind::GpuUserAnnotation || k == EventKind::Sync || k == EventKind::CudaEvent;
}
inline bool isGpuWorkKind(EventKind k)
{
    return k == EventKind::Kernel || k == EventKind::Memcpy || k == EventKind::Memset;
}
inline bool isLaunchKind(EventKind k)
{
    return k == EventKind::Runtime || k == EventKind::Driver;
}

enum class ProcessKind : uint8_t { Cpu, Gpu, Spans, Overhead, Other };
enum class TrackKind : uint8_t { CpuThread, GpuStream, GpuAnnotation, Span, Other };

const char* trackKindName(TrackKind kind);

} // namespace ks
