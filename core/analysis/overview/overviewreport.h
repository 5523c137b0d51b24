#pragma once

#include "core/analysis/overview/devicepeaks.h"
#include "core/analysis/overview/finding.h"
#include "core/analysis/overview/idletime.h"
#include "core/analysis/overview/launchstats.h"
#include "core/analysis/overview/overview.h"
#include "core/analysis/overview/stepbreakdown.h"
#include "core/analysis/timeline/linkindex.h"

#include <atomic>
#include <limits>
#include <optional>
#include <vector>

namespace ks {

// One op (with its parameters) of a perf sheet placed on the roofline of the trace's device.
struct RooflinePoint {
    std::string sheet;       // "GEMM", "SDPA_fwd", ...
    size_t row = 0;          // index into that sheet's rows
    std::string label;       // "aten::mm M=8944 N=2816 K=1024"
    double flopsPerByte = 0; // arithmetic intensity
    double tflopsPerS = 0;   // achieved (mean over calls)
    double roofTflops = 0;   // attainable: min(compute roof, intensity × bandwidth); 0 without a peak
    double computeRoofTflops = 0;
    double kernelUs = 0; // total GPU time of its calls: how much it matters
    uint64_t calls = 0;
    double fractionOfRoof() const { return roofTflops > 0 ? tflopsPerS / roofTflops : 0; }
};

// What the Overview shows and `kinetoscope analyze` prints: every overview analysis of one trace (or
// of a time range of it) and the findings made from them.
struct OverviewReport {
    StepBreakdown steps;
    std::vector<StreamIdle> idle;
    LaunchStats launches;
    OverviewResult gpu; // TraceLens's GPU timeline, kernel/op summaries, perf sheets, histogram
    std::string deviceName;
    std::optional<DevicePeak> peak;
    std::vector<RooflinePoint> roofline;
    std::vector<Finding> findings;
    bool cancelled = false;
};

struct OverviewScope {
    TimeNs from = std::numeric_limits<TimeNs>::min();
    TimeNs to = std::numeric_limits<TimeNs>::max();
    bool scoped() const
    {
        return from != std::numeric_limits<TimeNs>::min() || to != std::numeric_limits<TimeNs>::max();
    }
};

struct OverviewReportOptions {
    OverviewScope scope;
    std::optional<DevicePeak> peak; // instead of the trace's device from the built-in table
};

// Runs the analyses in order, checking `cancel` between them (a view re-scoped while this runs
// drops the result).
OverviewReport buildOverview(const Trace& trace, const LinkIndex& links,
                             const OverviewReportOptions& options = {},
                             const std::atomic<bool>* cancel = nullptr);

} // namespace ks
