#pragma once

#include "core/analysis/overview/perfmodel.h"
#include "core/analysis/overview/stepbreakdown.h"

#include <array>
#include <vector>

namespace ks {

// Step time and the step breakdown (tb_plugin categories) of two runs, step by step and in summary.
struct StepDiff {
    // The compared steps of each side, in order. Pair i is A's i-th step and B's i-th step: step
    // numbers may differ between runs (a run profiled from step 10, another from step 0).
    std::vector<StepCosts> a, b;
    bool wholeTraceA = false, wholeTraceB = false; // a side had no ProfilerStep: one step over the run
    // Over each side's steps, µs: step time and each category.
    Stats totalA, totalB;
    std::array<Stats, kStepCategoryCount> categoryA{}, categoryB{};

    size_t pairs() const { return std::min(a.size(), b.size()); }
    // B's mean minus A's mean, µs (NaN when a side has no steps).
    double meanDelta() const { return totalB.mean - totalA.mean; }
    double categoryMeanDelta(size_t c) const { return categoryB[c].mean - categoryA[c].mean; }
};

StepDiff diffSteps(std::vector<StepCosts> a, std::vector<StepCosts> b);

} // namespace ks
