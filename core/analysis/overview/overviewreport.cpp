#include "core/analysis/overview/overviewreport.h"

#include "core/analysis/overview/findings.h"
#include "core/util/parallelfor.h"

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
    // Read from both threads below; r.cancelled is set once they are done.
    auto stop = [cancel] { return cancel && cancel->load(std::memory_order_relaxed); };

    auto hostSide = [&](OverviewReport& out) {
        StepBreakdownAnalysis::Options so;
        if (scope.scoped()) {
            // Steps that lie in the range, else the range itself as one step.
            const StepBreakdown all = StepBreakdownAnalysis(trace, links).compute(so);
            for (const StepCosts& s : all.steps)
                if (s.start >= scope.from && s.end <= scope.to) out.steps.steps.push_back(s);
            if (out.steps.steps.empty()) {
                so.spanStart = std::max(scope.from, trace.startTime());
                so.spanEnd = std::min(scope.to, trace.endTime());
                out.steps = StepBreakdownAnalysis(trace, links).compute(so);
            } else {
                out.steps.onDevice = all.onDevice;
                out.steps.recomputeAverages();
            }
        } else {
            out.steps = StepBreakdownAnalysis(trace, links).compute(so);
        }
        if (stop()) return;

        IdleTimeAnalysis::Options io;
        io.from = scope.from;
        io.to = scope.to;
        out.idle = IdleTimeAnalysis(trace, links).compute(io);
        if (stop()) return;

        LaunchStatsAnalysis::Options lo;
        lo.from = scope.from;
        lo.to = scope.to;
        out.launches = LaunchStatsAnalysis(trace, links).compute(lo);
        if (stop()) return;
    };
    // TraceLens's overview and the step/idle/launch analyses read the trace independently: run
    // them side by side (parallelFor: large item first).
    parallelFor(2, 0, [&](size_t part) {
        if (part == 0) {
            OverviewOptions oo;
            if (scope.scoped()) oo.window = TimeWindow{scope.from, scope.to, true};
            Overview gpu(oo);
            gpu.update(trace, links);
            r.gpu = gpu.result();
            return;
        }
        hostSide(r);
    });
    if (stop()) {
        r.cancelled = true;
        return r;
    }

    r.deviceName = traceDeviceName(trace);
    r.peak = options.peak ? options.peak : devicePeakFor(r.deviceName);
    r.roofline = rooflineOf(r.gpu.perfSheets, r.peak);

    FindingsBuilder fb(trace, links);
    fb.addSteps(r.steps);
    fb.addIdle(r.idle);
    fb.addLaunches(r.launches);
    fb.addGpuTimeline(r.gpu.timeline);
    fb.addRoofline(r.roofline, r.gpu.timeline, r.peak);
    r.findings = fb.findings();
    return r;
}

} // namespace ks
