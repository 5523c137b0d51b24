#pragma once

#include "core/analysis/overview/gputimeline.h"
#include "core/analysis/overview/kernelsummary.h"
#include "core/analysis/overview/launchattribution.h"
#include "core/analysis/overview/parentindex.h"
#include "core/analysis/overview/perfmodel.h"
#include "core/analysis/overview/shortkernels.h"

#include <map>
#include <string>
#include <vector>

namespace ks {

class LinkIndex;

// Everything the Overview computes, as of the last update.
struct OverviewResult {
    GpuTimelineMetrics timeline;                 // all GPU work of the trace (TraceLens's gpu_timeline)
    std::map<int, GpuTimelineMetrics> perDevice; // by device index (-1: device unknown)
    KernelSummary kernels;                       // TraceLens's launchers (the CSV files)
    KernelSummary kernelsByCode; // each launch credited to the code that made it (what people read)
    std::vector<PerfSheet> perfSheets;
    std::vector<HistogramBin> shortKernels;
    size_t gpuWork = 0;      // GPU work items considered
    size_t unlinkedWork = 0; // ... of which no launch was found (left out of the timeline, as TraceLens does)
    bool gpuOnly = false;    // no CPU op in the trace (TraceLens then writes only timeline and kernels)
};

struct OverviewOptions {
    TimeWindow window;
    double shortKernelThresholdUs = 10.0;
    int shortKernelBins = 100;
};

// The trace overview: TraceLens's GPU timeline, kernel/op summaries, perf model and short kernel
// histogram over a Kinetoscope trace. Qt-free; one instance per trace.
//
// Incremental: update() gathers only GPU work appended since the previous call and feeds the
// timeline unions with it; the summaries are rebuilt from the gathered work (sorts of flat arrays,
// near-linear), so a live session can call update() after each batch and read result().
class Overview {
public:
    explicit Overview(OverviewOptions options = {});

    // Takes new GPU work from the trace; links must be built over the same trace (rebuild it when
    // the trace has grown).
    void update(const Trace& trace, const LinkIndex& links);
    const OverviewResult& result() const { return m_result; }
    // Every piece of GPU work seen so far with its runtime call, launcher and parent op (for views
    // that jump from a summary row to the slices behind it).
    const LaunchAttribution& attribution() const { return m_attribution; }

private:
    OverviewOptions m_options;
    ParentIndex m_parents;
    LaunchAttribution m_attribution;
    size_t m_fed = 0; // items already fed to the timelines
    bool m_sawCpuOp = false;
    GpuTimeline m_all;
    std::map<int, GpuTimeline> m_devices;
    OverviewResult m_result;
};

// One-shot convenience: builds the link index and runs the overview once.
OverviewResult computeOverview(const Trace& trace, const OverviewOptions& options = {});

// The [start, end) window of ProfilerStep#first .. ProfilerStep#last; inactive (and false) when the
// trace has no such steps.
bool stepWindow(const Trace& trace, int64_t first, int64_t last, TimeWindow& out);

} // namespace ks
