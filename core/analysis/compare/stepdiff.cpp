#include "core/analysis/compare/stepdiff.h"

namespace ks {

namespace {

void summarise(const std::vector<StepCosts>& steps, Stats& total, std::array<Stats, kStepCategoryCount>& cats)
{
    std::vector<double> v;
    v.reserve(steps.size());
    for (const StepCosts& s : steps)
        v.push_back(double(s.total()) / 1000.0);
    total = Stats::of(v);
    for (size_t c = 0; c < kStepCategoryCount; ++c) {
        v.clear();
        for (const StepCosts& s : steps)
            v.push_back(double(s.cost[c]) / 1000.0);
        cats[c] = Stats::of(v);
    }
}

} // namespace

StepDiff diffSteps(std::vector<StepCosts> a, std::vector<StepCosts> b)
{
    StepDiff d;
    d.a = std::move(a);
    d.b = std::move(b);
    summarise(d.a, d.totalA, d.categoryA);
    summarise(d.b, d.totalB, d.categoryB);
    return d;
}

} // namespace ks
