#pragma once

#include "core/model/types.h"

#include <QString>
#include <vector>

namespace ks::ui {

struct RulerTick {
    TimeNs time = 0;
    bool major = false; // labelled
    QString label;      // relative to the origin, e.g. "12.5 ms"
};

// Tick marks for a time ruler over [t0, t1] drawn `width` pixels wide: major ticks at a 1/2/5 x 10^k
// step chosen so labels are at least minLabelSpacing pixels apart, five minor ticks per major one,
// labels relative to origin (the trace start) in one unit that suits the step.
std::vector<RulerTick> rulerTicks(TimeNs t0, TimeNs t1, double width, TimeNs origin,
                                  double minLabelSpacing = 110);

// Step between major ticks as chosen by rulerTicks.
TimeNs rulerStep(TimeNs span, double width, double minLabelSpacing = 110);

} // namespace ks::ui
