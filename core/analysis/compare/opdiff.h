#pragma once

#include "core/analysis/compare/diffcategory.h"
#include "core/analysis/summary/keyaverages.h"

#include <string>
#include <vector>

namespace ks {

// One side's numbers for a key_averages row (µs, torch's FunctionEventAvg totals).
struct OpSideStats {
    int64_t count = 0;
    double cpuTotal = 0;
    double selfCpu = 0;
    double deviceTotal = 0;
    double selfDevice = 0;
};

// One op or kernel in either run: key_averages rows of A and B with the same key.
struct OpDiffRow {
    std::string name;
    bool device = false;     // a kernel / memcpy / memset row (device_type is the accelerator)
    bool annotation = false; // a user annotation (record_function range)
    OpSideStats a, b;
    DiffCategory byCount = DiffCategory::Unchanged;
    DiffCategory byDuration = DiffCategory::Unchanged;

    // The duration HTA compares (its "total_duration": the sum of the events' own durations), i.e.
    // CPU total for CPU rows and device total for device rows.
    double durationA() const { return device ? a.deviceTotal : a.cpuTotal; }
    double durationB() const { return device ? b.deviceTotal : b.cpuTotal; }
    double delta() const { return durationB() - durationA(); }
    int64_t countDelta() const { return b.count - a.count; }
    // The time the row itself costs (self time): what sums to the run's total without counting a
    // parent and its children twice.
    double selfA() const { return device ? a.selfDevice : a.selfCpu; }
    double selfB() const { return device ? b.selfDevice : b.selfCpu; }
};

struct OpDiff {
    std::vector<OpDiffRow> rows; // largest |delta| first
    size_t common = 0;           // rows present in both runs
    // Sums of self time per side (CPU rows: self CPU, device rows: self device), µs.
    double cpuSelfA = 0, cpuSelfB = 0, deviceSelfA = 0, deviceSelfB = 0;
    size_t countBy(DiffCategory c, bool byDuration) const;
};

// Matches key_averages rows of two runs on (name, device type, user-annotation flag) and classifies
// each (HTA TraceDiff.ops_diff by count; the same categories by duration with a noise threshold).
OpDiff diffOps(const std::vector<KeyAverage>& a, const std::vector<KeyAverage>& b,
               const NoiseThreshold& noise);

} // namespace ks
