#pragma once

#include "core/analysis/overview/devicepeaks.h"
#include "core/analysis/overview/finding.h"
#include "core/analysis/overview/gputimeline.h"
#include "core/analysis/overview/idletime.h"
#include "core/analysis/overview/launchstats.h"
#include "core/analysis/overview/stepbreakdown.h"
#include "core/analysis/timeline/linkindex.h"

#include <vector>

namespace ks {

// Turns the overview analyses into ranked findings. Each rule fires only on a measured cause above
// a threshold a profiler user would act on (documented in docs/analyze.md), names the numbers and
// links the events behind them. Rules are fed analysis by analysis, so a view can show what it has.
class FindingsBuilder {
public:
    struct Thresholds {
        double stepShare = 0.05;    // DataLoader, Memcpy: 5 % of the step
        double runtimeShare = 0.10; // runtime calls not hidden behind GPU work
        double communicationShare = 0.10;
        double gpuIdleShare = 0.20;     // GPU idle (Other + CPU categories) within the step
        double roofShare = 0.05;        // an op with this share of GPU busy time ...
        double roofFraction = 0.30;     // ... reaching less than this fraction of its roofline
        double stepVariation = 0.20;    // coefficient of variation of step times
        TimeNs shortKernel = 5'000;     // "launch-bound" kernels: shorter than 5 µs
        size_t shortKernelCount = 1000; // ... and at least this many ...
        double shortKernelShare = 0.5;  // ... making up this share of all kernels
    };

    FindingsBuilder(const Trace& trace, const LinkIndex& links) : m_trace(trace), m_links(links) {}
    explicit FindingsBuilder(const Trace& trace, const LinkIndex& links, const Thresholds& t)
        : m_trace(trace), m_links(links), m_thresholds(t)
    {}

    void addSteps(const StepBreakdown& steps);
    // HTA's idle breakdown: explains the GPU idle finding that addGpuTimeline makes.
    void addIdle(const std::vector<StreamIdle>& idle);
    void addLaunches(const LaunchStats& launches);
    // TraceLens's timeline: GPU idle (explained by the idle breakdown given to addIdle) and exposed
    // communication.
    void addGpuTimeline(const GpuTimelineMetrics& timeline);
    // Ops far below their roofline that take a real share of GPU time.
    void addRoofline(const std::vector<struct RooflinePoint>& points, const GpuTimelineMetrics& timeline,
                     const std::optional<DevicePeak>& peak);

    // Findings so far, heaviest first.
    std::vector<Finding> findings() const;

private:
    void add(Finding f) { m_findings.push_back(std::move(f)); }
    std::vector<SliceRef> eventsOfKind(EventKind kind, TimeNs from, TimeNs to, size_t limit) const;
    std::string topLaunchers(const std::vector<SliceRef>& work, size_t limit) const;

    const Trace& m_trace;
    const LinkIndex& m_links;
    Thresholds m_thresholds;
    std::vector<Finding> m_findings;
    // From addIdle, for the GPU idle finding.
    TimeNs m_hostWait = 0, m_kernelWait = 0, m_otherWait = 0, m_longestHostWait = 0;
    SliceRef m_afterLongestHostWait;
};

} // namespace ks
