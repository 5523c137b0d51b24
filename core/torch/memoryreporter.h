#pragma once

#include <memory>
#include <torch/csrc/profiler/orchestration/observer.h>
#include <tuple>

namespace ks::torchobs {

namespace detail {
template <class F>
struct MemberArgs;
template <class R, class C, class... A>
struct MemberArgs<R (C::*)(A...)> {
    using Tuple = std::tuple<A...>;
};
} // namespace detail

// The type of reportMemoryUsage's running totals: int64_t in torch 1.13, size_t in torch 2.x.
// Taken from c10's declaration, so that the library also builds on first use against whichever
// torch runs (resources/python/kinetoscope/torchbuild.py).
using MemoryTotal = std::tuple_element_t<
    2, detail::MemberArgs<decltype(&c10::MemoryReportingInfoBase::reportMemoryUsage)>::Tuple>;

// Receives c10::reportMemoryUsageToProfiler() calls (every CPU and CUDA allocator reports there
// while a profiler's memory reporting is on) and records them as allocations and frees.
//
// c10 finds the reporter in the thread-local debug info under PROFILER_STATE, which torch's own
// profiler state also occupies and which torch reads back as a ProfilerStateBase (profilerEnabled(),
// profilerType()); so this is one, with a disabled config: torch sees no profiler running, and the
// allocators see memory profiling on. Threads that run work for this one (autograd's engine,
// at::launch) inherit it through ThreadLocalState, as they inherit torch's profiler.
class MemoryReporter final : public torch::profiler::impl::ProfilerStateBase {
public:
    MemoryReporter();

    void reportMemoryUsage(void* ptr, int64_t allocSize, MemoryTotal totalAllocated,
                           MemoryTotal totalReserved, c10::Device device) override;
    bool memoryProfilingEnabled() const override { return true; }
    torch::profiler::impl::ActiveProfilerType profilerType() override;

    // Installs a reporter on the calling thread; false (and nothing installed) when a profiler
    // state is already there (torch's profiler is running on this thread).
    static bool install();
    // Removes the reporter install() put on the calling thread, if it is still the innermost.
    static void uninstall();
};

} // namespace ks::torchobs
