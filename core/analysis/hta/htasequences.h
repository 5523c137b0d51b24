#pragma once

#include "core/analysis/hta/htaevents.h"

#include <string>
#include <vector>

namespace ks::hta {

// One kernel sequence of HTA's get_frequent_cuda_kernel_sequences: the operator's name followed by
// the names of the GPU kernels launched under it, in start order.
struct KernelSequence {
    std::vector<std::string> names; // [operator, kernel, kernel, ...]
    std::string pattern;            // the names joined with '|', as HTA prints them
    size_t count = 0;
    double gpuKernelUs = 0; // sum of the kernels' durations over all occurrences
    double cpuOpUs = 0;     // sum of the operator's durations
};

struct KernelSequenceOptions {
    std::string operatorName; // a substring of the operators' names
    size_t minPatternLength = 3;
};

// HTA's get_frequent_cuda_kernel_sequences for the trace's rank. HTA builds a call graph: the
// events of each CPU thread nested by time, each runtime call parent of the GPU work it launched
// (correlation id), and the backward thread's top-level events hung under the main thread's
// "## backward ##" ranges (or its ProfilerStep ranges). The candidates are the events whose name
// contains the operator name; only those at the smallest depth among them, with at least
// minPatternLength kernels below, are counted, so nested matches are not counted twice. Patterns
// are sorted by count (descending), then by their text.
std::vector<KernelSequence> frequentKernelSequences(const EventTable& table,
                                                    const KernelSequenceOptions& options);

} // namespace ks::hta
