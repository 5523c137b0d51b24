#pragma once

#include "core/model/types.h"
#include "core/util/id.h"

#include <string>
#include <vector>

namespace ks {

// One plain-language observation about a trace, with the numbers behind it and the events it is
// about, so a view can select them on the timeline. Findings are made only from measured causes
// (analysis/overview/findings.h); weight orders them: the share of the step or trace time at stake.
struct Finding {
    enum class Kind : uint8_t {
        GpuIdle,
        LaunchBound,
        DataLoader,
        Memcpy,
        Communication,
        RuntimeOverhead,
        StepVariance,
        LaunchDelay,
        LowEfficiency,
        CpuBound,
    };
    Kind kind;
    double weight = 0;  // 0..1
    std::string title;  // one line: what and how much
    std::string detail; // the numbers and what usually helps
    std::vector<SliceRef> events;
    TimeNs from = 0, to = 0; // a time range to show, when the finding is about one (e.g. a step)
};

} // namespace ks
