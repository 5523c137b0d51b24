#pragma once

#include "analysis/linkindex.h"
#include "analysis/overview/finding.h"
#include "analysis/overview/idletime.h"
#include "analysis/overview/launchstats.h"
#include "analysis/overview/stepbreakdown.h"

#include <atomic>
#include <limits>
#include <vector>

namespace ks {

// What the Overview shows and `kinetoscope analyze` prints: every overview analysis of one trace (or
// of a time range of it) and the findings made from them.
struct OverviewReport {
    StepBreakdown steps;
    std::vector<StreamIdle> idle;
    LaunchStats launches;
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

// Runs the analyses in order, checking `cancel` between them (a view re-scoped while this runs
// drops the result).
OverviewReport buildOverview(const Trace& trace, const LinkIndex& links, const OverviewScope& scope = {},
                             const std::atomic<bool>* cancel = nullptr);

} // namespace ks
