#include "analysis/overview/overviewreport.h"

#include "analysis/overview/findings.h"

namespace ks {

OverviewReport buildOverview(const Trace& trace, const LinkIndex& links, const OverviewScope& scope,
                             const std::atomic<bool>* cancel)
{
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

    FindingsBuilder fb(trace, links);
    fb.addSteps(r.steps);
    fb.addIdle(r.idle, r.steps);
    fb.addLaunches(r.launches);
    r.findings = fb.findings();
    return r;
}

} // namespace ks
