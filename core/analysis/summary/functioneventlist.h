#pragma once

#include "core/analysis/summary/eventcolumn.h"
#include "core/analysis/summary/eventmapping.h"
#include "core/analysis/summary/torchflavor.h"
#include "core/model/trace.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ks {

struct EventListOptions {
    bool groupByInputShape = false; // fill inputShape (key_averages(group_by_input_shape=True))
    bool withFlops = false;         // fill flops (profile(with_flops=True))
    unsigned threads = 0;           // 0: one per hardware thread
    bool withSliceRows = false;     // fill sliceRow (export_stacks and other per-slice consumers)
    // Whose event list: torch 2.x measures from the profiler's start, puts Python function events
    // into the tree, shows TensorList arguments as [] and sums with compensated sum().
    TorchFlavor torch = TorchFlavor::Torch1;
};

// torch's list of FunctionEvents for one trace, after EventList._build_tree(): one entry per CPU
// event, device event and left-over allocator record (mapping rules: eventmapping.h), with kernels
// attributed, duplicate children removed, and the self values torch derives (spec §2.1-2.2).
//
// Columnar: event g's fields are the g-th entries of the columns below. Events are grouped in
// lanes, one per trace track plus one for allocator records; inside a lane they are in start order
// (ties: longer first, then file order), and lanes are numbered in track order. torch's list order
// is the merge of the lanes by (start, -end), ties by lane, i.e. by (start, -end, g): see
// mergeLanes() in lanemerge.h.
//
// Times are kept as the trace's integer ns; the µs doubles torch works with are
// (t - originNs()) / 1000, computed the way torch computes them so that sums round alike.
//
// With torch 2.x's rules, python_function slices are events too (kPython): torch 2.x lists them,
// so they are parents and children in the tree (an op under a Python frame is not top-level; a
// range's self time excludes the Python calls inside it) and take allocations, but key_averages
// skips them, so they are in no row.
class FunctionEventList {
public:
    enum class LaneKind : uint8_t { Cpu, Device, Memory };
    struct Lane {
        LaneKind kind = LaneKind::Cpu;
        TrackId track; // invalid for the memory lane
        uint32_t begin = 0;
        uint32_t end = 0;
    };

    enum Flag : uint8_t {
        kRemoved = 1,        // a duplicate child folded into its parent: not in the list
        kUserAnnotation = 2, // is_user_annotation
        kDeviceType = 4,     // device_type is the accelerator, not the CPU
        kTopLevel = 8,       // no cpu_parent
        kOwnsKernels = 16,   // cpu_op / user_annotation: kernels may be attributed to it
        kRuntime = 32,       // runtime / driver call
        kPython = 64,        // python_function (torch 2.x): in the tree, in no row
    };

    // Builds the list; the trace must not change meanwhile.
    static std::unique_ptr<FunctionEventList> build(const Trace& trace, const EventMapping& mapping,
                                                    const EventListOptions& options);

    const std::vector<Lane>& lanes() const { return m_lanes; }
    TorchFlavor torch() const { return m_torch; }
    // The earliest event time: the list's merge keys are measured from it.
    TimeNs baseNs() const { return m_base; }
    // What torch measured its µs from: the profiler's start for torch 2.x traces that record it
    // (the "PyTorch Profiler" span), else the earliest event.
    TimeNs originNs() const { return m_origin; }
    // The latest end of any event (the base when there are none).
    TimeNs maxEndNs() const { return m_maxEnd; }
    double us(TimeNs t) const { return double(t - m_origin) / 1000.0; }
    // Interval.elapsed_us(): end_us - start_us, both relative to the base.
    double elapsedUs(uint32_t g) const { return us(end[g]) - us(start[g]); }

    bool hasDeviceEvents() const { return m_deviceEvents > 0; }
    bool hasMemoryRecords() const { return m_memoryRecords > 0; }
    // How device events found their op: 'e' by "External id", 'c' through the runtime call with the
    // same correlation and the op enclosing it; '-' when there was no device work.
    char kernelLinkMode() const { return m_linkMode; }
    size_t attributedDeviceEvents() const { return m_attributed; }

    // Input shapes as Python prints them; only with groupByInputShape.
    const std::string& shapeText(uint32_t shapeId) const { return m_shapeTexts[shapeId]; }

    // --- columns, indexed by event number (only slots inside a lane are defined) ---------------
    EventColumn<TimeNs> start;
    EventColumn<TimeNs> end;
    EventColumn<uint32_t> nameKey; // EventMapping name key
    EventColumn<uint8_t> flags;    // Flag bits
    // CPU events: self_cpu_time_total, device_time_total, self_device_time_total (µs). Device
    // events leave them undefined: their values follow from their duration.
    EventColumn<double> selfCpuUs;
    EventColumn<double> deviceUs; // only with device events
    EventColumn<double> selfDeviceUs;
    // Allocator bytes, inclusive and self; only with allocator records, for CPU and memory events.
    // Most events enclose no allocator record, and then all four are 0 (nor do their children
    // enclose one), so the values are kept for the others only: memorySlot[g] indexes
    // memoryUsage, or is kNoMemory. A lane's slots are numbered from its first event number up,
    // and memoryUsage is a sparse column: only the slots in use take memory.
    struct MemoryUsage {
        int64_t cpu = 0;
        int64_t device = 0;
        int64_t selfCpu = 0;
        int64_t selfDevice = 0;
    };
    static constexpr uint32_t kNoMemory = UINT32_MAX;
    bool hasMemoryColumns() const { return memorySlot.allocated(); }
    MemoryUsage memoryOf(uint32_t g) const
    {
        const uint32_t slot = memorySlot[g];
        return slot == kNoMemory ? MemoryUsage{} : memoryUsage[slot];
    }
    EventColumn<uint32_t> memorySlot;
    EventColumn<MemoryUsage> memoryUsage;
    EventColumn<int64_t> flops;       // CPU and memory events, only withFlops
    EventColumn<uint32_t> inputShape; // all events, only groupByInputShape: index of shapeText()
    EventColumn<uint32_t> sliceRow;   // slice and trace events, only withSliceRows: row in the lane's track

private:
    friend class FunctionEventBuilder;

    std::vector<Lane> m_lanes;
    TorchFlavor m_torch = TorchFlavor::Torch1;
    TimeNs m_base = 0;
    TimeNs m_origin = 0;
    TimeNs m_maxEnd = 0;
    size_t m_deviceEvents = 0;
    size_t m_memoryRecords = 0;
    size_t m_attributed = 0;
    char m_linkMode = '-';
    std::vector<std::string> m_shapeTexts;
};

} // namespace ks
