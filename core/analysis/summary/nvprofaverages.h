#pragma once

#include "core/analysis/summary/keyaverages.h"
#include "core/model/trace.h"

#include <vector>

namespace ks {

// key_averages() for a trace read from an nvprof database (io/nvprofreader.h), as torch 1.13 gets
// it from torch.autograd.profiler.parse_nvprof_trace(path) followed by EventList._build_tree():
//  - one FunctionEvent per NVTX range, all on one thread (torch sets thread=0 for every range);
//  - each range gets, as its kernels, every kernel whose runtime call (same correlation id) lies
//    strictly inside the range in time, on any thread: so an op's kernels are counted again by
//    every range around it, as torch counts them;
//  - torch's tree (nesting by time), duplicate-child removal (which replaces a parent's kernels by
//    its only child's) and self values.
// Two torch bugs are not repeated: times are nvprof's nanoseconds, which torch passes on as
// microseconds (its times read 1000x too long), and the rows carry `legacy` so that the table's
// self-device total counts them instead of asserting.
class NvprofAverages {
public:
    // The trace came from an nvprof database ("sourceFormat": "nvprof").
    static bool applies(const Trace& trace);
    // Rows in torch's order (first appearance in the start-ordered event list). hasKernels tells
    // whether any range got a kernel (torch's use_cuda columns).
    static std::vector<KeyAverage> compute(const Trace& trace, bool* hasKernels = nullptr);
};

} // namespace ks
