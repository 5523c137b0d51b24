#pragma once

#include "core/analysis/timeline/linkindex.h"
#include "core/model/trace.h"

#include <array>
#include <cstdint>
#include <vector>

namespace ks {

// HTA's idle-time categories for the gap before a piece of GPU work on its stream.
enum class IdleCategory : uint8_t {
    HostWait,   // the launching call started after the previous work ended: the CPU fell behind
    KernelWait, // a gap shorter than the threshold: the cost of launching back-to-back work
    Other,      // anything else, e.g. waiting for an event from another stream
    Count
};
constexpr size_t kIdleCategoryCount = size_t(IdleCategory::Count);
const char* idleCategoryName(IdleCategory c);

struct StreamIdle {
    TrackId track;
    int device = -1;
    int64_t stream = -1;
    std::array<TimeNs, kIdleCategoryCount> time{};
    std::array<uint64_t, kIdleCategoryCount> gaps{};
    // The largest gap of each category and the work that followed it, to link a finding to events.
    std::array<TimeNs, kIdleCategoryCount> longest{};
    std::array<SliceRef, kIdleCategoryCount> longestBefore{};
    uint64_t workCount = 0;

    TimeNs total() const { return time[0] + time[1] + time[2]; }
};

// HTA's get_idle_time_breakdown: per GPU stream, the work (kernels, memcpy, memset) in start order;
// each gap between one piece of work's start and the previous one's end is host wait, kernel wait
// or other (see IdleCategory). Gaps are summed as HTA sums them, negative ones included (work that
// overlaps on one stream, which real CUDA streams do not do). HTA's default threshold,
// consecutive_kernel_delay = 30, is in the µs of its data frame (its docstring says ns), so the
// default here is 30 µs.
class IdleTimeAnalysis {
public:
    struct Options {
        TimeNs consecutiveKernelDelay = 30'000;
        TimeNs from = INT64_MIN, to = INT64_MAX; // only work starting in [from, to)
    };

    IdleTimeAnalysis(const Trace& trace, const LinkIndex& links) : m_trace(trace), m_links(links) {}
    std::vector<StreamIdle> compute(const Options& options) const;
    std::vector<StreamIdle> compute() const { return compute(Options()); }

private:
    const Trace& m_trace;
    const LinkIndex& m_links;
};

} // namespace ks
