#pragma once

#include "core/analysis/summary/torchflavor.h"
#include "core/model/trace.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ks {

struct KeyAveragesOptions {
    bool groupByInputShape = false; // key_averages(group_by_input_shape=True)
    bool withFlops = false;         // count FLOPs as profile(with_flops=True) would have
    int groupByStackN = 0;          // key_averages(group_by_stack_n=N): also group by N innermost frames
    unsigned threads = 0;           // 0: one per hardware thread
    TorchFlavor torch = TorchFlavor::Torch1; // whose rules (torchflavor.h)
};

// One row of key_averages(): torch's FunctionEventAvg. Sums follow torch's own order of
// accumulation, so the doubles are the ones torch would hold for the same events.
struct KeyAverage {
    std::string key;             // event name, demangled; "ProfilerStep*" for the step markers
    bool deviceType = false;     // device_type is the accelerator, not the CPU
    bool userAnnotation = false; // torch 2.x: part of the key; torch 1.13: the first event's
    // is_legacy: device time is carried by this CPU row (nvprof ranges), not by device rows, so the
    // table's self-device total counts it.
    bool legacy = false;
    bool topLevel = true;    // the group's first event had no cpu_parent
    std::string inputShapes; // str(input_shapes) when grouped by input shape, else empty
    // The first event's stack, innermost frame first, cut to group_by_stack_n frames (so empty
    // unless grouping by stack, as in torch).
    std::vector<std::string> stack;
    int64_t count = 0;
    double cpuTimeTotal = 0; // µs
    double selfCpuTimeTotal = 0;
    double deviceTimeTotal = 0;
    double selfDeviceTimeTotal = 0;
    int64_t cpuMemoryUsage = 0; // bytes
    int64_t selfCpuMemoryUsage = 0;
    int64_t deviceMemoryUsage = 0;
    int64_t selfDeviceMemoryUsage = 0;
    int64_t flops = 0;

    double cpuTime() const { return count == 0 ? 0.0 : cpuTimeTotal / double(count); }
    double deviceTime() const { return count == 0 ? 0.0 : deviceTimeTotal / double(count); }
};

// torch's key_averages() for a trace (spec §2.3): the trace's events as torch would list them
// (eventmapping.h), grouped by (name, device type, user-annotation flag[, input shapes]) in order of
// first appearance. torch 1.13 has no user-annotation flag: a range and an op of one name share a
// row. torch 2.x lists Python function events but leaves them out of every row.
class EventMapping;
class FunctionEventList;

class KeyAverages {
public:
    static KeyAverages compute(const Trace& trace, const KeyAveragesOptions& options = {});
    // The grouping step alone, on an event list built with the same mapping (the shape grouping
    // and FLOPs follow from what the list was built with).
    // stacks: per event number, the group_by_stack_n key (index into stackFrames; 0 = no frames).
    struct Stacks {
        std::vector<uint32_t> key;
        std::vector<std::vector<std::string>> frames;
    };
    static KeyAverages fromEventList(const FunctionEventList& list, const EventMapping& mapping,
                                     unsigned threads = 0, const Stacks* stacks = nullptr);
    // The stack keys for group_by_stack_n = n (the list must have been built withSliceRows).
    static Stacks stacksOf(const Trace& trace, const FunctionEventList& list, int n);

    std::vector<KeyAverage>& rows() { return m_rows; }
    const std::vector<KeyAverage>& rows() const { return m_rows; }

    // The trace had device events (torch's use_device would be set).
    bool hasDeviceEvents() const { return m_hasDevice; }
    // The trace had allocator records ("[memory]"), i.e. was recorded with profile_memory.
    bool hasMemoryRecords() const { return m_hasMemory; }
    // How device events were tied to ops: 'e' External id, 'c' correlation + nesting, '-' none.
    char kernelLinkMode() const { return m_linkMode; }
    size_t eventCount() const { return m_events; }
    size_t attributedDeviceEvents() const { return m_attributed; }

private:
    std::vector<KeyAverage> m_rows;
    bool m_hasDevice = false;
    bool m_hasMemory = false;
    char m_linkMode = '-';
    size_t m_events = 0;
    size_t m_attributed = 0;
};

} // namespace ks
