#pragma once

#include "core/analysis/memory/memorytimeline.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ks {

// torch's Action enum; the raw export writes these values.
enum class MemoryAction : uint8_t { Preexisting = 1, Create = 2, IncrementVersion = 3, Destroy = 4 };

// One element of torch's MemoryProfile.timeline, rebuilt from our allocations.
struct MemoryTimelineEntry {
    int64_t t = -1; // Unix-epoch ns; -1 for memory allocated before the window
    MemoryAction action = MemoryAction::Create;
    int64_t bytes = 0; // positive
    MemoryCategory category = MemoryCategory::Unknown;
};

// The timeline of one device in torch's order: per allocator event CREATE / DESTROY (plus
// PREEXISTING at -1 for frees of memory allocated before the window) / INCREMENT_VERSION for an
// allocation at a live address, then a stable sort by (t, action value).
std::vector<MemoryTimelineEntry> memoryTimelineEntries(const Trace& trace,
                                                       const MemoryDeviceTimeline& device);

// int(ns / 1000) exactly as Python evaluates it: the true quotient rounded to the nearest double
// (ties to even), then truncated. Differs from ns / 1000 when ns % 1000 is about 875 or more.
int64_t pythonMicros(int64_t ns);

// torch's coalesced `[times, sizes]`: one row per distinct consecutive time (µs), each holding the
// running bytes of [placeholder 0, PARAMETER, ..., AUTOGRAD_DETAIL, Unknown]; pre-existing rows take
// the smallest positive time.
struct CoalescedMemory {
    std::vector<int64_t> times;
    std::vector<std::array<int64_t, kMemoryCategoryCount + 1>> sizes;
};
CoalescedMemory coalesceMemoryTimeline(const std::vector<MemoryTimelineEntry>& entries);

// `json.dump([times, sizes])`: ", " between items, no trailing newline.
std::string memoryTimelineJson(const CoalescedMemory& c);
// `json.dump` of the raw tuples [t_ns, action, ±bytes, category index].
std::string memoryTimelineRawJson(const std::vector<MemoryTimelineEntry>& entries);
// torch's six-line HTML page with the chart as a base64 PNG (which, unlike torch's, shrinks to the
// browser window: style='max-width:100%;height:auto' after the src). The title's numbers are the largest
// Total Allocated / Total Reserved the trace reports for the device (torch asks the live CUDA
// allocator for its peaks instead); without them, the peak of the rebuilt total and "n/a".
std::string memoryTimelineHtml(const CoalescedMemory& c, const MemoryDeviceTimeline& device,
                               std::string_view title = {});
// The chart itself, 1600×960 PNG bytes.
std::string memoryTimelinePng(const CoalescedMemory& c, const MemoryDeviceTimeline& device,
                              std::string_view title = {});

enum class MemoryExportFormat { Html, Json, JsonGz, RawJsonGz };
// torch's dispatch on the file name: ".html", then ".gz" ("raw.json.gz": raw), anything else JSON.
MemoryExportFormat memoryExportFormatFor(std::string_view path);

// Writes one device's timeline to path in the format its name selects, atomically. False with a
// one-line reason in error.
bool exportMemoryTimeline(const MemoryTimeline& timeline, MemoryDevice device, const std::string& path,
                          std::string& error, std::string_view title = {});

} // namespace ks
