#pragma once

#include "core/analysis/hta/htaevents.h"

#include <optional>
#include <string>
#include <vector>

namespace ks::hta {

// HTA's get_temporal_breakdown for the trace's rank. Every row with a stream is GPU work; its time
// span runs from the first start to the last end. Idle time is the span minus the union of all
// work; compute time is the union of the work HTA names COMPUTATION; non-compute time is the rest
// (communication, memory copies and sets, and their overlap with nothing computing). All in µs.
// These are HTA's definitions, not TraceLens's GPU timeline that the Overview shows (docs/analyze.md).
struct TemporalBreakdown {
    int rank = 0;
    double idleUs = 0, computeUs = 0, nonComputeUs = 0, kernelUs = 0;
    // 100 × part / kernelUs, rounded to 2 decimals as HTA rounds them.
    double idlePct = 0, computePct = 0, nonComputePct = 0;
};
// Empty when the trace has no GPU work (HTA fails on such a trace).
std::optional<TemporalBreakdown> temporalBreakdown(const EventTable& table);

// HTA's get_gpu_user_annotation_breakdown: the durations of the gpu_user_annotation events (or,
// with useGpuAnnotation = false, the CPU user_annotation events) grouped by name. When there are
// more names than numKernels, HTA folds the names past numKernels, or whose running sum (largest
// first) is above the durationRatio quantile of the running sums, into "others", whose row then
// describes the folded names' sums.
struct AnnotationRow {
    std::string name;
    double sumUs = 0, maxUs = 0, minUs = 0, meanUs = 0;
    double stddev = 0; // sample standard deviation, 0 for a single event
    size_t count = 0;  // events (for "others": names folded)
};
struct AnnotationBreakdown {
    bool present = false; // the trace has events of that category at all (HTA returns None otherwise)
    int rank = 0;
    bool gpu = true;
    std::vector<AnnotationRow> rows; // sorted by name, as HTA returns them
};
AnnotationBreakdown userAnnotationBreakdown(const EventTable& table, bool useGpuAnnotation = true,
                                            size_t numKernels = 1000, double durationRatio = 0.8);

} // namespace ks::hta
