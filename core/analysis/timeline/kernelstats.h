#pragma once

#include "core/model/trace.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace ks {

class LinkIndex;

// One row of the kernel table: every piece of GPU work (kernel, memcpy, memset) of one name.
struct KernelRow {
    StringId name;
    EventKind kind = EventKind::Kernel;
    uint64_t count = 0;
    TimeNs total = 0;
    TimeNs min = 0;
    TimeNs max = 0;
    double mean = 0;
    double share = 0; // of all GPU work time, 0..1

    // Launch configuration as the trace records it. When launches differ, the most frequent value
    // is shown and variants counts the other distinct values.
    std::string grid;
    std::string block;
    int gridVariants = 0;
    int blockVariants = 0;
    int64_t registersPerThread = -1; // -1 when the trace does not say
    int64_t sharedMemory = -1;
    // TensorBoard's kernel view: duration-weighted means of the trace's "blocks per SM" and
    // "est. achieved occupancy %" over every launch, a launch that does not report the value
    // counting as 0 as the plugin does; -1 when no launch of this name reports it.
    double blocksPerSm = -1;
    double occupancy = -1;
    // Kernels only. Whether the name is one of the plugin's Tensor Core patterns, and how many
    // launches came from an op that can use Tensor Cores (the plugin's op list, or any op that
    // launched this kernel when it uses them); attributedLaunches counts launches with a known op.
    bool tensorCores = false;
    uint64_t tcEligibleLaunches = 0;
    uint64_t attributedLaunches = 0;

    // Ops that launched it, most frequent first, with how many launches each made.
    std::vector<std::pair<StringId, uint32_t>> launchers;
    // Every occurrence in start order (ties: by track).
    std::vector<SliceRef> occurrences;
};

struct KernelStats {
    std::vector<KernelRow> rows; // by total time, longest first
    TimeNs gpuTotal = 0;         // sum of all GPU work durations
    uint64_t gpuCount = 0;
};

// Aggregates all kernels, memcpys and memsets of a trace by name. Launching ops come from links when
// given. Returns an empty result when cancelled.
KernelStats computeKernelStats(const Trace& trace, const LinkIndex* links,
                               const std::atomic<bool>* cancel = nullptr);

} // namespace ks
