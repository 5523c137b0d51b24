#pragma once

#include "core/model/counters.h"
#include "core/model/types.h"

#include <limits>
#include <vector>

namespace ks {

// A counter reduced to one entry per pixel column: the range of values the step function takes
// inside the column (for the envelope) and its value at the column's right edge (for the line).
struct CounterColumn {
    int column = 0;
    double min = 0;
    double max = 0;
    double last = 0;
};

// Columns of [t0, t1] at `pixels` columns where the counter has a value (from its first sample on;
// a sample holds until the next one). The last sample holds until `holdUntil` when that is later
// (a live session's "now": the counter's value stands until a new sample says otherwise), else it
// ends the counter. Cost is a search and a few block summaries (CounterTrack::valueRange) per
// column that holds samples, plus one per column.
std::vector<CounterColumn> counterColumns(const CounterTrack& counter, TimeNs t0, TimeNs t1, int pixels,
                                          TimeNs holdUntil = std::numeric_limits<TimeNs>::min());

// Largest and smallest value over all samples (0, 0 when empty).
void counterRange(const CounterTrack& counter, double& lo, double& hi);

} // namespace ks
