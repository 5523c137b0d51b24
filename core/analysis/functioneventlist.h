#pragma once

#include "analysis/eventmapping.h"
#include "model/trace.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ks {

// A fixed-size array that leaves its elements uninitialised, so large per-event columns cost no
// zeroing pass (each builder writes every slot it later reads).
template <typename T>
class EventColumn {
public:
    void allocate(size_t n) { m_data.reset(n ? new T[n] : nullptr); }
    bool allocated() const { return m_data != nullptr; }
    T& operator[](size_t i) { return m_data[i]; }
    const T& operator[](size_t i) const { return m_data[i]; }
    T* data() { return m_data.get(); }

private:
    std::unique_ptr<T[]> m_data;
};

struct EventListOptions {
    bool groupByInputShape = false; // fill inputShape (key_averages(group_by_input_shape=True))
    bool withFlops = false;         // fill flops (profile(with_flops=True))
    unsigned threads = 0;           // 0: one per hardware thread
};

// torch's list of FunctionEvents for one trace, after EventList._build_tree(): one entry per CPU
// event, device event and left-over allocator record (mapping rules: eventmapping.h), with the
// CPU tree's parents, duplicate children removed, kernels attributed, and the self values torch
// derives from them (spec §2.1-2.2).
//
// Columnar: event g's fields are the g-th entries of the columns below. Events are grouped in
// lanes, one per trace track plus one for allocator records; inside a lane they are in start order
// (ties: longer first, then file order). torch's list order is the merge of the lanes by
// (start, -end), ties by lane: see forEachInOrder().
//
// Times are kept as the trace's integer ns; the µs doubles torch works with are
// (t - baseNs()) / 1000, computed exactly the way torch computes them so that sums round alike.
class FunctionEventList {
public:
    enum class LaneKind : uint8_t { Cpu, Device, Memory };
    struct Lane {
        LaneKind kind = LaneKind::Cpu;
        TrackId track;
        uint32_t begin = 0;
        uint32_t end = 0;
    };

    enum Flag : uint8_t {
        kRemoved = 1,        // a duplicate child folded into its parent: not in the list
        kUserAnnotation = 2, // is_user_annotation
        kDeviceType = 4,     // device_type is the device (CUDA), not CPU
        kTopLevel = 8,       // no cpu_parent
        kOwnsKernels = 16,   // cpu_op / user_annotation: kernels may be attributed to it
        kRuntime = 32,       // runtime / driver call
    };

    static constexpr uint32_t kNone = UINT32_MAX;

    // Builds the list; the trace must not change meanwhile.
    static std::unique_ptr<FunctionEventList> build(const Trace& trace, const EventMapping& mapping,
                                                    const EventListOptions& options);

    size_t size() const { return m_size; }
    const std::vector<Lane>& lanes() const { return m_lanes; }
    TimeNs baseNs() const { return m_base; }
    double us(TimeNs t) const { return double(t - m_base) / 1000.0; }
    // Interval.elapsed_us(): end_us - start_us, both relative to the base.
    double elapsedUs(uint32_t g) const { return us(end[g]) - us(start[g]); }

    bool hasDeviceEvents() const { return m_deviceEvents > 0; }
    bool hasMemoryRecords() const { return m_memoryRecords > 0; }
    // How device events found their op: 'e' by "External id" (modern traces), 'c' through the
    // runtime call with the same correlation and the op enclosing it (traces whose External id on
    // GPU work is a correlation); '-' when there was no GPU work.
    char kernelLinkMode() const { return m_linkMode; }
    size_t attributedDeviceEvents() const { return m_attributed; }

    // Calls fn(g) for every event still in the list, in torch's list order.
    template <typename Fn>
    void forEachInOrder(Fn&& fn) const;

    // Input shapes as Python prints them; only with groupByInputShape.
    const std::string& shapeText(uint32_t shapeId) const { return m_shapeTexts[shapeId]; }
    size_t shapeCount() const { return m_shapeTexts.size(); }

    // --- columns (all sized size()) ---------------------------------------------------------
    EventColumn<TimeNs> start;
    EventColumn<TimeNs> end;
    EventColumn<uint32_t> row;     // slice row in the lane's track, or index into memoryEvents()
    EventColumn<uint32_t> nameKey; // EventMapping name key
    EventColumn<uint8_t> flags;    // Flag bits
    EventColumn<uint32_t> link;    // CPU event: cpu_parent (kNone at top level); device: its op
    EventColumn<double> selfCpuUs; // CPU events: self_cpu_time_total
    EventColumn<double> deviceUs;  // CPU events: device_time_total (only with device events)
    EventColumn<double> selfDeviceUs;
    EventColumn<int64_t> cpuMemory; // only with allocator records
    EventColumn<int64_t> deviceMemory;
    EventColumn<int64_t> selfCpuMemory;
    EventColumn<int64_t> selfDeviceMemory;
    EventColumn<int64_t> flops;       // only withFlops
    EventColumn<uint32_t> inputShape; // only groupByInputShape: index of shapeText()

private:
    friend class FunctionEventBuilder;

    size_t m_size = 0;
    std::vector<Lane> m_lanes;
    TimeNs m_base = 0;
    size_t m_deviceEvents = 0;
    size_t m_memoryRecords = 0;
    size_t m_attributed = 0;
    char m_linkMode = '-';
    std::vector<std::string> m_shapeTexts;
};

template <typename Fn>
void FunctionEventList::forEachInOrder(Fn&& fn) const
{
    // A k-way merge of the lanes on (start, -end, g); lanes are numbered in rank order, so g breaks
    // ties between lanes the way torch's stable sort keeps its input order.
    struct Head {
        TimeNs start;
        TimeNs end;
        uint32_t g;
        uint32_t stop;
    };
    auto before = [](const Head& a, const Head& b) {
        if (a.start != b.start) return a.start < b.start;
        if (a.end != b.end) return a.end > b.end;
        return a.g < b.g;
    };
    std::vector<Head> heap;
    heap.reserve(m_lanes.size());
    for (const Lane& l : m_lanes)
        if (l.begin < l.end) heap.push_back(Head{start[l.begin], end[l.begin], l.begin, l.end});
    auto siftDown = [&](size_t i) {
        const size_t n = heap.size();
        const Head h = heap[i];
        while (true) {
            size_t c = 2 * i + 1;
            if (c >= n) break;
            if (c + 1 < n && before(heap[c + 1], heap[c])) ++c;
            if (!before(heap[c], h)) break;
            heap[i] = heap[c];
            i = c;
        }
        heap[i] = h;
    };
    for (size_t i = heap.size(); i-- > 0;)
        siftDown(i);
    while (!heap.empty()) {
        Head& top = heap[0];
        const uint32_t g = top.g;
        if (!(flags[g] & kRemoved)) fn(g);
        if (g + 1 < top.stop) {
            top.g = g + 1;
            top.start = start[g + 1];
            top.end = end[g + 1];
        } else {
            top = heap.back();
            heap.pop_back();
            if (heap.empty()) break;
        }
        siftDown(0);
    }
}

} // namespace ks
