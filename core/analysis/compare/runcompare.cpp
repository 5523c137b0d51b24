#include "core/analysis/compare/runcompare.h"

#include "core/analysis/overview/launchattribution.h"
#include "core/analysis/overview/parentindex.h"
#include "core/analysis/overview/perfmodel.h"
#include "core/util/parallelfor.h"

#include <algorithm>
#include <chrono>

namespace ks {

namespace {

struct SideWork {
    StepBreakdown breakdown;
    std::vector<StepCosts> chosen;  // the steps of the step comparison
    std::vector<StepCosts> counted; // the steps whose events the op comparison counts
    KeyAverages averages;
    std::vector<PerfSheet> perf;
};

const Step* findStep(const Trace& t, int64_t number)
{
    const Column<Step>& steps = t.steps();
    for (size_t i = 0; i < steps.size(); ++i)
        if (steps[i].number == number) return &steps[i];
    return nullptr;
}

bool hasDeviceWork(const Trace& t)
{
    for (size_t i = 0; i < t.trackCount(); ++i) {
        const Track& track = t.track(TrackId(uint32_t(i)));
        if (track.kind == TrackKind::GpuStream && !track.slices.empty()) return true;
    }
    return false;
}

std::string stepText(const StepRange& r)
{
    std::string s(1, '#');
    s += std::to_string(r.first);
    if (r.last != r.first) {
        s += "..#";
        s += std::to_string(r.last);
    }
    return s;
}

} // namespace

bool compareRuns(const CompareSideInput& a, const CompareSideInput& b, const CompareOptions& options,
                 CompareReport& out, std::string* error, const std::atomic<bool>* cancel)
{
    auto fail = [&](const std::string& why) {
        if (error) *error = why;
        return false;
    };
    if (!a.trace || !b.trace || !a.links || !b.links) return fail("compare: a run is missing");
    out = CompareReport();
    const CompareSideInput* in[2] = {&a, &b};
    CompareSideInfo* info[2] = {&out.a, &out.b};
    SideWork work[2];
    using Clock = std::chrono::steady_clock;
    auto t0 = Clock::now();
    auto lap = [&t0] {
        const auto now = Clock::now();
        const double s = std::chrono::duration<double>(now - t0).count();
        t0 = now;
        return s;
    };

    // 1. Steps of each side, and which of them are compared.
    parallelFor(2, options.threads, [&](size_t s) {
        work[s].breakdown = StepBreakdownAnalysis(*in[s]->trace, *in[s]->links).compute();
    });
    out.timings.stepsS = lap();
    for (int s = 0; s < 2; ++s) {
        const CompareSideInput& side = *in[s];
        CompareSideInfo& i = *info[s];
        i.label = side.label;
        i.deviceName = traceDeviceName(*side.trace);
        i.peak = devicePeakFor(i.deviceName);
        i.gpu = hasDeviceWork(*side.trace);
        const StepBreakdown& b = work[s].breakdown;
        i.hasSteps = !b.wholeTrace && !b.steps.empty();
        // Every ProfilerStep range: tb_plugin's rule (trailing steps that launched far fewer kernels)
        // decides only which steps the averages of the default comparison use, not what exists.
        std::vector<StepCosts> all = b.steps;
        all.insert(all.end(), b.tailSteps.begin(), b.tailSteps.end());
        std::string leftOut;
        if (side.steps.set()) {
            if (!i.hasSteps)
                return fail(side.label + ": the trace has no ProfilerStep, so no steps " +
                            stepText(side.steps));
            for (const StepCosts& c : all)
                if (c.number >= side.steps.first && c.number <= side.steps.last) work[s].chosen.push_back(c);
            if (work[s].chosen.empty())
                return fail(side.label + ": no ProfilerStep" + stepText(side.steps) + " in the trace");
            for (const StepCosts& c : b.tailSteps)
                if (c.number >= side.steps.first && c.number <= side.steps.last)
                    leftOut += (leftOut.empty() ? "#" : ", #") + std::to_string(c.number);
            if (!leftOut.empty())
                out.warnings.push_back(
                    side.label + ": step " + leftOut +
                    " launched far fewer kernels than the step before (tb_plugin leaves it "
                    "out of the Overview's step averages); compared as asked");
            work[s].counted = work[s].chosen;
        } else if (i.hasSteps) {
            work[s].chosen = b.steps;
            work[s].counted = std::move(all);
            for (const StepCosts& c : b.tailSteps)
                leftOut += (leftOut.empty() ? "#" : ", #") + std::to_string(c.number);
            if (!leftOut.empty())
                out.warnings.push_back(
                    side.label + ": step " + leftOut +
                    " launched far fewer kernels than the step before: left out of the step "
                    "averages (tb_plugin's rule), its ops are compared");
        }
    }
    const bool bothSteps = out.a.hasSteps && out.b.hasSteps;
    for (int s = 0; s < 2; ++s) {
        if (!info[s]->hasSteps)
            out.warnings.push_back(info[s]->label +
                                   " has no ProfilerStep: the runs are compared op by op over the whole "
                                   "traces; there is no step or op-tree alignment");
    }
    if (!bothSteps) {
        // A step range on one side only would compare a part of one run with all of the other.
        for (int s = 0; s < 2; ++s) {
            work[s].chosen.clear();
            work[s].counted.clear();
        }
    }
    for (int s = 0; s < 2; ++s) {
        EventWindow& w = info[s]->window;
        if (work[s].counted.empty()) continue;
        w.active = true;
        w.hostFrom = work[s].counted.front().hostStart;
        w.hostTo = work[s].counted.front().hostEnd;
        for (const StepCosts& c : work[s].counted) {
            w.hostFrom = std::min(w.hostFrom, c.hostStart);
            w.hostTo = std::max(w.hostTo, c.hostEnd);
        }
    }
    if (cancel && cancel->load()) {
        out.cancelled = true;
        return true;
    }

    // 2. Per-side key_averages and perf model: four independent jobs, the big ones first; then the
    // arguments of the events matched across the runs.
    parallelFor(5, options.threads, [&](size_t job) {
        if (job == 4) {
            out.args = diffArgs(*a.trace, *a.links, out.a.window, *b.trace, *b.links, out.b.window);
            return;
        }
        const size_t s = job % 2;
        const CompareSideInput& side = *in[s];
        if (job < 2) {
            work[s].averages =
                keyAveragesInWindow(*side.trace, *side.links, info[s]->window,
                                    options.threads == 0 ? 0 : std::max(1u, options.threads / 2));
        } else {
            // Only the perf sheets: no GPU timeline or kernel summary, which the Overview would add.
            TimeWindow window;
            const EventWindow& w = info[s]->window;
            if (w.active) window = TimeWindow{w.hostFrom, w.hostTo, true};
            ParentIndex parents;
            parents.update(*side.trace);
            LaunchAttribution attribution(window);
            attribution.update(*side.trace, *side.links, parents);
            work[s].perf = computePerfSheets(*side.trace, attribution.items(), window, parents);
        }
    });
    out.timings.sidesS = lap();
    if (cancel && cancel->load()) {
        out.cancelled = true;
        return true;
    }

    out.ops = diffOps(work[0].averages.rows(), work[1].averages.rows(), options.noise);
    out.steps = diffSteps(work[0].chosen, work[1].chosen);
    out.steps.wholeTraceA = !out.a.hasSteps;
    out.steps.wholeTraceB = !out.b.hasSteps;
    out.perf = diffPerf(work[0].perf, work[1].perf, out.a.peak, out.b.peak);

    if (out.a.deviceName != out.b.deviceName && (out.a.gpu || out.b.gpu)) {
        auto name = [](const CompareSideInfo& i) {
            return i.deviceName.empty() ? std::string(i.gpu ? "an unnamed device" : "the CPU only")
                                        : i.deviceName;
        };
        out.warnings.push_back(
            out.a.label + " ran on " + name(out.a) + ", " + out.b.label + " on " + name(out.b) +
            ": kernel names and times differ by device; % of peak uses each side's own peak");
    }
    if (out.ops.common == 0 && !out.ops.rows.empty())
        out.warnings.push_back("the runs have no op or kernel name in common: every row is added or deleted");

    // 3. The op trees of one step pair.
    if (bothSteps) {
        const int64_t na = options.alignStepA >= 0 ? options.alignStepA : work[0].chosen.front().number;
        const int64_t nb = options.alignStepB >= 0 ? options.alignStepB : work[1].chosen.front().number;
        const Step* sa = findStep(*a.trace, na);
        const Step* sb = findStep(*b.trace, nb);
        if (!sa || !sb || !sa->slice.valid() || !sb->slice.valid()) {
            return fail(std::string(!sa || !sa->slice.valid() ? a.label : b.label) + ": no ProfilerStep#" +
                        std::to_string(!sa || !sa->slice.valid() ? na : nb) + " to align");
        }
        out.tree = StepTreeAligner(*a.trace, *b.trace, options.noise).align(sa->slice, sb->slice);
        out.tree.stepA = na;
        out.tree.stepB = nb;
    }
    out.timings.diffS = lap();
    return true;
}

} // namespace ks
