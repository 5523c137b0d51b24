#include "core/analysis/summary/summaryreport.h"

#include "core/analysis/summary/eventmapping.h"
#include "core/analysis/summary/nvprofaverages.h"
#include "core/analysis/summary/pyrepr.h"

namespace ks {

bool metadataFlag(const Trace& t, std::string_view key)
{
    const std::string* v = t.metadata().find(key);
    return v && *v != "0" && *v != "false" && *v != "null" && *v != "\"\"" && *v != "0.0";
}

SummaryReport buildSummaryReport(const Trace& trace, const SummaryRequest& request)
{
    SummaryReport r;
    if (NvprofAverages::applies(trace)) {
        // torch reads nvprof databases with parse_nvprof_trace, whose events hold only ranges with
        // their kernels: no shapes, stacks, memory or FLOPs to group by or show.
        bool kernels = false;
        r.averages.rows() = NvprofAverages::compute(trace, &kernels);
        r.table.useDevice = kernels;
        return r;
    }
    const TorchFlavor torch = request.torch ? *request.torch : detectTorchFlavor(trace);
    KeyAveragesOptions avg;
    avg.torch = torch;
    avg.groupByInputShape = request.groupByInputShape;
    avg.withFlops = request.withFlops >= 0 ? request.withFlops == 1 : metadataFlag(trace, "with_flops");
    avg.groupByStackN = request.groupByStackN;
    avg.threads = request.threads;
    r.averages = KeyAverages::compute(trace, avg);
    r.groupByInputShape = request.groupByInputShape;
    r.torch = torch;
    r.table.torch = torch;
    r.table.memoryUnits =
        torch == TorchFlavor::Torch2 ? pyformat::MemoryUnits::Current : pyformat::MemoryUnits::Legacy;
    r.table.withFlops = avg.withFlops;
    r.table.useDevice = r.averages.hasDeviceEvents();
    r.table.profileMemory = request.profileMemory >= 0
                                ? request.profileMemory == 1
                                : r.averages.hasMemoryRecords() || metadataFlag(trace, "profile_memory");
    return r;
}

std::vector<SliceRef> rowOccurrences(const Trace& trace, const KeyAverage& row, bool groupedByInputShape)
{
    std::vector<SliceRef> out;
    const EventMapping mapping(trace);
    // Name keys whose display name is the row's, found once over the pool.
    std::vector<uint8_t> wanted(mapping.nameKeyBound(), 0);
    bool any = false;
    for (size_t k = 0; k < wanted.size(); ++k) {
        if (mapping.displayName(uint32_t(k)) == row.key) {
            wanted[k] = 1;
            any = true;
        }
    }
    if (!any) return out;
    // torch 1.13's key has no annotation flag; its shapes are the trace's.
    const TorchFlavor torch = detectTorchFlavor(trace);
    std::string shapes;
    for (size_t t = 0; t < trace.trackCount(); ++t) {
        const Track& track = trace.track(TrackId(uint32_t(t)));
        const SliceTrack& s = track.slices;
        for (size_t i = 0; i < s.size(); ++i) {
            const uint32_t key = mapping.nameKey(s.name(i));
            if (key == EventMapping::kFiltered || key >= wanted.size() || !wanted[key]) continue;
            const EventRole role = mapping.role(trace.kindOf(s.category(i)), track.kind);
            if (role == EventRole::None) continue;
            if (isDeviceRole(role) != row.deviceType) continue;
            const bool annotation = role == EventRole::CpuAnnotation || role == EventRole::DeviceAnnotation;
            if (torch == TorchFlavor::Torch2 && annotation != row.userAnnotation) continue;
            if (groupedByInputShape) {
                ArgValue dims;
                if (!trace.args().find(s.args(i), "Input Dims", dims))
                    trace.args().find(s.args(i), "Input dims", dims);
                shapes.clear();
                if (dims.type == ArgType::Json)
                    appendInputShapes(dims.text, torch, shapes);
                else
                    shapes = "[]";
                if (shapes != row.inputShapes) continue;
            }
            out.push_back(SliceRef{track.id, uint32_t(i)});
        }
    }
    return out;
}

} // namespace ks
