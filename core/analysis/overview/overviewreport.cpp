#include "analysis/overview/overviewreport.h"

#include "analysis/overview/findings.h"

namespace ks {

namespace {

std::string rowLabel(const PerfRow& row)
{
    std::string s = row.name;
    for (const auto& [k, v] : row.params) {
        if (k.rfind("stride", 0) == 0 || k.rfind("dtype", 0) == 0) continue;
        s += " " + k + "=" + v;
    }
    return s;
}

std::string rowDtype(const PerfRow& row)
{
    for (const auto& [k, v] : row.params)
        if (k.rfind("dtype", 0) == 0) return v;
    return {};
}

std::vector<RooflinePoint> rooflineOf(const std::vector<PerfSheet>& sheets,
                                      const std::optional<DevicePeak>& peak)
{
    std::vector<RooflinePoint> out;
    for (const PerfSheet& sheet : sheets) {
        for (size_t i = 0; i < sheet.rows.size(); ++i) {
            const PerfRow& row = sheet.rows[i];
            if (!(row.flopsPerByte > 0) || !(row.tflopsPerS.mean > 0)) continue; // NaN too
            RooflinePoint p;
            p.sheet = sheet.name;
            p.row = i;
            p.label = rowLabel(row);
            p.flopsPerByte = row.flopsPerByte;
            p.tflopsPerS = row.tflopsPerS.mean;
            p.kernelUs = row.kernelUs.sum;
            p.calls = row.count;
            if (peak && peak->valid()) {
                p.computeRoofTflops = peak->tflopsFor(rowDtype(row));
                // TB/s × FLOP/B = TFLOP/s.
                p.roofTflops = std::min(p.computeRoofTflops, row.flopsPerByte * peak->memoryTBps);
            }
            out.push_back(std::move(p));
        }
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const RooflinePoint& a, const RooflinePoint& b) { return a.kernelUs > b.kernelUs; });
    return out;
}

} // namespace

OverviewReport buildOverview(const Trace& trace, const LinkIndex& links, const OverviewReportOptions& options,
                             const std::atomic<bool>* cancel)
{
    const OverviewScope& scope = options.scope;
    OverviewReport r;
    auto stop = [&] { return cancel && cancel->load(std::memory_order_relaxed) && (r.cancelled = true); };

    StepBreakdownAnalysis::Options so;
    if (scope.scoped()) {
        // Steps that lie in the range, else the range itself as one step.
        const StepBreakdown all = StepBreakdownAnalysis(trace, links).compute(so);
        for (const StepCosts& s : all.steps)
            if (s.start >= scope.from && s.end <= scope.to) r.steps.steps.push_back(s);
        if (r.steps.steps.empty()) {
            so.spanStart = std::max(scope.from, trace.startTime());
            so.spanEnd = std::min(scope.to, trace.endTime());
            r.steps = StepBreakdownAnalysis(trace, links).compute(so);
        } else {
            r.steps.onDevice = all.onDevice;
            r.steps.recomputeAverages();
        }
    } else {
        r.steps = StepBreakdownAnalysis(trace, links).compute(so);
    }
    if (stop()) return r;

    IdleTimeAnalysis::Options io;
    io.from = scope.from;
    io.to = scope.to;
    r.idle = IdleTimeAnalysis(trace, links).compute(io);
    if (stop()) return r;

    LaunchStatsAnalysis::Options lo;
    lo.from = scope.from;
    lo.to = scope.to;
    r.launches = LaunchStatsAnalysis(trace, links).compute(lo);
    if (stop()) return r;

    OverviewOptions oo;
    if (scope.scoped()) oo.window = TimeWindow{scope.from, scope.to, true};
    Overview gpu(oo);
    gpu.update(trace, links);
    r.gpu = gpu.result();
    if (stop()) return r;

    r.deviceName = traceDeviceName(trace);
    r.peak = options.peak ? options.peak : devicePeakFor(r.deviceName);
    r.roofline = rooflineOf(r.gpu.perfSheets, r.peak);

    FindingsBuilder fb(trace, links);
    fb.addSteps(r.steps);
    fb.addIdle(r.idle, r.steps);
    fb.addLaunches(r.launches);
    fb.addGpuTimeline(r.gpu.timeline);
    fb.addRoofline(r.roofline, r.gpu.timeline, r.peak);
    r.findings = fb.findings();
    return r;
}

} // namespace ks
