// Profiler's results (events, key_averages, table, export_stacks, export_memory_timeline): the
// analyses that serve trace files, run on the last window's trace, so a recorded run and its
// exported file give the same numbers.

#include "core/analysis/memory/memoryexport.h"
#include "core/analysis/memory/memorytimeline.h"
#include "core/analysis/summary/backwardstacks.h"
#include "core/analysis/summary/eventmapping.h"
#include "core/analysis/summary/functioneventlist.h"
#include "core/analysis/summary/lanemerge.h"
#include "core/analysis/summary/stackexport.h"
#include "core/record/profiler.h"

#include <stdexcept>

namespace ks::record {

namespace {

const Trace& finished(const std::shared_ptr<Trace>& t)
{
    if (!t) throw std::runtime_error("no profiling window has finished yet");
    return *t;
}

} // namespace

std::vector<ProfilerEvent> Profiler::events() const
{
    const Trace& t = finished(m_trace);
    const EventMapping mapping(t);
    EventListOptions listOptions;
    listOptions.withSliceRows = true;
    const auto list = FunctionEventList::build(t, mapping, listOptions);
    const BackwardStacks stacks(t, *list);
    std::vector<std::string_view> frames;
    std::vector<uint32_t> lanes(list->lanes().size());
    std::vector<uint32_t> laneOf;
    for (uint32_t i = 0; i < lanes.size(); ++i) {
        lanes[i] = i;
        const FunctionEventList::Lane& l = list->lanes()[i];
        if (laneOf.size() < l.end) laneOf.resize(l.end);
        for (uint32_t g = l.begin; g < l.end; ++g)
            laneOf[g] = i;
    }
    std::vector<ProfilerEvent> out;
    mergeLanes(
        *list, lanes, [](uint32_t) { return true; },
        [&](uint32_t g) {
            const uint8_t f = list->flags[g];
            ProfilerEvent e;
            e.name = std::string(mapping.displayName(list->nameKey[g]));
            const FunctionEventList::Lane& lane = list->lanes()[laneOf[g]];
            if (lane.track.valid()) {
                const Track& track = t.track(lane.track);
                if (track.name.valid()) e.thread = std::string(t.str(track.name));
            }
            e.startUs = list->us(list->start[g]);
            e.endUs = list->us(list->end[g]);
            e.device = f & FunctionEventList::kDeviceType;
            e.userAnnotation = f & FunctionEventList::kUserAnnotation;
            e.topLevel = f & FunctionEventList::kTopLevel;
            if (e.device) {
                e.deviceUs = e.selfDeviceUs = list->elapsedUs(g);
            } else if (lane.kind == FunctionEventList::LaneKind::Cpu) {
                e.selfCpuUs = list->selfCpuUs[g];
                stacks.stackOf(g, frames);
                e.stack.assign(frames.begin(), frames.end());
                if (list->deviceUs.allocated()) {
                    e.deviceUs = list->deviceUs[g];
                    e.selfDeviceUs = list->selfDeviceUs[g];
                }
            }
            out.push_back(std::move(e));
        });
    return out;
}

SummaryReport Profiler::keyAverages(bool groupByInputShape, int groupByStackN) const
{
    const Trace& t = finished(m_trace);
    SummaryRequest r;
    r.groupByInputShape = groupByInputShape;
    r.groupByStackN = groupByStackN;
    r.withFlops = m_options.withFlops ? 1 : 0;
    r.profileMemory = m_options.profileMemory ? 1 : 0;
    return buildSummaryReport(t, r);
}

std::string Profiler::table(const TableOptions& options, bool groupByInputShape, int groupByStackN) const
{
    const SummaryReport report = keyAverages(groupByInputShape, groupByStackN);
    TableOptions o = options;
    o.withFlops = report.table.withFlops;
    o.useDevice = report.table.useDevice;
    o.profileMemory = report.table.profileMemory;
    // The table's rules are those the event list was built with (the trace's torch flavour).
    o.torch = report.table.torch;
    // torch names the device columns after use_device: "cuda" unless only an XPU was asked for.
    bool cuda = false, xpu = false;
    for (Activity a : m_options.activities) {
        cuda = cuda || a == Activity::CUDA;
        xpu = xpu || a == Activity::XPU;
    }
    if (xpu && !cuda) o.deviceName = "XPU";
    std::string error;
    std::string text = report.format(o, &error);
    if (!error.empty()) throw std::runtime_error(error);
    return text;
}

bool Profiler::exportStacks(const std::string& path, std::string_view metric, std::string* error) const
{
    if (!m_trace) {
        if (error) *error = "no profiling window has finished yet";
        return false;
    }
    return ks::exportStacks(*m_trace, path, metric, error);
}

bool Profiler::exportMemoryTimeline(const std::string& path, std::string_view device,
                                    std::string* error) const
{
    auto fail = [error](std::string why) {
        if (error) *error = std::move(why);
        return false;
    };
    if (!m_trace) return fail("no profiling window has finished yet");
    const MemoryTimeline tl = MemoryTimeline::build(*m_trace);
    if (tl.empty())
        return fail("the window has no allocator events; record with profile_memory (and ranges "
                    "around the allocations)");
    std::optional<MemoryDevice> d = device.empty() ? tl.defaultDevice() : MemoryDevice::parse(device);
    if (!d || !tl.find(*d))
        return fail("no memory events on device '" + std::string(device) + "'; devices: " + tl.deviceList());
    std::string why;
    if (!ks::exportMemoryTimeline(tl, *d, path, why)) return fail(why);
    return true;
}

} // namespace ks::record
