#pragma once

#include "core/analysis/timeline/linkindex.h"
#include "core/model/trace.h"

#include <cstdint>
#include <vector>

namespace ks {

// One launch: the runtime/driver call and the GPU work it started.
struct Launch {
    SliceRef call;
    SliceRef work;
    TimeNs cpuDuration = 0;
    TimeNs gpuDuration = 0;
    TimeNs launchDelay = 0; // work start − call end, never negative
};

struct LaunchStats {
    std::vector<Launch> launches;
    // HTA's outliers (get_cuda_kernel_launch_stats).
    uint64_t shorterThanLaunch = 0; // GPU work shorter than the call that launched it
    uint64_t longCalls = 0;         // cpuDuration > runtimeCutoff
    uint64_t longDelays = 0;        // launchDelay > launchDelayCutoff
    TimeNs cpuTotal = 0, gpuTotal = 0, delayTotal = 0;
};

// HTA's kernel launch statistics: every piece of GPU work joined to the runtime call with its
// correlation id, with the call's duration, the work's duration and the delay between them.
// Deliberate difference: HTA joins only calls named cudaLaunchKernel(ExC)/cudaMemcpyAsync/
// cudaMemsetAsync; here any runtime or driver call that launched work counts (hipLaunchKernel,
// cuLaunchKernel of Triton, graph launches), since the join by correlation is the same.
class LaunchStatsAnalysis {
public:
    struct Options {
        TimeNs runtimeCutoff = 50'000;      // HTA: 50 µs
        TimeNs launchDelayCutoff = 100'000; // HTA: 100 µs
        TimeNs from = INT64_MIN, to = INT64_MAX;
    };

    LaunchStatsAnalysis(const Trace& trace, const LinkIndex& links) : m_trace(trace), m_links(links) {}
    LaunchStats compute(const Options& options) const;
    LaunchStats compute() const { return compute(Options()); }

private:
    const Trace& m_trace;
    const LinkIndex& m_links;
};

} // namespace ks
