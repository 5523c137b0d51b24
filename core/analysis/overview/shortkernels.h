#pragma once

#include "core/analysis/overview/launchattribution.h"

#include <vector>

namespace ks {

struct HistogramBin {
    double start = 0; // µs
    double end = 0;
    uint64_t count = 0;
};

// TraceLens's short_kernel_histogram.csv: the durations (µs) of kernels (not memcpy/memset) shorter
// than thresholdUs, binned like numpy.histogram(values, bins): equal-width bins from the smallest
// to the largest value (±0.5 when all are equal), the last bin closed. Empty when none is short.
std::vector<HistogramBin> shortKernelHistogram(const std::vector<GpuWorkItem>& items,
                                               double thresholdUs = 10.0, int bins = 100);

} // namespace ks
