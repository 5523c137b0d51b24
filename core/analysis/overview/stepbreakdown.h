#pragma once

#include "core/analysis/timeline/linkindex.h"
#include "core/model/trace.h"

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace ks {

// TensorBoard profiler plugin's step-time categories, highest priority first: a moment of a step is
// charged to the first category active then, so the categories of a step sum to its wall time.
enum class StepCategory : uint8_t {
    Kernel,
    Memcpy,
    Memset,
    Communication,
    Runtime,
    DataLoader,
    CpuExec,
    Other,
    Count
};
constexpr size_t kStepCategoryCount = size_t(StepCategory::Count);
const char* stepCategoryName(StepCategory c);

struct StepCosts {
    std::string name; // the step number ("12"), or "0" when the trace has no ProfilerStep
    int64_t number = 0;
    TimeNs hostStart = 0, hostEnd = 0; // the ProfilerStep range on the host
    TimeNs start = 0, end = 0;         // the step's span, extended to the device work it launched
    std::array<TimeNs, kStepCategoryCount> cost{};
    // Communication/computation overlap (tb_plugin's distributed view): computation is kernel time
    // (CPU-op time on traces without kernels), other = step − computation − communication + overlap.
    TimeNs computation = 0, communication = 0, overlap = 0, otherThanComm = 0;

    TimeNs total() const { return end - start; }
};

struct StepBreakdown {
    std::vector<StepCosts> steps;
    std::array<double, kStepCategoryCount> average{}; // per step, ns
    double averageTotal = 0;
    bool onDevice = false;       // step spans were extended to the device work they launched
    bool wholeTrace = false;     // no ProfilerStep: one step over the CPU events
    bool selection = false;      // one step over a chosen time range (Options::spanStart/End)
    size_t tailStepsRemoved = 0; // trailing steps whose kernels were not all captured
    // Those steps, costed like the others: left out of `steps` and the averages (tb_plugin's rule),
    // but they are ProfilerStep ranges of the trace, which a comparison may name (docs/compare.md).
    std::vector<StepCosts> tailSteps;

    // average and averageTotal from steps.
    void recomputeAverages();
};

// The per-step breakdown of tb_plugin's Overview (torch_tb_profiler OverallParser + StepParser):
//  - roles: kernels (Communication when launched by an nccl:/gloo: collective op, or named like an
//    NCCL/RCCL kernel), memcpy, memset, runtime calls, DataLoader/DataPipe iteration ops, CPU ops;
//  - steps: ProfilerStep ranges; on GPU traces each step starts where the previous one ended and
//    ends no earlier than the last device work launched from runtime calls inside it; trailing
//    steps that launched nothing, or far fewer kernels than the step before, are dropped (their
//    kernels were likely cut off by the end of the capture).
// docs/analyze.md lists where this differs from tb_plugin and why.
class StepBreakdownAnalysis {
public:
    struct Options {
        bool deviceSteps = true;
        bool removeTailSteps = true;
        // Only steps that start at or after `from`, reading only events that reach past it; the
        // first such step starts no earlier than previousEnd (the end of the step before it).
        TimeNs from = INT64_MIN;
        TimeNs previousEnd = INT64_MIN;
        // A time range chosen by the user: broken down as one step named "selection", whatever
        // steps the trace has. Empty when spanEnd <= spanStart.
        TimeNs spanStart = 0, spanEnd = 0;
    };

    StepBreakdownAnalysis(const Trace& trace, const LinkIndex& links) : m_trace(trace), m_links(links) {}
    StepBreakdown compute(const Options& options) const;
    StepBreakdown compute() const { return compute(Options()); }
    // A live session's breakdown after more steps arrived: the steps of `previous` before its last
    // one are kept, the last one (its device work may have grown) and newer ones are computed from
    // the events that reach them. The result equals compute() without tail removal, in a time that
    // depends on the new steps, not on the length of the trace.
    StepBreakdown update(const StepBreakdown& previous) const;

private:
    const Trace& m_trace;
    const LinkIndex& m_links;
};

} // namespace ks
